// compute_bound (healthy): the device is busy most of the step. Names the next levers.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/verdict.h"  // kComputeVerdictPct
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor::rules {
namespace {

// Operators that rearrange data without arithmetic: TensorFlow's op types and ATen's copies into
// another layout (a view such as aten::permute costs nothing; its .contiguous() copies).
bool IsDataMovementOpName(std::string_view n) {
  for (std::string_view op : {"Transpose", "ConjugateTranspose", "Pad", "PadV2", "MirrorPad", "aten::contiguous",
                              "aten::clone", "aten::constant_pad_nd", "aten::reflection_pad2d"})
    if (n == op) return true;
  return false;
}

constexpr const char* kEvalFirst =
    "The model runs forward only but in training mode: call model.eval() (no dropout masks, batch norm on its "
    "running statistics) under torch.inference_mode(). ";

}  // namespace

double DeviceBoundShare(const StepSignals& s) {
  const double side = CategoryShare(s, StepCategory::kDeviceCompute) + CategoryShare(s, StepCategory::kCollectives) +
                      CategoryShare(s, StepCategory::kMemcpy) +
                      (s.mean_step_ms > 0 ? 100.0 * s.device_queued_ms / s.mean_step_ms : 0);
  return !s.cpu_only && s.device_span_busy_pct >= kDeviceSpanBusyPct && side >= kComputeBoundPct &&
                 s.host_end_ms < s.device_end_ms
             ? side
             : 0;
}

std::optional<Finding> ComputeBound(const Signals& sig) {
  if (!sig.steps || sig.steps->step_count == 0) return std::nullopt;
  const StepSignals& s = *sig.steps;
  double share = CategoryShare(s, StepCategory::kDeviceCompute);
  const double device_side = DeviceBoundShare(s);
  const bool device_bound = device_side > 0;
  if (share < kComputeBoundPct && !device_bound) return std::nullopt;

  Finding f;
  f.id = "compute_bound";
  f.severity = FindingSeverity::kNone;
  f.share_pct = device_bound ? std::max(share, device_side) : share;
  const AppliedOptimizations* applied = sig.applied;
  const bool compiled = applied && applied->any_compilation();
  const bool autocast = applied && applied->mixed_precision();
  // Mixed precision is advised only where the trace does not show autocast already in use.
  bool amp = !s.cpu_only && !s.device_per_operator && s.tensor_core_capable && s.fp16_kernel_pct < kLowReducedPrecisionPct && !autocast;
  f.title = s.cpu_only ? fmt::format("the CPU computes {} of {}: operator work dominates", Pct(share), EachStepNoun(s))
             : share < kComputeBoundPct
                 ? fmt::format("the device is busy {} of its {} span and the host finished its part at {}: the step is device-bound",
                               Pct(s.device_span_busy_pct), Ms(s.device_span_ms), Ms(s.host_end_ms))
                 // Under the share at which compute wins the verdict over other findings, the title
                 // claims no bound: a host-bound verdict may stand above it.
                 : share < kComputeVerdictPct
                     ? fmt::format("the device computes {} of {}", Pct(share), EachStepNoun(s))
                     : fmt::format("the device computes {} of {}: {} compute-bound", Pct(share), EachStepNoun(s),
                                   s.has_steps ? "the step is" : "the work is");
  f.gain_upper_bound = 1.0;
  // Host time with nothing recorded is idle time too, of unknown cause: not "none to recover".
  const double untraced = s.mean_step_ms > 0 ? 100.0 * s.untraced_host_ms / s.mean_step_ms : 0;
  // So are copies between host and device with no compute beside them: the step waits on them.
  const double copies = s.mean_step_ms > 0 && !s.cpu_only ? 100.0 * s.category_ms[int(StepCategory::kMemcpy)] / s.mean_step_ms : 0;
  const std::string idle =
      copies >= kUntracedNotePct
          ? fmt::format("{} of {} is copies between host and device with no compute beside them ({} to the device, "
                        "{} back): overlapping them with compute, or not making them, gains up to {:.2f}x; in the rest, ",
                        Pct(copies), EachStepNoun(s), Ms(s.memcpy_h2d_ms), Ms(s.memcpy_d2h_ms), GainIfRemoved(copies))
      : untraced >= kUntracedNotePct ? fmt::format("{} of {} is host time with nothing recorded while the device "
                                                   "idles (what runs there is unknown); in the rest, ",
                                                   Pct(untraced), EachStepNoun(s))
                                     : std::string("no idle time to recover; ");
  if (copies >= kUntracedNotePct) {
    f.title = fmt::format("the device computes {} of {}, and copies between host and device hold another {} with no "
                          "compute beside them", Pct(share), EachStepNoun(s), Pct(copies));
    f.gain_upper_bound = GainIfRemoved(copies);
    f.evidence.push_back({"host-device copies with no compute beside them",
                          fmt::format("{} {} ({})", Ms(s.category_ms[int(StepCategory::kMemcpy)]), PerStep(s), Pct(copies))});
  }
  f.gain_text = idle + (amp ? "mixed precision moves matrix math onto TensorCores (the gain depends on the model and is not estimated from this trace)"
                            : "gains must come from doing the compute faster");
  if (untraced >= kUntracedNotePct)
    f.evidence.push_back({UntracedGapsLabel(s, kUntracedGapNs / 1'000'000),
                          fmt::format("{} {} ({})", Ms(s.untraced_host_ms), PerStep(s), Pct(untraced))});
  f.evidence.push_back({fmt::format("device compute {}", PerStep(s)), fmt::format("{} ({})", Ms(s.category_ms[int(StepCategory::kDeviceCompute)]), Pct(share))});
  if (device_bound) {
    f.evidence.push_back({"device busy over its own span", Pct(s.device_span_busy_pct)});
    f.evidence.push_back({"host's last activity / device's last activity", fmt::format("{} / {} into the step", Ms(s.host_end_ms), Ms(s.device_end_ms))});
    if (s.device_queued_ms > 0)
      f.evidence.push_back({"device idle with its next work already queued", fmt::format("{} per step", Ms(s.device_queued_ms))});
  }
  if (!s.cpu_only && s.collective_total_ms > 0)
    f.evidence.push_back({"communication kernels, mostly hidden under compute", fmt::format("{} per step ({} exposed)", Ms(s.collective_total_ms), Ms(s.category_ms[int(StepCategory::kCollectives)]))});
  if (s.device_per_operator) {
    f.evidence.push_back({"kernel precision", "not recorded (device time per operator, not per kernel)"});
  } else if (!s.cpu_only) {
    f.evidence.push_back({"kernel time in reduced precision (16-bit, fp8, fp4)", Pct(s.fp16_kernel_pct)});
    f.evidence.push_back({"TensorCore-capable device", s.tensor_core_capable ? "yes" : "no or unknown"});
  }
  for (size_t i = 0; i < s.top_kernels.size() && i < kTopEventsShown; ++i) f.top_events.push_back(s.top_kernels[i]);
  if (applied && (compiled || autocast)) {
    std::string done;
    for (const auto& l : applied->Labels()) done += (done.empty() ? "" : ", ") + l;
    f.evidence.push_back({"already in use", done});
  }
  const bool forward_only = applied && applied->forward_only;
  const bool train_mode = applied && (applied->dropout_ops > 0 || applied->bn_training_kernels > 0);
  if (applied && applied->dropout_ops > 0)
    f.evidence.push_back({"dropout drawing random masks in a pass with no backward (training mode)",
                          fmt::format("{} call{} (aten::bernoulli_ / aten::native_dropout)", applied->dropout_ops,
                                      applied->dropout_ops == 1 ? "" : "s")});
  if (applied && applied->bn_training_kernels > 0)
    f.evidence.push_back({"batch norm in training mode in a pass with no backward (batch statistics, running stats "
                          "updated)",
                          fmt::format("{} kernel{} (cuDNN bn_fw_tr, MIOpen BatchNormFwdTrain or ATen's statistics "
                                      "pass)",
                                      applied->bn_training_kernels, applied->bn_training_kernels == 1 ? "" : "s")});
  if (s.cpu_only) {
    // What is left to try: only the levers the trace does not show in use.
    std::string levers = compiled ? "use all cores" : "compile and fuse them, use all cores";
    if (!autocast) levers += ", bf16 where the CPU has AMX/AVX-512 BF16";
    f.fix.summary = "The CPU is the device: make its operators cheaper (" + levers +
                    ") or move the work to an accelerator.";
    const bool small = s.median_step_ms > 0 && s.median_step_ms < kSmallCpuStepMs;
    if (small) {
      f.evidence.push_back({"step length", fmt::format("{} (median): each call's fixed cost outside the trace weighs "
                                                       "like its operators at this size", Us(1000 * s.median_step_ms))});
      f.fix.summary = fmt::format(
          "Each step is only {}: at this size the fixed cost of each call outside the trace (Python, building the "
          "feed, the session or dispatch call) weighs as much as the operators, and an accelerator's launches and "
          "copies would outweigh them. Give each step more work first (a larger batch); then make the operators "
          "cheaper ({}).",
          Us(1000 * s.median_step_ms), levers);
    }
    if (train_mode) f.fix.summary = kEvalFirst + f.fix.summary;
    // TensorFlow's default (0) is every core: what to check, not to set.
    f.fix.tensorflow = "print(tf.config.threading.get_intra_op_parallelism_threads())   # 0 = every core, the default";
    if (small) f.fix.tensorflow = "batch_size = 8 * batch_size   # more work per step (sess.run / train_step)\n" + f.fix.tensorflow;
    if (applied && applied->tf_graph && !applied->xla)  // graph mode is done: XLA for the graph
      f.fix.tensorflow += "\n" + TfGraphXlaCode(true);
    else if (!(applied && applied->xla))
      f.fix.tensorflow += forward_only ? "\n@tf.function(jit_compile=True)   # fuse ops with XLA\n"
                                         "def predict_step(x):\n    return model(x, training=False)"
                                       : "\n@tf.function(jit_compile=True)   # fuse ops with XLA\ndef train_step(x, y): ...";
    // PyTorch's default is one intra-op thread per physical core: what to check, not to set.
    f.fix.pytorch = "print(torch.get_num_threads())   # the default is the physical cores: a lower value set elsewhere starves the ops";
    if (small) f.fix.pytorch = "loader = DataLoader(dataset, batch_size=8 * batch_size)   # more work per step\n" + f.fix.pytorch;
    // Convolutions oneDNN did not take run on PyTorch's reference loops, many times slower.
    for (const TopEvent& e : s.top_ops)
      if (e.name == "aten::_slow_conv2d_forward" || e.name == "aten::thnn_conv2d" || e.name == "aten::slow_conv3d_forward") {
        f.evidence.push_back({"convolutions on the reference path (oneDNN did not take them)",
                              fmt::format("{} call{} of {}, {} in all", e.count, e.count == 1 ? "" : "s", e.name, Ms(e.total_ms))});
        f.fix.pytorch += "\n# " + std::to_string(e.count) + " convolutions ran " + e.name +
                         " (not oneDNN): check torch.backends.mkldnn.is_available() and those layers' dtype, groups and layout";
        break;
      }
    // An operator that only moves data (a transpose, a copy into another layout, padding) taking
    // a large share: the arithmetic is not what the CPU spends its time on.
    for (const TopEvent& e : s.top_ops) {
      if (e.share_pct < kLayoutOpSharePct || !IsDataMovementOpName(e.name)) continue;
      f.evidence.push_back({"an operator that only moves data (no arithmetic)",
                            fmt::format("{}: {} over {} call{}, {} of the window", e.name, Ms(e.total_ms), e.count,
                                        e.count == 1 ? "" : "s", Pct(e.share_pct))});
      f.fix.summary = fmt::format("{} of the time goes to {}, which only rearranges data: produce tensors in the layout "
                                  "their consumer reads (or use its transpose flags) instead of converting them. ",
                                  Pct(e.share_pct), e.name) + f.fix.summary;
      f.fix.tensorflow = "# " + e.name + " takes " + Pct(e.share_pct) +
                         ": build inputs in the layout the next op reads (data_format, the adjoint_a/adjoint_b or\n"
                         "# transpose_a/transpose_b flags of the matmul ops) instead of transposing them\n" + f.fix.tensorflow;
      f.fix.pytorch = "# " + e.name + " takes " + Pct(e.share_pct) +
                      ": keep one memory format end to end (x.permute(...).contiguous() copies;\n"
                      "# model.to(memory_format=torch.channels_last) with channels_last inputs avoids the conversions)\n" +
                      f.fix.pytorch;
      break;
    }
    if (train_mode) f.fix.pytorch += "\nmodel.eval()                                        # inference: no dropout, fixed batch norm";
    if (!compiled) f.fix.pytorch += "\nmodel = torch.compile(model)                        # fuse operators";
    if (!autocast && forward_only)
      f.fix.pytorch +=
          "\nwith torch.inference_mode(), torch.autocast(device_type='cpu', dtype=torch.bfloat16):  # AMX / AVX-512 BF16\n"
          "    out = model(x)";
    else if (!autocast)
      f.fix.pytorch +=
          "\nwith torch.autocast(device_type='cpu', dtype=torch.bfloat16):  # on CPUs with AMX / AVX-512 BF16\n"
          "    loss = loss_fn(model(x), y)";
    else
      f.fix.pytorch += "\n# autocast is on: check that the CPU runs bf16 natively (AMX / AVX-512 BF16), else it is slower";
    return f;
  }
  if (copies >= kUntracedNotePct) {
    // The copies wait before the kernels do: overlap or remove them first (a larger batch would
    // copy more, and a graph swapping memory out and back would swap more).
    f.fix.summary = "Copies between host and device hold the step with no compute beside them: overlap them with "
                    "compute (pinned memory, asynchronous copies, prefetching to the device) or stop making them "
                    "(a graph swapping tensors out to host memory and back needs less memory: a smaller batch or "
                    "mixed precision). Then profile the top kernels.";
    f.fix.tensorflow = "ds = ds.apply(tf.data.experimental.prefetch_to_device('/gpu:0'))   # batches copied ahead\n"
                       "# swap_in_*/swap_out_* copies (Grappler's memory swapping): lower the memory the step needs,\n"
                       "# e.g. a smaller batch, so its tensors stay on the device";
    f.fix.pytorch = "loader = DataLoader(ds, batch_size=bs, pin_memory=True)   # page-locked batches\n"
                    "x = x.to('cuda', non_blocking=True)   # the copy overlaps compute\n"
                    "# no .cpu() / .numpy() of large tensors inside the step";
    return f;
  }
  // Most kernel time outside GEMMs and convolutions (elementwise, normalization, reductions):
  // those kernels move memory, which TensorCores do not speed up; fusing them and halving their
  // bytes does.
  const bool memory_kernels = !s.device_per_operator && !s.top_kernels.empty() && s.matrix_kernel_pct < kMatrixMinorPct;
  if (amp && memory_kernels) {
    f.evidence.push_back({"kernel time in GEMMs / convolutions",
                          fmt::format("{} (the rest: elementwise, normalization, reduction, gather and layout "
                                      "kernels, which memory traffic bounds)",
                                      Pct(s.matrix_kernel_pct))});
    f.gain_text = idle + "most kernel time moves memory rather than doing matrix math: fusing those kernels and "
                         "16-bit activations cut the bytes they move (the gain is not estimated from this trace)";
    f.fix.summary = fmt::format(
        "{} of kernel time is outside GEMMs and convolutions (elementwise, normalization, reduction, gather and "
        "layout kernels), which memory traffic bounds, not matrix math: fuse them{}, keep one memory format "
        "(channels_last for convolutions), and run in 16-bit "
        "so they move half the bytes (which also puts the GEMMs and convolutions on TensorCores).",
        Pct(100.0 - s.matrix_kernel_pct), compiled ? " (the step is compiled: look for what it left unfused)" : " (torch.compile, XLA)");
    f.fix.tensorflow = "tf.keras.mixed_precision.set_global_policy('mixed_float16')\n"
                       "@tf.function(jit_compile=True)   # XLA fuses the elementwise ops\n"
                       "def train_step(x, y): ...";
    std::string py = "model = model.to(memory_format=torch.channels_last)   # no layout conversions around convolutions\n";
    if (!compiled) py += "model = torch.compile(model)                          # fuses elementwise and normalization ops\n";
    py += forward_only ? "model.eval()\n"
                         "with torch.inference_mode(), torch.autocast(device_type='cuda', dtype=torch.float16):\n"
                         "    out = model(x.to(memory_format=torch.channels_last))"
                       : "with torch.autocast(device_type='cuda', dtype=torch.bfloat16):\n"
                         "    loss = loss_fn(model(x.to(memory_format=torch.channels_last)), y)";
    f.fix.pytorch = py;
    if (train_mode) f.fix.summary = kEvalFirst + f.fix.summary;
    return f;
  }
  f.fix.summary = amp ? "Run in mixed precision so matrix math uses TensorCores; then try a larger batch."
                 : compiled ? "The step is compiled already: profile the top kernels and try a larger batch."
                            : "Profile the top kernels; fuse or compile (XLA, torch.compile), and try a larger batch.";
  if (amp) {
    f.fix.tensorflow =
        "tf.keras.mixed_precision.set_global_policy('mixed_float16')\n"
        "# keep the last layer in float32 for numeric stability:\n"
        "outputs = tf.keras.layers.Activation('softmax', dtype='float32')(logits)";
    f.fix.pytorch = forward_only ? "model.eval()\n"
                                   "with torch.inference_mode(), torch.autocast(device_type='cuda', dtype=torch.float16):\n"
                                   "    out = model(x)   # forward only: no GradScaler needed"
                                 : "scaler = torch.cuda.amp.GradScaler()\n"
                                   "with torch.autocast(device_type='cuda', dtype=torch.float16):\n"
                                   "    loss = loss_fn(model(x), y)\n"
                                   "scaler.scale(loss).backward(); scaler.step(optimizer); scaler.update()";
    if (train_mode) f.fix.summary = kEvalFirst + f.fix.summary;
    return f;
  }
  // Already in reduced precision (or no TensorCores): the levers are the kernels themselves.
  if (s.matrix_kernel_pct >= kMatrixBoundPct) {
    // GEMMs and convolutions are the step: there is little around them to fuse.
    f.evidence.push_back({"kernel time in GEMMs / convolutions", Pct(s.matrix_kernel_pct)});
    f.fix.summary = "The step is matrix math: do less of it or feed the matrix units better: shapes that are "
                    "multiples of 8 (16-bit) or 16 (fp8), a batch large enough to fill the device, and no work the "
                    "model does not need.";
    f.fix.tensorflow = "# pad matrix dimensions (hidden sizes, vocabulary) to multiples of 8; raise the batch size";
    f.fix.pytorch =
        "# pad matrix dimensions (hidden sizes, vocabulary) to multiples of 8; raise the batch size;\n"
        "# check the GEMMs: prof.key_averages(group_by_input_shape=True).table(sort_by='cuda_time_total')";
    return f;
  }
  // Each framework's code states what is in use in that framework only: graphs replayed by
  // PyTorch are not XLA, and XLA clusters are not torch.compile.
  const bool xla = applied && applied->xla;
  const bool torch_compiled = applied && (applied->graphs() || applied->compiled || applied->torchscript);
  f.fix.tensorflow = xla ? "# XLA is already in use: profile the top kernels (tf.profiler) and try a larger batch"
                     : torch_compiled
                         ? "# profile the top kernels (tf.profiler) and try a larger batch"
                     : applied && applied->tf_graph
                         ? std::string(kTfGraphXlaCode) + "\n# fuses elementwise ops into the big kernels"
                         : "@tf.function(jit_compile=True)   # fuse elementwise ops into the big kernels\n"
                           "def train_step(x, y): ...";
  f.fix.pytorch = torch_compiled ? "# compiled already: look at the top kernels, e.g. with\n"
                                   "# prof.key_averages().table(sort_by='cuda_time_total', row_limit=10)"
                 : xla ? "# look at the top kernels, e.g. with\n"
                         "# prof.key_averages().table(sort_by='cuda_time_total', row_limit=10)"
                       : "model = torch.compile(model)   # fuse elementwise ops around the big kernels\n"
                             "# then look at the top kernels: prof.key_averages().table(sort_by='cuda_time_total')";
  return f;
}

}  // namespace stepdoctor::rules
