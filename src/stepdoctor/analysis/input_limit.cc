#include "stepdoctor/analysis/input_limit.h"

#include <fmt/format.h>

#include <algorithm>

#include "stepdoctor/analysis/resource_signals.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/analysis/trace_to_batch_size.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"

namespace stepdoctor {
namespace {

// A step that is nearly all input wait would need an unbounded rate to never wait; the
// wait-free step is taken as at least this share of today's, so the rate stays finite.
constexpr double kMinWaitFreeStepShare = 0.05;

bool ParallelReads(const TfSignals* tf) {
  if (!tf || !tf->tfdata.present) return false;
  return std::any_of(tf->tfdata.stages.begin(), tf->tfdata.stages.end(), [](const TfDataStage& s) {
    return s.kind == TfDataStageKind::kParallel && s.op.find("Interleave") != std::string::npos;
  });
}

}  // namespace

InputDemand StepsToInputDemand(const StepSignals* steps, const ResourceSignals* resources, double samples_per_step) {
  InputDemand d;
  d.samples_per_step = samples_per_step > 0 ? samples_per_step : 0;
  double wait_free_ms = 0;
  if (steps && steps->step_count > 0 && steps->mean_step_ms > 0) {
    d.steps = steps->step_count;
    d.step_ms = steps->mean_step_ms;
    d.exposed_input_ms = steps->category_ms[int(StepCategory::kInput)];
    d.input_wait_ms = steps->input_wait_ms;
    wait_free_ms = std::max(d.step_ms - d.exposed_input_ms, kMinWaitFreeStepShare * d.step_ms);
    if (d.samples_per_step > 0) {
      d.consumed_samples_per_s = d.samples_per_step * 1000.0 / d.step_ms;
      d.needed_samples_per_s = d.samples_per_step * 1000.0 / wait_free_ms;
      d.source = fmt::format("{} steps of {:.1f} ms, {:.0f} samples a step", d.steps, d.step_ms, d.samples_per_step);
    }
  }
  if (resources && resources->tree_read_bytes_per_s.value_or(0) > 0) {
    d.consumed_mb_per_s = *resources->tree_read_bytes_per_s / 1e6;
    d.needed_mb_per_s = wait_free_ms > 0 ? d.consumed_mb_per_s * d.step_ms / wait_free_ms : d.consumed_mb_per_s;
    if (d.source.empty()) d.source = fmt::format("the job's reads in live samples ({:.1f} MB/s)", d.consumed_mb_per_s);
  }
  return d;
}

void AddBatchFromTrace(const Trace& trace, WorkerId worker, InputDemand* d) {
  if (d->samples_per_step > 0 || d->steps == 0 || d->step_ms <= 0 || !worker.valid()) return;
  std::optional<BatchSize> b = TraceToBatchSize(trace, worker);
  if (!b) return;
  const double wait_free_ms = std::max(d->step_ms - d->exposed_input_ms, kMinWaitFreeStepShare * d->step_ms);
  d->samples_per_step = double(b->samples);
  d->consumed_samples_per_s = d->samples_per_step * 1000.0 / d->step_ms;
  d->needed_samples_per_s = d->samples_per_step * 1000.0 / wait_free_ms;
  d->samples_from = b->Describe();
  d->source = fmt::format("{} steps of {:.1f} ms, {}", d->steps, d->step_ms, d->samples_from);
}

Result<InputDemand> TraceToInputDemand(const Trace& trace, double samples_per_step) {
  WorkerId worker = PrimaryWorker(trace);
  StepWindows windows;
  StepSignals steps;
  if (worker.valid() && trace.EventCount() > 0) {
    windows = TraceToSteps(trace, worker);
    steps = TraceToStepSignals(trace, worker, windows);
  }
  std::unique_ptr<ResourceSignals> resources = trace.counters.empty() ? nullptr : ComputeResourceSignals(trace);
  InputDemand d = StepsToInputDemand(steps.step_count > 0 ? &steps : nullptr, resources.get(), samples_per_step);
  AddBatchFromTrace(trace, worker, &d);
  if (d.needed_samples_per_s > 0 || d.needed_mb_per_s > 0) return d;
  if (steps.step_count > 0)
    return Result<InputDemand>(ErrorCode::kInvalidArgument,
                               "the trace has steps but not the samples each reads (its copies after each DataLoader fetch carry no "
                               "shapes: record_shapes=True shows them): give --samples-per-step (the batch size)");
  return Result<InputDemand>(ErrorCode::kInvalidArgument, "no steps and no sampled reads: nothing says what the job reads");
}

InputLimitSignals ComputeInputLimit(const InputDemand& demand, const IoBenchReport& storage,
                                    const AppliedOptimizations* applied, const TfSignals* tf,
                                    const ResourceSignals* resources, const InputLimitOptions& o) {
  InputLimitSignals s;
  s.demand = demand;
  s.storage = &storage;
  int most = 0;
  for (const auto& p : storage.phases)
    if (p.kind == storage.read_path) most = std::max(most, p.readers);
  if (o.readers > 0) {
    s.readers = o.readers;
    s.readers_source = "given (--data-readers)";
  } else if (applied && applied->loader_workers) {
    s.readers = most;
    s.readers_source = "DataLoader worker processes (the trace does not record how many): the most readers probed";
  } else if (ParallelReads(tf)) {
    s.readers = most;
    s.readers_source = "tf.data reads in parallel (a parallel interleave): the most readers probed";
  } else {
    s.readers = 1;
    s.readers_source = "the trace shows no DataLoader workers or parallel reads (loading runs in the training process)";
  }
  // The probe's figure at the job's reader count: the most readers probed up to it, else the fewest.
  const IoBenchPhase* lowest = nullptr;
  for (const auto& p : storage.phases) {
    if (p.kind != storage.read_path) continue;
    if (p.readers <= s.readers && (!s.phase || p.readers > s.phase->readers)) s.phase = &p;
    if (!lowest || p.readers < lowest->readers) lowest = &p;
  }
  if (!s.phase) s.phase = lowest;
  const bool small = storage.read_path == kPhaseSmallFiles;
  if (o.bytes_per_sample > 0) {
    s.bytes_per_sample = o.bytes_per_sample;
  } else if (small && storage.mean_small_file_bytes > 0) {
    s.bytes_per_sample = storage.mean_small_file_bytes;  // one file a sample
    s.bytes_estimated = true;
  }
  if (s.phase) {
    if (small) s.deliverable_samples_per_s = s.phase->files_per_s;
    else if (s.bytes_per_sample > 0) s.deliverable_samples_per_s = s.phase->mb_per_s * 1e6 / s.bytes_per_sample;
  }
  s.needed_samples_per_s = demand.needed_samples_per_s;
  if (s.needed_samples_per_s <= 0 && demand.needed_mb_per_s > 0 && s.bytes_per_sample > 0)
    s.needed_samples_per_s = demand.needed_mb_per_s * 1e6 / s.bytes_per_sample;
  if (s.needed_samples_per_s > 0 && s.deliverable_samples_per_s > 0)
    s.headroom = s.deliverable_samples_per_s / s.needed_samples_per_s;
  else if (s.phase && demand.needed_mb_per_s > 0)  // bytes against bytes: no sample size needed
    s.headroom = s.phase->mb_per_s / demand.needed_mb_per_s;
  if (demand.samples_per_step > 0 && s.deliverable_samples_per_s > 0)
    s.storage_ms_per_step = demand.samples_per_step / s.deliverable_samples_per_s * 1000.0;
  if (tf && tf->tfdata.present && !tf->tfdata.stages.empty()) {
    s.tfdata_source_share_pct = 0;
    for (const auto& st : tf->tfdata.stages)
      if (st.kind == TfDataStageKind::kSource) s.tfdata_source_share_pct += st.share_pct;
  }
  if (resources) {
    s.tree_cpu_pct = resources->tree_cpu_mean_pct;
    s.cores = resources->cores;
  }
  return s;
}

}  // namespace stepdoctor
