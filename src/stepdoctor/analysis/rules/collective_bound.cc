// collective_bound: gradient all-reduce (or other collectives) takes a large share of the step
// without being hidden under compute.
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/tf_signals.h"

namespace stepdoctor::rules {
namespace {
constexpr double kCollectiveMinSharePct = 15.0;   // exposed collective time >= 15% of the step: fires
constexpr double kCollectiveHighSharePct = 30.0;  // >= 30%: high
}  // namespace

std::optional<Finding> CollectiveBound(const Signals& sig) {
  if (!sig.tf || sig.tf->step_ms <= 0 || sig.tf->collective_ms_per_step <= 0) return std::nullopt;
  const TfSignals& s = *sig.tf;
  double exposed = 100.0 * s.collective_exposed_ms_per_step / s.step_ms;
  if (exposed < kCollectiveMinSharePct) return std::nullopt;
  double overlap = 100.0 * (1.0 - s.collective_exposed_ms_per_step / s.collective_ms_per_step);
  Finding f;
  f.id = "collective_bound";
  f.severity = exposed >= kCollectiveHighSharePct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = exposed;
  f.title = fmt::format("Collectives take {} of each step without overlapping compute", Pct(exposed));
  f.gain_upper_bound = GainIfRemoved(exposed);
  f.gain_text = GainText(f.gain_upper_bound, "if communication were fully hidden behind compute");
  f.evidence.push_back({"collective time per step", fmt::format("{} per replica ({})", Ms(s.collective_ms_per_step),
                                                                s.collectives_on_host ? "host collective ops" : "device kernels")});
  f.evidence.push_back({"exposed (device not computing)", fmt::format("{} ({} of the step)", Ms(s.collective_exposed_ms_per_step), Pct(exposed))});
  f.evidence.push_back({"overlapped with compute", Pct(overlap)});
  if (s.replicas > 0) f.evidence.push_back({"active devices on this worker", fmt::format("{}", s.replicas)});
  f.top_events = s.top_collectives;
  f.fix.summary = "Send fewer, larger all-reduces over NCCL and give each replica more work per sync: pack gradients, "
                  "raise the per-replica batch, and overlap communication with the backward pass.";
  f.fix.tensorflow =
      "strategy = tf.distribute.MultiWorkerMirroredStrategy(\n"
      "    communication_options=tf.distribute.experimental.CommunicationOptions(\n"
      "        implementation=tf.distribute.experimental.CommunicationImplementation.NCCL,\n"
      "        bytes_per_pack=32 * 1024 * 1024))\n"
      "# one host: tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.NcclAllReduce())\n"
      "global_batch = per_replica_batch * strategy.num_replicas_in_sync   # raise per_replica_batch";
  f.fix.pytorch =
      "model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank],\n"
      "    bucket_cap_mb=100, gradient_as_bucket_view=True)\n"
      "with model.no_sync(): loss.backward()   # accumulate locally, sync every N micro-batches";
  return f;
}

}  // namespace stepdoctor::rules
