#include "stepdoctor/analysis/gpu_log_stretches.h"

#include <algorithm>

#include "stepdoctor/analysis/statistics.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {

// The memory a GPU shows with no process on it: the log's lowest reading, where that is under
// kHeldMemoryBytes or kNoProcessPeakShare of the peak (a display server, another user's small
// context). Empty where it is above both (a process's: the log is a run's phases) or there is no
// memory series.
std::optional<double> NoProcessBaseline(const CounterSeries* mem) {
  if (!mem || mem->value.empty()) return std::nullopt;
  const auto [lo_it, hi_it] = std::minmax_element(mem->value.begin(), mem->value.end());
  if (*lo_it >= std::max(kHeldMemoryBytes, kNoProcessPeakShare * *hi_it)) return std::nullopt;
  return *lo_it;
}

// Which samples of `util` have no process on the GPU: memory within kNoProcessMemBytes of its
// NoProcessBaseline (no context: the utilisation the driver reports just after an exit averages
// the last work). All false without a baseline; `*baseline` is that reading.
std::vector<bool> NoProcessSamples(const CounterSeries& util, const CounterSeries* mem, double* baseline) {
  std::vector<bool> out(util.value.size(), false);
  const std::optional<double> none = NoProcessBaseline(mem);
  if (!none) return out;
  const double low = *none;
  if (baseline) *baseline = low;
  size_t k = 0;  // the memory reading at or just before each utilisation sample
  for (size_t i = 0; i < util.value.size(); ++i) {
    while (k + 1 < mem->ts_ns.size() && mem->ts_ns[k + 1] <= util.ts_ns[i]) ++k;
    if (mem->ts_ns[k] > util.ts_ns[i]) continue;  // no memory reading yet
    out[i] = mem->value[k] < low + kNoProcessMemBytes;
  }
  return out;
}

// The runs of the job in a log that spans more than it (GpuRuns): the samples some GPU in use
// holds memory in, timed by the first GPU in use;
// `*job` gets each judged GPU's utilisation without its no-process samples inside the first
// GPU's no-process stretches.
std::optional<GpuRuns> FindGpuRuns(const WorkerSeries& s, const std::vector<const GpuResource*>& judged,
                                   const std::vector<const CounterSeries*>& util_of, int64_t log_start_ns,
                                   double interval_s, std::vector<CounterSeries>* job) {
  using series::GpuMetric;
  auto mem_of = [&](size_t j) { return s.Get(series::GpuSeriesName(judged[j]->index, GpuMetric::kMemUsedBytes)); };
  const CounterSeries& first = *util_of[0];
  GpuRuns out;
  std::vector<bool> none = NoProcessSamples(first, mem_of(0), &out.baseline_bytes);
  const size_t n = none.size();
  // A sample is the job's while any GPU in use holds its memory (a job on GPUs 2 and 3 that
  // releases GPU 2 first still runs on 3): no process in it only where none of them has one.
  for (size_t j = 1; j < util_of.size(); ++j) {
    const CounterSeries& u = *util_of[j];
    const std::vector<bool> own = NoProcessSamples(u, mem_of(j), nullptr);
    size_t p = 0;  // u's sample at or just before the first GPU's
    for (size_t i = 0; i < n; ++i) {
      while (p + 1 < u.ts_ns.size() && u.ts_ns[p + 1] <= first.ts_ns[i]) ++p;
      if (p < own.size() && u.ts_ns[p] <= first.ts_ns[i]) none[i] = none[i] && own[p];
      // That GPU's first reading comes just after (the same poll, a row later): it tells.
      else if (!own.empty() && double(u.ts_ns[0] - first.ts_ns[i]) <= interval_s * 1e9) none[i] = none[i] && own[0];
      else none[i] = false;  // no reading of that GPU yet: not known to be free
    }
  }
  const CounterSeries* first_mem = mem_of(0);
  size_t mk = 0;
  for (size_t i = 0; i < n;) {
    if (none[i]) {
      ++i;
      continue;
    }
    size_t e = i;
    double sum = 0;
    GpuRuns::Run run;
    while (e < n && !none[e]) {
      run.util_peak_pct = std::max(run.util_peak_pct, first.value[e]);
      sum += first.value[e++];
    }
    run.samples = int(e - i);
    run.util_mean_pct = sum / double(run.samples);
    if (first_mem) {  // runs come in time order: one pass over the memory readings for all
      while (mk < first_mem->ts_ns.size() && first_mem->ts_ns[mk] < first.ts_ns[i]) ++mk;
      for (; mk < first_mem->ts_ns.size() && first_mem->ts_ns[mk] <= first.ts_ns[e - 1]; ++mk)
        run.mem_peak_bytes = std::max(run.mem_peak_bytes.value_or(0), first_mem->value[mk]);
    }
    run.start_s = double(first.ts_ns[i] - log_start_ns) / 1e9;
    run.duration_s = double(first.ts_ns[e - 1] - first.ts_ns[i]) / 1e9 + interval_s;
    out.runs.push_back(run);
    i = e;
  }
  if (out.runs.empty()) return std::nullopt;
  out.gpu_index = judged[0]->index;
  out.leading = none[0];
  out.trailing = none[n - 1];
  out.excluded_samples = int(std::count(none.begin(), none.end(), true));
  out.excluded_pct = 100.0 * out.excluded_samples / double(n);
  if (out.excluded_pct < kNoProcessMinSharePct) return std::nullopt;
  for (size_t i = 0; i < n; ++i)
    if (none[i]) out.excluded_s += i + 1 < n ? double(first.ts_ns[i + 1] - first.ts_ns[i]) / 1e9 : interval_s;
  for (size_t j = 0; j < util_of.size(); ++j) {
    const CounterSeries& u = *util_of[j];
    const std::vector<bool> own = j == 0 ? none : NoProcessSamples(u, mem_of(j), nullptr);
    CounterSeries kept;
    kept.worker = u.worker;
    kept.device = u.device;
    kept.name = u.name;
    kept.unit = u.unit;
    size_t p = 0;  // the first GPU's sample at or just before u's
    for (size_t k = 0; k < u.value.size(); ++k) {
      while (p + 1 < n && first.ts_ns[p + 1] <= u.ts_ns[k]) ++p;
      if (own[k] && none[p]) continue;
      kept.ts_ns.push_back(u.ts_ns[k]);
      kept.value.push_back(u.value[k]);
    }
    job->push_back(kept.value.empty() ? u : std::move(kept));
  }
  return out;
}

