// Achieved bandwidth of collectives whose sizes the trace records: PyTorch's
// record_param_comms ranges carry the message size (In msg nelems, dtype) and group size; the
// communication kernel they launch (joined through the runtime call's correlation id) gives the
// time on the device.
//   algorithm bandwidth = bytes / kernel time
//   bus bandwidth       = algbw x 2(n-1)/n for all-reduce, x (n-1)/n for all-gather and
//                         reduce-scatter, x 1 otherwise (NCCL's nccl-tests convention), so it
//                         can be held against the link's peak.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct CollectiveBandwidth {
  std::string name;      // "allreduce", "allgather", ... (the trace's Collective name)
  int group_size = 0;    // ranks in the collective
  int64_t calls = 0;     // calls matched to a device kernel
  double bytes = 0;      // total payload (input message) bytes
  double kernel_ms = 0;  // total device time of their kernels
  double algbw_gbps = 0; // GB/s (1e9 bytes per second)
  double busbw_gbps = 0;
};

// REQUIRED: trace finalized. Sorted by total kernel time, descending. Empty when the trace
// records no sizes.
std::vector<CollectiveBandwidth> TraceToCollectiveBandwidth(const Trace& trace, WorkerId worker);

}  // namespace stepdoctor
