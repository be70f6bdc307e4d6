#include "stepdoctor/analysis/resource_signals.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

#include "stepdoctor/analysis/gpu_log_stretches.h"
#include "stepdoctor/analysis/statistics.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += x;
  return s / double(v.size());
}

// Names of series the resource signals read; a worker's "samples" are its points in these.
bool IsResourceSeries(std::string_view n) {
  return StartsWith(n, series::kGpuPrefix) || StartsWith(n, series::kCpuPrefix) || StartsWith(n, series::kProcPrefix) ||
         StartsWith(n, series::kDiskPrefix) || n == series::kIowaitPct;
}

bool AtLeast(const std::optional<double>& v, double k) { return v && *v >= k; }

// Dips of `c` (the first used GPU's utilisation, else the tree's CPU, else the machine's) from
// sample `from` on; empty where its median is under kDipBaselineMinPct.
std::optional<UtilisationDips> FindDips(const CounterSeries& c, size_t from, double interval_s) {
  UtilisationDips d;
  d.series = c.name;
  const std::vector<double> values(c.value.begin() + std::ptrdiff_t(from), c.value.end());
  d.baseline_pct = Median(values);
  if (d.baseline_pct < kDipBaselineMinPct) return std::nullopt;
  const double limit = d.baseline_pct * kDipFraction;
  std::vector<int64_t> starts;
  std::vector<double> lengths_s;
  size_t in_dip = 0;
  for (size_t i = from; i <= c.value.size(); ++i) {
    bool low = i < c.value.size() && c.value[i] < limit;
    if (low && in_dip == 0) starts.push_back(c.ts_ns[i]);
    if (low) ++in_dip;
    if (!low && in_dip > 0) {
      lengths_s.push_back(double(c.ts_ns[i - 1] - starts.back()) / 1e9 + interval_s);
      d.share_pct += 100.0 * double(in_dip) / double(values.size());
      in_dip = 0;
    }
  }
  d.count = int(starts.size());
  if (!lengths_s.empty()) d.mean_s = Mean(lengths_s);
  if (starts.size() < 2) return d;
  std::vector<double> gaps;
  for (size_t i = 1; i < starts.size(); ++i) gaps.push_back(double(starts[i] - starts[i - 1]) / 1e9);
  const double period = Mean(gaps);
  double var = 0;
  for (double g : gaps) var += (g - period) * (g - period);
  d.period_s = period;
  d.period_cv = period > 0 ? std::sqrt(var / double(gaps.size())) / period : 0;
  return d;
}

