// collective_bound: gradient all-reduce (or other collectives) takes a large share of the step
// without being hidden under compute. Where the trace records message sizes, the evidence adds
// the achieved bandwidth against the link and what it says (collective_bandwidth_evidence.cc).
#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>

#include "stepdoctor/analysis/horovod_negotiation.h"
#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rule_util.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/tf_signals.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/model/device_work_classify.h"
#include "stepdoctor/core/checked_time.h"

namespace stepdoctor::rules {
namespace {
// The figures the rule needs, from the step breakdown (any framework) or, where that has no
// communication kernels, from TfSignals (TensorFlow's host-side CollectiveReduce).
struct CollectiveFigures {
  double step_ms = 0, total_ms = 0, exposed_ms = 0, compute_ms = 0;
  bool on_host = false;
  int replicas = 0;
  std::vector<TopEvent> top;
};

std::optional<CollectiveFigures> Figures(const Signals& sig) {
  if (sig.steps && sig.steps->step_count > 0 && sig.steps->collective_total_ms > 0) {
    const StepSignals& s = *sig.steps;
    CollectiveFigures c;
    c.step_ms = s.mean_step_ms;
    c.total_ms = s.collective_total_ms;
    c.exposed_ms = s.category_ms[int(StepCategory::kCollectives)];
    c.compute_ms = s.category_ms[int(StepCategory::kDeviceCompute)];
    if (sig.tf) c.top = sig.tf->top_collectives;
    return c;
  }
  if (sig.tf && sig.tf->step_ms > 0 && sig.tf->collective_ms_per_step > 0) {
    const TfSignals& s = *sig.tf;
    CollectiveFigures c;
    c.step_ms = s.step_ms;
    c.total_ms = s.collective_ms_per_step;
    c.exposed_ms = s.collective_exposed_ms_per_step;
    c.on_host = s.collectives_on_host;
    c.replicas = s.replicas;
    c.top = s.top_collectives;
    return c;
  }
  return std::nullopt;
}
// The library behind most of the communication time on device lines ("nccl", "deepep", ...),
// from the one device-work classifier; empty where no device collective names one.
std::string_view DominantCollectiveLibrary(const Trace& trace, WorkerId worker) {
  std::map<std::string_view, int64_t> ns;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size(); ++i)
      if (t.ev.kind[i] == EventKind::kCollective) {
        int64_t& n = ns[ClassifyDeviceWork(trace.str(t.ev.name[i])).library];
        n = SaturatingAdd(n, t.ev.dur_ns[i]);  // streams overlap: the sum may pass int64
      }
  }
  std::string_view best;
  int64_t best_ns = 0;
  for (const auto& [lib, n] : ns)
    if (n > best_ns && !lib.empty()) best = lib, best_ns = n;
  return best;
}
// Device time in the all-gathers and reduce-scatters of sharded data parallelism (FSDP, ZeRO)
// against the all-reduces of replicated data parallelism (DDP), by the kernels' names.
struct ShardedShare {
  int64_t sharded_ns = 0, allreduce_ns = 0;
};
ShardedShare CollectiveKinds(const Trace& trace, WorkerId worker) {
  ShardedShare out;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kDeviceStream) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kCollective) continue;
      std::string n(trace.str(t.ev.name[i]));
      for (char& c : n) c = char(std::tolower(static_cast<unsigned char>(c)));
      auto has = [&](const char* p) { return n.find(p) != std::string::npos; };
      if (has("allgather") || has("all_gather") || has("reducescatter") || has("reduce_scatter"))
        out.sharded_ns = SaturatingAdd(out.sharded_ns, t.ev.dur_ns[i]);
      else if (has("allreduce") || has("all_reduce"))
        out.allreduce_ns = SaturatingAdd(out.allreduce_ns, t.ev.dur_ns[i]);
    }
  }
  return out;
}
}  // namespace

