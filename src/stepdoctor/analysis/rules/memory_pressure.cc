// memory_pressure: a device allocator's peak bytes in use come close to the device's memory
// (kMemoryNearFullPct, the same "nearly full" as gpu_memory_near_full; high at
// kMemoryNearlyExhaustedPct).
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"

namespace stepdoctor::rules {
namespace {
void AddMemoryFix(Finding* f, const Signals& sig);

// PyTorch: the caching allocator's peak (reserved, else allocated) per GPU.
std::optional<Finding> FromPyTorchCounters(const Signals& sig) {
  if (sig.memory.empty()) return std::nullopt;
  const DeviceMemoryPeak& m = sig.memory.front();
  if (m.peak_pct() < kMemoryNearFullPct) return std::nullopt;
  Finding f;
  f.id = "memory_pressure";
  f.severity = m.peak_pct() >= kMemoryNearlyExhaustedPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = 0;  // not a share of step time
  f.title = fmt::format("Peak memory held reaches {} of {} ({})", Pct(m.peak_pct()), m.device, GiB(m.capacity_bytes));
  f.gain_upper_bound = 1.0;
  f.gain_text = "no direct speed-up: headroom avoids out-of-memory failures and allows a larger batch";
  f.evidence.push_back({"peak allocated (tensors)", fmt::format("{} of {}", GiB(m.peak_allocated_bytes), GiB(m.capacity_bytes))});
  f.evidence.push_back({"peak reserved (caching allocator)", GiB(m.peak_reserved_bytes)});
  for (size_t i = 1; i < sig.memory.size() && i <= kMoreDevicesShown; ++i)
    f.evidence.push_back({sig.memory[i].device, fmt::format("peak {}", Pct(sig.memory[i].peak_pct()))});
  return f;
}
}  // namespace

std::optional<Finding> MemoryPressure(const Signals& sig) {
  if (!sig.tf || sig.tf->memory.empty()) {
    std::optional<Finding> f = FromPyTorchCounters(sig);
    if (f) AddMemoryFix(&*f, sig);
    return f;
  }
  const TfMemoryPeak& m = sig.tf->memory.front();
  if (m.capacity_bytes <= 0 || m.peak_pct() < kMemoryNearFullPct) return std::nullopt;
  Finding f;
  f.id = "memory_pressure";
  f.severity = m.peak_pct() >= kMemoryNearlyExhaustedPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = 0;  // not a share of step time
  f.title = fmt::format("Peak memory in use reaches {} of {} ({})", Pct(m.peak_pct()),
                        m.device.empty() ? m.allocator : m.device, GiB(m.capacity_bytes));
  f.gain_upper_bound = 1.0;
  f.gain_text = "no direct speed-up: headroom avoids out-of-memory failures and allows a larger batch";
  f.evidence.push_back({"allocator", m.allocator});
  f.evidence.push_back({"peak bytes in use", fmt::format("{} of {}", GiB(m.peak_bytes), GiB(m.capacity_bytes))});
  if (m.max_fragmentation > 0) f.evidence.push_back({"max fragmentation", Pct(100.0 * m.max_fragmentation)});
  for (size_t i = 1; i < sig.tf->memory.size() && i <= kMoreDevicesShown; ++i)
    f.evidence.push_back({sig.tf->memory[i].allocator, fmt::format("peak {}", Pct(sig.tf->memory[i].peak_pct()))});
  AddMemoryFix(&f, sig);
  return f;
}

namespace {
void AddMemoryFix(Finding* f, const Signals& sig) {
  // Reduced precision in use already (autocast, GradScaler, 16-bit kernels): not advised again.
  const bool reduced = (sig.applied && sig.applied->mixed_precision()) ||
                       (sig.steps && sig.steps->fp16_kernel_pct >= kLowReducedPrecisionPct);
  if (reduced) {
    f->evidence.push_back({"already in use", "reduced precision (autocast or 16-bit kernels)"});
    f->fix.summary = "Lower peak memory: the step already runs in reduced precision, so keep the effective batch "
                     "with gradient accumulation over smaller micro-batches, recompute activations (activation "
                     "checkpointing), and let the allocator grow segments instead of fragmenting.";
    f->fix.tensorflow =
        "for gpu in tf.config.list_physical_devices(\"GPU\"):\n"
        "    tf.config.experimental.set_memory_growth(gpu, True)\n"
        "model.fit(ds.batch(batch_size // 2), ...)   # and accumulate gradients over 2 micro-batches";
    f->fix.pytorch =
        "loss = loss / accum_steps; loss.backward()\n"
        "if (i + 1) % accum_steps == 0: optimizer.step(); optimizer.zero_grad()\n"
        "# torch.utils.checkpoint.checkpoint(block, x) recomputes a block's activations in backward\n"
        "# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation";
    return;
  }
  // A forward pass alone (no backward recorded: inference or evaluation) keeps no activations for
  // a backward and has no gradients to accumulate: its peak is the largest intermediates.
  if (sig.applied && sig.applied->forward_only) {
    f->fix.summary = "Lower peak memory of the forward pass (no backward is recorded): run it without autograd "
                     "state, in reduced precision where the model allows, and in smaller chunks of the batch so the "
                     "largest intermediates (the biggest matmul or einsum outputs) fit with headroom.";
    f->fix.pytorch =
        "with torch.inference_mode(), torch.autocast(\"cuda\", dtype=torch.bfloat16):\n"
        "    out = torch.cat([model(c) for c in x.split(chunk)])   # the largest intermediates per chunk\n"
        "# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation";
    f->fix.tensorflow = "outs = [model(c, training=False) for c in tf.split(x, n)]   # smaller intermediates per chunk";
    return;
  }
  // Memory growth is TensorFlow's: said where the trace is not another framework's.
  const bool tf_words = sig.framework != Framework::kPyTorch && sig.framework != Framework::kJax;
  f->fix.summary = std::string("Lower peak memory: mixed precision halves activations") +
                   (tf_words ? ", gradient accumulation keeps the effective batch with a smaller one, and memory "
                               "growth stops TensorFlow from reserving the whole device."
                             : " and gradient accumulation keeps the effective batch with a smaller one.");
  f->fix.tensorflow =
      "tf.keras.mixed_precision.set_global_policy(\"mixed_float16\")\n"
      "for gpu in tf.config.list_physical_devices(\"GPU\"):\n"
      "    tf.config.experimental.set_memory_growth(gpu, True)\n"
      "model.fit(ds.batch(batch_size // 2), ...)   # and accumulate gradients over 2 micro-batches:\n"
      "# grads = [a + g for a, g in zip(accum, tape.gradient(loss, vars))]; apply every 2 steps";
  f->fix.pytorch =
      "with torch.autocast(\"cuda\", dtype=torch.bfloat16): loss = model(x)   # smaller activations\n"
      "loss = loss / accum_steps; loss.backward()\n"
      "if (i + 1) % accum_steps == 0: optimizer.step(); optimizer.zero_grad()\n"
      "# PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True reduces fragmentation";
}
}  // namespace

}  // namespace stepdoctor::rules
