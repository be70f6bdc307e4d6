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

#include <string>
#include <string_view>

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

// REQUIRED: the lane is on a GPU. Whether a lane of `lane` kind is the device's own record of busy
// time, given which lanes the same GPU has: per-stream lanes where there are any, else stream:all,
// else the memcpy lane. Op-level lanes never are (they include queueing and autotuning on the host).
bool Tf1LaneIsDeviceStream(Tf1Lane lane, bool gpu_has_streams, bool gpu_has_all_streams);

}  // namespace stepdoctor::chrome
