// Trace (+ the step signals) -> TfSignals: the TensorFlow-specific aggregates the TF rules
// read (tf.data stages, eager ops, retracing, precision, allocator memory, collectives,
// launch overhead, event-file stalls). Computed once per analysis; each section is empty when
// the trace has nothing for it, and a rule whose section is empty does not fire.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/tf_data_pipeline.h"
#include "stepdoctor/analysis/tf_event_stalls.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct TfRetrace {
  std::string function;  // the tf.function (its event name)
  int64_t traces = 0;    // calls that traced (tf_function_call "traced-...") or the max tracing_count
  int64_t calls = 0;     // calls seen
  double trace_ms = 0;   // time in the calls that traced
};

struct TfMemoryPeak {
  std::string allocator;        // "GPU_0_bfc"
  std::string device;           // "/device:GPU:0"
  int64_t peak_bytes = 0;       // max peak_bytes_in_use (or bytes_allocated) seen
  int64_t capacity_bytes = 0;   // device memory, 0 where unknown
  double max_fragmentation = 0; // 0-1, as the allocator reports it
  double peak_pct() const { return capacity_bytes > 0 ? 100.0 * double(peak_bytes) / double(capacity_bytes) : 0; }
};

struct TfSignals {
  // The step the shares below are of: from StepSignals when given, else from step markers.
  int step_count = 0;
  double step_ms = 0;
  bool framework_tf = false;   // the trace came from TensorFlow (not JAX/PyTorch)

  TfDataPipeline tfdata;       // analysis/tf_data_pipeline.h
  double input_share_pct = 0;  // host wait on input, % of the step
  double input_exposed_pct = 0;  // of which the device idles (StepSignals); = input_share_pct without them

  // Graph vs eager: host framework ops with is_eager=1.
  int64_t host_ops = 0, eager_ops = 0;
  double host_op_ms_per_step = 0, eager_op_ms_per_step = 0;
  std::vector<TopEvent> top_eager_ops;

  std::vector<TfRetrace> retraced;  // functions that traced more than once, most first

  // Precision: device kernel time by kernel name (GPU); TPUs are left out (their MXUs are bf16).
  bool has_gpu_kernels = false;
  bool tensor_core_capable = false;  // compute capability >= 7.0, or an AMD CDNA/RDNA3 part
  double kernel_ms_per_step = 0, kernel_16bit_ms_per_step = 0, kernel_tensor_core_ms_per_step = 0;
  std::vector<TopEvent> top_fp32_kernels;

  std::vector<TfMemoryPeak> memory;  // device allocators, highest peak share first

  // Collectives: device collective kernels (or host collective ops where there are none).
  bool collectives_on_host = false;
  double collective_ms_per_step = 0;
  double collective_exposed_ms_per_step = 0;  // not overlapped by device compute
  int replicas = 0;                           // devices with activity on the primary worker
  std::vector<TopEvent> top_collectives;

  // Kernel launch overhead (share of the step; from StepSignals when given).
  double launch_share_pct = 0;
  double median_kernel_us = 0, median_launch_us = 0;
  bool gpu_private_threads = false;  // TF_GPU_THREAD_MODE=gpu_private is already on

  std::vector<EventStallRun> stalls;  // analysis/tf_event_stalls.h, per event-file run
};

// Returns nullptr when the trace holds nothing TensorFlow-like (no XPlane/TF trace, no scalars).
// `steps` may be null (no step markers, or the step analysis did not run).
// `worker` is the worker the report describes and `windows` its steps, as AnalyzeTrace found
// them; the two-argument form finds them itself (PrimaryWorker, TraceToSteps).
std::unique_ptr<TfSignals> ComputeTfSignals(const Trace& trace, WorkerId worker, const StepWindows& windows,
                                            const StepSignals* steps);
std::unique_ptr<TfSignals> ComputeTfSignals(const Trace& trace, const StepSignals* steps);

// Classification helpers, exposed for tests.
bool Is16BitKernelName(std::string_view kernel);     // half / bf16 kernels (bf16 counts as 16-bit)
bool IsTensorCoreKernelName(std::string_view kernel);  // HMMA/wmma/xmma/tensorop/MFMA kernels

}  // namespace stepdoctor
