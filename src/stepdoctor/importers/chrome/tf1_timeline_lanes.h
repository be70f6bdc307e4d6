// TensorFlow 1.x `timeline.Timeline` traces name one Chrome "process" per lane of StepStats:
//   /job:localhost/replica:0/task:0/device:GPU:0 Compute   the op-level lane (launch to done)
//   /device:GPU:0/stream:all Compute                       every kernel and copy of the GPU
//   /device:GPU:0/stream:22 Compute                        the same work, one CUDA stream
//   /device:GPU:0/memcpy Compute                           the copies again
//   /job:localhost/replica:0/task:0/device:CPU:0 Compute   ops run on a host thread
// The GPU tracer records each kernel on its stream's lane and again on stream:all (copies also on
// memcpy), so only one set of lanes may count as the device's busy time.
// Early TF 1.x releases wrote the same lanes with legacy device names ("/gpu:0/stream:all Compute",
// "/job:localhost/replica:0/task:0/cpu:0 Compute"): CanonicalTfDeviceName rewrites them once, at
// import, so every later check reads one form.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "stepdoctor/model/event_kind.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

enum class Tf1Lane : unsigned char {
  kNone,        // not a TF1 StepStats lane name
  kOpLevel,     // /job:.../device:GPU:N Compute: ops from launch to completion, not device time
  kAllStreams,  // /device:GPU:N/stream:all
  kStream,      // /device:GPU:N/stream:K
  kMemcpy,      // /device:GPU:N/memcpy
  kHostOps,     // /job:.../device:CPU:N Compute
};

// A TensorFlow device path in the "/device:GPU:N" form. Legacy components "gpu:N" / "cpu:N" (either
// case; TF's own parser, DeviceNameUtils, reads them as "device:GPU:N" / "device:CPU:N") are
// rewritten; everything else, and any name that is not a path (no leading '/'), is kept as it is.
//   "/gpu:0/stream:all Compute"                  -> "/device:GPU:0/stream:all Compute"
//   "/job:localhost/replica:0/task:0/cpu:0 Compute" -> "/job:localhost/replica:0/task:0/device:CPU:0 Compute"
std::string CanonicalTfDeviceName(std::string_view name);

// What a TF1 process name says its lane is. REQUIRED: the name is canonical (CanonicalTfDeviceName). "... Tensors" lanes (object snapshots) are kNone.
Tf1Lane ClassifyTf1Lane(std::string_view process_name);

// The task a job-qualified lane belongs to: "/job:localhost/replica:0/task:0" of
// "/job:localhost/replica:0/task:0/device:CPU:0 Compute"; empty for the per-GPU lanes
// ("/device:GPU:0/stream:all Compute"), which are the local process's. REQUIRED: canonical name.
std::string_view Tf1LaneTask(std::string_view process_name);

// What one GPU's TF1 lanes hold: which kinds of lane it has, and the compute (kernel) and copy
// events on its per-stream lanes and on stream:all. In a whole file both sets hold the same
// kernels; where they differ (a file cut short, a tracer that dropped records) the fuller one
// is the device's record.
struct Tf1GpuLanes {
  bool has_streams = false;      // any /device:GPU:N/stream:K lane
  bool has_all_streams = false;  // a /device:GPU:N/stream:all lane
  int64_t stream_compute = 0, stream_copies = 0;  // over the per-stream lanes
  int64_t all_compute = 0, all_copies = 0;        // on stream:all
  // Adds one event of `kind` on a lane of `lane` kind (other lanes are not counted).
  void Count(Tf1Lane lane, EventKind kind);
  // The per-stream lanes are the record: they exist and hold at least the kernels stream:all does.
  bool UseStreams() const { return has_streams && (!has_all_streams || stream_compute >= all_compute); }
};

// Each GPU's lanes in a TF1 timeline, from the timelines and the process names they were read
// under: which lane kinds the GPU has, and the kernels and copies each holds.
std::map<int, Tf1GpuLanes> Tf1GpuLanesOf(const Trace& trace,
                                         const std::vector<std::pair<TimelineId, std::string_view>>& lanes);

// The op-level lane of a GPU is the executor's host-side record: each op there is its Compute
// call on a host thread, which enqueues the kernels (they start once it ends). The GPU tracer's
// lanes (per stream or stream:all) hold the device's work; without them (libcupti not loaded,
// device tracing off) the device's time is unknown, and the op-level lane is still the host's.
bool Tf1OpLevelIsHost(Tf1Lane lane, const Tf1GpuLanes& gpu);

// REQUIRED: the lane is on a GPU. Whether a lane of `lane` kind is the device's own record of busy
// time, given what the same GPU's lanes hold: the per-stream lanes where they hold the kernels
// (Tf1GpuLanes::UseStreams), else stream:all, with the memcpy lane for the copies where stream:all
// records none (TF's tracer puts copies on their stream and on memcpy, not on stream:all), else
// the memcpy lane alone. Op-level lanes never are (they include queueing and autotuning on the host).
bool Tf1LaneIsDeviceStream(Tf1Lane lane, const Tf1GpuLanes& gpu);

}  // namespace stepdoctor::chrome
