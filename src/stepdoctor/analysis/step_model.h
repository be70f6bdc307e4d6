// Trace + step windows -> StepModel: the steps of one worker as a replay sees them. The host's
// path through the steps is cut into segments (its own work, input waits, waits on the device,
// one-off start-up); the device work is a list of operations, each with its stream and, where
// the trace links them by correlation id, the end of the host call that launched it. The
// what-if (analysis/whatif) edits this model and replays it along those edges.
//
// Known limits: the host's threads are taken as one path (their union); cross-stream waits on
// events are kept as each operation's observed extra delay, not as edges.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/analysis/collective_calls.h"
#include "stepdoctor/analysis/interval_set.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/device_work_classify.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

enum class HostPart : uint8_t {
  kWork,     // operators, launches, Python and framework code: the host's own time
  kInput,    // waiting on the input pipeline (DataLoader __next__, IteratorGetNext)
  kSync,     // waiting on the device (synchronize calls, blocking copies)
  kStartup,  // one-off start-up calls (see RuntimeCallRole::kStartup)
  kUntraced, // a gap of kUntracedGapNs or more with no host event: what ran there is unknown, so no
             // fix removes it
  kCpuWork,  // operators computing on the CPU inside a device job's step (trace_to_host_cpu_ops):
             // work that compiling the step does not remove. In a CPU-only job: the part of the
             // operators' own time that grows with the batch (batch_scaling.h), the CPU being the
             // device; their dispatch and per-parameter work are kWork
};
const char* HostPartName(HostPart p);  // "work", "input", "sync", "startup"

struct HostSegment {
  int64_t start_ns = 0, end_ns = 0;
  HostPart part = HostPart::kWork;
};

struct DeviceOp {
  int64_t start_ns = 0, dur_ns = 0;
  // End of the host call that launched it; kNoLaunch where no correlation id links one.
  int64_t launch_ns = kNoLaunch;
  uint32_t stream = 0;  // index among the worker's device streams
  DeviceWorkRole role = DeviceWorkRole::kCompute;
  KernelPrecision precision = KernelPrecision::kUnstated;
  bool tensor_core = false;
  bool matrix = false;  // a GEMM or convolution (DeviceWorkClass::matrix)
  bool h2d = false;     // a host-to-device copy
  bool per_param = false;  // launched from per-parameter work (optimizer step, gradient accumulation)
  StringId name;        // the kernel or copy, for what names it (critical path, tables)
  int64_t corr = 0;     // correlation id; 0 none. Many ops share one under a graph launch.
  // Collectives (role kCollective): what the trace records of the call (collective_calls.h).
  CollectiveKind comm_kind = CollectiveKind::kUnknown;
  int32_t comm_ranks = 0;  // group size; 0 not recorded
  double comm_bytes = 0;   // message size (nccl-tests' S); 0 not recorded

  static constexpr int64_t kNoLaunch = INT64_MIN;
};

struct StepModel {
  std::vector<StepWindow> steps;     // the worker's steps (warm-up excluded), sorted
  std::vector<HostSegment> host;     // covers [steps.front().start_ns, steps.back().end_ns) in order
  std::vector<DeviceOp> device;      // work launched or started within the steps, sorted by start
  uint32_t stream_count = 0;
  bool cpu_only = false;             // no accelerator: the host's work is the compute
  bool device_missing = false;       // an accelerator was used but its work was not recorded
  int64_t ops_with_launch = 0;       // device ops linked to their launch call
  double input_ms_per_step = 0;      // mean input wait per step (the loader's deficit, or its whole
                                     // cost when the training process loads in-process)
  double work_ms_per_step = 0;       // mean host work per step
  double untraced_ms_per_step = 0;   // mean untraced host time per step
  bool loader_workers = false;       // a multi-process DataLoader / parallel tf.data is in use
  bool compiled = false;             // the step already runs compiled: CUDA/HIP graphs, torch.compile, XLA
  bool tf_graph = false;             // the step runs as a TensorFlow graph (TF1 session, tf.function)
  int cores = 0;                     // CPU cores of the machine that ran the job; 0 unknown
  bool tensor_core_device = false;   // a device with 16-bit matrix units (compute capability >= 7, AMD MFMA)
  std::string device_name;           // the worker's first accelerator, as the trace names it ("NVIDIA H100 80GB HBM3")
  int gpus_on_host = 0;              // the GPUs the trace lists for the worker's host

  int64_t lo() const { return steps.empty() ? 0 : steps.front().start_ns; }
  int64_t hi() const { return steps.empty() ? 0 : steps.back().end_ns; }
};

// REQUIRED: `windows` are TraceToSteps(trace, worker); `device` is what TraceToDeviceEvidence
// found for the worker. An empty model (no steps) where there are none.
// `first_calls`: SlowFirstCalls over the same steps where the caller has them (StepSignals::
// first_calls); computed here otherwise.
StepModel TraceToStepModel(const Trace& trace, WorkerId worker, const StepWindows& windows, DeviceCoverage device,
                           const std::vector<Interval>* first_calls = nullptr);

}  // namespace stepdoctor
