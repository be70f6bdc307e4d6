// Small helpers shared by the rules: share of step time, number formatting for evidence.
#pragma once

#include <fmt/format.h>

#include <string>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

namespace stepdoctor::rules {

// How many rows a finding lists (top events, further devices, stalls, stages): enough to act
// on, short enough to read.
inline constexpr size_t kTopEventsShown = 3;    // top events behind a finding
inline constexpr size_t kMoreDevicesShown = 3;  // devices listed after the one the title names
inline constexpr size_t kTopRowsShown = 5;      // stalls, pipeline stages, retraced functions

// Share (0-100) of the mean step that category `c` takes.
inline double CategoryShare(const StepSignals& s, StepCategory c) {
  return s.mean_step_ms > 0 ? 100.0 * s.category_ms[int(c)] / s.mean_step_ms : 0;
}

inline std::string Ms(double ms) { return ms >= 100 ? fmt::format("{:.0f} ms", ms) : fmt::format("{:.1f} ms", ms); }
// A duration for a title: seconds from 10 s on ("5.2 s"), microseconds under 1 ms, else Ms.
inline std::string Duration(double ms) {
  if (ms > 0 && ms < 1) return fmt::format("{:.0f} us", ms * 1000);  // a 0.9 ms step reads as 949 us
  return ms >= 10'000 ? fmt::format("{:.1f} s", ms / 1000) : Ms(ms);
}
// The label of the untraced gaps' figure: the device is idle in them where its activity was
// recorded; where it was not, nothing is known of it.
// (gap_ms: kUntracedGapNs in ms, trace_to_step_signals.h.)
inline std::string UntracedGapsLabel(const StepSignals& s, int64_t gap_ms) {
  return fmt::format("gaps of {} ms or more with no event{}", gap_ms,
                     s.device_missing ? " (the device's activity is not recorded)" : ", the device idle");
}

// How a title names the region its shares are of: "each 14.6 ms step" where steps were found,
// "the 14.6 ms window" where there were none (the whole window is one region, not a step: no
// text may call it one). The same for the phrases without the length.
// One step is "the one 2053 ms step recorded": "each" would claim others it stands for.
inline std::string EachStep(const StepSignals& s) {
  if (s.has_steps && s.step_count == 1) return fmt::format("the one {} step recorded", Duration(s.mean_step_ms));
  return s.has_steps ? fmt::format("each {} step", Duration(s.mean_step_ms))
                     : fmt::format("the {} window", Duration(s.mean_step_ms));
}
inline const char* EachStepNoun(const StepSignals& s) {
  return !s.has_steps ? "the window" : s.step_count == 1 ? "the one step recorded" : "each step";
}
// The same for rules whose step figures may be absent (TensorFlow's): "each step" then.
inline const char* EachStepNoun(const StepSignals* s) { return s ? EachStepNoun(*s) : "each step"; }
inline const char* OfTheStep(const StepSignals& s) { return s.has_steps ? "of the step" : "of the window"; }
inline const char* PerStep(const StepSignals& s) { return s.has_steps ? "per step" : "in the window"; }
// "steps measured: 3 (mean 12.0 ms)", or "window analysed: 5.2 s (no step markers)".
inline EvidenceItem StepsMeasured(const StepSignals& s, const std::string& extra = "") {
  if (!s.has_steps) return {"window analysed", fmt::format("{} (no step markers: one region)", Duration(s.mean_step_ms))};
  return {"steps measured", fmt::format("{} (mean {}{})", s.step_count, Ms(s.mean_step_ms), extra)};
}
inline std::string Pct(double pct) { return fmt::format("{:.1f}%", pct); }
inline std::string Us(double us) { return fmt::format("{:.1f} us", us); }
// Memory sizes, in every rule: binary gigabytes, as NVML, nvidia-smi and PyTorch print them.
inline std::string GiB(double bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

// "up to 1.42x (if the input wait is fully hidden)"
inline std::string GainText(double factor, const char* condition) {
  // GainIfRemoved stops at a 99% share: past it the bound says only that the rest is tiny.
  if (factor >= 99.99)
    return fmt::format("100x or more faster steps {} (the rest of the step is under 1% of it)", condition);
  return fmt::format("up to {:.2f}x faster steps {}", factor, condition);
}

// XLA for a step that already runs as a TensorFlow graph (a TF1 session, tf.function): turned on
// for the graph (auto-clustering), not by wrapping the step in tf.function, which is done.
inline constexpr const char* kTfGraphXlaCode =
    "tf.config.optimizer.set_jit(True)   # XLA auto-clustering of the graph's ops (TF 2.x, and tf.compat.v1 sessions)\n"
    "# TF1 sessions: config = tf.compat.v1.ConfigProto()\n"
    "#   config.graph_options.optimizer_options.global_jit_level = tf.compat.v1.OptimizerOptions.ON_1\n"
    "#   sess = tf.compat.v1.Session(config=config)";

// The same on a CPU: TensorFlow's auto-clustering leaves CPU ops alone unless this flag is set
// before it starts (global_jit_level alone turns XLA on for GPU ops only).
inline std::string TfGraphXlaCode(bool cpu_only) {
  return cpu_only ? std::string("os.environ['TF_XLA_FLAGS'] = '--tf_xla_auto_jit=2 --tf_xla_cpu_global_jit'  # "
                                "before TensorFlow starts: auto-clustering of CPU ops\n") +
                        kTfGraphXlaCode
                  : std::string(kTfGraphXlaCode);
}

// Device-bound seen from the host: the device is busy almost all of its own span, and what is
// not device work is work already queued for it (the host finished its part earlier). Returns
// the device side's share of the step (compute, collectives, copies, queued) where it holds.
double DeviceBoundShare(const StepSignals& s);

// The loop the profiler steps through, as the window ran it: a training step, or the model
// forward only (inference, evaluation) where no backward pass or optimizer step was recorded.
struct StepLoop {
  std::string steps;  // "training steps" / "inference steps" / "the job's iterations"
  std::string few;    // after "a few": "training steps" / "inference steps" / "iterations"
  std::string body;   // the call inside the loop
  // The loop, its first line indented by `indent` spaces.
  std::string Code(int indent) const {
    const std::string pad(static_cast<size_t>(indent), ' ');
    return pad + "for step, batch in enumerate(loader):\n" + pad + "    " + body;
  }
};

inline StepLoop StepLoopOf(const Signals& sig) {
  if (sig.applied && sig.applied->forward_only)
    return {"inference steps", "inference steps", "with torch.inference_mode(): model(batch)"};
  // A PyTorch window whose operators do not say what the job runs (none recorded): its
  // iterations, whatever they are.
  if (sig.framework == Framework::kPyTorch && sig.applied && !sig.applied->trains)
    return {"the job's iterations", "iterations", "run_iteration(batch)"};
  return {"training steps", "training steps", "train_step(batch)"};
}


// The trace came from a TF 1.x session's timeline (RunMetadata step stats): its advice is in
// sess.run's terms, not Keras callbacks or tf.profiler.
inline bool Tf1Session(const Signals& sig) {
  if (!sig.trace || !sig.steps) return false;
  const WorkerId w = sig.steps->worker;
  return w.valid() && w.v < sig.trace->workers.size() && sig.trace->worker(w).tf1_session;
}

// One sess.run traced in full, written as a Chrome-trace timeline.
#define SD_TF1_FULL_TRACE_RUN                                                                   \
  "run_options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)\n"     \
  "run_metadata = tf.compat.v1.RunMetadata()\n"                                                 \
  "sess.run(fetches, options=run_options, run_metadata=run_metadata)\n"                         \
  "from tensorflow.python.client import timeline\n"                                             \
  "with open('timeline.json', 'w') as f:\n"                                                     \
  "    f.write(timeline.Timeline(run_metadata.step_stats).generate_chrome_trace_format())"
// What the traced run fetched: a training step's train_op, or an inference's outputs.
#define SD_TF1_FETCHES "fetches = train_op   # what the traced run fetched: train_op, or the outputs of an inference\n"
inline constexpr const char* kTf1FullTraceRunCode = SD_TF1_FETCHES SD_TF1_FULL_TRACE_RUN;
// The same of a later, warm sess.run: the first runs set the session up.
inline constexpr const char* kTf1TraceWarmRunCode =
    SD_TF1_FETCHES "for i in range(10): sess.run(fetches)   # warm-up runs, not traced\n" SD_TF1_FULL_TRACE_RUN;
#undef SD_TF1_FETCHES
#undef SD_TF1_FULL_TRACE_RUN

// The code to record a short profile, for findings whose next step is to look inside the step.
inline void SetProfileAFewStepsCode(Fix* fix) {
  fix->tensorflow =
      "tf.profiler.experimental.start('logdir')  # a few steps, then stepdoctor diagnose logdir\n"
      "for step in range(20): train_step(next(it))\n"
      "tf.profiler.experimental.stop()";
  fix->pytorch =
      "with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=5),\n"
      "        on_trace_ready=torch.profiler.tensorboard_trace_handler('./log')) as p:\n"
      "    for step, batch in enumerate(loader):\n"
      "        train_step(batch); p.step()\n"
      "        if step == 8: break  # then: stepdoctor diagnose ./log";
}

}  // namespace stepdoctor::rules
