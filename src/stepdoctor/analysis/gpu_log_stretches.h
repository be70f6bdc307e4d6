// Stretches of a GPU log: the samples no process holds the GPU in, the job's runs between them,
// and the longest stretch the GPU sat idle with memory held. resource_signals.cc reads them.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// The counters of one worker by name.
class WorkerSeries {
 public:
  WorkerSeries(const Trace& t, WorkerId w) {
    for (const auto& c : t.counters)
      if (c.worker == w && !c.value.empty()) by_name_[c.name] = &c;
  }
  const CounterSeries* Get(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : it->second;
  }
  // Empty where the series was not sampled.
  std::optional<double> MeanOf(std::string_view name) const {
    const CounterSeries* c = Get(name);
    if (!c) return std::nullopt;
    double sum = 0;
    for (double x : c->value) sum += x;
    return sum / double(c->value.size());
  }
  std::optional<double> MaxOf(std::string_view name) const {
    const CounterSeries* c = Get(name);
    return c ? std::optional<double>(*std::max_element(c->value.begin(), c->value.end())) : std::nullopt;
  }
  const std::map<std::string, const CounterSeries*>& all() const { return by_name_; }

 private:
  std::map<std::string, const CounterSeries*> by_name_;
};

// The memory a GPU shows with no process on it: the log's lowest reading, where that is under
// kHeldMemoryBytes or kNoProcessPeakShare of the peak (a display server, another user's small
// context). Empty where it is above both (a process's: the log is a run's phases) or there is no
// memory series.
std::optional<double> NoProcessBaseline(const CounterSeries* mem);

// Which samples of `util` have no process on the GPU: memory within kNoProcessMemBytes of its
// NoProcessBaseline, whatever the utilisation (the driver's averaging window still reports work
// just after an exit). All false without a baseline; `*baseline` is that reading.
std::vector<bool> NoProcessSamples(const CounterSeries& util, const CounterSeries* mem, double* baseline);

// The runs of the job in a log that spans more than it (GpuRuns): the samples some GPU in use
// holds memory in, timed by the first GPU in use; `*job` gets each judged GPU's utilisation
// without its no-process samples inside the first GPU's no-process stretches.
std::optional<GpuRuns> FindGpuRuns(const WorkerSeries& s, const std::vector<const GpuResource*>& judged,
                                   const std::vector<const CounterSeries*>& util_of, int64_t log_start_ns,
                                   double interval_s, std::vector<CounterSeries>* job);

// The longest idle stretch of `util` from sample `from` on while `mem` stays held and, where the
// log has power draw that tells idle from busy (IdlePowerCeiling), the GPU draws idle power.
std::optional<GpuIdleStretch> FindIdleStretch(const CounterSeries& util, const CounterSeries* mem,
                                              const CounterSeries* power, size_t from, int64_t log_start_ns,
                                              double interval_s);

}  // namespace stepdoctor
