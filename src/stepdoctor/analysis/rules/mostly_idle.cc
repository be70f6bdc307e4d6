// mostly_idle: the job's processes used under kIdleTreeCpuPct of one core, with no disk traffic
// worth the name and GPUs (if any) under kIdleGpuUtilPct: it sleeps or waits on something this
// machine does not show (the network, a lock, another rank, a remote service).
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/resource_rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"

namespace stepdoctor::rules {

std::optional<Finding> MostlyIdle(const Signals& sig) {
  if (!sig.resources || sig.resources->classification != ResourceClass::kIdle) return std::nullopt;
  const ResourceSignals& r = *sig.resources;
  Finding f;
  f.id = "mostly_idle";
  f.severity = FindingSeverity::kModerate;
  f.share_pct = 100.0;
  f.title = "the job was idle: no CPU, disk or GPU work to speak of";
  f.gain_upper_bound = 1.0;
  f.gain_text = "unknown: what the job waits on is not on this machine's counters";
  if (r.tree_cpu_mean_pct) f.evidence.push_back({"job's CPU use", Cores(*r.tree_cpu_mean_pct)});
  else if (r.cpu_mean_pct) f.evidence.push_back({"machine CPU busy", Pct(*r.cpu_mean_pct)});
  if (r.gpu_util_mean_pct) AddGpuUtilLine(r, &f.evidence);
  AddStorageEvidence(r, &f.evidence);
  f.evidence.push_back(SamplesEvidence(r));
  f.fix.summary =
      "Check what the processes block on (py-spy dump --pid PID shows every thread's stack): a barrier waiting "
      "for another rank, a download, a lock, or a sleep.";
  f.fix.tensorflow =
      "# TF_CPP_MIN_LOG_LEVEL=0 and tf.debugging.set_log_device_placement(True) show where it stops;\n"
      "# in multi-worker jobs check that every worker started (TF_CONFIG) and reaches the same step";
  f.fix.pytorch =
      "# a hang in a collective: TORCH_DISTRIBUTED_DEBUG=DETAIL NCCL_DEBUG=INFO python train.py\n"
      "# and set a timeout to fail fast: dist.init_process_group('nccl', timeout=timedelta(minutes=5))";
  return f;
}

}  // namespace stepdoctor::rules