// The leading samples of the first GPU in use below kIdleGpuUtilPct, where they are a start-up
// worth reporting (kStartupMinSamples, kStartupMinSharePct, at most kStartupMaxSharePct of the
// log, work of at least kStartupMinAfterPct after it, the GPU still held kStartupMinSamples after
// its first work), and the utilisation of `judged` after it.
std::optional<GpuStartup> FindGpuStartup(const WorkerSeries& s, const std::vector<const GpuResource*>& judged,
                                         const std::vector<const CounterSeries*>& util_of) {
  GpuStartup out;
  const CounterSeries& first = *util_of[0];
  // The start-up ends where the GPU first holds to its working level: the first sample from which
  // the next w samples average half the log's median utilisation (and kIdleGpuUtilPct) or more.
  // A brief blip inside it (a library initialising, a first kernel) does not end it; the samples
  // before must average under kStartupMaxMeanShare of the median.
  const size_t total = first.value.size();
  const double median = Median(first.value);
  const double work = std::max(kIdleGpuUtilPct, kStartupWorkShare * median);
  const size_t w = std::min(total, std::max<size_t>(size_t(kStartupMinSamples), total / kStartupWindowDivisor));
  std::vector<double> prefix(total + 1, 0);
  for (size_t i = 0; i < total; ++i) prefix[i + 1] = prefix[i] + first.value[i];
  size_t n = 0;
  while (n + w <= total && (prefix[n + w] - prefix[n]) / double(w) < work) ++n;
  if (n + w > total) n = total;
  // The window's first samples may still be idle: the start-up runs to the first working one.
  while (n < total && first.value[n] < work) ++n;
  if (n > 0 && prefix[n] / double(n) >= std::max(kIdleGpuUtilPct, kStartupMaxMeanShare * median)) return std::nullopt;
  out.mean_pct = n > 0 ? prefix[n] / double(n) : 0;
  const double share_pct = 100.0 * double(n) / double(first.value.size());
  if (n < size_t(kStartupMinSamples) || n == first.value.size() || share_pct < kStartupMinSharePct ||
      share_pct > kStartupMaxSharePct)
    return std::nullopt;
  const int64_t end_ns = first.ts_ns[n];  // the first sample of work
  double sum = 0;
  int counted = 0;
  for (const CounterSeries* c : util_of) {
    std::vector<double> after;
    for (size_t i = 0; i < c->value.size(); ++i)
      if (c->ts_ns[i] >= end_ns) after.push_back(c->value[i]);
    if (after.empty()) continue;
    sum += Mean(after);
    ++counted;
  }
  if (counted == 0 || sum / counted < kStartupMinAfterPct) return std::nullopt;
  out.samples = int(n);
  out.gpu = judged[0]->index;
  out.end_ns = end_ns;
  out.duration_s = double(end_ns - first.ts_ns[0]) / 1e9;
  out.util_after_pct = sum / counted;
  if (auto* used = s.Get(series::GpuSeriesName(judged[0]->index, series::GpuMetric::kMemUsedBytes))) {
    // From the job's first sample (a log that opens before the job holds samples with no process).
    const size_t from = size_t(std::lower_bound(used->ts_ns.begin(), used->ts_ns.end(), first.ts_ns[0]) - used->ts_ns.begin());
    out.mem_from_bytes = used->value[std::min(from, used->value.size() - 1)];
    for (size_t i = from; i < used->value.size() && used->ts_ns[i] < end_ns; ++i) out.mem_to_bytes = used->value[i];
    if (!out.mem_to_bytes) out.mem_to_bytes = out.mem_from_bytes;
    // A start-up comes before the job's steps in the same process: where the GPU is released
    // (memory back at the no-process reading) within kStartupMinSamples of the first work, the
    // idle opening was a run that ended (the tail of one begun before the log), not a start.
    if (const std::optional<double> base = NoProcessBaseline(used)) {
      size_t held = 0, i = size_t(std::lower_bound(used->ts_ns.begin(), used->ts_ns.end(), end_ns) - used->ts_ns.begin());
      while (i < used->value.size() && used->value[i] >= *base + kNoProcessMemBytes && held < size_t(kStartupMinSamples))
        ++i, ++held;
      if (held < size_t(kStartupMinSamples)) return std::nullopt;
    }
  }
  return out;
}

// Samples of GPU `g` whose used memory is kMemoryNearFullPct of `total` or more, and the highest
// utilisation at those times: the utilisation sample at the same time, else the nearest one.
void NearFullSamples(const WorkerSeries& s, int g, double total, GpuResource* gr) {
  using series::GpuMetric;
  const CounterSeries* mem = s.Get(series::GpuSeriesName(g, GpuMetric::kMemUsedBytes));
  const CounterSeries* util = s.Get(series::GpuSeriesName(g, GpuMetric::kUtilPct));
  if (!mem || total <= 0) return;
  auto util_at = [&](int64_t t) {  // the utilisation sample nearest t; REQUIRED: util
    const auto& ts = util->ts_ns;
    size_t k = size_t(std::lower_bound(ts.begin(), ts.end(), t) - ts.begin());
    if (k == ts.size() || (k > 0 && ts[k] - t > t - ts[k - 1])) --k;
    return util->value[k];
  };
  for (size_t i = 0; i < mem->value.size(); ++i) {
    if (100.0 * mem->value[i] / total < kMemoryNearFullPct) continue;
    ++gr->mem_near_full_samples;
    if (util) gr->util_peak_near_full_pct = std::max(gr->util_peak_near_full_pct.value_or(0.0), util_at(mem->ts_ns[i]));
  }
  if (!util || gr->mem_near_full_samples == 0) return;
  const double peak = *std::max_element(mem->value.begin(), mem->value.end());
  double best = 0;
  for (size_t i = 1; i < mem->value.size(); ++i) {
    const double rise = mem->value[i] - mem->value[i - 1];
    if (rise < kReserveJumpShare * total || rise <= best || mem->value[i] < kReservedNearPeak * peak) continue;
    if (util_at(mem->ts_ns[i - 1]) >= kUnusedGpuPeakPct || util_at(mem->ts_ns[i]) >= kUnusedGpuPeakPct) continue;
    best = rise;
    gr->reserve_from_bytes = mem->value[i - 1];
    gr->reserve_to_bytes = mem->value[i];
  }
}

}  // namespace

