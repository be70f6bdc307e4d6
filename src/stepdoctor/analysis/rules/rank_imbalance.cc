// rank_imbalance: in a distributed job every step waits for the slowest rank. When one rank
// computes (or feeds its device) for noticeably longer than the others, the others wait in
// their collectives: a straggler.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"

namespace stepdoctor::rules {
std::optional<Finding> RankImbalance(const Signals& sig) {
  const auto& w = sig.workers;
  if (w.size() < 2) return std::nullopt;
  // Where the collectives show who waits for whom, `straggler` judges that instead: the busiest
  // rank need not be the one the others wait for.
  if (sig.cross_rank && sig.cross_rank->aligned) return std::nullopt;
  // Busy time per step on each rank: what it must do before it can join the collective.
  auto busy = [](const WorkerStepFigures& f) { return f.compute_ms + f.host_ms; };
  auto slow = std::max_element(w.begin(), w.end(), [&](const auto& a, const auto& b) { return busy(a) < busy(b); });
  auto fast = std::min_element(w.begin(), w.end(), [&](const auto& a, const auto& b) { return busy(a) < busy(b); });
  std::vector<double> steps;
  for (const auto& f : w) steps.push_back(f.median_step_ms);
  std::sort(steps.begin(), steps.end());
  double step = steps[steps.size() / 2];
  if (step <= 0) return std::nullopt;
  double extra = busy(*slow) - busy(*fast);
  double share = 100.0 * extra / step;
  if (share < kImbalanceMinPct) return std::nullopt;

  // The job's size as its ranks recorded it: where more ranks ran than were traced, the slowest
  // traced rank need not be the job's slowest, so the claim is about the traced ones only.
  int world = -1;
  if (sig.trace)
    for (const auto& wk : sig.trace->workers) world = std::max(world, wk.world_size);
  const bool sample = world > int(w.size());

  Finding f;
  f.id = "rank_imbalance";
  f.severity = share >= kImbalanceHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  if (sample) f.severity = FindingSeverity(int(f.severity) - 1);
  f.share_pct = share;
  f.title = sample ? fmt::format("{} is busy {} longer per step than {}, of the {} ranks traced out of {}: untraced ranks "
                                 "may be slower still",
                                 slow->name, Ms(extra), fast->name, w.size(), world)
                   : fmt::format("{} is busy {} longer per step than {}: the other ranks wait for it", slow->name,
                                 Ms(extra), fast->name);
  if (sample)
    f.evidence.push_back({"ranks traced", fmt::format("{} of the job's {} (its world size): the job waits for its slowest "
                                                      "rank, which may be one not traced; trace every rank (or `stepdoctor "
                                                      "summarize` each) to find it",
                                                      w.size(), world)});
  f.gain_upper_bound = GainIfRemoved(share);
  f.gain_text = GainText(f.gain_upper_bound, "if every rank were as quick as the fastest");
  for (const auto& r : w)
    f.evidence.push_back({r.name, fmt::format("median step {}, busy {} (compute {}, host {}), exposed collectives {}",
                                              Ms(r.median_step_ms), Ms(busy(r)), Ms(r.compute_ms), Ms(r.host_ms),
                                              Ms(r.collectives_ms))});
  f.fix.summary =
      "Give every rank the same work and the same speed: balance what each rank gets (bucket variable-length "
      "samples, equal shards), and check the slow rank's machine (throttling GPU, busy CPU, slower input).";
  f.fix.tensorflow =
      "ds = ds.shard(num_workers, worker_index)      # equal shards per worker\n"
      "ds = ds.bucket_by_sequence_length(...)        # similar-length batches on every worker\n"
      "# and check the slow worker: nvidia-smi -q -d PERFORMANCE (clock throttle reasons)";
  f.fix.pytorch =
      "sampler = torch.utils.data.distributed.DistributedSampler(dataset, drop_last=True)\n"
      "# bucket variable-length samples so each rank's batch costs the same;\n"
      "# torch.distributed.monitored_barrier() / NCCL_DEBUG=INFO to find the slow rank's machine";
  return f;
}

}  // namespace stepdoctor::rules
