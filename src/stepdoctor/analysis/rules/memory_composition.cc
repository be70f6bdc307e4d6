// memory_composition: what a PyTorch memory timeline's tensors held at its peak, by category,
// and whether the memory held between iterations grows. The advice follows the category that
// held the most: activations (recompute, reduced precision, smaller micro-batches), the model's
// own state (parameters, gradients, optimizer state: shard it), batches, temporaries, or what
// the profiler could not categorise. Low by itself (a timeline has no step times and names no
// device); moderate where the memory grows from iteration to iteration (kMemoryGrowthPct), or
// where the one GPU of a trace read beside it puts the peak near full (kMemoryNearFullPct; high
// at kMemoryNearlyExhaustedPct).
#include <algorithm>
#include <numeric>

#include "stepdoctor/analysis/memory_timeline_signals.h"
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

namespace stepdoctor::rules {
namespace {

using series::MemoryCategory;

// How a category reads in a sentence.
const char* Words(MemoryCategory c) {
  switch (c) {
    case MemoryCategory::kParameter: return "parameters";
    case MemoryCategory::kOptimizerState: return "optimizer state";
    case MemoryCategory::kInput: return "inputs (batches)";
    case MemoryCategory::kTemporary: return "temporaries";
    case MemoryCategory::kActivation: return "activations";
    case MemoryCategory::kGradient: return "gradients";
    case MemoryCategory::kAutogradDetail: return "autograd's own buffers";
    default: return "tensors the profiler could not categorise";
  }
}

double Share(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0; }

// The advice where one category of its own holds the most: inputs, temporaries, or what the
// profiler could not categorise (the last, whatever else is largest).
struct SingleAdvice {
  MemoryCategory category;
  const char* summary;  // "{}": the category's share of the peak
  const char* pytorch;
};
constexpr SingleAdvice kSingleAdvice[] = {
    {MemoryCategory::kInput,
     "Inputs hold {} of the peak: the batches on the device are large, or several are kept there at once; take "
     "smaller batches with gradient accumulation, and move each to the device only when its step starts.",
     "for x, y in loader:                       # one batch on the device at a time\n"
     "    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)\n"
     "    ...\n"
     "    del x, y                              # before the next one is fetched"},
    {MemoryCategory::kTemporary,
     "Temporaries of single operators hold {} of the peak (workspaces of large matrix products, attention, "
     "reductions): look for the operator that makes them at the peak; fused attention "
     "(scaled_dot_product_attention) avoids materialising the attention matrix.",
     "out = torch.nn.functional.scaled_dot_product_attention(q, k, v)  # no full attention matrix"},
    {MemoryCategory::kUnknown,
     "The profiler could not tell what {} of the peak was: record the timeline with shapes and stacks, which its "
     "categories need, and look again.",
     "with torch.profiler.profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],\n"
     "        profile_memory=True, record_shapes=True, with_stack=True) as prof:\n"
     "    train_step(batch)\n"
     "prof.export_memory_timeline('memory.raw.json.gz', device='cuda:0')"},
};

void AdviseByLargest(const MemoryTimelineSignals& m, bool reduced_precision, Finding* f) {
  const auto& p = m.at_peak;
  auto at = [&](MemoryCategory c) { return p[size_t(c)]; };
  const double model_state =
      at(MemoryCategory::kParameter) + at(MemoryCategory::kGradient) + at(MemoryCategory::kOptimizerState);
  const double activations = at(MemoryCategory::kActivation) + at(MemoryCategory::kAutogradDetail);
  const double largest = std::max({model_state, activations, at(MemoryCategory::kInput), at(MemoryCategory::kTemporary),
                                   at(MemoryCategory::kUnknown)});
  if (largest == activations) {
    f->fix.summary = fmt::format(
        "Activations (with autograd's buffers for them) hold {} of the peak: recompute them in the backward pass "
        "(activation checkpointing){}, or run a smaller micro-batch and accumulate gradients to keep the effective "
        "batch.",
        Pct(Share(activations, m.peak_bytes)),
        reduced_precision ? "" : ", keep them in 16 bits (autocast halves most of them)");
    f->fix.pytorch = std::string(reduced_precision ? "" : "with torch.autocast('cuda', dtype=torch.bfloat16):\n"
                                                          "    loss = loss_fn(model(x), y)       # 16-bit activations\n") +
                     "from torch.utils.checkpoint import checkpoint\n"
                     "x = checkpoint(block, x, use_reentrant=False)  # in forward: recompute block's activations\n"
                     "loss = loss / accum_steps; loss.backward()       # micro-batches of batch_size // accum_steps\n"
                     "if (i + 1) % accum_steps == 0: optimizer.step(); optimizer.zero_grad(set_to_none=True)";
    return;
  }
  if (largest == model_state) {
    f->fix.summary = fmt::format(
        "The model's own state holds {} of the peak (parameters {}, gradients {}, optimizer state {}): shard it across "
        "the data-parallel ranks (FSDP, or a ZeRO-style optimizer) and free gradients between steps; an optimizer "
        "with less state per parameter (SGD with momentum keeps one copy, Adam two) shrinks it further.",
        Pct(Share(model_state, m.peak_bytes)), MemText(at(MemoryCategory::kParameter)),
        MemText(at(MemoryCategory::kGradient)), MemText(at(MemoryCategory::kOptimizerState)));
    f->fix.pytorch =
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "model = FSDP(model)                      # parameters, gradients and optimizer state sharded\n"
        "# or, under DDP: ZeroRedundancyOptimizer(model.parameters(), optimizer_class=torch.optim.AdamW)\n"
        "optimizer.zero_grad(set_to_none=True)    # gradients freed between steps";
    return;
  }
  // The single categories: the advice for each, its share of the peak filling the "{}".
  for (const SingleAdvice& a : kSingleAdvice)
    if (largest == at(a.category) || a.category == MemoryCategory::kUnknown) {
      f->fix.summary = fmt::format(fmt::runtime(a.summary), Pct(Share(at(a.category), m.peak_bytes)));
      f->fix.pytorch = a.pytorch;
      return;
    }
}

}  // namespace

std::optional<Finding> MemoryComposition(const Signals& sig) {
  if (!sig.memory_timeline || sig.memory_timeline->peak_bytes <= 0) return std::nullopt;
  const MemoryTimelineSignals& m = *sig.memory_timeline;
  Finding f;
  f.id = "memory_composition";
  f.share_pct = 0;  // about memory, not time
  f.gain_upper_bound = 1.0;
  f.gain_text = "no direct speed-up: memory freed makes room for a larger batch or model, and keeps the job from "
                "running out";
  // The categories at the peak, largest first.
  std::vector<int> order(series::kMemoryCategoryCount);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return m.at_peak[size_t(a)] > m.at_peak[size_t(b)]; });
  const auto largest = MemoryCategory(order.front());
  const double of_capacity = m.capacity_bytes > 0 ? Share(m.peak_bytes, m.capacity_bytes) : 0;
  f.severity = of_capacity >= kMemoryNearlyExhaustedPct                 ? FindingSeverity::kHigh
               : of_capacity >= kMemoryNearFullPct || m.grows ? FindingSeverity::kModerate
                                                                         : FindingSeverity::kLow;
  f.title = fmt::format("tensors held up to {}{}, {} of it {}", MemText(m.peak_bytes),
                        m.capacity_bytes > 0 ? fmt::format(" ({} of {})", Pct(of_capacity), m.device) : "",
                        Pct(Share(m.at_peak[size_t(largest)], m.peak_bytes)), Words(largest));
  if (m.grows)
    f.title += fmt::format("; what stays held between iterations grows by {} each", MemText(m.growth_per_cycle_bytes));
  f.evidence.push_back({"peak held by tensors", fmt::format("{} at {:.3f} s into the {:.3f} s timeline{}", MemText(m.peak_bytes),
                                                            m.peak_at_s, m.window_s,
                                                            m.capacity_bytes > 0 ? fmt::format(", {} of {} ({})", Pct(of_capacity),
                                                                                               MemText(m.capacity_bytes), m.device)
                                                                                 : ": the timeline names no device, so "
                                                                                   "how near full it was is not known")});
  for (int k : order) {
    if (m.at_peak[size_t(k)] <= 0) continue;
    f.evidence.push_back({fmt::format("{} at the peak", Words(MemoryCategory(k))),
                          fmt::format("{} ({})", MemText(m.at_peak[size_t(k)]), Pct(Share(m.at_peak[size_t(k)], m.peak_bytes)))});
  }
  if (m.cycles >= 2) {
    std::vector<double> t = m.troughs_bytes;
    std::sort(t.begin(), t.end());
    f.evidence.push_back({"iterations", fmt::format("{} rises and falls; held between them: {}{}", m.cycles,
                                                    t.empty() ? "-" : MemText(t[t.size() / 2]),
                                                    t.empty() ? "" : " (the median)")});
  }
  if (m.grows)
    f.evidence.push_back({"held between iterations", fmt::format("rises at each of {} lows, {} to {}", m.troughs_bytes.size(),
                                                                 MemText(m.troughs_bytes.front()),
                                                                 MemText(m.troughs_bytes.back()))});
  f.figures = {{"peak_bytes", m.peak_bytes}, {"growth_per_iteration_bytes", m.growth_per_cycle_bytes}};
  const bool reduced = sig.applied && sig.applied->mixed_precision();
  AdviseByLargest(m, reduced, &f);
  if (m.grows) {
    f.fix.summary = fmt::format(
                        "First, what stays held after each iteration grows ({} each): something keeps every "
                        "iteration's tensors alive (a loss or output kept in a list or summed as a tensor, a cache "
                        "that only grows); keep Python numbers instead. ",
                        MemText(m.growth_per_cycle_bytes)) +
                    f.fix.summary;
    f.fix.pytorch = "running_loss += loss.item()   # a number; summing `loss` keeps each step's graph alive\n"
                    "outputs.append(out.detach().cpu())   # not `out`, which holds its graph and device memory\n" +
                    f.fix.pytorch;
  }
  return f;
}

}  // namespace stepdoctor::rules
