#include "stepdoctor/importers/import_paths.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "stepdoctor/importers/join_captures.h"
#include "stepdoctor/importers/tfevents/tfevents_to_trace.h"
#include "stepdoctor/importers/tfprofile/profile_pages_to_trace.h"
#include "stepdoctor/importers/tfprofile/profile_tables_to_trace.h"
#include "stepdoctor/model/trace_merge.h"

namespace stepdoctor {
namespace fs = std::filesystem;
namespace {

constexpr size_t kSniffBytes = 64 * 1024;  // enough to see a Chrome trace's first keys

// plugins/profile/<run>/<file> -> <run>; empty when the path is not under a profile run.
std::string ProfileRunOf(const std::string& path) {
  const std::string marker = "plugins/profile/";
  size_t at = path.rfind(marker);
  if (at == std::string::npos) return {};
  size_t start = at + marker.size();
  size_t slash = path.find('/', start);
  if (slash == std::string::npos) return {};
  return path.substr(start, slash - start);
}

// Files the TensorBoard profile plugin derives from a raw profile (overview_page.pb,
// input_pipeline.pb, tensorflow_stats.pb, kernel_stats.pb, memory_profile.json.gz, ...).
bool IsProfilerAnalysisFile(const std::string& path) {
  static const char* kKinds[] = {".overview_page.", ".input_pipeline.", ".tensorflow_stats.", ".kernel_stats.",
                                 ".memory_profile.", ".pod_viewer.", ".op_profile.", ".memory_viewer.",
                                 "_overview_page_", "_input_pipeline_analyzer_", "_memory_profile_"};
  for (const char* k : kKinds)
    if (path.find(k) != std::string::npos) return true;
  return false;
}

bool StartsWithArray(std::string_view head) {
  size_t i = head.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && head[i] == '[';
}

bool IsNoiseFile(const fs::path& p) {
  std::string n = p.filename().string();
  return n.empty() || n[0] == '.' || n == "SOURCES.md" || n == "EXPECTED.md" || p.extension() == ".md";
}

// Other vendors' monitoring tools print tables like nvidia-smi's. Named where one is seen in the
// first bytes, so an accelerator log is not taken for an unknown file; empty where none is.
std::string OtherVendorSmiOf(std::string_view head) {
  struct Tool {
    std::string_view marker, what;
  };
  static constexpr Tool kTools[] = {
      {"npu-smi", "an npu-smi table (Huawei Ascend NPUs)"},
      {"ROCm System Management Interface", "a rocm-smi table (AMD GPUs)"},
      {"AMD-SMI", "an amd-smi table (AMD GPUs)"},
      {"xpu-smi", "an xpu-smi table (Intel GPUs)"},
      {"hl-smi", "an hl-smi table (Intel Gaudi)"},
  };
  for (const Tool& t : kTools)
    if (head.find(t.marker) != std::string_view::npos) return std::string(t.what);
  return {};
}

// The head of PyTorch's execution trace: {"schema": ..., "pid": ..., "nodes": [{"id": ...,
// "name": "[pytorch|profiler|execution_trace|...]", "ctrl_deps": ...}, ...]}.
bool LooksLikeExecutionTrace(std::string_view head) {
  auto has = [&](std::string_view s) { return head.find(s) != std::string_view::npos; };
  return has("\"schema\"") && has("\"nodes\"") && (has("execution_trace") || has("\"ctrl_deps\""));
}

}  // namespace

Status ImportSource(PeekableSource& src, Trace& trace, const ImportOptions& opts, ImportedFile* info) {
  auto head = src.Peek(kSniffBytes);
  if (!head.ok()) return head.status();
  if (head->empty()) {
    if (src.truncated())  // a .gz cut inside its first block
      return Status(ErrorCode::kCorruptInput, src.name() + ": truncated compressed data (it ends before any content)");
    return Status(ErrorCode::kEmptyInput, src.name() + ": the file is empty");
  }
  // The profile plugin's pages are protobuf, which has no magic bytes: their names say what they are.
  if (TfProfilerPageKindOf(src.name()) != TfProfilerPageKind::kNone) return ImportTfProfilerPage(src, trace);
  // Their JSON form (an array of DataTables) is named the same way.
  if (TfProfilerTablesKindOf(src.name()) != TfProfilerPageKind::kNone && StartsWithArray(*head))
    return ImportTfProfilerTables(src, trace);
  InputFormat f = DetectFormat(*head, src.name());
  if (info) info->format = f;
  FormatImporter imp = FindImporter(f);
  const Status plugin_page(ErrorCode::kUnknownFormat,
                           src.name() + ": a TensorBoard profile plugin page (an analysis converted from a profile), not the raw profile stepdoctor reads");
  // PyTorch's execution trace (ExecutionTraceObserver, the Chakra input): operators, their
  // tensors and dependencies, but no times, so nothing in it says where a step's time went.
  const Status execution_trace(
      ErrorCode::kUnknownFormat,
      src.name() + ": a PyTorch execution trace (ExecutionTraceObserver: operators and their dependencies, no times), "
                   "not a timed trace: diagnose the profiler's trace recorded with it (prof.export_chrome_trace)");
  const bool et = (f == InputFormat::kChromeJson || f == InputFormat::kJsonOther) && LooksLikeExecutionTrace(*head);
  if (!imp) {
    if (IsProfilerAnalysisFile(src.name())) return plugin_page;
    if (f == InputFormat::kUnknown) {
      if (std::string smi = OtherVendorSmiOf(*head); !smi.empty())
        return Status(ErrorCode::kUnknownFormat,
                      src.name() + ": " + smi + ", which stepdoctor does not read: it reads nvidia-smi's table, CSV and dmon "
                                                "logs, W&B system metrics and `stepdoctor run` samples");
      // `nvidia-smi -q`: one query's full report, not a log over time.
      if (head->find("NVSMI LOG") != std::string_view::npos)
        return Status(ErrorCode::kUnknownFormat,
                      src.name() + ": an `nvidia-smi -q` report (one query, not a log over time), which stepdoctor "
                                   "does not read; log while the job runs with nvidia-smi "
                                   "--query-gpu=timestamp,index,utilization.gpu,memory.used --format=csv -l 1");
      return Status(ErrorCode::kUnknownFormat, src.name() + ": not a format stepdoctor reads (not a Chrome trace, "
                                                            "XPlane profile, TensorBoard event file or GPU log)");
    }
    if (et) return execution_trace;
    return Status(ErrorCode::kUnknownFormat,
                  src.name() + ": " + InputFormatName(f) + " content that is not a trace stepdoctor reads");
  }
  Status st = imp(src, trace, opts);
  // A JSON object whose first keys outran the sniffed bytes goes to the Chrome importer, which
  // answers kUnknownFormat when no traceEvents array turns up: it was other JSON after all.
  if (f == InputFormat::kChromeJson && st.code() == ErrorCode::kUnknownFormat) {
    if (info) info->format = InputFormat::kJsonOther;
    if (IsProfilerAnalysisFile(src.name())) return plugin_page;
    if (et) return execution_trace;
  }
  return st;
}

Result<ImportResult> ImportPaths(const std::vector<std::string>& paths, const ImportOptions& opts) {
  ImportResult out;
  struct Candidate {
    std::string path;
    bool named;  // named on the command line, not found in a folder
  };
  std::vector<Candidate> files;
  for (const auto& p : paths) {
    std::error_code ec;
    auto st = fs::status(p, ec);
    if (ec || !fs::exists(st)) return Result<ImportResult>(ErrorCode::kNotFound, p + ": no such file or directory");
    if (fs::is_directory(st)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec) || IsNoiseFile(it->path())) continue;
        found.push_back(it->path().string());
      }
      if (ec) return Result<ImportResult>(ErrorCode::kIoError, p + ": " + ec.message());
      std::sort(found.begin(), found.end());
      for (auto& f : found) files.push_back({std::move(f), false});
    } else {
      files.push_back({p, true});
    }
  }

  // TensorBoard logdirs: of the profile runs found in folders, keep one (the newest, whose
  // name sorts last: runs are named by date), unless the caller picked one.
  std::map<std::string, int> runs;
  for (const auto& c : files)
    if (!c.named) {
      std::string r = ProfileRunOf(c.path);
      if (!r.empty()) runs[r]++;
    }
  for (const auto& [r, n] : runs) out.profile_runs.push_back(r);
  if (!runs.empty()) {
    out.chosen_run = opts.profile_run.empty() ? runs.rbegin()->first : opts.profile_run;
    if (!runs.count(out.chosen_run))
      return Result<ImportResult>(ErrorCode::kInvalidArgument, "--run " + out.chosen_run + ": no such profile run");
  }

  // A profile run may hold <host>.trace.json.gz beside <host>.xplane.pb: the same profile
  // converted. Read the XSpace, which has more, and say so.
  std::set<std::string> found_paths;
  for (const auto& c : files) found_paths.insert(c.path);
  auto xplane_twin = [&](const std::string& p) -> std::string {
    const std::string suffix = ".trace.json.gz";
    if (p.size() <= suffix.size() || p.compare(p.size() - suffix.size(), suffix.size(), suffix) != 0) return {};
    std::string twin = p.substr(0, p.size() - suffix.size()) + ".xplane.pb";
    return found_paths.count(twin) ? twin : std::string();
  };

  // What to read, in order.
  std::vector<const Candidate*> todo;
  for (const auto& c : files) {
    if (!c.named && !out.chosen_run.empty()) {
      std::string r = ProfileRunOf(c.path);
      if (!r.empty() && r != out.chosen_run) continue;
    }
    if (!c.named) {
      std::string twin = xplane_twin(c.path);
      if (!twin.empty()) {
        out.trace.diagnostics.Note(ImportIssue::kSkippedFile, c.path + ": the same profile as " + twin + ", read instead");
        continue;
      }
    }
    todo.push_back(&c);
  }

  // Each file is read into a Trace of its own, on up to WorkerThreads() threads (one file per
  // thread at a time), then merged in order: the result does not depend on the thread count.
  struct Part {
    Trace trace;
    ImportedFile info;
    Status status;
  };
  std::vector<Part> parts(todo.size());
  std::mutex progress_mu;
  ImportOptions part_opts = opts;
  if (opts.progress)
    part_opts.progress = [&](const std::string& path, uint64_t done, uint64_t total) {
      std::lock_guard<std::mutex> lock(progress_mu);
      opts.progress(path, done, total);
    };
  auto import_one = [&](size_t i) {
    Part& p = parts[i];
    p.info.path = todo[i]->path;
    auto src = OpenMaybeCompressed(todo[i]->path);
    p.status = src.ok() ? ImportSource(**src, p.trace, part_opts, &p.info) : src.status();
    if (src.ok()) p.info.bytes = (*src)->consumed();
  };
  const size_t threads = std::min<size_t>(todo.size(), size_t(std::max(1, WorkerThreads())));
  if (threads <= 1) {
    for (size_t i = 0; i < todo.size(); ++i) import_one(i);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (size_t i = next++; i < todo.size(); i = next++) import_one(i);
      });
    for (auto& th : pool) th.join();
  }

  std::vector<Trace> read;
  std::vector<std::string> read_paths;
  for (size_t i = 0; i < todo.size(); ++i) {
    Part& p = parts[i];
    if (!p.status.ok()) {
      if (todo[i]->named) return Result<ImportResult>(p.status.code(), p.status.message());
      // Inside a folder: a file we do not read is skipped and said so.
      p.info.error = p.status.message();
      out.trace.diagnostics.Note(ImportIssue::kSkippedFile, p.status.message());
    } else {
      read.push_back(std::move(p.trace));
      read_paths.push_back(todo[i]->path);
    }
    out.files.push_back(std::move(p.info));
  }
  const size_t readable = read.size();
  // A profiler's successive cycles of one process, one file each: one worker.
  JoinCaptures(&read, &read_paths, &out.trace.diagnostics);
  for (size_t i = 0; i < read.size(); ++i) {
    if (opts.keep_parts) {
      out.parts.push_back(std::move(read[i]));
      out.part_paths.push_back(read_paths[i]);
    } else {
      MergeTrace(out.trace, std::move(read[i]));
    }
  }
  if (readable == 0) {
    std::string where = paths.size() == 1 ? paths[0] : "the inputs";
    return Result<ImportResult>(ErrorCode::kEmptyInput, where + ": no trace, profile, event file or GPU log found");
  }
  if (!opts.keep_parts) {
    NormalizeScalarRuns(out.trace);  // event-file runs relative to the logdir: "train", "validation"
    out.trace.Finalize();
  }
  return out;
}

void MergeParts(ImportResult* r) {
  for (Trace& t : r->parts) MergeTrace(r->trace, std::move(t));
  r->parts.clear();
  r->part_paths.clear();
  NormalizeScalarRuns(r->trace);
  r->trace.Finalize();
}

}  // namespace stepdoctor
