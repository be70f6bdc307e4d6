#include "stepdoctor/analysis/tf_event_stalls.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "stepdoctor/analysis/statistics.h"

namespace stepdoctor {

std::vector<EventStallRun> ScalarsToEventStalls(const std::vector<ScalarSeries>& scalars) {
  // Per run: the earliest wall time each step was logged at, over all tags.
  std::map<std::string, std::map<int64_t, double>> runs;
  for (const auto& s : scalars)
    for (size_t i = 0; i < s.step.size() && i < s.wall_time_s.size(); ++i) {
      auto [it, fresh] = runs[s.run].emplace(s.step[i], s.wall_time_s[i]);
      if (!fresh) it->second = std::min(it->second, s.wall_time_s[i]);
    }
  std::vector<EventStallRun> out;
  for (const auto& [run, points] : runs) {
    // Keep points whose wall time moves forward (a restarted job rewrites earlier steps).
    std::vector<std::pair<int64_t, double>> p;
    for (const auto& [step, wall] : points)
      if (p.empty() || wall > p.back().second) p.push_back({step, wall});
    if (static_cast<int>(p.size()) - 1 < kStallMinIntervals) continue;
    EventStallRun r;
    r.run = run;
    r.first_step = p.front().first;
    r.last_step = p.back().first;
    r.intervals = static_cast<int>(p.size()) - 1;
    r.wall_s = p.back().second - p.front().second;
    std::vector<double> per_step;
    for (size_t i = 1; i < p.size(); ++i)
      per_step.push_back((p[i].second - p[i - 1].second) / double(p[i].first - p[i - 1].first));
    r.seconds_per_step = Median(per_step);
    r.steps_per_second = r.wall_s > 0 ? double(r.last_step - r.first_step) / r.wall_s : 0;
    double excess = 0;
    for (size_t i = 1; i < p.size(); ++i) {
      double dsteps = double(p[i].first - p[i - 1].first);
      double gap = p[i].second - p[i - 1].second;
      double expected = r.seconds_per_step * dsteps;
      if (gap >= kStallFactor * expected && gap - expected >= kStallMinSeconds) {
        r.stalls.push_back({p[i].first, gap, gap - expected});
        excess += gap - expected;
      }
    }
    r.stall_share_pct = r.wall_s > 0 ? 100.0 * excess / r.wall_s : 0;
    if (static_cast<int>(r.stalls.size()) >= kPeriodicMinStalls) {
      std::vector<double> spacing;
      for (size_t i = 1; i < r.stalls.size(); ++i) spacing.push_back(double(r.stalls[i].step - r.stalls[i - 1].step));
      double period = Median(spacing);
      bool regular = period > 0;
      for (double s : spacing) regular &= std::fabs(s - period) <= kPeriodTolerance * period;
      if (regular) r.period_steps = static_cast<int64_t>(std::llround(period));
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace stepdoctor
