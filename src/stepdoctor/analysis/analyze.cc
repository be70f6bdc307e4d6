#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/cold_window.h"
#include "stepdoctor/analysis/resource_snapshots.h"
#include "stepdoctor/analysis/no_verdict.h"
#include "stepdoctor/analysis/framework_code.h"
#include "stepdoctor/analysis/horovod_negotiation.h"
#include "stepdoctor/analysis/profiler_overhead.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <future>
#include <map>
#include <optional>

#include "stepdoctor/analysis/input_limit.h"
#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/job_ranks.h"
#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/analysis/tf1_runs.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_collective_bandwidth.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/trace_to_critical_path.h"
#include "stepdoctor/analysis/trace_to_kernel_tables.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"
#include "stepdoctor/analysis/tf_verdict_to_report.h"
#include "stepdoctor/analysis/trace_to_device_utilization.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/analysis/trace_to_whatif.h"
#include "stepdoctor/analysis/verdict.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

// How to record steady-state steps with the profiler the trace came from.
const char* WarmProfileExample(Framework f, bool tf1_session) {
  // A TF 1.x session's timeline is one sess.run's RunMetadata: a later run's, in TF1's API.
  if (tf1_session)
    return "a later sess.run traced with RunOptions(trace_level=FULL_TRACE) after a few untraced runs";
  switch (f) {
    case Framework::kPyTorch: return "torch.profiler.schedule(wait=1, warmup=1, active=3)";
    case Framework::kTensorFlow:
      return "tf.keras.callbacks.TensorBoard(profile_batch=(10, 15)), or tf.profiler.experimental.start() after the "
             "first steps (TF1: a later sess.run's RunMetadata)";
    case Framework::kJax: return "jax.profiler.start_trace() after the first, compiling, step";
    default:
      return "skip the first iterations (PyTorch: torch.profiler.schedule(wait=1, warmup=1, active=3); "
             "TensorFlow: profile_batch=(10, 15))";
  }
}


void FillSteps(const StepWindows& w, const StepSignals& s, StepSummary* out) {
  out->source = w.source;
  out->whole_window = w.whole_window;
  out->excluded_partial = w.excluded_partial;
  out->inferred = w.inferred;
  for (const StepWindow& wu : w.warmup) {
    StepRecord r;
    r.number = wu.number;
    r.start_ns = wu.start_ns;
    r.duration_ms = wu.dur_ns() / 1e6;
    out->warmup.push_back(std::move(r));
  }
  out->count = s.step_count;
  out->median_ms = s.median_step_ms;
  out->p90_ms = s.p90_step_ms;
  out->max_ms = s.max_step_ms;
  out->mean_ms = s.mean_step_ms;
  out->min_ms = s.step_ms.empty() ? 0 : *std::min_element(s.step_ms.begin(), s.step_ms.end());
  for (size_t i : s.outlier_steps) out->outlier_numbers.push_back(s.step_numbers[i]);
  for (int c = 0; c < kStepCategoryCount; ++c) out->categories.push_back(StepCategoryId(StepCategory(c)));
  for (size_t i = 0; i < w.steps.size() && i < s.per_step_category_ms.size(); ++i) {
    StepRecord r;
    r.number = w.steps[i].number;
    r.start_ns = w.steps[i].start_ns;
    r.duration_ms = w.steps[i].dur_ns() / 1e6;
    r.category_ms = s.per_step_category_ms[i];
    out->steps.push_back(std::move(r));
  }
}

