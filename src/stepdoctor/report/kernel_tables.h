// Kernel tables HTA users read (analysis/trace_to_kernel_tables): each top operator's kernels
// (through the launches it encloses), launch-delay outliers, the kernel split by what the work
// is (compute, communication, memory) and each stream's queue of launched, not yet started work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace stepdoctor {

struct OpKernelRow {            // one kernel name launched from inside an operator
  std::string kernel;
  int64_t count = 0;
  double device_ms = 0;         // summed device time
  double mean_delay_us = 0;     // mean launch delay (kernel start - launch start), see KernelTables
};

struct OpKernels {              // one of the report's top_ops
  std::string op;
  int64_t op_count = 0;         // instances of the operator (nested ones of the same name counted once)
  int64_t kernels = 0;          // device operations its launches reached
  double device_ms = 0;
  double mean_delay_us = 0;     // over its kernels that have a launch delay
  std::vector<OpKernelRow> rows;  // by device time, at most kOpKernelRowsKept
};
inline constexpr size_t kOpKernelRowsKept = 5;

struct LaunchDelayOutlier {
  std::string kernel;
  std::string launch;           // the runtime call that launched it
  double delay_us = 0;
  double at_ms = 0;             // the launch's start, from the report's window start
};

struct KernelClassStats {       // device work of one class
  std::string work_class;       // compute, communication, memory
  int64_t count = 0;
  double total_ms = 0, mean_us = 0, min_us = 0, max_us = 0;
};

struct StreamQueue {            // launched, not yet started device operations on one stream
  std::string stream;           // "GPU 0 stream 7"
  int64_t max_queued = 0;
  double mean_queued = 0;       // time-weighted over the stream's span (first launch to last start)
};

struct KernelTables {
  std::vector<OpKernels> ops;             // aligned with the report's top_ops (those that launched work first)
  int64_t delays = 0;                     // device operations with a launch delay
  double median_delay_us = 0;
  // Median of the part of each delay its stream was still running earlier work: launches that
  // outrun the device wait in its queue, which is no launch overhead.
  double median_queued_us = 0;
  // Device time launched by a call no framework operator encloses on its thread (custom C++/CUDA
  // extension or Triton kernels launched from Python): no `ops` row reaches it. Of device_ms,
  // the device time of every launched operation.
  double unenclosed_ms = 0, device_ms = 0;
  double outlier_threshold_us = 0;        // max(kDelayOutlierFactor x median, kDelayOutlierFloorUs)
  int64_t outlier_count = 0;
  std::vector<LaunchDelayOutlier> outliers;  // the largest, at most kDelayOutliersKept
  std::vector<KernelClassStats> classes;     // compute, communication, memory (those present)
  std::vector<StreamQueue> queues;           // streams with linked launches
};
inline constexpr size_t kDelayOutliersKept = 10;
// The launch-delay line names the queue where its part is at least this share of the median delay.
inline constexpr double kQueuedDelayShare = 0.5;

// ", 31318.2 us of it waiting behind earlier work on its stream (a queue, not launch overhead)"
// where the queue is at least kQueuedDelayShare of the median delay; else empty. For the renderers.
std::string QueuedDelayText(const KernelTables& k);
// The share of launched device time no operator encloses, from which the renderers note it.
inline constexpr double kUnenclosedNotePct = 10.0;
// "12.3 ms of the 22.9 ms of launched device time (53.7%) was launched by calls no operator
// encloses (custom extension or Triton kernels launched from Python): no row above holds it",
// or empty under kUnenclosedNotePct.
std::string UnenclosedText(const KernelTables& k);

}  // namespace stepdoctor
