// The one in-memory trace every importer fills and every analysis reads.
//
// Workers (a host or a rank) own devices (the CPU host, GPU N, TPU N); devices own timelines
// (a host thread, a device stream, or a derived line such as "framework ops"). Each timeline
// keeps its events column-wise, sorted by start (then longest first, so parents precede the
// ranges they enclose). Times are int64 nanoseconds on one clock per worker, every start, end
// and sample time within +-kMaxTimeNs (core/checked_time.h), so analyses may add or subtract
// any two; names are interned. REQUIRED: call Trace::Finalize() after importing and before
// analysing.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/core/string_pool.h"
#include "stepdoctor/model/event_kind.h"
#include "stepdoctor/model/ids.h"
#include "stepdoctor/model/import_diagnostics.h"
#include "stepdoctor/model/tf_profiler_verdict.h"

namespace stepdoctor {

// The framework that wrote the input, set by the importers from what the file holds (Kineto
// metadata, TensorFlow's /host: and /device: names, XPlane's JAX lines, Horovod's phases).
// Analyses and advice switch on this, never on Trace::format's display text.
enum class Framework : uint8_t { kUnknown, kPyTorch, kTensorFlow, kJax, kHorovod };
const char* FrameworkName(Framework f);  // "pytorch", "tensorflow", "jax", "horovod", "unknown"

struct Worker {
  std::string hostname;    // or the file stem where the trace has no host name
  int64_t pid = -1;        // the main process id, where known
  int rank = -1;           // distributed rank, -1 where unknown
  int world_size = -1;
  std::string backend;     // nccl, gloo, ...
  std::string source_path; // the file this worker came from
  // The trace records one run of the training step and nothing else: a TF 1.x timeline is the
  // StepStats of one sess.run. Step inference reads such a window as one step (inferred).
  bool single_run = false;
  // The trace is a TF 1.x timeline: the StepStats of sess.run calls, so the step ran as a graph
  // (the graph executor's ops), whatever else it holds.
  bool tf1_session = false;
  // The profiler set up its device tracer: Kineto writes `cupti_version` in the trace's header
  // only where CUPTI's activity tracing was started (device activity was asked for).
  bool device_tracer_started = false;
  // Its samples file states no times (`nvidia-smi --query-gpu=... --format=csv` without a
  // timestamp column), or all at one time: their order is real, their spacing was assumed by
  // the importer.
  bool sample_times_assumed = false;
  // Of those, every sample stamped with one time: the log spans less than its clock's step.
  bool sample_times_one_stamp = false;
  // A Chrome trace whose events carry no category and name no framework: the program's own
  // spans (phases it timed itself), not operators; what ran inside them is not recorded.
  bool program_spans_only = false;
  // Device time was recorded per operator (the autograd profiler's CUDA events around each op,
  // `use_cuda=True` without Kineto), not per kernel: busy time is known, kernels are not.
  bool device_times_per_operator = false;
  // The framework of this worker's own files, where the trace was merged from several (a folder
  // mixing a Horovod timeline with another process's profile); unset: the trace's (FrameworkOf).
  std::optional<Framework> framework;
};

// kOther: an accelerator that is neither a GPU nor a TPU (Meta MTIA, Intel Gaudi HPU, ...).
enum class DeviceKind : uint8_t { kHostCpu, kGpu, kTpu, kOther };

struct Device {
  WorkerId worker;
  DeviceKind kind = DeviceKind::kHostCpu;
  int index = 0;              // GPU N / TPU N; 0 for the host
  std::string name;           // "Tesla V100-SXM2-32GB", "/device:GPU:0"
  int sm_count = 0;           // streaming multiprocessors / cores, 0 where unknown
  int64_t memory_bytes = 0;   // total device memory, 0 where unknown
  int compute_major = 0;      // compute capability, 0 where unknown
  int compute_minor = 0;
  std::string vendor;         // nvidia, amd, google
};

// Whether a device has 16-bit matrix units: an NVIDIA GPU of compute capability 7 or later
// (TensorCores), or an AMD GPU (MFMA).
bool HasMatrixUnits(const Device& d);

enum class TimelineKind : uint8_t {
  kHostThread,    // a CPU thread of the training process
  kDeviceStream,  // a GPU stream / TPU core line with device activity
  kDerived,       // a line a profiler derived (TF "Steps", "XLA Ops", framework op lines)
};

enum class ArgType : uint8_t { kInt, kDouble, kString };

// One argument kept from an event: only the keys analyses need are stored (see the importers).
struct Arg {
  StringId key;
  ArgType type = ArgType::kInt;
  int64_t i = 0;
  double d = 0;
  StringId s;
};

// Columnar events of one timeline.
struct EventColumns {
  std::vector<int64_t> start_ns;
  std::vector<int64_t> dur_ns;    // 0 for instants
  std::vector<StringId> name;
  std::vector<EventKind> kind;
  std::vector<int64_t> corr;      // correlation id linking a host launch to device work; 0 none
  std::vector<uint32_t> args_at;  // index into Timeline::args of this event's first arg, or kNoArgs
  std::vector<uint8_t> args_n;    // how many args follow args_at

