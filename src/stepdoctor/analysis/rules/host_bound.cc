// host_bound: the device idles while the host launches kernels or runs framework/Python code.
// On a CPU-only trace: the time between (and inside tiny) top-level operators.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf1_runs.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor::rules {
namespace {

constexpr const char* kMakeOnDevicePyTorch =
    "x = torch.randn(shape, device='cuda')        # make tensors where they are used, not on the CPU\n"
    "# CPU preprocessing belongs in Dataset.__getitem__, run ahead by DataLoader(num_workers=N)";
constexpr const char* kMakeOnDeviceTensorFlow =
    "ds = ds.map(preprocess, num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE)\n"
    "# or run it on the GPU inside the tf.function step";

// The advice for work computed on CPU tensors inside the step, predicted by the cpuwork fix.
void AdviseMovingCpuWork(Finding* f, const char* why) {
  f->fix.summary = std::string("The step computes on CPU tensors ") + why +
                   ": create or transform that data on the device, or move it into the input pipeline where "
                   "workers prepare it ahead of the step.";
  f->fix.pytorch = kMakeOnDevicePyTorch;
  f->fix.tensorflow = kMakeOnDeviceTensorFlow;
  f->whatif_fix = "cpuwork";
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The advice where the driver's allocation and free calls take the host's time: the caching
// allocator's cache missed or was emptied (empty_cache(), shapes that change, fragmentation).
void AdviseKeepingAllocatorCache(Finding* f) {
  f->fix.summary = "The host spends the step allocating and freeing device memory through the driver (each free "
                   "also waits for the device): keep the caching allocator's memory cached. Do not call "
                   "empty_cache() in the loop, keep tensor shapes steady (pad or bucket varying lengths), and let it "
                   "grow segments rather than fragment.";
  f->fix.pytorch = "# no torch.cuda.empty_cache() inside the training loop\n"
                   "# shell, before starting Python (ROCm reads PYTORCH_HIP_ALLOC_CONF):\n"
                   "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n"
                   "# varying shapes: pad to a few fixed lengths so the cached blocks fit again";
  Prediction none;  // no launch fix: the replay does not model the allocator's cache
  none.fix = "launch";
  none.why_not = "the time is the driver allocating and freeing memory, not launches: how much of it a warm "
                 "allocator cache avoids is not in the trace";
  f->prediction = none;
  f->fix.tensorflow = "# TensorFlow's allocator reserves device memory once and reuses it: per-step driver\n"
                      "# allocations come from code beside it (a custom op, a library with its own buffers)";
}

// Device activity not recorded: what the device did is unknown, but operators computing on CPU
// tensors inside the step run on the host thread that issues the device's work, so their time
// is a floor under the step whatever the device does.
std::optional<Finding> HostCpuWorkWithoutDevice(const StepSignals& s) {
  // The driver's allocations and frees: host time however the device's work went, a free also
  // waiting for the device's queued work (how much of it waits is not recorded).
  if (s.mean_step_ms > 0 && s.host_allocator_ms >= kHostModeratePct / 100.0 * s.mean_step_ms &&
      s.host_allocator_ms >= s.host_cpu_op_ms) {
    const double share = 100.0 * s.host_allocator_ms / s.mean_step_ms;
    Finding f;
    f.id = "host_bound";
    // Low: how much of each free waited for the device is unknown, so this is no floor under the
    // step set by the host, and it does not make the verdict host-bound.
    f.severity = FindingSeverity::kLow;
    f.share_pct = share;
    f.title = fmt::format("the host spends {} of {} in device memory allocations and frees (cudaMalloc/cudaFree, "
                          "hipMalloc/hipFree): the caching allocator's cache missed or was emptied (device activity "
                          "not recorded)",
                          Pct(share), EachStep(s));
    f.gain_text = "unknown: each free also waits for the device's queued work, which the trace does not hold";
    f.evidence.push_back({"in the driver's allocation and free calls", fmt::format("{} {}", Ms(s.host_allocator_ms), PerStep(s))});
    f.evidence.push_back({"device activity", "not recorded: how much of each free waited on the device is unknown"});
    for (size_t i = 0; i < s.top_ops.size() && i < kTopEventsShown; ++i) f.top_events.push_back(s.top_ops[i]);
    AdviseKeepingAllocatorCache(&f);
    return f;
  }
  if (s.mean_step_ms <= 0 || s.host_cpu_op_ms <= 0) return std::nullopt;
  const double share = 100.0 * s.host_cpu_op_ms / s.mean_step_ms;
  if (share < kHostModeratePct) return std::nullopt;
  Finding f;
  f.id = "host_bound";
  f.severity = FindingSeverity::kModerate;  // judged without the device's side
  f.share_pct = share;
  f.gain_upper_bound = GainIfRemoved(share);
  f.title = fmt::format("the host computes on CPU tensors {} of {} ({}): a floor under the step whatever the device "
                        "does (device activity not recorded)",
                        Pct(share), EachStep(s), JoinNames(s.host_cpu_op_names));
  f.gain_text = GainText(f.gain_upper_bound, "if that work moved to the device or ahead into the input pipeline, "
                                             "and the device's own work (not recorded) took no longer");
  f.evidence.push_back({"in operators computing on the CPU (no launch inside, each >= 1 ms)",
                        fmt::format("{} {}", Ms(s.host_cpu_op_ms), PerStep(s))});
  f.evidence.push_back({"device activity", "not recorded: how long the device's own work takes is unknown"});
  if (s.host_cpu_ops_by_name)
    f.evidence.push_back({"launch calls", "not recorded either: operators that can wait on the device (copies, reads "
                                          "of a device value) are left out; a launch blocked by a full queue would "
                                          "look like CPU work"});
  for (size_t i = 0; i < s.top_ops.size() && i < kTopEventsShown; ++i) f.top_events.push_back(s.top_ops[i]);
  AdviseMovingCpuWork(&f, "on the thread that drives the device");
  return f;
}

}  // namespace

std::optional<Finding> HostBound(const Signals& sig) {
  if (!sig.steps || sig.steps->step_count == 0) return std::nullopt;
  const StepSignals& s = *sig.steps;
  if (s.device_missing) return HostCpuWorkWithoutDevice(s);
  // A CPU trace with no operators at all (a Horovod timeline, a bare annotation file) records
  // nothing of the host's work: its unclaimed time is unknown, not overhead between operators.
  if (s.cpu_only && s.top_level_ops_per_step == 0) return std::nullopt;
  double launch = CategoryShare(s, StepCategory::kKernelLaunch);
  double host = CategoryShare(s, StepCategory::kHostCompute);
  double share = launch + host;
  if (share < kHostModeratePct) return std::nullopt;

  Finding f;
  f.id = "host_bound";
  f.severity = share >= kHostHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = share;
  f.gain_upper_bound = GainIfRemoved(share);
  bool tiny_kernels = !s.cpu_only && s.median_kernel_us > 0 && s.median_launch_us > 0 &&
                      s.median_kernel_us < s.median_launch_us;
  const double bookkeeping = s.mean_step_ms > 0 ? 100.0 * s.framework_overhead_ms / s.mean_step_ms : 0;
  if (s.cpu_only) {
    // The CPU computes: no launch overhead to remove, but a larger batch spreads the per-step
    // dispatch over more items, which the replay can predict (whatif.cc, PredictBatch).
    f.whatif_fix = "batch:scale=4";
    f.title = s.framework_overhead_ms > 0
                  ? fmt::format("{} of {} is framework overhead: bookkeeping ops that do no math ({}) and the "
                                "time between operators",
                                Pct(share), EachStep(s), Pct(bookkeeping))
                  : fmt::format("{} of {} is Python/framework overhead: operator dispatch and the time "
                                "between operators",
                                Pct(share), EachStep(s));
    f.gain_text = GainText(f.gain_upper_bound, s.framework_overhead_ms > 0 ? "if the framework overhead were removed"
                                                                           : "if the overhead between operators were removed");
    f.evidence.push_back({fmt::format("host overhead {}", PerStep(s)), fmt::format("{} ({})", Ms(s.category_ms[int(StepCategory::kHostCompute)]), Pct(share))});
    f.evidence.push_back({fmt::format("top-level operators {}", PerStep(s)), fmt::format("{}", s.top_level_ops_per_step)});
    f.evidence.push_back({fmt::format("operator time in dispatch: wrappers and tiny operators (pieces of own work < {} us)",
                                      kTinyOpNs / 1000),
                          Pct(s.tiny_op_share_pct)});
  } else {
    // No launch call recorded at all (TF1 timelines write none): not a zero, an unknown.
    const bool launches_recorded = s.median_launch_us > 0 || launch > 0;
    f.title = fmt::format("the device waits on the host {} of {} ({})", Pct(share), EachStep(s),
                          launches_recorded ? "launches, framework code"
                          : sig.applied && sig.applied->tf_graph ? "the graph executor's per-op work"
                                                                 : "framework code");
    f.gain_text = GainText(f.gain_upper_bound, "if the host kept the device fed");
    if (launches_recorded)
      f.evidence.push_back({"kernel launch / runtime while the device idles", fmt::format("{} {} ({})", Ms(s.category_ms[int(StepCategory::kKernelLaunch)]), PerStep(s), Pct(launch))});
    else
      f.evidence.push_back({"kernel launch / runtime calls", "not recorded by this profiler: their time is inside the host's figure"});
    const bool graph = sig.applied && sig.applied->tf_graph;  // a graph executor, not Python, runs the ops
    f.evidence.push_back({graph ? "framework (the graph executor) while the device idles" : "framework/Python while the device idles", fmt::format("{} {} ({})", Ms(s.category_ms[int(StepCategory::kHostCompute)]), PerStep(s), Pct(host))});
    f.evidence.push_back({fmt::format("kernels {}", PerStep(s)), fmt::format("{}", s.kernels_per_step)});
    if (s.median_kernel_us > 0 && launches_recorded)
      f.evidence.push_back({"median kernel vs median launch call", fmt::format("{} vs {}{}", Us(s.median_kernel_us), Us(s.median_launch_us), tiny_kernels ? " (kernels are shorter than their launch)" : "")});
    f.evidence.push_back({"device busy during steps", Pct(s.device_busy_pct)});
  }
  // What the figure holds that no event explains: the gaps between recorded host events.
  const double host_ms = s.category_ms[int(StepCategory::kKernelLaunch)] + s.category_ms[int(StepCategory::kHostCompute)];
  const bool mostly_gaps = !s.cpu_only && host_ms > 0 && s.host_short_gap_ms >= kHostUnrecordedGapShare * host_ms;
  if (!s.cpu_only && s.host_short_gap_ms > 0) {
    f.evidence.push_back({fmt::format("host time in gaps under {} ms between recorded events, nothing recorded",
                                      kUntracedGapNs / 1'000'000),
                          fmt::format("{} {} ({} of the host's time)", Ms(s.host_short_gap_ms), PerStep(s),
                                      Pct(100.0 * s.host_short_gap_ms / host_ms))});
    f.evidence.push_back({"host time in recorded events (operators, runtime calls)",
                          fmt::format("{} {}", Ms(std::max(0.0, host_ms - s.host_short_gap_ms)), PerStep(s))});
  }
  if (mostly_gaps)
    f.title = fmt::format("the device waits on the host {} of {}, mostly in gaps under {} ms between the host's "
                          "recorded events (nothing recorded there: scheduling between operators, or untraced code)",
                          Pct(share), EachStep(s), kUntracedGapNs / 1'000'000);
  // Launch advice needs launches in evidence: kernels, and time in the calls that launch them.
  const bool launches = !s.cpu_only && s.kernels_per_step > 0 && s.category_ms[int(StepCategory::kKernelLaunch)] > 0;
  if (s.framework_overhead_ms > 0)
    f.evidence.push_back({"in bookkeeping ops that do no math (NoOp incl. the executor's _SOURCE, _Arg, Const ...)",
                          fmt::format("{} {} ({})", Ms(s.framework_overhead_ms), PerStep(s), Pct(bookkeeping))});
  for (size_t i = 0; i < s.top_ops.size() && i < kTopEventsShown; ++i) f.top_events.push_back(s.top_ops[i]);

  // Most of the host's time is the driver allocating and freeing device memory: the caching
  // allocator's cache missed or was emptied, not launches; compiling would not remove it.
  if (!s.cpu_only && host_ms > 0 && s.host_allocator_ms >= kHostCpuWorkShare * host_ms) {
    f.title = fmt::format("the device waits on the host {} of {}, mostly in device memory allocations and frees "
                          "(cudaMalloc/cudaFree, hipMalloc/hipFree)",
                          Pct(share), EachStep(s));
    f.evidence.push_back({"in the driver's allocation and free calls",
                          fmt::format("{} {} ({} of the host's time)", Ms(s.host_allocator_ms), PerStep(s),
                                      Pct(100.0 * std::min(1.0, s.host_allocator_ms / host_ms)))});
    AdviseKeepingAllocatorCache(&f);
    return f;
  }

  // Most of the host's time is operators computing on CPU tensors: work, not launch overhead.
  // Compiling the step would not remove it; making the data where it is used, or in the loader, does.
  if (!s.cpu_only && host_ms > 0 && s.host_cpu_op_ms >= kHostCpuWorkShare * host_ms) {
    f.title = fmt::format("the device waits on the host {} of {}, mostly CPU work inside it ({})",
                          Pct(share), EachStep(s), JoinNames(s.host_cpu_op_names));
    f.evidence.push_back({"in operators computing on the CPU (no launch inside, each >= 1 ms)",
                          fmt::format("{} {} ({} of the host's time)", Ms(s.host_cpu_op_ms), PerStep(s),
                                      Pct(100.0 * s.host_cpu_op_ms / host_ms))});
    // A TF1 run whose CPU ops remake the model's weights (a Dequantize named after the variable
    // the run then copies in): work to do once, not to move into the input pipeline.
    const double n = double(s.step_count);
    if (sig.tf1_weights && sig.tf1_weights->made_on_cpu_ms >= kWeightCopyShare * s.host_cpu_op_ms * n) {
      const Tf1WeightCopies& w = *sig.tf1_weights;
      f.evidence.push_back({"of which ops that make the model's weights, copied to the device after",
                            fmt::format("{} in the window ({})", Ms(w.made_on_cpu_ms), JoinNames(w.names))});
      f.fix.summary = "The CPU remakes the model's weights in every run and the run then copies them to the device: "
                      "make them once (dequantize or convert at load time into variables placed on the device).";
      f.fix.tensorflow = "with tf.device('/gpu:0'):   # the weights made once, kept on the GPU between runs\n"
                         "    w = tf.Variable(dequantized_weights)   # instead of a Dequantize inside every run";
      f.fix.pytorch.clear();
      return f;
    }
    AdviseMovingCpuWork(&f, "while the device waits");
    return f;
  }

  const AppliedOptimizations* applied = sig.applied;
  if (applied && !s.cpu_only && applied->any_compilation()) {
    // The trace shows graphs or compiled regions in use: advise what is left, not what is done.
    std::string done;
    for (const auto& l : applied->Labels()) done += (done.empty() ? "" : ", ") + l;
    f.evidence.push_back({"already in use", done});
    // torch.compile without graphs still launches each kernel from the host: where that is most
    // of the host's time, capturing the compiled regions is what is left; else what runs outside.
    const bool ungraphed = applied->compiled && !applied->graphs() && host_ms > 0;
    const bool torch_compiled = ungraphed && applied->compiled_frames > 0;  // its regions recorded on the host
    const bool inside = torch_compiled && s.host_in_compiled_ms >= kHostInCompiledShare * host_ms;
    if (torch_compiled)
      f.evidence.push_back({"host time inside torch.compile's regions",
                            fmt::format("{} {} ({} of the host's time)", Ms(s.host_in_compiled_ms), PerStep(s),
                                        Pct(100.0 * std::min(1.0, s.host_in_compiled_ms / host_ms)))});
    const bool breaks = applied->compiled_frames > 1;
    if (breaks)
      f.evidence.push_back({"torch.compile frames",
                            fmt::format("{} (graph breaks split the compiled code, or several functions are compiled)",
                                        applied->compiled_frames)});
    const std::string explain = breaks ? "# list the graph breaks, each a frame of its own: TORCH_LOGS=graph_breaks python train.py\n"
                                         "# or print(torch._dynamo.explain(model)(x)); compile with fullgraph=True to make them errors\n"
                                       : "";
    if (inside || (ungraphed && !torch_compiled)) {
      f.fix.summary = inside ? "The step already runs torch.compile, and most of the host's time is inside its compiled "
                               "regions: the compiled code dispatching and launching its kernels one at a time. Capture "
                               "the regions as CUDA graphs (mode=\"reduce-overhead\"): each replays with one launch" +
                                   std::string(breaks ? "; fewer graph breaks give fewer, larger regions." : ".")
                             : "The step already runs torch.compile (the trace shows it), but marks no compiled "
                               "region on the host: whether the host's time is the compiled code launching kernels one at "
                               "a time or code outside it is unknown. Try CUDA graphs (mode=\"reduce-overhead\": one "
                               "launch per region), and keep per-step Python out of the loop.";
      f.fix.pytorch = "model = torch.compile(model, mode=\"reduce-overhead\")   # CUDA graphs: one launch per compiled region\n" +
                      explain + "# graphs are recorded per input shape: keep shapes static (drop_last=True in the DataLoader)";
    } else {
      f.fix.summary = "The step already runs " + done +
                      (torch_compiled ? ": most of the host time left is outside it." : ": the host time left is outside it.") +
                      " Move the remaining per-step Python and small ops into the compiled/captured region, or overlap "
                      "them with the device (prefetch inputs, avoid host syncs).";
      f.fix.pytorch = explain +
                      "# find what runs outside the graph/compiled region each step:\n"
                      "with torch.profiler.record_function('outside_graph'):\n"
                      "    ...  # the per-step host work that remains\n"
                      "# avoid host syncs in the loop: no .item()/.cpu() per step; keep tensors on the device";
    }
    f.fix.tensorflow =
        applied->tf_graph
            ? "# the step runs as a graph already: fetch fewer tensors per run, keep Python out of the loop\n"
              "model.compile(..., steps_per_execution=32)   # several steps per host round-trip"
            : "# keep the whole step inside one tf.function; avoid .numpy() on tensors inside the loop\n"
              "model.compile(..., steps_per_execution=32)   # several steps per host round-trip";
    return f;
  }
  if (applied && s.cpu_only && applied->any_compilation()) {
    // Compiled already (TorchScript, torch.compile, XLA): the operators it still dispatches are
    // too small. Advise bigger operators, not the compilation in use.
    std::string done;
    for (const auto& l : applied->Labels()) done += (done.empty() ? "" : ", ") + l;
    f.evidence.push_back({"already in use", done});
    f.fix.summary = "The step already runs " + done +
                    " and its operators are still too small to outweigh their dispatch: give each more work (a larger "
                    "batch, wider layers) and move per-step Python out of the loop.";
    f.fix.pytorch = "# raise the batch size (and the learning rate with it) so each operator call does more work";
    f.fix.tensorflow = "model.compile(..., steps_per_execution=32)   # several steps per host round-trip; larger batches";
    return f;
  }
  if (applied && applied->tf_graph) {
    // The step already runs as a TensorFlow graph (a TF1 session, tf.function): tf.function would
    // change nothing. What is left is fusing the graph's ops with XLA and larger operators.
    f.evidence.push_back({"already in use", "TensorFlow graph execution"});
    // "Too small" only where tiny operators hold most operator time; large ones beside the
    // overhead say the time between operators is the cost, not their size.
    const bool tiny_ops = s.tiny_op_share_pct >= kTinyOpsTooSmallSharePct;
    f.fix.summary = !(s.cpu_only || !launches)
                        ? "The step already runs as a TensorFlow graph: fuse its ops into fewer kernels with XLA "
                          "auto-clustering, and give each kernel more work with a larger batch."
                    : tiny_ops ? "The step already runs as a TensorFlow graph and its operators are too small to "
                                 "outweigh their scheduling: fuse them with XLA and give each more work (a larger batch)."
                               : "The step already runs as a TensorFlow graph and the executor's scheduling between its "
                                 "operators is the overhead: fuse them with XLA so fewer are scheduled, and give each "
                                 "more work (a larger batch).";
    f.fix.tensorflow = TfGraphXlaCode(s.cpu_only) + "\n# and raise the batch size so each op does more work";
    f.fix.pytorch = "model = torch.compile(model)   # the same idea in PyTorch: fuse operators (PyTorch 2)";
    return f;
  }
  f.fix.summary = !launches
                      ? "Do more work per operator call: larger batches, fused or compiled graphs, fewer Python-level ops."
                      : "Launch fewer, larger kernels: compile the step (graph mode / XLA / torch.compile), capture it "
                        "as a CUDA graph, or give each kernel more work with a larger batch.";
  // A window that runs the model forward only (inference, evaluation) gets code for that.
  const bool forward_only = applied && applied->forward_only;
  f.fix.tensorflow =
      forward_only
          ? "@tf.function(jit_compile=True)   # one compiled graph per call: no per-op Python, fused kernels\n"
            "def predict_step(x):\n"
            "    return model(x, training=False)"
          :
      "@tf.function(jit_compile=True)   # one compiled graph per step: no per-op Python, fused kernels\n"
      "def train_step(x, y):\n"
      "    with tf.GradientTape() as tape:\n"
      "        loss = loss_fn(y, model(x, training=True))\n"
      "    grads = tape.gradient(loss, model.trainable_variables)\n"
      "    optimizer.apply_gradients(zip(grads, model.trainable_variables))\n"
      "    return loss\n"
      "# Keras: model.compile(..., jit_compile=True, steps_per_execution=32)";
  f.fix.pytorch = !launches ? "model = torch.compile(model)   # fuse operators, less per-op dispatch (PyTorch 2)\n"
                               "# and raise the batch size so each operator call does more work"
                 : forward_only
                     ? "model = torch.compile(model, mode='reduce-overhead')  # fused ops, replayed as CUDA graphs\n"
                       "# or capture the forward pass as a CUDA graph:\n"
                       "# g = torch.cuda.CUDAGraph(); with torch.cuda.graph(g): static_out = model(static_x)\n"
                       "# and raise the batch size so each kernel does more work"
                     : "model = torch.compile(model)                 # fuse ops, fewer launches (PyTorch 2)\n"
                       "# or capture a static step as a CUDA graph:\n"
                       "# g = torch.cuda.CUDAGraph(); with torch.cuda.graph(g): static_loss = step(static_x, static_y)\n"
                       "# and raise the batch size so each kernel does more work";
  return f;
}

}  // namespace stepdoctor::rules
