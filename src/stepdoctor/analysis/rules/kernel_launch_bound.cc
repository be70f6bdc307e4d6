// kernel_launch_bound: the device idles while the host launches many small kernels.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

namespace stepdoctor::rules {
std::optional<Finding> KernelLaunchBound(const Signals& sig) {
  if (!sig.tf || sig.tf->launch_share_pct < kLaunchBoundMinPct) return std::nullopt;
  // Launch overhead needs launches in evidence: kernels recorded in the steps.
  if (sig.steps && sig.steps->kernels_per_step == 0) return std::nullopt;
  const TfSignals& s = *sig.tf;
  Finding f;
  f.id = "kernel_launch_bound";
  f.severity = s.launch_share_pct >= kLaunchBoundHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = s.launch_share_pct;
  f.title = fmt::format("{} of {} is kernel launch overhead: the device waits for the host", Pct(s.launch_share_pct),
                        EachStepNoun(sig.steps));
  f.gain_upper_bound = GainIfRemoved(s.launch_share_pct);
  f.gain_text = GainText(f.gain_upper_bound, "if launches never left the device idle");
  f.evidence.push_back({"kernel launch share of the step", Pct(s.launch_share_pct)});
  if (s.median_kernel_us > 0) f.evidence.push_back({"median kernel", Us(s.median_kernel_us)});
  if (s.median_launch_us > 0) f.evidence.push_back({"median launch call", Us(s.median_launch_us)});
  f.evidence.push_back({"tf.data in use", s.tfdata.present ? "yes" : "no"});
  f.fix.summary = "Launch fewer, larger kernels: compile the step with XLA (jit_compile=True) to fuse ops, run several "
                  "steps per call, and raise the batch size.";
  f.fix.tensorflow =
      "model.compile(optimizer, loss, jit_compile=True, steps_per_execution=32)\n"
      "# custom loops: @tf.function(jit_compile=True)";
  if (s.tfdata.present && !s.gpu_private_threads) {
    f.fix.summary += " tf.data threads compete with the launching threads: give each GPU its own launch threads.";
    f.fix.tensorflow += "\n# shell, before starting Python:\nexport TF_GPU_THREAD_MODE=gpu_private\nexport TF_GPU_THREAD_COUNT=2";
  }
  f.fix.pytorch =
      "model = torch.compile(model, mode=\"reduce-overhead\")   # CUDA graphs: one launch per step\n"
      "# or capture manually with torch.cuda.graphs / torch.cuda.make_graphed_callables";
  if (sig.applied && sig.applied->graphs())  // replayed already: what still launches is outside the graphs
    f.fix.pytorch = "# CUDA graphs replay already: capture what still launches outside them, or give each kernel more "
                    "work with a larger batch";
  if (sig.applied && sig.applied->tf_graph && !sig.applied->xla) {
    // The step already runs as a TensorFlow graph: tf.function is done; XLA fuses its kernels.
    f.evidence.push_back({"already in use", "TensorFlow graph execution"});
    f.fix.summary = "The step already runs as a TensorFlow graph: fuse its ops into fewer, larger kernels with XLA "
                    "auto-clustering, and raise the batch size.";
    f.fix.tensorflow = std::string(kTfGraphXlaCode) + "\n# Keras: model.compile(optimizer, loss, jit_compile=True, steps_per_execution=32)";
    if (s.tfdata.present && !s.gpu_private_threads) {
      f.fix.summary += " tf.data threads compete with the launching threads: give each GPU its own launch threads.";
      f.fix.tensorflow += "\n# shell, before starting Python:\nexport TF_GPU_THREAD_MODE=gpu_private\nexport TF_GPU_THREAD_COUNT=2";
    }
  }
  if (sig.applied && sig.applied->xla) {
    // XLA is already in use: its clusters still launch this many kernels.
    f.evidence.push_back({"already in use", "XLA"});
    f.fix.summary = "XLA is already in use and launches still leave the device idle: run several steps per call "
                    "and give each kernel more work with a larger batch.";
    f.fix.tensorflow = "model.compile(optimizer, loss, steps_per_execution=32)   # more steps per host call";
    f.fix.pytorch = "# compiled already: fewer, larger kernels come from a larger batch";
  }
  return f;
}

}  // namespace stepdoctor::rules