  static constexpr uint32_t kNoArgs = 0xffffffffu;
  size_t size() const { return start_ns.size(); }
  void Reserve(size_t n);
};

struct Timeline {
  WorkerId worker;
  DeviceId device;
  TimelineKind kind = TimelineKind::kHostThread;
  int64_t tid = 0;          // thread id, stream id or line id as the source numbered it
  std::string name;         // "thread 123 (python)", "stream 7", "XLA Ops"
  EventColumns ev;
  std::vector<Arg> args;

  // Appends an event; returns its index. Events may come in any order; Finalize sorts.
  uint32_t Add(int64_t start_ns, int64_t dur_ns, StringId name, EventKind kind, int64_t corr = 0);
  void AddArg(uint32_t event, const Arg& arg);  // REQUIRED: args of one event are added together,
                                               // right after the event, before the next Add.
  const Arg* FindArg(uint32_t event, StringId key) const;
  int64_t end_ns(uint32_t i) const { return ev.start_ns[i] + ev.dur_ns[i]; }
};

// A time series (GPU utilisation, memory in use, queue length ...).
struct CounterSeries {
  WorkerId worker;
  DeviceId device;          // may be invalid for machine-wide series
  std::string name;         // "gpu0_util_pct" (model/series_names.h), "Memory in use"
  std::string unit;         // "%", "bytes" (a byte series' values fit in int64: Finalize)
  std::vector<int64_t> ts_ns;
  std::vector<double> value;
};

// A scalar a training job logged (TensorBoard event files): loss, accuracy, step rate.
struct ScalarSeries {
  std::string run;          // the event file's folder relative to the logdir ("train", "validation")
  std::string tag;          // "loss", "epoch_accuracy"
  std::vector<int64_t> step;
  std::vector<double> wall_time_s;
  std::vector<double> value;
};

class Trace {
 public:
  Trace() = default;
  Trace(Trace&&) = default;
  Trace& operator=(Trace&&) = default;

  StringPool strings;
  std::vector<Worker> workers;
  std::vector<Device> devices;
  std::vector<Timeline> timelines;
  std::vector<CounterSeries> counters;
  std::vector<ScalarSeries> scalars;
  std::vector<TfProfilerVerdict> tf_verdicts;  // TensorFlow profiler's own analysis pages, where read
  ImportDiagnostics diagnostics;
  std::vector<std::string> sources;  // files read, in order
  std::string format;                // "chrome-json (kineto)", "xplane", ... (display only)
  Framework framework = Framework::kUnknown;

  WorkerId AddWorker(Worker w);
  DeviceId AddDevice(Device d);
  // Finds or creates the device of `kind`/`index` on a worker.
  DeviceId GetOrAddDevice(WorkerId w, DeviceKind kind, int index, std::string_view name = {});
  TimelineId AddTimeline(WorkerId w, DeviceId d, TimelineKind kind, int64_t tid, std::string name);

  Timeline& timeline(TimelineId id) { return timelines[id.v]; }
  const Timeline& timeline(TimelineId id) const { return timelines[id.v]; }
  const Device& device(DeviceId id) const { return devices[id.v]; }
  const Worker& worker(WorkerId id) const { return workers[id.v]; }
  std::string_view str(StringId id) const { return strings.Get(id); }

  // Drops (counting them as kTimeOutOfRange) events whose start or end and samples whose time
  // lies outside +-kMaxTimeNs, and (as kValueOutOfRange) samples of a "bytes" series that int64
  // cannot hold; then sorts every timeline by (start, longest first) and every counter by time.
  // Importers skip such values as they read; this holds whatever built the trace to the range.
  void Finalize();
  size_t EventCount() const;
};

// The framework of a worker's files: its own where a merge of several files set one, else the
// trace's. Analyses of one worker ask this, not Trace::framework, which names the first file's.
Framework FrameworkOf(const Trace& trace, WorkerId worker);

// One worker's framework from two of its files joined (its model and Horovod timelines): a known
// framework over an unknown one, and the other file's (known or not) over Horovod's, whose timeline
// records Horovod's own phases only; the first where both are known and differ.
Framework JoinedFramework(Framework a, Framework b);

}  // namespace stepdoctor
