#include "stepdoctor/importers/join_captures.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/model/trace_merge.h"

namespace stepdoctor {
namespace {

// What a part must show to be joined, read once.
struct CaptureInfo {
  bool eligible = false;  // one worker, numbered step markers, times in range
  std::string folder;
  int64_t first_step = 0, last_step = 0;
  int64_t lo = 0, hi = 0;  // the span of its events on host and device lines
};

CaptureInfo InfoOf(const Trace& t, const std::string& path, bool need_markers = true) {
  CaptureInfo c;
  if (t.workers.size() != 1) return c;
  int64_t lo = INT64_MAX, hi = INT64_MIN, first = INT64_MAX, last = INT64_MIN;
  for (const auto& line : t.timelines) {
    if (line.kind == TimelineKind::kDerived) continue;
    for (size_t i = 0; i < line.ev.size(); ++i) {
      const int64_t s = line.ev.start_ns[i], e = s + line.ev.dur_ns[i];
      if (!TimeInRange(s) || !TimeInRange(e)) return c;
      lo = std::min(lo, s);
      hi = std::max(hi, e);
      if (line.ev.kind[i] != EventKind::kStepMarker) continue;
      std::string_view name = t.str(line.ev.name[i]);
      const size_t hash = name.rfind('#');
      int64_t n = 0;
      if (hash == std::string_view::npos ||
          std::from_chars(name.data() + hash + 1, name.data() + name.size(), n).ec != std::errc())
        continue;
      first = std::min(first, n);
      last = std::max(last, n);
    }
  }
  if ((need_markers && first > last) || lo > hi) return c;
  c.eligible = true;
  c.folder = std::filesystem::path(path).parent_path().string();
  c.first_step = first;
  c.last_step = last;
  c.lo = lo;
  c.hi = hi;
  return c;
}

bool SameProcess(const Trace& a, const Trace& b) {
  const Worker &x = a.workers[0], &y = b.workers[0];
  return x.hostname == y.hostname && x.pid == y.pid && x.rank == y.rank;
}

// Removes the parts (and their paths) marked `gone`: joined into an earlier part.
void DropJoined(std::vector<Trace>* parts, std::vector<std::string>* paths, const std::vector<bool>& gone) {
  std::vector<Trace> out;
  std::vector<std::string> out_paths;
  for (size_t i = 0; i < parts->size(); ++i) {
    if (gone[i]) continue;
    out.push_back(std::move((*parts)[i]));
    out_paths.push_back(i < paths->size() ? (*paths)[i] : std::string());
  }
  *parts = std::move(out);
  *paths = std::move(out_paths);
}

// Appends parts idx[1..] to part idx[0] (times as they are), marking them `gone`.
Trace& JoinInto(std::vector<Trace>* parts, const std::vector<size_t>& idx, std::vector<bool>* gone) {
  Trace& into = (*parts)[idx[0]];
  for (size_t k = 1; k < idx.size(); ++k) {
    AppendCapture(into, std::move((*parts)[idx[k]]), 0);
    (*gone)[idx[k]] = true;
  }
  return into;
}

// TF1 timelines of one sess.run each, in one folder, one after another on the clock (StepStats
// times are wall-clock microseconds): a job that wrote a timeline per step. Workers of a
// distributed job write overlapping ones. Each run of such parts (at least two, in time order) is
// joined into the first, with a step marker per file spanning its events: the time between files
// (the loop, writing the timeline) is outside every step.
void JoinTf1Runs(std::vector<Trace>* parts, std::vector<std::string>* paths, ImportDiagnostics* notes) {
  std::map<std::string, std::vector<size_t>> by_folder;  // single-run TF1 parts per folder
  std::vector<CaptureInfo> span(parts->size());
  for (size_t i = 0; i < parts->size(); ++i) {
    const Trace& t = (*parts)[i];
    if (t.workers.size() != 1 || !t.workers[0].single_run || i >= paths->size()) continue;
    span[i] = InfoOf(t, (*paths)[i], /*need_markers=*/false);
    if (span[i].eligible) by_folder[span[i].folder].push_back(i);
  }
  std::vector<bool> gone(parts->size(), false);
  for (auto& [folder, idx] : by_folder) {
    if (idx.size() < 2) continue;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return span[a].lo < span[b].lo; });
    bool apart = true;
    for (size_t k = 1; k < idx.size(); ++k) apart &= span[idx[k]].lo >= span[idx[k - 1]].hi;
    if (!apart) continue;  // parallel workers, or clocks that do not say the order
    Trace& into = JoinInto(parts, idx, &gone);
    const WorkerId w{0};
    const DeviceId host = into.GetOrAddDevice(w, DeviceKind::kHostCpu, 0, "host CPU");
    Timeline& marks = into.timeline(into.AddTimeline(w, host, TimelineKind::kDerived, -1, "sess.run (one timeline file each)"));
    for (size_t k = 0; k < idx.size(); ++k)
      marks.Add(span[idx[k]].lo, span[idx[k]].hi - span[idx[k]].lo,
                into.strings.Intern(fmt::format("sess.run #{}", k + 1)), EventKind::kStepMarker);
    into.workers[0].single_run = false;
    if (std::string name = std::filesystem::path(folder).filename().string(); !name.empty()) into.workers[0].hostname = name;
    into.Finalize();
    notes->Note(ImportIssue::kJoinedCaptures,
                fmt::format("{} TF1 timeline files of {} read as one worker's successive sess.run calls, one step each "
                            "(their times follow one another); the time between files is outside every step",
                            idx.size(), folder.empty() ? std::string(".") : folder));
  }
  DropJoined(parts, paths, gone);
}