// The power draw under which a GPU reading idle utilisation is idle: halfway from the log's
// lowest draw to the median draw of its busy samples (utilisation kGpuLowUtilPct or more). An
// idle reading above it drew a working GPU's power: a snapshot between kernels, not a pause.
// Empty without a power series, busy samples, or kIdlePowerMinSpreadW between the two.
std::optional<double> IdlePowerCeiling(const CounterSeries& util, const CounterSeries* power) {
  if (!power || power->value.empty()) return std::nullopt;
  std::vector<double> busy;
  size_t k = 0;
  for (size_t i = 0; i < util.value.size(); ++i) {
    while (k + 1 < power->ts_ns.size() && power->ts_ns[k + 1] <= util.ts_ns[i]) ++k;
    if (power->ts_ns[k] <= util.ts_ns[i] && util.value[i] >= kGpuLowUtilPct) busy.push_back(power->value[k]);
  }
  if (busy.empty()) return std::nullopt;
  const double floor = *std::min_element(power->value.begin(), power->value.end());
  const double busy_w = Median(busy);
  if (busy_w - floor < kIdlePowerMinSpreadW) return std::nullopt;
  return floor + kIdlePowerShare * (busy_w - floor);
}

std::optional<GpuIdleStretch> FindIdleStretch(const CounterSeries& util, const CounterSeries* mem,
                                              const CounterSeries* power, size_t from, int64_t log_start_ns,
                                              double interval_s) {
  if (!mem || mem->value.empty() || util.value.size() <= from) return std::nullopt;
  const std::optional<double> power_ceiling = IdlePowerCeiling(util, power);
  size_t w = 0;  // the power reading at or just before each utilisation sample
  auto drawing = [&](size_t i) {
    if (!power_ceiling) return false;
    while (w + 1 < power->ts_ns.size() && power->ts_ns[w + 1] <= util.ts_ns[i]) ++w;
    return power->ts_ns[w] <= util.ts_ns[i] && power->value[w] > *power_ceiling;
  };
  GpuIdleStretch best;
  size_t k = 0, run_start = 0;
  int run = 0, busy = 0, run_busy_before = 0;  // busy: samples of work so far, counted once
  double run_mem = 0;
  auto close = [&](size_t end) {  // the stretch [run_start, end)
    if (run > best.samples) {
      best.samples = run;
      best.start_s = double(util.ts_ns[run_start] - log_start_ns) / 1e9;
      best.duration_s = double(util.ts_ns[end - 1] - util.ts_ns[run_start]) / 1e9 + interval_s;
      best.mem_bytes = run_mem;
      best.busy_before = run_busy_before;
    }
    run = 0;
    run_mem = 0;
  };
  // Held: a process's memory; where the log's lowest reading is what no process holds (as in
  // NoProcessSamples), above that too.
  const std::optional<double> none = NoProcessBaseline(mem);
  const double held_from = none ? std::max(kHeldMemoryBytes, *none + kNoProcessMemBytes) : kHeldMemoryBytes;
  for (size_t i = from; i < util.value.size(); ++i) {
    // Samples left out between runs part the stretches on either side.
    if (run > 0 && i > from && double(util.ts_ns[i] - util.ts_ns[i - 1]) > 2e9 * interval_s) close(i);
    while (k + 1 < mem->ts_ns.size() && mem->ts_ns[k + 1] <= util.ts_ns[i]) ++k;
    const bool held = mem->ts_ns[k] <= util.ts_ns[i] && mem->value[k] >= held_from;
    if (util.value[i] < kIdleGpuUtilPct && held && !drawing(i)) {
      if (run == 0) run_start = i, run_busy_before = busy;
      ++run;
      run_mem = std::max(run_mem, mem->value[k]);
    } else if (run > 0) {
      close(i);
    }
    busy += util.value[i] >= kIdleGpuUtilPct;
  }
  if (run > 0) close(util.value.size());
  best.share_pct = 100.0 * best.samples / double(util.value.size());
  // Before most of the job's work: still starting (compiling, capturing graphs, warming up).
  best.early = busy > 0 && best.busy_before < kEarlyStretchBusyShare * busy;
  best.interval_s = interval_s;
  best.power_checked = power_ceiling.has_value();
  if (best.samples < kIdleStretchMinSamples || best.share_pct < kIdleStretchMinSharePct ||
      best.share_pct > kIdleStretchMaxSharePct)
    return std::nullopt;
  return best;
}

}  // namespace stepdoctor