// Busy intervals per lane, merged so that at most ~`buckets` remain across the window.
void FillLanes(const Trace& trace, WorkerId worker, int64_t lo, int64_t hi, const AnalyzeOptions& opts,
               std::vector<DeviceLane>* lanes) {
  if (hi <= lo) return;
  std::vector<const Timeline*> order;
  for (const auto& t : trace.timelines)
    if (t.worker == worker && t.kind != TimelineKind::kDerived && t.ev.size() > 0) order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const Timeline* a, const Timeline* b) {
    bool da = a->kind == TimelineKind::kDeviceStream, db = b->kind == TimelineKind::kDeviceStream;
    if (da != db) return da;
    return a->ev.size() > b->ev.size();
  });
  if (order.size() > size_t(opts.max_lanes)) order.resize(opts.max_lanes);
  const int64_t min_gap = std::max<int64_t>(1, (hi - lo) / std::max(1, opts.lane_buckets));
  for (const Timeline* t : order) {
    std::vector<Interval> raw;
    for (size_t i = 0; i < t->ev.size(); ++i) {
      EventKind k = t->ev.kind[i];
      if (t->kind == TimelineKind::kDeviceStream ? !IsDeviceActivity(k)
                                                 : (k == EventKind::kStepMarker || t->ev.dur_ns[i] == 0))
        continue;
      raw.push_back({std::max(lo, t->ev.start_ns[i]), std::min(hi, t->ev.start_ns[i] + t->ev.dur_ns[i])});
    }
    IntervalSet set = MakeIntervalSet(std::move(raw));
    DeviceLane lane;
    const Device& d = trace.device(t->device);
    lane.label = (d.kind == DeviceKind::kHostCpu ? std::string("CPU ")
                  : d.kind == DeviceKind::kTpu   ? "TPU " + std::to_string(d.index) + " "
                  : d.kind == DeviceKind::kOther ? (d.name.empty() ? "accelerator" : d.name) + " "
                                                 : "GPU " + std::to_string(d.index) + " ") +
                 t->name;
    for (const auto& iv : set) {
      double s = (iv.start - lo) / 1e6, e = (iv.end - lo) / 1e6;
      if (!lane.busy_ms.empty() && (iv.start - lo) - int64_t(lane.busy_ms.back().second * 1e6) < min_gap)
        lane.busy_ms.back().second = e;
      else
        lane.busy_ms.push_back({s, e});
    }
    lanes->push_back(std::move(lane));
  }
}

// The workers, devices and counter samples of `t` that fall in [lo, hi): what resource
// signals read, without the events.
Trace CountersWithin(const Trace& t, int64_t lo, int64_t hi) {
  Trace out;
  out.workers = t.workers;
  out.devices = t.devices;
  out.format = t.format;
  for (const auto& c : t.counters) {
    CounterSeries k = c;
    k.ts_ns.clear();
    k.value.clear();
    for (size_t i = 0; i < c.ts_ns.size(); ++i)
      if (c.ts_ns[i] >= lo && c.ts_ns[i] < hi) {
        k.ts_ns.push_back(c.ts_ns[i]);
        k.value.push_back(c.value[i]);
      }
    if (!k.ts_ns.empty()) out.counters.push_back(std::move(k));
  }
  return out;
}

// Whether the job recorded anything: an event on a host thread or a device stream. The lines
// a profiler derives may hold only its own records (Kineto's "Record Window End" instant in an
// otherwise empty window), which say nothing about the job.
bool HasProgramEvents(const Trace& trace) {
  return std::any_of(trace.timelines.begin(), trace.timelines.end(), [](const Timeline& t) {
    return t.kind != TimelineKind::kDerived && t.ev.size() > 0;
  });
}

}  // namespace