const char* ResourceClassName(ResourceClass c) {
  switch (c) {
    case ResourceClass::kUnknown: return "unknown";
    case ResourceClass::kGpuBusy: return "gpu_busy";
    case ResourceClass::kGpuStarvedCpu: return "gpu_starved_cpu";
    case ResourceClass::kStorageBound: return "storage_bound";
    case ResourceClass::kGpuLow: return "gpu_low";
    case ResourceClass::kSerialCpu: return "serial_cpu";
    case ResourceClass::kCpuBound: return "cpu_bound";
    case ResourceClass::kIdle: return "idle";
    case ResourceClass::kGpuUnused: return "gpu_unused";
    case ResourceClass::kGpuUtilUnknown: return "gpu_util_unknown";
  }
  return "?";
}

void ClassifyResources(ResourceSignals* r) {
  const bool has_gpu = r->gpu_util_mean_pct.has_value();
  const bool has_tree = r->tree_cpu_mean_pct.has_value();
  r->tree_cpu_demand_pct.reset();
  r->tree_cpu_of_cores_pct.reset();
  if (has_tree) {
    const double demand = *r->tree_cpu_mean_pct + r->tree_cpu_wait_mean_pct.value_or(0);
    r->tree_cpu_demand_pct = demand;
    r->tree_cpu_of_cores_pct = demand / r->cores.value_or(1);
    r->one_core_saturated = r->cores.value_or(0) >= 2 && demand >= kOneCoreSaturatedPct && demand <= kOneCoreCeilingPct;
    r->cpu_high = *r->tree_cpu_of_cores_pct >= kTreeCpuHighOfCoresPct || r->one_core_saturated;
  } else if (r->cpu_mean_pct) {
    r->cpu_high = *r->cpu_mean_pct >= kTreeCpuHighOfCoresPct || r->one_core_saturated;
  }
  // An indicator not sampled says nothing; bytes moved by the tree add up whichever were sampled.
  r->storage_busy = AtLeast(r->iowait_mean_pct, kIowaitHighPct) || AtLeast(r->disk_util_mean_pct, kDiskUtilHighPct) ||
                    AtLeast(r->psi_io_some_mean_pct, kPsiIoHighPct) || AtLeast(r->tree_blocked_pct, kTreeBlockedHighPct) ||
                    r->tree_read_bytes_per_s.value_or(0) + r->tree_write_bytes_per_s.value_or(0) >= kTreeIoHighBytesPerS;
  std::optional<double> host_cpu;  // % of one core
  if (has_tree) host_cpu = r->tree_cpu_demand_pct;
  else if (r->cpu_mean_pct) host_cpu = *r->cpu_mean_pct * r->cores.value_or(1);
  const bool host_idle = host_cpu && *host_cpu < kIdleTreeCpuPct && !r->storage_busy;
  const bool no_gpu_used = !r->gpus.empty() && std::all_of(r->gpus.begin(), r->gpus.end(), [](const GpuResource& g) { return g.unused; });

  ResourceClass c = ResourceClass::kUnknown;
  if (r->job_samples() < kMinSamples) {
    c = ResourceClass::kUnknown;
  } else if (has_gpu) {
    if (*r->gpu_util_mean_pct >= kGpuLowUtilPct) c = ResourceClass::kGpuBusy;
    else if (r->cpu_high) c = ResourceClass::kGpuStarvedCpu;
    else if (r->storage_busy) c = ResourceClass::kStorageBound;
    // The job keeps at least a core's worth of CPU busy while its GPU idles: host-side work
    // (preprocessing, Python) is what the GPU waits on, even with other cores free.
    else if (AtLeast(r->tree_cpu_demand_pct, kGpuFeedCpuPct)) c = ResourceClass::kGpuStarvedCpu;
    else if (host_idle && *r->gpu_util_mean_pct < kIdleGpuUtilPct) c = ResourceClass::kIdle;
    // No GPU ran work and nothing on the host explains it: not starved, unused.
    else if (no_gpu_used) c = ResourceClass::kGpuUnused;
    else c = ResourceClass::kGpuLow;
  } else if (has_tree || r->cpu_mean_pct) {
    bool others_idle = r->other_cores_busy_pct && *r->other_cores_busy_pct < kOtherCoresIdlePct;
    if (r->one_core_saturated && others_idle) c = ResourceClass::kSerialCpu;
    else if (r->cpu_high) c = ResourceClass::kCpuBound;
    else if (r->storage_busy) c = ResourceClass::kStorageBound;
    else if (host_idle) c = ResourceClass::kIdle;
  } else if (!r->gpus.empty()) {
    // GPU samples without utilisation: memory tells an unused GPU, not how busy a used one was.
    c = no_gpu_used ? ResourceClass::kGpuUnused : ResourceClass::kGpuUtilUnknown;
  }
  r->classification = c;
}