// SageMaker's profiler (smdebug) writes one process's events to several files, split by kind
// and by time: <end-us>_<pid>-<host>_{model,python,horovod}timeline.json under
// framework/pevents/<YYYYMMDDHR>/. Its step markers (Step:ModeKeys.TRAIN) are in the Python
// timeline, what ran inside them in the others. Files of one process under one run are joined
// into one worker (their clocks are the wall clock: the importer applies each file's start).
struct SmdebugName {
  std::string process;  // "<pid>-<host>"
  std::string run;      // the folder above framework/, else the file's folder
};

std::optional<SmdebugName> SmdebugNameOf(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string base = p.filename().string();
  size_t digits = 0;
  while (digits < base.size() && base[digits] >= '0' && base[digits] <= '9') ++digits;
  if (digits == 0 || digits >= base.size() || base[digits] != '_') return std::nullopt;
  for (std::string_view kind : {"_model_timeline.json", "_pythontimeline.json", "_horovod_timeline.json"}) {
    if (base.size() <= digits + 1 + kind.size() || base.compare(base.size() - kind.size(), kind.size(), kind) != 0)
      continue;
    SmdebugName n;
    n.process = base.substr(digits + 1, base.size() - kind.size() - digits - 1);
    const std::string folder = p.parent_path().string();
    const size_t fw = folder.rfind("/framework/");
    n.run = fw != std::string::npos ? folder.substr(0, fw) : folder;
    return n;
  }
  return std::nullopt;
}

void JoinSmdebugProcesses(std::vector<Trace>* parts, std::vector<std::string>* paths, ImportDiagnostics* notes) {
  std::map<std::pair<std::string, std::string>, std::vector<size_t>> groups;
  for (size_t i = 0; i < parts->size() && i < paths->size(); ++i)
    if ((*parts)[i].workers.size() == 1)
      if (auto n = SmdebugNameOf((*paths)[i])) groups[{n->run, n->process}].push_back(i);
  std::vector<bool> gone(parts->size(), false);
  for (const auto& [key, idx] : groups) {
    if (idx.size() < 2) continue;
    Trace& into = JoinInto(parts, idx, &gone);
    const std::string& process = key.second;  // "<pid>-<host>"
    Worker& w = into.workers[0];
    w.hostname = process;
    if (const size_t dash = process.find('-'); dash != std::string::npos) {
      int64_t pid = 0;
      if (std::from_chars(process.data(), process.data() + dash, pid).ec == std::errc() && dash + 1 < process.size()) {
        w.pid = pid;
        w.hostname = process.substr(dash + 1);
      }
    }
    into.Finalize();
    notes->Note(ImportIssue::kJoinedCaptures,
                fmt::format("{} SageMaker profiler files of process {} read as one worker (its model, Python and "
                            "Horovod timelines, on one clock)",
                            idx.size(), process));
  }
  DropJoined(parts, paths, gone);
}

