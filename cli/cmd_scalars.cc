// stepdoctor scalars LOGDIR...: what TensorBoard event files logged, per run and tag (count,
// steps, last value, min, trend, step rate), and the stalls their wall times show.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "stepdoctor/analysis/tf_event_stalls.h"
#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/importers/tfevents/tfevents_to_trace.h"

namespace stepdoctor::cli {
namespace {

constexpr double kTrendFlatPct = 2.0;  // |change over the last half| below 2% of the mean: flat

// Least-squares slope of value over step on the last half of the points, as a change over
// that half relative to its mean: "falling", "rising" or "flat".
std::string Trend(const ScalarSeries& s) {
  size_t n = s.value.size();
  if (n < 4) return "-";
  size_t from = n / 2;
  double k = double(n - from), mx = 0, my = 0;
  for (size_t i = from; i < n; ++i) {
    mx += double(s.step[i]);
    my += s.value[i];
  }
  mx /= k;
  my /= k;
  double sxy = 0, sxx = 0;
  for (size_t i = from; i < n; ++i) {
    sxy += (double(s.step[i]) - mx) * (s.value[i] - my);
    sxx += (double(s.step[i]) - mx) * (double(s.step[i]) - mx);
  }
  if (sxx <= 0 || my == 0) return "flat";
  double change_pct = 100.0 * sxy / sxx * double(s.step[n - 1] - s.step[from]) / std::fabs(my);
  if (change_pct <= -kTrendFlatPct) return fmt::format("falling {:.0f}%", change_pct);
  if (change_pct >= kTrendFlatPct) return fmt::format("rising +{:.0f}%", change_pct);
  return "flat";
}

std::string Num(double v) {
  double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e6)) return fmt::format("{:.4g}", v);
  return fmt::format("{:.4f}", v);
}

}  // namespace

std::function<int()> SetupScalars(CLI::App& sub) {
  auto paths = std::make_shared<std::vector<std::string>>();
  sub.add_option("paths", *paths, "TensorBoard logdirs or event files")->required();
  return [paths]() -> int {
    auto r = ImportPaths(*paths);
    if (!r.ok()) {
      PrintError(r.message());
      return kExitBadInput;
    }
    Trace& t = r->trace;
    NormalizeScalarRuns(t);
    if (t.scalars.empty()) {
      std::printf("no scalars found in the event files read (%zu files)\n", r->files.size());
      return kExitOk;
    }
    std::stable_sort(t.scalars.begin(), t.scalars.end(), [](const ScalarSeries& a, const ScalarSeries& b) {
      return a.run != b.run ? a.run < b.run : a.tag < b.tag;
    });
    std::printf("%-16s %-28s %6s %8s %8s %12s %12s %-14s %8s\n", "run", "tag", "count", "first", "last", "last value",
                "min", "trend", "steps/s");
    for (const auto& s : t.scalars) {
      if (s.value.empty()) continue;
      double wall = s.wall_time_s.back() - s.wall_time_s.front();
      double rate = wall > 0 ? double(s.step.back() - s.step.front()) / wall : 0;
      std::printf("%-16s %-28s %6zu %8lld %8lld %12s %12s %-14s %8s\n", s.run.c_str(), s.tag.c_str(), s.value.size(),
                  static_cast<long long>(s.step.front()), static_cast<long long>(s.step.back()),
                  Num(s.value.back()).c_str(), Num(*std::min_element(s.value.begin(), s.value.end())).c_str(),
                  Trend(s).c_str(), rate > 0 ? fmt::format("{:.3g}", rate).c_str() : "-");
    }
    for (const auto& run : ScalarsToEventStalls(t.scalars)) {
      if (run.stalls.empty()) continue;
      double lost = 0;
      for (const auto& st : run.stalls) lost += st.excess_s;
      std::printf("\nrun %s: %zu stalls (gaps >= %.0fx the median %.3f s per step), %.1f s lost (%.1f%% of %.0f s)%s\n",
                  run.run.c_str(), run.stalls.size(), kStallFactor, run.seconds_per_step, lost, run.stall_share_pct,
                  run.wall_s,
                  run.period_steps > 0 ? fmt::format(", every {} steps: checkpoint or evaluation cost", run.period_steps).c_str()
                                       : "");
      for (size_t i = 0; i < run.stalls.size() && i < 5; ++i)
        std::printf("  before step %lld: %.1f s gap\n", static_cast<long long>(run.stalls[i].step), run.stalls[i].gap_s);
    }
    for (const auto& [issue, note] : t.diagnostics.notes())
      if (issue == ImportIssue::kCorruptRecord || issue == ImportIssue::kTruncatedInput)
        std::printf("note: %s\n", note.c_str());
    return kExitOk;
  };
}

}  // namespace stepdoctor::cli