int64_t MostResourceSamples(const Trace& trace) {
  int64_t most = 0;
  for (const auto& c : trace.counters)
    if (IsResourceSeries(c.name)) most = std::max(most, int64_t(c.value.size()));
  return most;
}

std::unique_ptr<ResourceSignals> ComputeResourceSignals(const Trace& trace) {
  // The worker with the most resource samples.
  std::map<uint32_t, size_t> points;
  for (const auto& c : trace.counters)
    if (IsResourceSeries(c.name)) points[c.worker.v] += c.value.size();
  if (points.empty()) return nullptr;
  auto best = std::max_element(points.begin(), points.end(), [](auto& a, auto& b) { return a.second < b.second; });
  WorkerId w{best->first};
  WorkerSeries s(trace, w);

  auto r = std::make_unique<ResourceSignals>();
  r->worker = w;
  r->source = trace.worker(w).source_path;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  const CounterSeries* longest = nullptr;
  for (const auto& [name, c] : s.all()) {
    if (!IsResourceSeries(name)) continue;
    lo = std::min(lo, c->ts_ns.front());
    hi = std::max(hi, c->ts_ns.back());
    if (!longest || c->ts_ns.size() > longest->ts_ns.size()) longest = c;
  }
  if (!longest) return nullptr;
  r->samples = int64_t(longest->ts_ns.size());
  r->times_known = !trace.worker(w).sample_times_assumed;
  r->one_stamp = trace.worker(w).sample_times_one_stamp;
  r->window_s = double(hi - lo) / 1e9;
  {
    std::vector<double> gaps;
    for (size_t i = 1; i < longest->ts_ns.size(); ++i) gaps.push_back(double(longest->ts_ns[i] - longest->ts_ns[i - 1]) / 1e9);
    r->interval_s = Median(gaps);
    if (r->times_known && r->interval_s > 0)
      for (double g : gaps)
        if (g >= kSampleGapFactor * r->interval_s) {
          ++r->sample_gaps;
          r->sample_gap_s += g - r->interval_s;
          r->sample_gap_max_s = std::max(r->sample_gap_max_s, g);
        }
  }
  if (r->samples < kMinSamples) return nullptr;

  // Host CPU: the total, or the mean of the per-core series where only those exist (SageMaker).
  std::vector<const CounterSeries*> cores;
  for (const auto& [name, c] : s.all()) {
    int core = series::CpuCoreOf(name);
    if (core >= 0) cores.push_back(c);
  }
  if (!cores.empty()) r->cores = int(cores.size());
  r->cpu_mean_pct = s.MeanOf(series::kCpuPctTotal);
  if (!r->cpu_mean_pct && !cores.empty()) {
    double sum = 0;
    for (auto* c : cores) sum += Mean(c->value);
    r->cpu_mean_pct = sum / double(cores.size());
  }
  r->iowait_mean_pct = s.MeanOf(series::kIowaitPct);

  r->tree_cpu_mean_pct = s.MeanOf(series::kProcCpuPct);
  if (r->tree_cpu_mean_pct) {
    r->tree_cpu_wait_mean_pct = s.MeanOf(series::kProcCpuWaitPct);
    r->tree_threads_max = s.MaxOf(series::kProcThreads);
    r->tree_procs_max = s.MaxOf(series::kProcCount);
    r->tree_rss_peak_bytes = s.MaxOf(series::kProcRssBytes);
    r->tree_read_bytes_per_s = s.MeanOf(series::kProcReadBytesPerS);
    r->tree_write_bytes_per_s = s.MeanOf(series::kProcWriteBytesPerS);
    if (auto* c = s.Get(series::kProcBlockedIo))
      r->tree_blocked_pct = 100.0 * double(std::count_if(c->value.begin(), c->value.end(), [](double v) { return v > 0; })) /
                            double(c->value.size());
    if (r->cpu_mean_pct && r->cores.value_or(0) >= 2) {
      const int n = *r->cores;
      double machine_cores = *r->cpu_mean_pct / 100.0 * n;
      double others = (machine_cores - *r->tree_cpu_mean_pct / 100.0) / double(n - 1);
      r->other_cores_busy_pct = std::clamp(100.0 * others, 0.0, 100.0);
    }
  } else if (cores.size() >= 2) {
    // Per-core data only: the busiest core in each sample against the mean of the rest.
    size_t n = cores[0]->value.size();
    bool aligned = std::all_of(cores.begin(), cores.end(), [n](auto* c) { return c->value.size() == n; });
    if (aligned && n > 0) {
      double busiest = 0, rest = 0;
      for (size_t i = 0; i < n; ++i) {
        double mx = 0, sum = 0;
        for (auto* c : cores) mx = std::max(mx, c->value[i]), sum += c->value[i];
        busiest += mx;
        rest += (sum - mx) / double(cores.size() - 1);
      }
      busiest /= double(n);
      r->other_cores_busy_pct = rest / double(n);
      r->one_core_saturated = busiest >= kOneCoreSaturatedPct && *r->other_cores_busy_pct < kOtherCoresIdlePct;
    }
  }

  r->disk_read_bytes_per_s = s.MeanOf(series::kDiskReadBytesPerS);
  r->disk_write_bytes_per_s = s.MeanOf(series::kDiskWriteBytesPerS);
  r->disk_util_mean_pct = s.MeanOf(series::kDiskUtilPct);
  r->psi_io_some_mean_pct = s.MeanOf(series::kPsiIoSomePct);

  // GPUs: every GPU with a utilisation, memory or power series.
  using series::GpuMetric;
  std::map<int, GpuResource> gpus;
  for (const auto& [name, c] : s.all()) {
    int g = -1;
    for (GpuMetric m : {GpuMetric::kUtilPct, GpuMetric::kMemUsedBytes, GpuMetric::kMemUsedPct, GpuMetric::kPowerW})
      if (series::IsGpuSeries(name, m, &g)) gpus[g].index = g;
  }
  for (auto& [g, gr] : gpus) {
    for (const Device& d : trace.devices)
      if (d.worker == w && d.kind == DeviceKind::kGpu && d.index == g) gr.name = d.name;
    gr.util_mean_pct = s.MeanOf(series::GpuSeriesName(g, GpuMetric::kUtilPct));
    gr.util_peak_pct = s.MaxOf(series::GpuSeriesName(g, GpuMetric::kUtilPct));
    // A total or a power limit of 0 is no total or limit (a field the tool left empty).
    auto positive = [](std::optional<double> v) { return v && *v > 0 ? v : std::nullopt; };
    if (auto used = s.MaxOf(series::GpuSeriesName(g, GpuMetric::kMemUsedBytes))) {
      gr.mem_used_peak_bytes = used;
      if (const CounterSeries* c = s.Get(series::GpuSeriesName(g, GpuMetric::kMemUsedBytes))) {
        gr.mem_samples = int(c->value.size());
        gr.mem_held_samples = int(std::count_if(c->value.begin(), c->value.end(), [](double v) { return v >= kHeldMemoryBytes; }));
      }
      gr.mem_total_bytes = positive(s.MaxOf(series::GpuSeriesName(g, GpuMetric::kMemTotalBytes)));
      if (gr.mem_total_bytes) gr.mem_used_peak_pct = 100.0 * *used / *gr.mem_total_bytes;
      if (gr.mem_total_bytes) NearFullSamples(s, g, *gr.mem_total_bytes, &gr);
    } else {
      gr.mem_used_peak_pct = s.MaxOf(series::GpuSeriesName(g, GpuMetric::kMemUsedPct));
    }
    gr.power_mean_w = s.MeanOf(series::GpuSeriesName(g, GpuMetric::kPowerW));
    gr.power_limit_w = positive(s.MaxOf(series::GpuSeriesName(g, GpuMetric::kPowerLimitW)));
    gr.unused = gr.util_peak_pct ? *gr.util_peak_pct < kUnusedGpuPeakPct
                                 : gr.mem_used_peak_bytes && *gr.mem_used_peak_bytes < kNoProcessMemBytes;
    r->gpus.push_back(gr);
  }
  // The utilisation figures are over the GPUs the job uses, when it uses any.
  for (const auto& gr : r->gpus) r->gpus_in_use += !gr.unused;
  std::vector<const GpuResource*> judged;  // the GPUs the utilisation figures are over
  for (const auto& gr : r->gpus)
    if (gr.util_mean_pct && (!gr.unused || r->gpus_in_use == 0)) judged.push_back(&gr);
  if (judged.empty())  // the GPUs in use have no utilisation series: figures over the rest
    for (const auto& gr : r->gpus)
      if (gr.util_mean_pct) judged.push_back(&gr);
  std::vector<const CounterSeries*> util_of;
  for (const GpuResource* g : judged) util_of.push_back(s.Get(series::GpuSeriesName(g->index, GpuMetric::kUtilPct)));
  // A log that spans several runs, or goes on after the job: the figures are over the job's samples.
  std::vector<CounterSeries> job_util;
  if (!judged.empty()) {
    double log_sum = 0;
    for (const GpuResource* g : judged) log_sum += *g->util_mean_pct;
    // Samples of the job's own process tree (`run`) span its life: there, a GPU not yet or no
    // longer held is the job starting or ending, its own time.
    if (!r->tree_cpu_mean_pct) r->gpu_runs = FindGpuRuns(s, judged, util_of, lo, r->interval_s, &job_util);
    if (r->gpu_runs) {
      r->samples_left_out = std::clamp<int64_t>(r->gpu_runs->excluded_samples, 0, r->samples);
      r->gpu_runs->log_util_mean_pct = log_sum / double(judged.size());
      for (size_t i = 0; i < judged.size(); ++i) {
        util_of[i] = &job_util[i];
        r->gpus[size_t(judged[i] - r->gpus.data())].util_mean_pct = Mean(job_util[i].value);
      }
    }
  }
  if (!judged.empty()) {
    // The figures over the samples from `from_ns` on: the job's, then its steps' after a start-up.
    auto figures = [&](int64_t from_ns) {
      double util_sum = 0;
      int counted = 0;
      std::vector<double> pooled;
      for (size_t i = 0; i < judged.size(); ++i) {
        const CounterSeries& c = *util_of[i];
        const size_t at = size_t(std::lower_bound(c.ts_ns.begin(), c.ts_ns.end(), from_ns) - c.ts_ns.begin());
        std::vector<double> mine(c.value.begin() + std::ptrdiff_t(at), c.value.end());
        if (mine.empty()) continue;
        const double mean = Mean(mine);
        r->gpus[size_t(judged[i] - r->gpus.data())].util_mean_pct = mean;
        util_sum += mean;
        ++counted;
        pooled.insert(pooled.end(), mine.begin(), mine.end());
      }
      if (counted == 0) return;
      r->gpu_util_mean_pct = util_sum / counted;
      r->gpu_util_median_pct = Median(pooled);
      r->gpu_util_below_low_pct =
          100.0 * double(std::count_if(pooled.begin(), pooled.end(), [](double v) { return v < kGpuLowUtilPct; })) /
          double(pooled.size());
    };
    figures(INT64_MIN);
    r->gpu_startup = FindGpuStartup(s, judged, util_of);
    if (r->gpu_startup) {
      r->gpu_startup->util_with_pct = *r->gpu_util_mean_pct;
      figures(r->gpu_startup->end_ns);
    }
  }

  if (!judged.empty())
    r->gpu_idle_stretch =
        FindIdleStretch(*util_of[0], s.Get(series::GpuSeriesName(judged[0]->index, GpuMetric::kMemUsedBytes)),
                        s.Get(series::GpuSeriesName(judged[0]->index, GpuMetric::kPowerW)),
                        r->gpu_startup ? size_t(r->gpu_startup->samples) : 0, lo, r->interval_s);

  // Dips: the first used GPU's utilisation (a multi-GPU job dips on all GPUs at a checkpoint),
  // else CPU.
  // A start-up stretch is not a dip: the dips are looked for after it.
  const CounterSeries* primary = util_of.empty() ? nullptr : util_of[0];
  size_t from = primary && r->gpu_startup ? size_t(r->gpu_startup->samples) : 0;
  if (!primary) primary = s.Get(series::kProcCpuPct);
  if (!primary) primary = s.Get(series::kCpuPctTotal);
  if (primary && primary->value.size() >= from + size_t(kMinSamples)) r->dips = FindDips(*primary, from, r->interval_s);

  ClassifyResources(r.get());
  return r;
}

