// cpu_saturated: a CPU-only job wants most of the machine's cores (>= kTreeCpuHighOfCoresPct
// of them, counting time waiting for a CPU): it is compute-bound on the CPU. A note more than
// a problem, unless other processes take a large part of the CPU it wants.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"

namespace stepdoctor::rules {
std::optional<Finding> CpuSaturated(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kCpuBound) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  // What the job wanted, in % of one core: the tree's demand, else the machine's busy share times
  // its cores; unknown for a machine-wide CPU series without per-core ones (then the title says
  // the machine's share, never "0 cores").
  std::optional<double> demand = r.tree_cpu_demand_pct;
  if (!demand && r.cpu_mean_pct && r.cores) demand = *r.cpu_mean_pct * *r.cores;
  const double wait = r.tree_cpu_wait_mean_pct.value_or(0);
  const bool contended = r.tree_cpu_demand_pct && *demand > 0 && wait >= kContendedWaitShare * *demand;
  Finding f;
  f.id = "cpu_saturated";
  f.severity = contended ? FindingSeverity::kModerate : FindingSeverity::kNone;
  f.share_pct = contended ? 100.0 * wait / *demand : 0;
  f.title = contended ? fmt::format("the job wants {} but waits for a CPU {} of that time: other processes share the machine",
                                    Cores(*demand), Pct(f.share_pct))
            : demand  ? fmt::format("the job keeps the CPU busy ({}): compute-bound on the CPU", Cores(*demand))
                      : fmt::format("the machine's CPU is {} busy: compute-bound on the CPU", Pct(r.cpu_mean_pct.value_or(0)));
  f.gain_upper_bound = contended ? GainIfRemoved(f.share_pct) : 1.0;
  f.gain_text = contended ? GainText(f.gain_upper_bound, "with the machine to itself")
                          : "no idle resource to reclaim: speed comes from less work per step or more hardware";
  if (r.tree_cpu_mean_pct) {
    f.evidence.push_back({"job's CPU use", Cores(*r.tree_cpu_mean_pct)});
    if (r.tree_cpu_wait_mean_pct) f.evidence.push_back({"job waiting for a CPU", Cores(*r.tree_cpu_wait_mean_pct)});
  }
  if (r.cores && r.cpu_mean_pct)
    f.evidence.push_back({"machine", fmt::format("{} cores, {} busy", *r.cores, Pct(*r.cpu_mean_pct))});
  else if (r.cpu_mean_pct)
    f.evidence.push_back({"machine CPU busy", Pct(*r.cpu_mean_pct)});
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary = contended ? "Give the job the machine (or pin it to its own cores), then look at the work itself."
                            : "Profile the operators (stepdoctor diagnose on a profiler trace) and cut the most expensive; "
                              "use an accelerator where the model allows.";
  f.fix.tensorflow =
      "tf.config.threading.set_intra_op_parallelism_threads(os.cpu_count())\n"
      "tf.profiler.experimental.start('logdir'); train_a_few_steps(); tf.profiler.experimental.stop()";
  f.fix.pytorch =
      "torch.set_num_threads(os.cpu_count())  # with taskset/numactl pinning on a shared host\n"
      "with torch.profiler.profile() as p: train_a_few_steps()\n"
      "p.export_chrome_trace('trace.json')    # then: stepdoctor diagnose trace.json";
  return f;
}

}  // namespace stepdoctor::rules
