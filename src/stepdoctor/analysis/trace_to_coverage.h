// Trace -> what the input holds and lacks: device activity captured, missing or absent (a
// CPU-only job), where steps came from, and how far to trust the verdict.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// Framework operators that only run on an accelerator, by the library their names call
// (aten::cudnn_convolution, miopen_batch_norm, cublas handles, NCCL collectives), and ATen
// operators with only accelerator kernels: a job whose trace holds them used one, whether or not
// its device work was recorded.
bool IsAcceleratorOpName(std::string_view name);

// Steps that together span less than this say nothing about a training step (a unit test's
// trace, a window of a few events): no verdict or finding is drawn from them.
inline constexpr int64_t kMinAnalysableWindowNs = 1'000'000;
// ... unless they are whole steps (bounded by markers, or the one run a TF1 timeline records)
// holding at least this many events: a small model's complete step is short, not empty.
inline constexpr int64_t kMinEventsForAShortStep = 20;

// One-off start-up calls taking at least this share of the only region analysed (no steps):
// the window is one cold first pass, and its figures are not those of a training step.
inline constexpr double kColdWindowStartupPct = 20.0;

enum class DeviceCoverage : uint8_t {
  kCaptured,  // device work (kernels, copies, collectives) is in the trace
  kMissing,   // the job used an accelerator (runtime calls, device memory, device properties) but
              // no device work was recorded: only the host side can be diagnosed
  kCpuOnly,   // no sign of an accelerator: the CPU is the device
};
const char* DeviceCoverageName(DeviceCoverage c);  // "captured", "missing", "cpu_only"

// Device activity captured for only part of the launches: at least this many kernel launches
// with correlation ids, and at least this share of them with no kernel recorded.
inline constexpr int64_t kPartialCaptureMinLaunches = 20;
inline constexpr double kPartialCaptureShare = 0.25;

struct DeviceEvidence {
  DeviceCoverage coverage = DeviceCoverage::kCpuOnly;
  std::vector<std::string> evidence;  // "236 accelerator runtime calls (cudaLaunchKernel ...) but no device events"
  // kMissing with runtime calls none of which launches work (only waits, allocations, queries):
  // no device work was issued inside the window, so recording device activity would show none.
  bool nothing_launched = false;
  // kCaptured, but many launches have no device record (kPartialCapture*): part of the device's
  // work is missing, so the confidence is one level lower.
  bool partial = false;
  // kMissing with runtime calls that launch work recorded: the device tracer was on (Kineto's and
  // TensorFlow's runtime records come from the same CUPTI/roctracer session as the kernels'), so
  // the kernel records were lost, not left unrequested.
  bool tracer_on = false;
  // The trace's header says the profiler started its device tracer (Worker::device_tracer_started).
  bool tracer_started = false;
  // A framework's profiler recorded accelerator runtime calls (queries included): they come from
  // its device tracer's session, so device activity was asked for whatever the window launched.
  bool calls_traced = false;
  // kMissing with a profiler_window, and not one framework operator recorded in it: the profiler
  // ran but saw none of the job's work, only its own start and stop calls.
  bool no_operators = false;
  // kMissing, and the profiler's own span at least twice as long as the host's events: how long
  // it recorded and how little of that holds anything; else empty.
  std::string profiler_window;
  // kMissing: the longest host call that waits on the device (a *Synchronize, torch.cuda.
  // synchronize): the device was still running work, not recorded, for that long. 0: none.
  int64_t longest_device_wait_ns = 0;
  std::string longest_device_wait_name;
  // kMissing: a device-wide synchronize (cudaDeviceSynchronize, hipDeviceSynchronize,
  // cuCtxSynchronize) starts after the last call that launched work and ends in the trace: the
  // device finished the window's work before the profiler stopped. Its name and length; empty
  // where there is none.
  std::string synced_after_launches;
  // kCaptured, but per operator (Worker::device_times_per_operator): the device's busy time is
  // known, its kernels, their precision and the launch path are not.
  bool per_operator = false;
  // kCpuOnly although the trace lists an accelerator (Kineto writes deviceProperties wherever the
  // runtime is available): the memory events put every allocation on the CPU and nothing else
  // says the job used the device. A note saying so; empty otherwise.
  std::string listed_unused;
};

// The distributed backend runs only on accelerators (nccl, hccl, xccl, "cuda:nccl", ...).
bool AcceleratorBackend(std::string_view backend);

DeviceEvidence TraceToDeviceEvidence(const Trace& trace, WorkerId worker);

// REQUIRED: `windows` are the worker's steps (TraceToSteps); `cold_startup_pct` is, where the only
// region analysed is one cold first pass, the share of it in one-off start-up (see
// StepSignals::startup_ms), else 0.
Coverage TraceToCoverage(const Trace& trace, const StepWindows& windows, const DeviceEvidence& device,
                         const AppliedOptimizations& applied, double cold_startup_pct);

// Coverage of inputs with no program events: samples or a GPU log say how busy a device was
// ("sampled"; "cpu_only" where they name no GPU), a memory timeline what tensors held
// ("memory_timeline"); with nothing at all, "no_events". Confidence low. Returns whether a GPU
// series was among them.
bool CoverageWithoutEvents(const Trace& trace, Coverage* c);

}  // namespace stepdoctor