std::optional<Finding> CollectiveBound(const Signals& sig) {
  std::optional<CollectiveFigures> fig = Figures(sig);
  if (!fig) return std::nullopt;
  const CollectiveFigures& s = *fig;
  double exposed = 100.0 * s.exposed_ms / s.step_ms;
  if (exposed < kCollectiveMinSharePct) return std::nullopt;
  double overlap = s.total_ms > 0 ? std::max(0.0, 100.0 * (1.0 - s.exposed_ms / s.total_ms)) : 0;
  Finding f;
  f.id = "collective_bound";
  f.severity = exposed >= kCollectiveHighSharePct ? FindingSeverity::kHigh : FindingSeverity::kModerate;
  f.share_pct = exposed;
  f.title = fmt::format("Collectives take {} of {} without overlapping compute", Pct(exposed),
                        EachStepNoun(sig.steps));
  f.gain_upper_bound = GainIfRemoved(exposed);
  f.gain_text = GainText(f.gain_upper_bound, "if communication were fully hidden behind compute");
  const bool horovod = sig.framework == Framework::kHorovod;
  f.evidence.push_back({"collective time per step", fmt::format("{} per replica ({})", Ms(s.total_ms),
                                                                s.on_host  ? "host collective ops"
                                                                : horovod  ? "Horovod's collective phases"
                                                                           : "device kernels")});
  f.evidence.push_back({"exposed (device not computing)", fmt::format("{} ({} of the step)", Ms(s.exposed_ms), Pct(exposed))});
  f.evidence.push_back({"overlapped with compute", Pct(overlap)});
  if (s.compute_ms > 0)
    // What a larger per-replica batch changes: compute grows with it, the sync cost does not.
    f.evidence.push_back({"communication per unit of compute", fmt::format("{:.2f} ms per ms of device compute", s.total_ms / s.compute_ms)});
  if (s.replicas > 0) f.evidence.push_back({"active devices on this worker", fmt::format("{}", s.replicas)});
  if (sig.collective_bandwidth) SetCollectiveBandwidthEvidence(*sig.collective_bandwidth, &f);
  f.top_events = s.top;
  // Only broadcasts were negotiated (among two or more ranks' markers, or in the whole timeline,
  // one rank's alone): the start-up broadcast of the initial weights, paid once, not the per-step
  // all-reduces the fusion knobs tune.
  if (horovod && (sig.horovod_startup_broadcasts > 0 || (sig.horovod && sig.horovod->broadcasts == sig.horovod->negotiations))) {
    f.severity = FindingSeverity::kLow;
    f.gain_upper_bound = 1.0;
    f.evidence.push_back({"what was negotiated", "only broadcasts: the start-up broadcast of the initial weights"});
    f.gain_text = "none per step: the start-up broadcast is paid once";
    f.fix.summary = "The window holds Horovod's start-up broadcast of the initial weights, not training steps: "
                    "profile steps after it to see the per-step all-reduces.";
    f.fix.tensorflow = "# record a window of training steps: HOROVOD_TIMELINE=... with HOROVOD_TIMELINE_MARK_CYCLES=1";
    f.fix.pytorch = f.fix.tensorflow;
    return f;
  }
  if (horovod && sig.horovod_sizes) {
    const HorovodAllreduceSizes& z = *sig.horovod_sizes;
    f.evidence.push_back(
        {"all-reduce sizes (the timeline's dtype and shape)",
         fmt::format("{} sized in the window analysed, {:.1f} MB in all; the largest {:.1f} MB in {} ({:.2f} GB/s){}", z.sized, z.bytes / 1e6,
                     z.largest_bytes / 1e6, Ms(z.largest_ms), z.largest_ms > 0 ? z.largest_bytes / z.largest_ms / 1e6 : 0,
                     z.large_ms > 0 ? fmt::format("; {} of their time in messages of 64 MiB or more",
                                                  Pct(100.0 * z.large_ms / z.sized_ms))
                                    : "")});
    if (z.sized_ms > 0 && 2 * z.large_ms >= z.sized_ms) {
      // Most of the time is in tensors past the default fusion threshold: fusing more cannot
      // shorten them; fewer bytes, a faster transport or fewer syncs can.
      f.fix.summary = fmt::format(
          "Most all-reduce time is in tensors already past Horovod's 64 MiB fusion threshold (the largest {:.0f} MB): "
          "fusing more cannot shorten them. Send fewer bytes (fp16 compression of the gradients), over a faster "
          "transport (NCCL over NVLink or RDMA rather than MPI over TCP), or sync less often (gradients accumulated "
          "over several batches).",
          z.largest_bytes / 1e6);
      f.fix.tensorflow =
          "opt = hvd.DistributedOptimizer(opt, compression=hvd.Compression.fp16,   # half the bytes\n"
          "                               backward_passes_per_step=4)             # sync every 4 batches";
      f.fix.pytorch =
          "optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),\n"
          "                                     compression=hvd.Compression.fp16, backward_passes_per_step=4)";
      return f;
    }
  }
  if (horovod) {
    // Horovod fuses tensors that are ready within one cycle into one all-reduce: the two knobs
    // are how much it may fuse and how long it waits to gather a fusion.
    f.fix.summary = "Let Horovod send fewer, larger all-reduces: raise its fusion threshold and cycle time, "
                    "and give each replica more work per sync (a larger per-replica batch).";
    f.fix.tensorflow =
        "# before launching: horovodrun -np N ... (or the job's environment)\n"
        "export HOROVOD_FUSION_THRESHOLD=134217728   # bytes fused into one all-reduce (default 64 MB)\n"
        "export HOROVOD_CYCLE_TIME=10                # ms Horovod waits to gather a fusion (default 1-5)\n"
        "opt = hvd.DistributedOptimizer(opt, backward_passes_per_step=4)   # sync every 4 batches";
    f.fix.pytorch =
        "export HOROVOD_FUSION_THRESHOLD=134217728\n"
        "export HOROVOD_CYCLE_TIME=10\n"
        "optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),\n"
        "                                     backward_passes_per_step=4)";
    return f;
  }
  const std::string_view library =
      sig.trace && sig.steps ? DominantCollectiveLibrary(*sig.trace, sig.steps->worker) : std::string_view();
  if (library == "deepep") {
    // Expert-parallel all-to-all, not gradient all-reduce: the levers are overlap and routing.
    f.evidence.push_back({"communication library", "DeepEP (expert-parallel dispatch/combine)"});
    f.fix.summary = "The exposed communication is MoE all-to-all (DeepEP dispatch/combine), not gradient "
                    "all-reduce: overlap it with compute by splitting the batch into micro-batches whose "
                    "dispatch/combine run under each other's expert GEMMs, and limit how many nodes each "
                    "token is routed to.";
    f.fix.pytorch =
        "# DeepEP: issue dispatch/combine asynchronously and compute the other micro-batch meanwhile\n"
        "#   (async_finish=True, allocate_on_comm_stream=True; wait on the returned event before use)\n"
        "# routing: cap the nodes per token (node-limited / group-limited top-k gating)";
    f.fix.tensorflow = "# expert-parallel all-to-all: overlap it with the other micro-batch's compute";
    return f;
  }
  if (sig.steps && sig.steps->cpu_only) {
    // A CPU-only job: gloo (or MPI) is the right library; the lever is how often ranks sync.
    f.fix.summary = "Sync less often and give each replica more work per sync: accumulate gradients over several "
                    "micro-batches and raise the per-replica batch.";
    const bool ddp = sig.applied && sig.applied->ddp;
    if (ddp) f.evidence.push_back({"already in use", "DistributedDataParallel"});
    f.fix.pytorch =
        std::string(ddp ? "# the model is wrapped in DistributedDataParallel already: sync every accum_steps micro-batches\n"
                        : "model = torch.nn.parallel.DistributedDataParallel(model)   # backend='gloo' on CPU\n") +
        "for i, (x, y) in enumerate(loader):\n"
        "    ctx = model.no_sync() if (i + 1) % accum_steps else contextlib.nullcontext()\n"
        "    with ctx: loss_fn(model(x), y).backward()";
    f.fix.tensorflow = "global_batch = per_replica_batch * strategy.num_replicas_in_sync   # raise per_replica_batch";
    return f;
  }
  const ShardedShare kinds = sig.trace && sig.steps ? CollectiveKinds(*sig.trace, sig.steps->worker) : ShardedShare{};
  if (kinds.sharded_ns > kinds.allreduce_ns) {
    // Sharded parameters: each layer's all-gather must arrive before its compute, each
    // reduce-scatter after its backward; the lever is prefetching them under other layers' work.
    f.evidence.push_back({"collectives", fmt::format("all-gather and reduce-scatter {:.0f}% of the communication time: "
                                                     "sharded data parallelism (FSDP, ZeRO)",
                                                     100.0 * kinds.sharded_ns / (kinds.sharded_ns + kinds.allreduce_ns))});
    f.fix.summary = "The exposed communication is sharded data parallelism's all-gathers and reduce-scatters: "
                    "prefetch the next layer's all-gather during this layer's compute, keep parameters gathered "
                    "between forward and backward where memory allows, shard within a node and replicate across "
                    "nodes on slow links, and give each rank more work per sync (a larger per-rank batch).";
    f.fix.pytorch =
        "model = FSDP(model, forward_prefetch=True, backward_prefetch=BackwardPrefetch.BACKWARD_PRE,\n"
        "             limit_all_gathers=True,\n"
        "             sharding_strategy=ShardingStrategy.HYBRID_SHARD)   # shard in a node, replicate across\n"
        "# FSDP2: fully_shard(block, reshard_after_forward=False) keeps the gathered weights for backward";
    f.fix.tensorflow =
        "# sharded variables: fewer, larger shards cut the gathers per step\n"
        "strategy = tf.distribute.experimental.ParameterServerStrategy(cluster_resolver,\n"
        "    variable_partitioner=tf.distribute.experimental.partitioners.MinSizePartitioner(min_shard_bytes=256 << 10))";
    return f;
  }
  f.fix.summary = "Send fewer, larger all-reduces over NCCL and give each replica more work per sync: pack gradients, "
                  "raise the per-replica batch, and overlap communication with the backward pass.";
  f.fix.tensorflow =
      "strategy = tf.distribute.MultiWorkerMirroredStrategy(\n"
      "    communication_options=tf.distribute.experimental.CommunicationOptions(\n"
      "        implementation=tf.distribute.experimental.CommunicationImplementation.NCCL,\n"
      "        bytes_per_pack=32 * 1024 * 1024))\n"
      "# one host: tf.distribute.MirroredStrategy(cross_device_ops=tf.distribute.NcclAllReduce())\n"
      "global_batch = per_replica_batch * strategy.num_replicas_in_sync   # raise per_replica_batch";
  if (sig.applied && sig.applied->ddp) f.evidence.push_back({"already in use", "DistributedDataParallel"});
  f.fix.pytorch =
      std::string(sig.applied && sig.applied->ddp ? "# DistributedDataParallel is in use: larger buckets where it is built\n" : "") +
      "model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank],\n"
      "    bucket_cap_mb=100, gradient_as_bucket_view=True)\n"
      "with model.no_sync(): loss.backward()   # accumulate locally, sync every N micro-batches";
  return f;
}

}  // namespace stepdoctor::rules