// SageMaker's system monitor writes one file per node and minute (<epoch-s>.<node>.json, e.g.
// 1591748100.algo-1.json): the files of one node (NodeId) are one machine's samples, joined into
// one worker. Apart, each held a minute's few samples, under what a verdict needs.
void JoinSystemMetricsMinutes(std::vector<Trace>* parts, std::vector<std::string>* paths, ImportDiagnostics* notes) {
  std::map<std::string, std::vector<size_t>> by_node;
  for (size_t i = 0; i < parts->size(); ++i) {
    const Trace& t = (*parts)[i];
    if (t.format == "sagemaker-system-metrics" && t.workers.size() == 1 && t.timelines.empty() &&
        !t.workers[0].hostname.empty())
      by_node[t.workers[0].hostname].push_back(i);
  }
  std::vector<bool> gone(parts->size(), false);
  for (const auto& [node, idx] : by_node) {
    if (idx.size() < 2) continue;
    Trace& into = JoinInto(parts, idx, &gone);
    into.workers[0].hostname = node;
    into.Finalize();
    notes->Note(ImportIssue::kJoinedCaptures,
                fmt::format("{} SageMaker system-metrics files of node {} read as one machine's samples", idx.size(), node));
  }
  DropJoined(parts, paths, gone);
}

}  // namespace

void JoinCaptures(std::vector<Trace>* parts, std::vector<std::string>* paths, ImportDiagnostics* notes) {
  JoinSmdebugProcesses(parts, paths, notes);
  JoinSystemMetricsMinutes(parts, paths, notes);
  JoinTf1Runs(parts, paths, notes);
  std::vector<CaptureInfo> info;
  for (size_t i = 0; i < parts->size(); ++i) info.push_back(InfoOf((*parts)[i], i < paths->size() ? (*paths)[i] : ""));
  std::vector<Trace> out;
  std::vector<std::string> out_paths;
  for (size_t i = 0; i < parts->size();) {
    Trace joined = std::move((*parts)[i]);
    CaptureInfo at = info[i];
    size_t j = i + 1;
    bool moved = false;
    std::string steps = fmt::format("#{}-{}", at.first_step, at.last_step);
    for (; j < parts->size() && at.eligible; ++j) {
      const CaptureInfo& next = info[j];
      if (!next.eligible || next.folder != at.folder || next.first_step <= at.last_step ||
          !SameProcess(joined, (*parts)[j]))
        break;
      // A clock restarted at zero: the later capture follows the earlier one.
      const int64_t shift = next.lo < at.hi ? at.hi + kCaptureGapNs - next.lo : 0;
      if (!TimeInRange(shift) || !TimeInRange(next.hi + shift)) break;
      AppendCapture(joined, std::move((*parts)[j]), shift);
      moved |= shift != 0;
      steps += fmt::format(", #{}-{}", next.first_step, next.last_step);
      at.last_step = next.last_step;
      at.hi = next.hi + shift;
    }
    if (j > i + 1) joined.Finalize();  // the appended lines sorted again
    if (j > i + 1)
      notes->Note(ImportIssue::kJoinedCaptures,
                  fmt::format("{} files of {} read as one worker: successive profiling cycles (ProfilerStep {}){}", j - i,
                              joined.workers[0].hostname, steps,
                              moved ? "; their clocks each start at zero, so the cycles are placed one after another"
                                    : ""));
    out.push_back(std::move(joined));
    out_paths.push_back(i < paths->size() ? (*paths)[i] : std::string());
    i = j;
  }
  *parts = std::move(out);
  *paths = std::move(out_paths);
}

}  // namespace stepdoctor
