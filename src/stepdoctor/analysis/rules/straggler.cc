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
#include "stepdoctor/analysis/horovod_negotiation.h"
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

// A Horovod timeline's own record of who was ready last: the coordinator's rank-ready markers.
std::optional<Finding> HorovodStraggler(const Signals& sig) {
  const HorovodLateRanks& h = *sig.horovod;
  const StepSignals& s = *sig.steps;
  if (h.by_rank.empty() || s.mean_step_ms <= 0) return std::nullopt;
  const HorovodLateRanks::Rank& r = h.by_rank.front();
  const double late = r.late_ms / double(s.step_count);  // per step (per window without steps)
  const double share = 100.0 * late / s.mean_step_ms;
  if (share < kStragglerMinPct) return std::nullopt;
  const double last_pct = 100.0 * double(r.last_in) / double(h.negotiations);
  Finding f;
  f.id = "straggler";
  f.severity = share >= kStragglerHighPct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = share;
  f.title = fmt::format("rank {} is ready last in {:.0f}% of Horovod's negotiations: the other ranks wait {} {} for it",
                        r.rank, last_pct, Ms(late), PerStep(s));
  f.gain_upper_bound = GainIfRemoved(share);
  f.gain_text = GainText(f.gain_upper_bound, "if it were ready with the next-latest rank");
  f.figures.push_back({"rank", double(r.rank)});
  f.figures.push_back({"late_ms_per_step", late});
  f.figures.push_back({"last_in_pct", last_pct});
  f.evidence.push_back({"negotiations read", fmt::format("{} with rank-ready markers of {} ranks (Horovod's coordinator "
                                                         "records each rank as it reports a tensor ready)",
                                                         h.negotiations, h.ranks)});
  f.evidence.push_back({fmt::format("rank {}", r.rank),
                        fmt::format("last in {} of {}; {} behind the next-latest rank in all", r.last_in,
                                    h.negotiations, Ms(r.late_ms))});
  f.evidence.push_back({"time with a rank ready and waiting for the last", fmt::format("{} {}", Ms(h.wait_ms / double(s.step_count)), PerStep(s))});
  const bool startup = h.broadcasts == h.negotiations;
  if (startup) {
    // The initial weights' broadcast: the ranks wait for the slowest to build its model (or
    // load its checkpoint), once per run.
    f.severity = std::min(f.severity, FindingSeverity::kModerate);
    f.evidence.push_back({"what was negotiated", "only broadcasts: the start-up broadcast of the initial weights, paid once"});
    f.fix.summary = fmt::format("Rank {} reaches the start-up broadcast last: it builds its model, loads its checkpoint "
                                "or imports its data later than the others. Give every rank the same start-up work "
                                "(no rank-0-only downloads or preprocessing before the broadcast), then profile the "
                                "training steps to see the per-step synchronisations.",
                                r.rank);
  } else {
    f.fix.summary = fmt::format("Rank {} holds the others at their collectives: find what it does before them that they "
                                "do not (rank-0 logging, evaluation or checkpoints inside the step, a slower or shared "
                                "host, a larger shard) and balance or move it.",
                                r.rank);
  }
  f.fix.tensorflow = "if hvd.rank() == 0: ...   # work only one rank does before a collective holds every rank\n"
                     "ds = ds.shard(hvd.size(), hvd.rank())   # equal shards";
  f.fix.pytorch = "if hvd.rank() == 0: ...   # work only one rank does before a collective holds every rank\n"
                  "sampler = torch.utils.data.distributed.DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())";
  return f;
}

}  // namespace

std::optional<Finding> Straggler(const Signals& sig) {
  if (sig.horovod && sig.steps && sig.steps->step_count > 0 && !sig.cross_rank) return HorovodStraggler(sig);
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