std::vector<WorkerId> SampledJobWorkers(const Trace& trace, WorkerId chosen) {
  // Each worker's first and last resource sample (times are in range: no overflow below).
  std::map<uint32_t, std::pair<int64_t, int64_t>> span;
  for (const auto& c : trace.counters) {
    if (!IsResourceSeries(c.name) || c.ts_ns.empty()) continue;
    auto [it, fresh] = span.try_emplace(c.worker.v, c.ts_ns.front(), c.ts_ns.back());
    if (!fresh) it->second = {std::min(it->second.first, c.ts_ns.front()), std::max(it->second.second, c.ts_ns.back())};
  }
  std::vector<WorkerId> out;
  auto mine = span.find(chosen.v);
  if (mine == span.end()) return out;
  out.push_back(chosen);
  for (const auto& [w, s] : span)
    if (w != chosen.v && s.first <= mine->second.second && mine->second.first <= s.second) out.push_back(WorkerId{w});
  return out;
}

std::string SampledJobNote(const Trace& trace, const std::vector<WorkerId>& job) {
  if (job.size() < 2) return {};
  std::vector<int> ranks;
  std::vector<std::string> hosts;
  for (WorkerId w : job) {
    const Worker& wk = trace.worker(w);
    if (wk.rank >= 0) ranks.push_back(wk.rank);
    if (std::find(hosts.begin(), hosts.end(), wk.hostname) == hosts.end()) hosts.push_back(wk.hostname);
  }
  std::sort(ranks.begin(), ranks.end());
  std::string who;
  if (ranks.size() == job.size()) {
    who = "ranks ";
    for (size_t i = 0; i < ranks.size(); ++i) who += (i ? ", " : "") + std::to_string(ranks[i]);
    who += " on " + std::to_string(hosts.size()) + (hosts.size() == 1 ? " host" : " hosts");
  } else {
    who = std::to_string(hosts.size()) + (hosts.size() == 1 ? " host" : " hosts");
  }
  const Worker& first = trace.worker(job.front());
  return std::to_string(job.size()) + " samples files of one job (" + who + "): resource figures are for " +
         first.hostname + (first.rank >= 0 ? " rank " + std::to_string(first.rank) : "") +
         ", the one with the most samples";
}

