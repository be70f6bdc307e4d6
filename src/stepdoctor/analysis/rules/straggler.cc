// straggler: in a distributed job every synchronising collective waits for its last rank. With
// the ranks' collectives matched and their clocks aligned (analysis/trace_to_cross_rank), the
// straggler is the rank that arrives last, and its cost is what the others wait for it: how long
// after the next-latest rank it arrives, summed over each step's synchronisations. That is not
// always the busiest rank: a rank can do more work and still arrive on time (its extra work
// runs after the collective, or overlaps it). The fix follows what the straggler does more of
// than the other ranks: input wait, host work, or device compute.
#include <algorithm>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/statistics.h"
#include "stepdoctor/analysis/trace_to_cross_rank.h"

namespace stepdoctor::rules {
namespace {

// What the straggler spends more on per step than the median of the other ranks.
struct Excess {
  const char* what;
  double ms;
};

Excess LargestExcess(const std::vector<WorkerStepFigures>& w, size_t s) {
  std::vector<double> input, host, compute;
  for (size_t i = 0; i < w.size(); ++i) {
    if (i == s) continue;
    input.push_back(w[i].input_ms);
    host.push_back(w[i].host_ms - w[i].input_ms);
    compute.push_back(w[i].compute_ms);
  }
  Excess e[] = {{"input", w[s].input_ms - Median(input)},
                {"host", (w[s].host_ms - w[s].input_ms) - Median(host)},
                {"compute", w[s].compute_ms - Median(compute)}};
  return *std::max_element(std::begin(e), std::end(e), [](const Excess& a, const Excess& b) { return a.ms < b.ms; });
}

}  // namespace

std::optional<Finding> Straggler(const Signals& sig) {
  const CrossRank* x = sig.cross_rank;
  const auto& w = sig.workers;
  if (!x || !x->aligned || x->ranks.size() != w.size() || w.size() < 2) return std::nullopt;
  size_t s = 0;
  for (size_t i = 1; i < x->ranks.size(); ++i)
    if (x->ranks[i].late_ms_per_step > x->ranks[s].late_ms_per_step) s = i;
  const RankAlignment& a = x->ranks[s];
  std::vector<double> steps;
  for (const auto& f : w) steps.push_back(f.median_step_ms);
  const double step = Median(steps);
  if (step <= 0) return std::nullopt;
  const double share = 100.0 * a.late_ms_per_step / step;
  if (share < kStragglerMinPct) return std::nullopt;

  Finding f;
  f.id = "straggler";
  f.severity = share >= kStragglerHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = share;
  f.title = fmt::format("{} arrives last at {:.0f}% of the collectives: the other ranks wait {} per step for it",
                        w[s].name, a.last_in_pct, Ms(a.late_ms_per_step));
  f.gain_upper_bound = GainIfRemoved(share);
  f.gain_text = GainText(f.gain_upper_bound, "if it arrived with the next-latest rank");
  // `rank` where the trace states it; `worker_index` always (its row in the report's workers).
  if (w[s].rank >= 0) f.figures.push_back({"rank", double(w[s].rank)});
  f.figures.push_back({"worker_index", double(s)});
  f.figures.push_back({"late_ms_per_step", a.late_ms_per_step});
  f.figures.push_back({"last_in_pct", a.last_in_pct});
  f.evidence.push_back({"collectives matched",
                        fmt::format("{} on every rank's {} over {} steps; clocks aligned on their completions (offsets up "
                                    "to {})",
                                    x->matched, x->collectives_on, x->steps, Ms([&] {
                                      double m = 0;
                                      for (const auto& r : x->ranks) m = std::max(m, std::abs(r.clock_skew_ms));
                                      return m;
                                    }()))});
  f.evidence.push_back({w[s].name, fmt::format("last in {} of {} collectives; {} behind the next-latest rank per step",
                                               a.last_in, x->matched, Ms(a.late_ms_per_step))});
  std::vector<double> waits;
  for (size_t i = 0; i < w.size(); ++i)
    if (i != s) waits.push_back(x->ranks[i].wait_ms_per_step);
  f.evidence.push_back({"the other ranks", fmt::format("wait {} per step (median) for later ranks at collectives",
                                                       Ms(Median(waits)))});
  const Excess e = LargestExcess(w, s);
  if (e.ms > 0)
    f.evidence.push_back({"what it does more", fmt::format("{} more {} per step than the median rank", Ms(e.ms),
                                                           e.what)});

  const std::string why = std::string(e.what);
  if (e.ms > 0 && why == "input") {
    f.fix.summary = "Feed the straggler faster: its input wait holds every rank. Give its loader more workers, check "
                    "its storage (a slower disk or network mount), and make every rank read equal shards.";
    f.fix.pytorch = "DataLoader(ds, sampler=DistributedSampler(ds, drop_last=True), num_workers=8, pin_memory=True,\n"
                    "           persistent_workers=True, prefetch_factor=4)";
    f.fix.tensorflow = "ds = ds.shard(num_workers, worker_index).map(f, num_parallel_calls=tf.data.AUTOTUNE)\n"
                       "ds = ds.prefetch(tf.data.AUTOTUNE)";
  } else if (e.ms > 0 && why == "host") {
    f.fix.summary = "The straggler's host is slower: look for CPU contention on its machine (other processes, fewer "
                    "cores, Python work only that rank does: logging, metrics, rank-0 evaluation) and move that work "
                    "off the step or to every rank equally.";
    f.fix.pytorch = "if dist.get_rank() == 0: ...   # work only one rank does holds all the others: make it async\n"
                    "torch.set_num_threads(cores_per_rank)  # and pin each rank to its own cores";
    f.fix.tensorflow = "# work only the chief does (summaries, checkpoints) stalls the other workers:\n"
                       "tf.summary.record_if(lambda: step % 100 == 0)";
  } else {
    f.fix.summary = "Give every rank the same work and the same speed: the straggler computes more (uneven shards, "
                    "variable-length samples) or runs slower (a throttled or shared GPU). Balance the batches, then "
                    "check its device.";
    f.fix.pytorch = "sampler = torch.utils.data.distributed.DistributedSampler(dataset, drop_last=True)\n"
                    "# bucket variable-length samples so each rank's batch costs the same;\n"
                    "# nvidia-smi -q -d PERFORMANCE on the slow rank's machine (clock throttle reasons)";
    f.fix.tensorflow = "ds = ds.shard(num_workers, worker_index)\n"
                       "ds = ds.bucket_by_sequence_length(...)   # similar-length batches on every worker";
  }
  return f;
}

}  // namespace stepdoctor::rules
