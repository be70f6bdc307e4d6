// device_activity_missing: the job used an accelerator (runtime calls, device memory, device
// properties) but the trace holds no device work. Says how to record it; rules that judge the
// device do not run (kNeedsDeviceActivity), so nothing is concluded about what was not recorded.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor::rules {
std::optional<Finding> DeviceActivityMissing(const Signals& sig) {
  if (!sig.steps || !sig.steps->device_missing) return std::nullopt;
  const StepLoop loop = StepLoopOf(sig);
  Finding f;
  f.id = "device_activity_missing";
  f.severity = FindingSeverity::kModerate;
  f.title = "device activity was not captured: the verdict rests on the host side only";
  f.gain_upper_bound = 1.0;
  f.gain_text = "no gain figure: what the device did is not in the trace";
  for (const auto& e : sig.steps->device_evidence) f.evidence.push_back({"evidence of an accelerator", e});
  if (!sig.steps->profiler_window.empty()) f.evidence.push_back({"profiled window", sig.steps->profiler_window});
  // Operators that read device values or copy from the device hold the host until the device's
  // work before them is done: where they take a share of the step, the device likely set its pace.
  const StepSignals& s = *sig.steps;
  if (s.mean_step_ms > 0 && 100.0 * s.host_device_read_ms / s.mean_step_ms >= kDeviceReadNotePct) {
    std::string names;
    for (const auto& n : s.host_device_read_names) names += (names.empty() ? "" : ", ") + n;
    f.evidence.push_back({"host waiting on device results",
                          fmt::format("{} {} ({}) in operators that read or copy device values or wait on the device "
                                      "({}): there the device's work, not recorded, likely set the pace",
                                      Ms(s.host_device_read_ms), PerStep(s),
                                      Pct(100.0 * s.host_device_read_ms / s.mean_step_ms), names)});
  }
  f.fix.summary = "Record device activity too, then diagnose again.";
  f.fix.pytorch =
      "from torch.profiler import profile, schedule, ProfilerActivity\n"
      "with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
      "             schedule=schedule(wait=1, warmup=1, active=3),\n"
      "             on_trace_ready=torch.profiler.tensorboard_trace_handler('./log')) as prof:\n" +
      loop.Code(4) + "; prof.step()";
  f.fix.tensorflow =
      "options = tf.profiler.experimental.ProfilerOptions(host_tracer_level=2, device_tracer_level=1)\n"
      "tf.profiler.experimental.start('./log', options=options)\n"
      "# ... a few " + loop.few + " ...\n"
      "tf.profiler.experimental.stop()";
  if (sig.steps->device_tracer_on && !sig.steps->device_nothing_launched) {
    // The runtime calls that launched the work were recorded by the tracer session that also
    // records kernels: asking for device activity again would change nothing.
    f.title = "the device tracer was on but no kernel or copy records came back: the verdict rests on the host side only";
    f.evidence.push_back({"recorded, then lost",
                          sig.steps->device_tracer_started
                              ? "the trace's header gives the CUPTI version: the profiler started its device tracer, "
                                "so device activity was requested"
                              : "the launch calls are recorded by the same tracer session that records the kernels, "
                                "so device activity was requested"});
    // A device-wide synchronize after the last launch, inside the window: the device had finished,
    // so the records were not lost to a profiler that stopped too early.
    const std::string& synced = sig.steps->device_synced_after_launches;
    if (!synced.empty())
      f.evidence.push_back({"the device finished in the window",
                            synced + " after the last launch: the records were not lost to a profiler that stopped "
                                     "before the device finished"});
    f.fix.summary =
        synced.empty()
            ? "Kernel records are lost when the profiler stops before the device has finished and handed them over, "
              "when another tool holds the GPU's tracing interface (Nsight Systems or Compute, DCGM profiling), under "
              "WSL 2 or drivers whose tracer delivers no activity records, or with a CUPTI newer than the driver. Let "
              "the device finish inside the window, trace with nothing else attached, then diagnose again."
            : "The device finished inside the window, so the kernel records were lost another way: another tool holds "
              "the GPU's tracing interface (Nsight Systems or Compute, DCGM profiling), WSL 2 or a driver whose tracer "
              "delivers no activity records, or a CUPTI newer than the driver. Trace with nothing else attached, on a "
              "driver that matches the CUDA build, then diagnose again.";
    f.fix.pytorch =
        "with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
        "             schedule=schedule(wait=1, warmup=1, active=3),\n"
        "             on_trace_ready=torch.profiler.tensorboard_trace_handler('./log')) as prof:\n" +
        loop.Code(4) + "\n" +
        (synced.empty() ? "        torch.cuda.synchronize()   # while profiling: the step's kernels finish, and are "
                          "recorded, in the window\n"
                        : "") +
        "        prof.step()\n"
        "print(torch.version.cuda, torch.cuda.get_device_name())  # and `nvidia-smi`: the driver's CUDA version";
    f.fix.tensorflow =
        "# the log names a tracer failure if there was one (CUPTI_ERROR_...): fix that first, with no other profiler attached\n"
        "options = tf.profiler.experimental.ProfilerOptions(host_tracer_level=2, device_tracer_level=1)\n"
        "tf.profiler.experimental.start('./log', options=options)\n"
        "# ... a few " + loop.few + " ...\n"
        "tf.profiler.experimental.stop()";
  }
  if (Tf1Session(sig) && !sig.steps->device_nothing_launched) {
    // A TF1 timeline: its GPU lanes come from the session's own tracer (CUPTI), asked for per run.
    f.fix.summary = "A TF1 timeline lists the GPU's stream lanes only where the session traced with CUPTI: run the "
                    "step with a full trace, with libcupti on the library path (the log says \"Could not dlopen "
                    "library 'libcupti'\" where it is not), then diagnose the new timeline.";
    f.fix.tensorflow =
        std::string("# export LD_LIBRARY_PATH=/usr/local/cuda/extras/CUPTI/lib64:$LD_LIBRARY_PATH\n") +
        kTf1FullTraceRunCode;
    f.fix.pytorch.clear();
  }
  if (sig.steps->device_nothing_launched) {
    // Recording device activity would show nothing: the window missed the training steps.
    f.title = "no device work was issued inside the profiled window: it holds set-up or a wait on earlier work";
    f.fix.summary = "Profile a window that covers " + loop.steps +
                    " (after warm-up), with device activity on: step the profiler once per iteration.";
    if (sig.steps->device_calls_traced)
      f.fix.summary = "Profile a window that covers " + loop.steps +
                      " (after warm-up): the device tracer was on (it recorded the runtime calls), so only the "
                      "window needs to change. Step the profiler once per iteration.";
  }
  if (sig.steps->device_nothing_launched && sig.steps->device_no_operators) {
    // The profiler ran far longer than its events and recorded no operator at all: the job's work
    // ran where this profiler does not record, not merely outside a window.
    f.title = "nothing of the job's work was recorded: the profiler ran far longer than its events, which hold no "
              "operator and no device work, only its own start and stop calls";
    f.fix.summary =
        "The profiler saw none of the training. It records the process (and threads) it runs in: steps run in other "
        "processes (mp.spawn or torchrun workers, DataParallel replicas in subprocesses) need a profiler of their "
        "own; a profiler with a schedule records nothing until prof.step() brings it to its active steps. Profile "
        "inside the process that trains, stepping the profiler each iteration, then diagnose again.";
    f.fix.pytorch =
        "def train_worker(rank, world_size, ...):        # inside the process that trains\n"
        "    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
        "                 schedule=schedule(wait=1, warmup=1, active=3),\n"
        "                 on_trace_ready=torch.profiler.tensorboard_trace_handler(f'./log/rank{rank}')) as prof:\n" +
        loop.Code(8) + "; prof.step()";
  }
  return f;
}

}  // namespace stepdoctor::rules