Report AnalyzeTrace(const Trace& trace, const AnalyzeOptions& opts, AnalysisDetail* detail) {
  Report r;
  r.tool_version = STEPDOCTOR_VERSION;
  r.inputs = trace.sources;
  r.format = trace.format;
  r.diagnostics = ImportDiagnosticLines(trace.diagnostics);

  WorkerId worker = PrimaryWorker(trace);
  const Framework framework = FrameworkOf(trace, worker);  // its own, in a folder of several
  StepWindows windows;
  StepSignals steps;
  AppliedOptimizations applied;
  Signals sig;
  sig.trace = &trace;
  sig.framework = framework;
  sig.applied = &applied;
  bool cold = false;  // the only region analysed is one cold first pass
  // The step model with device work captured serves the predictions and the critical path. The
  // critical path reads it and the trace alone, nothing the rest of the analysis writes: it runs
  // beside the rest, on a second thread where the machine has one (and STEPDOCTOR_THREADS allows).
  std::optional<StepModel> captured_model;
  std::future<CriticalPathSummary> critical_path;
  std::string no_path_note;
  if (worker.valid()) {
    windows = TraceToSteps(trace, worker);
    steps = TraceToStepSignals(trace, worker, windows);
    applied = TraceToAppliedOptimizations(trace, worker);
    if (steps.step_count > 0 && !steps.cpu_only && !steps.device_missing) {
      captured_model = TraceToStepModel(trace, worker, windows, DeviceCoverage::kCaptured, &steps.first_calls);
      captured_model->loader_workers = applied.loader_workers || applied.prefetch;
      captured_model->compiled = applied.any_compilation();
      captured_model->tf_graph = applied.tf_graph;
      if (std::string why = NoCriticalPathReason(*captured_model); !why.empty()) {
        no_path_note = steps.no_host_events ? "no critical path: there are no host calls for its device operations to "
                                              "be linked to"
                                            : std::move(why);
      } else {
        const auto policy = WorkerThreads() > 1 ? std::launch::async : std::launch::deferred;
        critical_path = std::async(policy, [&trace, worker, &model = *captured_model] {
          return TraceToCriticalPath(trace, worker, model, PathSegments::kMedian);
        });
      }
    }
    // The step signals found it already: read, not rescanned.
    DeviceEvidence device;
    device.coverage = steps.cpu_only         ? DeviceCoverage::kCpuOnly
                      : steps.device_missing ? DeviceCoverage::kMissing
                                             : DeviceCoverage::kCaptured;
    device.evidence = steps.device_evidence;
    device.per_operator = steps.device_per_operator;
    if (!steps.profiler_window.empty()) device.evidence.push_back(steps.profiler_window);
    // Device activity recorded, but for only part of what the host launched: the device's share
    // is a lower bound, and said so.
    std::string partial_note;
    const int64_t unrecorded = steps.kernel_launches - steps.kernel_launches_recorded;
    if (device.coverage == DeviceCoverage::kCaptured && steps.kernel_launches >= kPartialCaptureMinLaunches &&
        unrecorded >= kPartialCaptureShare * double(steps.kernel_launches)) {
      device.partial = true;
      partial_note = fmt::format(
          "{} of {} kernel launches have no kernel recorded: the capture stopped before the device ran them, or the "
          "device tracer lost records; the device's busy time is a lower bound",
          unrecorded, steps.kernel_launches);
      device.evidence.push_back(partial_note);
    }
    // One cold pass: the only region analysed is dominated by one-off start-up calls.
    cold = (windows.whole_window || windows.single_run) && steps.mean_step_ms > 0 && steps.startup_ms >= kColdWindowStartupPct / 100.0 * steps.mean_step_ms;
    r.coverage = TraceToCoverage(trace, windows, device, applied, cold ? 100.0 * steps.startup_ms / steps.mean_step_ms : 0.0);
    r.coverage.framework = FrameworkName(framework);
    if (device.partial) r.notes.push_back("device activity captured in part: " + partial_note);
    bool gpu_series = false;  // samples or a GPU log alone, with GPU series
    if (!HasProgramEvents(trace)) gpu_series = CoverageWithoutEvents(trace, &r.coverage);
    if (cold)
      r.notes.push_back(fmt::format("the window is one cold first pass: {:.0f} ms of one-off start-up calls; profile "
                                    "after warm-up, e.g. {}", steps.startup_ms, WarmProfileExample(framework, trace.worker(worker).tf1_session)));
    if (applied.capture_calls > 0)
      r.notes.push_back(fmt::format(
          "the window includes a CUDA/HIP graph capture pass ({} capture calls): kernels launched while capturing are "
          "recorded, not run, so that time is not a training step's",
          applied.capture_calls));
    if (!windows.warmup.empty())
      r.notes.push_back(fmt::format("step {} ({:.1f} ms) is warm-up: shown, kept out of the figures and the verdict",
                                    windows.warmup.front().number, windows.warmup.front().dur_ns() / 1e6));
    // A GPU log samples the device: there is no host side to fall back on, and no trace to record.
    if (device.coverage == DeviceCoverage::kMissing && !gpu_series && steps.device_tracer_on)
      r.notes.push_back("device activity was not captured, though the device tracer was on (it recorded the launch "
                        "calls, or the trace gives its CUPTI version): the kernel records were lost, and only the host "
                        "side is diagnosed (the device_activity_missing finding names the usual causes)");
    else if (device.coverage == DeviceCoverage::kMissing && !gpu_series && steps.device_nothing_launched &&
             steps.device_calls_traced)
      r.notes.push_back("device activity was not captured: no call in the window launched device work; the device "
                        "tracer was on (it recorded the runtime calls), so recording device activity again would show "
                        "none: profile a window that covers the job's steps");
    else if (device.coverage == DeviceCoverage::kMissing && !gpu_series) {
      // How to record it, in the API of what wrote the trace.
      const bool tf1 = worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).tf1_session;
      const char* pytorch = "torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])";
      const char* tf2 = "TensorFlow's profiler with its device tracer (tf.profiler.experimental.ProfilerOptions(device_tracer_level=1))";
      const char* session = "a sess.run traced with RunOptions(trace_level=FULL_TRACE) while CUPTI (libcupti) is on the "
                            "library path: the session's GPU tracer then writes the stream lanes";
      const std::string how = tf1                                          ? session
                              : framework == Framework::kPyTorch    ? pytorch
                              : framework == Framework::kTensorFlow ? tf2
                                                                          : fmt::format("{} or {}", pytorch, tf2);
      r.notes.push_back("device activity was not captured: only the host side is diagnosed. Record it with " + how);
    }
    if (steps.step_count > 0) sig.steps = &steps;
    FillSteps(windows, steps, &r.steps);
    if (windows.whole_window && !windows.steps.empty())
      r.notes.push_back("no step markers found: the whole window is analysed as one region");
    if (windows.profiler_calls_ns > 0)
      r.notes.push_back(fmt::format("the profiler's own start and stop calls ({:.0f} ms) are left out: the window is "
                                    "what ran between them", double(windows.profiler_calls_ns) / 1e6));
    // Samples files alone have no step figures: what they are judged on is said below.
    if (trace.workers.size() > 1 && trace.EventCount() > 0)
      r.notes.push_back(fmt::format("{} workers read; step figures are for {} (the one with the most events)",
                                    trace.workers.size(), trace.worker(worker).hostname));
    if (std::string feed = Tf1FeedNote(trace, worker); !feed.empty()) r.notes.push_back(std::move(feed));
    if (steps.no_host_events)
      r.notes.push_back("no host events: the trace records device work alone, so host-side causes (input, launches, "
                        "Python) cannot be seen; the device's idle time is all the trace says of the host");
    if (steps.cpu_only && steps.step_count > 0)
      r.notes.push_back("no device activity: the CPU is treated as the device (operators' own work is device compute, their dispatch host overhead)");
    if (!steps.device_listed_unused.empty()) r.notes.push_back(steps.device_listed_unused);
  }
  for (int c = 0; c < kStepCategoryCount; ++c) {
    BreakdownEntry e;
    e.category = StepCategoryId(StepCategory(c));
    e.ms_per_step = steps.category_ms[c];
    e.pct = steps.mean_step_ms > 0 ? 100.0 * steps.category_ms[c] / steps.mean_step_ms : 0;
    if (steps.step_count > 0) r.breakdown.push_back(e);
  }

  if (steps.step_count > 0) {
    const bool per_operator = steps.device_per_operator;
    const std::pair<const char*, double> detail[] = {
        {"device_compute_16bit", steps.device_compute_16bit_ms}, {"device_compute_32bit", steps.device_compute_32bit_ms},
        {"memcpy_h2d", steps.memcpy_h2d_ms}, {"memcpy_d2h", steps.memcpy_d2h_ms},
        {"memcpy_d2d", steps.memcpy_d2d_ms}, {"memcpy_other", steps.memcpy_other_ms},
        {"other_sync_wait", steps.sync_wait_ms}, {"other_device_queued", steps.device_queued_ms},
        {"other_untraced_host", steps.untraced_host_ms}, {"other_startup", steps.startup_ms},
        {"other_peer_wait", steps.peer_wait_ms}};
    for (const auto& [id, ms] : detail) {
      // The `other` parts appear only where they hold time; the TF profiler's splits always, but
      // only where there is a device.
      const bool other_part = std::string_view(id).substr(0, 6) == "other_";
      if ((other_part && ms <= 0) || (!other_part && steps.cpu_only)) continue;
      if (per_operator && std::string_view(id).substr(0, 15) == "device_compute_") continue;  // precision unknown
      r.breakdown_detail.push_back({id, ms, steps.mean_step_ms > 0 ? 100.0 * ms / steps.mean_step_ms : 0});
    }
  }
  for (const auto& a : TraceToDeviceActivity(trace, /*hta_filter=*/true))
    r.devices.push_back(DeviceActivityToUtilization(trace, a));

  // TensorFlow signals (tf.data, eager, precision, allocator memory, event-file stalls).
  // Live samples and GPU logs: resource signals for the resource rules, series for charts. With
  // a profile beside them (`run --logdir`), resources are judged over the profiled steps.
  std::unique_ptr<ResourceSignals> resources;
  if (!trace.counters.empty()) {
    if (!windows.whole_window && !windows.steps.empty()) {
      Trace within = CountersWithin(trace, windows.steps.front().start_ns, windows.steps.back().end_ns);
      resources = ComputeResourceSignals(within);
      if (resources) {
        // Said where the machine was sampled (live samples, a GPU log), not for the allocator
        // totals a profiler's memory events give.
        if (std::any_of(trace.counters.begin(), trace.counters.end(), [](const CounterSeries& c) {
              return series::InSeriesFamily(c.name) && !series::IsAllocatorSeries(c.name) && !c.value.empty();
            }))
          r.notes.push_back("live samples judged over the profiled steps only");
        r.series = ResourceSeriesForCharts(within, resources->worker);
      }
    }
    if (!resources) {
      resources = ComputeResourceSignals(trace);
      if (resources) r.series = ResourceSeriesForCharts(trace, resources->worker);
    }
    if (resources) {
      sig.resources = resources.get();
      std::string job = SampledJobNote(trace, SampledJobWorkers(trace, resources->worker));
      if (!job.empty()) r.notes.push_back(std::move(job));
    }
  }
  if (worker.valid()) r.collective_bandwidth = TraceToCollectiveBandwidth(trace, worker);
  JobRanks job;
  CrossRank cross;
  if (trace.workers.size() > 1) {
    job = TraceToJobRanks(trace, worker, windows, steps);
    sig.workers = job.figures;
    std::vector<RankInput> in;
    for (size_t i = 0; i < job.ids.size(); ++i) in.push_back({job.ids[i], &job.windows[i]});
    cross = TraceToCrossRank(trace, in);
    if (cross.attempted) sig.cross_rank = &cross;
  }
  HorovodLateRanks horovod;
  HorovodAllreduceSizes horovod_sizes;
  if (framework == Framework::kHorovod && worker.valid()) {
    // Over the steps where they were found: the start-up broadcast before the first is no step's.
    const bool stepped = !windows.whole_window && !windows.steps.empty();
    const int64_t from = stepped ? windows.steps.front().start_ns : INT64_MIN;
    const int64_t to = stepped ? windows.steps.back().end_ns : INT64_MAX;
    horovod = TraceToHorovodLateRanks(trace, worker, from, to);
    if (horovod.negotiations > 0) sig.horovod = &horovod;
    horovod_sizes = TraceToHorovodAllreduceSizes(trace, worker, from, to);
    if (horovod_sizes.sized > 0) sig.horovod_sizes = &horovod_sizes;
    sig.horovod_startup_broadcasts = HorovodStartupBroadcastsOnly(trace, worker);
  }
  const Tf1WeightCopies tf1_weights = Tf1CopiedWeights(trace, worker);
  if (tf1_weights.copies > 0) sig.tf1_weights = &tf1_weights;
  sig.memory = TraceToMemoryPeaks(trace);
  const std::optional<MemoryTimelineSignals> memory_timeline = TraceToMemoryTimeline(trace);
  if (memory_timeline) sig.memory_timeline = &*memory_timeline;
  FillJobRows(sig.workers, cross, &r);
  if (r.collective_bandwidth) sig.collective_bandwidth = &*r.collective_bandwidth;
  std::unique_ptr<TfSignals> tf = ComputeTfSignals(trace, worker, windows, sig.steps);
  sig.tf = tf.get();
  InputLimitSignals input_limit;
  if (opts.storage) {
    InputDemand demand = StepsToInputDemand(sig.steps, sig.resources, opts.samples_per_step);
    AddBatchFromTrace(trace, worker, &demand);
    input_limit = ComputeInputLimit(demand, *opts.storage, &applied, sig.tf, sig.resources,
                                    {opts.data_readers, opts.bytes_per_sample});
    sig.input_limit = &input_limit;
  }
  r.findings = RunRules(sig, &r.diagnostics);
  KeepTheFrameworksCode(framework, &r.findings);
  DropAppliedSettingsFromCode(applied, &r.findings);
  if (worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).tf1_session)
    AdaptTensorFlowCodeToTf1(&r.findings, applied.forward_only,
                             Tf1BeforeRelease1(trace, worker));  // a TF 1.x session: its code in TF1's APIs
  if (cold) HoldBackColdWindowFindings(&r.findings);
  if (resources && steps.step_count == 0) HoldBackSnapshotFindings(*resources, &r.findings);
  const bool any_fix = std::any_of(r.findings.begin(), r.findings.end(),
                                   [](const Finding& f) { return FixForFinding(f.id) != nullptr; });
  if (steps.step_count > 0 && any_fix) {  // a model without device work is built only where a fix replays
    WhatIfOptions wo;  // the replay reads the cores from here, not from the model
    wo.cores = opts.cores > 0 ? opts.cores : resources ? resources->cores.value_or(0) : 0;
    if (captured_model) {
      AttachPredictions(*captured_model, wo, &r.findings);
    } else {
      StepModel model = TraceToStepModel(trace, worker, windows,
                                         steps.cpu_only ? DeviceCoverage::kCpuOnly : DeviceCoverage::kMissing,
                                         &steps.first_calls);
      model.loader_workers = applied.loader_workers || applied.prefetch;
      model.compiled = applied.any_compilation();
      model.tf_graph = applied.tf_graph;
      model.cores = wo.cores;
      AttachPredictions(model, wo, &r.findings);
    }
  }
  if (!no_path_note.empty()) r.notes.push_back(std::move(no_path_note));
  if (critical_path.valid()) r.critical_path = critical_path.get();
  captured_model.reset();  // freed before anything else is built
  RankBoundingFindingsFirst(&r.findings);
  r.verdict = MakeVerdict(r.findings, sig.steps);
  // Where the device's records are missing, what the input lacks leads the findings instead.
  if (steps.device_missing && steps.step_count > 0)
    r.verdict = HostOnlyVerdict(r.findings, steps.device_nothing_launched, steps.device_no_operators, &steps);
  else
    LeadWithTheVerdictsFinding(r.verdict, &r.findings);
  if (r.verdict.bottleneck == Bottleneck::kUnknown) SayWhyNoVerdict(trace, resources.get(), &r);
  if (framework == Framework::kHorovod && worker.valid() && windows.whole_window)
    SayWhenOnlyHorovodStartup(trace, worker, &r);

  // A trace that explains little of its steps supports little: untraced host time lowers the
  // confidence (rules/thresholds.h: the untraced_time tiers).
  if (steps.step_count > 0 && steps.mean_step_ms > 0) {
    const double untraced = 100.0 * steps.untraced_host_ms / steps.mean_step_ms;
    if (untraced >= kUntracedHighPct) r.coverage.confidence = "low";
    else if (untraced >= kUntracedModeratePct && r.coverage.confidence == "high") r.coverage.confidence = "medium";
    if (untraced >= kUntracedModeratePct)
      r.coverage.evidence.push_back(fmt::format("{:.0f}% of the step has nothing recorded", untraced));
  }
  // Host waits on device work the trace does not hold: the record is partial.
  if (steps.step_count > 0 && !steps.cpu_only && !steps.device_missing && steps.mean_step_ms > 0 &&
      100.0 * steps.sync_wait_ms / steps.mean_step_ms >= kUnrecordedDeviceWorkPct) {
    r.coverage.confidence = "low";
    r.coverage.evidence.push_back(fmt::format("{:.0f}% of the step the host waits on device work the trace does not hold",
                                              100.0 * steps.sync_wait_ms / steps.mean_step_ms));
  }
  // The profiler's own host work (Python stacks, memory events) inflates host-side figures: said
  // beside the report, and a host-bound verdict rests on them, so it is held with less confidence.
  if (steps.step_count > 0 && !windows.steps.empty() && framework == Framework::kPyTorch) {
    ProfilerOverhead po =
        TraceToProfilerOverhead(trace, worker, windows.steps.front().start_ns, windows.steps.back().end_ns,
                                int(windows.steps.size()));
    if (!po.note.empty()) r.notes.push_back(po.note);
    if (po.stacks_inflate_host && r.verdict.bottleneck == Bottleneck::kHost && r.coverage.confidence == "high")
      r.coverage.confidence = "medium";
  }
  const double analysed_ms = steps.mean_step_ms * steps.step_count;
  const bool whole_short_steps = !windows.whole_window && steps.events_in_steps >= kMinEventsForAShortStep;
  if (steps.step_count > 0 && analysed_ms * 1e6 < double(kMinAnalysableWindowNs) && !whole_short_steps) {
    // What bounds so short a window says nothing about a step; findings of another kind (memory
    // headroom, missing device activity) still hold.
    r.findings.erase(std::remove_if(r.findings.begin(), r.findings.end(),
                                    [](const Finding& f) {
                                      return BottleneckOf(f) != Bottleneck::kUnknown || f.id == "untraced_time";
                                    }),
                     r.findings.end());
    r.verdict.bottleneck = Bottleneck::kUnknown;
    r.verdict.summary = fmt::format("too little to diagnose: the steps analysed span {:.1f} us in all, under the {} ms "
                                    "a step (training or inference) needs to say anything about it",
                                    analysed_ms * 1e3, kMinAnalysableWindowNs / 1'000'000);
    // Without device records the steps are the host's time alone; a longer wait on the device
    // says the device's share, not recorded, is the larger.
    if (steps.device_missing && steps.device_wait_ms > analysed_ms)
      r.verdict.summary += fmt::format("; the host then waited {:.2f} ms on the device ({}): its work, not recorded, "
                                       "outlasts the host's",
                                       steps.device_wait_ms, steps.device_wait_name);
    r.coverage.confidence = "low";
  }
  TfVerdictsToReport(trace, &r);

  r.top_kernels = steps.top_kernels;
  r.top_ops = steps.top_ops;
  if (r.top_kernels.size() > size_t(opts.max_top_events)) r.top_kernels.resize(opts.max_top_events);
  if (r.top_ops.size() > size_t(opts.max_top_events)) r.top_ops.resize(opts.max_top_events);
  if (worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).program_spans_only &&
      steps.step_count > 0) {
    // Spans a program timed itself say where its time went, not which operators or device work
    // ran inside them: what bounds the work is not in the input.
    r.coverage.confidence = "low";
    std::string note = "the trace's events carry no category and name no framework: they are the program's own spans, "
                       "not operators or device work, so the shares say where the time went, not what bounds it";
    if (!r.top_ops.empty() && r.top_ops.front().count == 1 && r.top_ops.front().share_pct >= kOneCallWindowPct)
      note += fmt::format("; one call, '{}', holds {:.1f}% of the window", r.top_ops.front().name,
                          r.top_ops.front().share_pct);
    r.notes.push_back(std::move(note));
  }
  if (steps.step_count > 0 && !steps.cpu_only && !steps.device_missing) {
    r.kernel_tables = TraceToKernelTables(trace, worker, r.top_ops, windows.steps.front().start_ns);
  }
  if (!windows.steps.empty()) {
    int64_t lo = windows.steps.front().start_ns, hi = windows.steps.back().end_ns;
    r.window_ms = (hi - lo) / 1e6;
    FillLanes(trace, worker, lo, hi, opts, &r.lanes);
  }
  if (detail) {
    detail->worker = worker;
    detail->windows = std::move(windows);
    detail->steps = std::move(steps);
  }
  return r;
}

std::vector<std::string> ImportDiagnosticLines(const ImportDiagnostics& d) {
  std::vector<std::string> out;
  for (int i = 0; i < int(ImportIssue::kCount_); ++i) {
    uint64_t n = d.count(ImportIssue(i));
    if (n == 0) continue;
    out.push_back(fmt::format("{} {}", n, GetImportIssueInfo(ImportIssue(i)).description));
  }
  for (const auto& [issue, note] : d.notes()) out.push_back(note);
  return out;
}

}  // namespace stepdoctor