std::vector<TimeSeries> ResourceSeriesForCharts(const Trace& trace, WorkerId worker, int max_points) {
  std::vector<TimeSeries> out;
  WorkerSeries s(trace, worker);
  int64_t lo = INT64_MAX;
  for (const auto& [name, c] : s.all()) lo = std::min(lo, c->ts_ns.front());
  auto wanted = [](std::string_view n) {
    using series::GpuMetric;
    return series::IsGpuSeries(n, GpuMetric::kUtilPct, nullptr) || series::IsGpuSeries(n, GpuMetric::kMemUsedBytes, nullptr) ||
           n == series::kProcCpuPct || n == series::kCpuPctTotal || n == series::kIowaitPct ||
           n == series::kDiskReadBytesPerS || n == series::kDiskWriteBytesPerS || n == series::kProcRssBytes;
  };
  for (const auto& [name, c] : s.all()) {
    if (!wanted(name)) continue;
    TimeSeries ts;
    ts.name = name;
    ts.unit = c->unit;
    // Bucket means, so a dip shorter than a bucket still lowers it.
    size_t n = c->value.size(), per = std::max<size_t>(1, (n + size_t(max_points) - 1) / size_t(std::max(1, max_points)));
    for (size_t i = 0; i < n; i += per) {
      size_t e = std::min(n, i + per);
      double sum = 0;
      for (size_t k = i; k < e; ++k) sum += c->value[k];
      ts.points.push_back({double(c->ts_ns[i] - lo) / 1e9, sum / double(e - i)});
    }
    out.push_back(std::move(ts));
  }
  return out;
}

}  // namespace stepdoctor
