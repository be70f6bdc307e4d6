// stepdoctor summarize TRACE... -o OUT: each rank's trace to a compact summary, where the trace
// lies (a Slurm array task, a Kubernetes indexed job, the rank itself); stepdoctor merge
// SUMMARY...: the job report of the summaries, as `diagnose` gives for the traces together.
#include <filesystem>
#include <memory>
#include <system_error>

#include "commands.h"
#include "stepdoctor/render/render.h"
#include "stepdoctor/summary/rank_summaries_to_report.h"
#include "stepdoctor/summary/summary_file.h"
#include "stepdoctor/summary/trace_to_rank_summary.h"

namespace stepdoctor::cli {
namespace fs = std::filesystem;
namespace {

struct SummarizeArgs {
  std::vector<std::string> paths;
  std::string output;
};

// Where the summary of `input` goes: `out` itself for one input named as a file, else
// `out`/<input's file name>.sdsum (`out` empty: the current folder).
std::string SummaryPathFor(const std::string& input, const std::string& out, bool out_is_dir) {
  if (!out.empty() && !out_is_dir) return out;
  std::string name = fs::path(input).filename().string();
  if (name.empty()) name = fs::path(input).parent_path().filename().string();  // "dir/"
  return (out.empty() ? fs::path(name) : fs::path(out) / name).string() + std::string(kSummaryExtension);
}

int RunSummarize(const SummarizeArgs& a) {
  std::error_code ec;
  const bool ends_with_slash = !a.output.empty() && a.output.back() == '/';
  bool out_is_dir = !a.output.empty() && (ends_with_slash || fs::is_directory(a.output, ec));
  if (a.paths.size() > 1 && !a.output.empty() && !out_is_dir) {
    PrintError("-o " + a.output + ": with several traces, -o names a folder (an existing one, or end it with /)");
    return kExitBadInput;
  }
  if (out_is_dir && !fs::is_directory(a.output, ec)) {
    fs::create_directories(a.output, ec);
    if (ec) {
      PrintError(a.output + ": cannot create the folder: " + ec.message());
      return kExitBadInput;
    }
  }
  for (const std::string& path : a.paths) {
    // One input at a time: memory holds one trace, however many are summarised.
    auto imported = ImportForCommand({path}, "");
    if (!imported) return kExitBadInput;
    auto s = TraceToRankSummary(imported->trace, path);
    if (!s.ok()) {
      PrintError(s.message());
      return kExitBadInput;
    }
    const std::string out = SummaryPathFor(path, a.output, out_is_dir);
    if (Status st = WriteSummaryFile(*s, out); !st.ok()) {
      PrintError(st.message());
      return kExitBadInput;
    }
    PrintInfo("wrote " + out + (s->has_steps ? "" : " (no steps found: it cannot be held against other ranks)"));
  }
  return kExitOk;
}

}  // namespace

SummaryInputs FindSummaryInputs(const std::vector<std::string>& paths) {
  SummaryInputs in;
  for (const std::string& p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      int others = 0;
      for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (!it->is_regular_file(ec)) continue;
        if (IsSummaryPath(it->path().string())) found.push_back(it->path().string());
        else ++others;
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) {
        in.not_summaries.push_back(p);
      } else {
        in.in_folders.insert(in.in_folders.end(), found.begin(), found.end());
        in.other_files_in_folders += others;
      }
    } else if (IsSummaryPath(p)) {
      in.named.push_back(p);
    } else {
      in.not_summaries.push_back(p);
    }
  }
  return in;
}

std::optional<Report> MergeSummaries(const SummaryInputs& in) {
  std::vector<RankSummary> summaries;
  std::vector<std::string> skipped;
  for (const std::string& p : in.named) {
    auto s = ReadSummaryFile(p);
    if (!s.ok()) {
      PrintError(s.message());
      return std::nullopt;
    }
    summaries.push_back(std::move(*s));
  }
  for (const std::string& p : in.in_folders) {
    auto s = ReadSummaryFile(p);
    if (!s.ok()) skipped.push_back(s.message() + ": skipped");
    else summaries.push_back(std::move(*s));
  }
  if (summaries.empty()) {
    PrintError((skipped.empty() ? std::string("no summaries") : skipped.front()) + "; no summary could be read");
    return std::nullopt;
  }
  Report r = RankSummariesToReport(std::move(summaries));
  r.diagnostics.insert(r.diagnostics.end(), skipped.begin(), skipped.end());
  if (in.other_files_in_folders > 0)
    r.notes.push_back(std::to_string(in.other_files_in_folders) +
                      " file(s) beside the summaries in their folders were not read (only .sdsum files are)");
  return r;
}

std::function<int()> SetupSummarize(CLI::App& sub) {
  auto a = std::make_shared<SummarizeArgs>();
  sub.add_option("traces", a->paths, "one rank's trace per path (Chrome-trace JSON, .xplane.pb, a logdir)")->required();
  sub.add_option("-o,--output", a->output,
                 "the summary file (one trace), or a folder for one <trace name>.sdsum each (default: the current "
                 "folder)");
  return [a] { return RunSummarize(*a); };
}

std::function<int()> SetupMerge(CLI::App& sub) {
  auto paths = std::make_shared<std::vector<std::string>>();
  auto o = std::make_shared<ReportCliOptions>();
  sub.add_option("summaries", *paths, "summary files (.sdsum) or folders holding them")->required();
  AddReportCliOptions(sub, o.get(), RendererNames(), "straggler>=moderate");
  return [paths, o]() -> int {
    Renderer render = FindRenderer(o->format);
    if (!render) {
      PrintError("--format " + o->format + ": unknown format");
      return kExitBadInput;
    }
    auto fail_on = ParseFailOnFlags(o->fail_on, /*is_diff=*/false);
    if (!fail_on.ok()) {
      PrintError(fail_on.message());
      return kExitBadInput;
    }
    SummaryInputs in = FindSummaryInputs(*paths);
    if (!in.not_summaries.empty()) {
      std::error_code ec;
      if (!fs::exists(in.not_summaries.front(), ec)) {
        PrintError(in.not_summaries.front() + ": no such file or directory");
        return kExitBadInput;
      }
      PrintError(in.not_summaries.front() + ": not a summary (.sdsum) nor a folder holding one; `stepdoctor "
                                             "summarize` makes them, `stepdoctor diagnose` reads traces");
      return kExitBadInput;
    }
    std::optional<Report> report = MergeSummaries(in);
    if (!report) return kExitBadInput;
    RenderOptions ro;
    ro.color = ColorWanted(o->format, o->output);
    ro.width = o->width;
    if (!WriteOutput(render(*report, ro), o->output)) return kExitBadInput;
    return CheckFailOn(*fail_on, *report, nullptr);
  };
}

}  // namespace stepdoctor::cli
