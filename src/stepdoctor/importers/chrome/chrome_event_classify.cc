#include "stepdoctor/importers/chrome/chrome_event_classify.h"

#include <algorithm>

#include "stepdoctor/importers/chrome/chrome_event.h"
#include "stepdoctor/model/device_work_classify.h"
#include "stepdoctor/model/runtime_calls.h"
#include "stepdoctor/model/tf_op_classify.h"

namespace stepdoctor::chrome {
namespace {

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }
bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

EventKind MemcpyKind(std::string_view name) {
  if (Contains(name, "HtoD") || Contains(name, "H2D") || Contains(name, "HostToDevice")) return EventKind::kMemcpyH2D;
  if (Contains(name, "DtoH") || Contains(name, "D2H") || Contains(name, "DeviceToHost")) return EventKind::kMemcpyD2H;
  if (Contains(name, "DtoD") || Contains(name, "D2D") || Contains(name, "DeviceToDevice")) return EventKind::kMemcpyD2D;
  return EventKind::kMemcpyOther;
}

bool IsHostCollectiveName(std::string_view n) {
  return StartsWith(n, "nccl:") || StartsWith(n, "gloo:") || StartsWith(n, "c10d::") ||
         StartsWith(n, "record_param_comms") || Contains(n, "Allreduce") || Contains(n, "ALLREDUCE") ||
         Contains(n, "ALLGATHER") || Contains(n, "BROADCAST") || StartsWith(n, "CollectiveReduce") ||
         StartsWith(n, "NcclAllReduce") || IsTfNcclManagerCollective(n);
}

EventKind HostKind(std::string_view name, EventKind fallback) {
  if (StartsWith(name, "ProfilerStep#")) return EventKind::kStepMarker;
  if (IsInputWaitName(name)) return EventKind::kInputWait;
  if (IsHostCollectiveName(name)) return EventKind::kCollective;
  return fallback;
}

// Any accelerator's runtime or driver calls (cuda_runtime, mtia_runtime, xpu_runtime, hpu_driver).
bool IsRuntimeCategory(std::string_view cat) {
  auto ends = [&](std::string_view suf) { return cat.size() > suf.size() && cat.substr(cat.size() - suf.size()) == suf; };
  return ends("_runtime") || ends("_driver");
}

}  // namespace

bool IsInputWaitName(std::string_view n) {
  // PyTorch: enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ and the
  // multiprocessing variant; TensorFlow: IteratorGetNext (graph op), dataset::GetNext (smdebug),
  // and TF1's input queues (QueueDequeueV2, QueueDequeueManyV2, QueueDequeueUpToV2: the step
  // blocks there until the queue runners have filled the queue).
  if (Contains(n, "DataLoader") && Contains(n, "__next__")) return true;
  if (StartsWith(n, "IteratorGetNext") || StartsWith(n, "MultiDeviceIteratorGetNextFromShard")) return true;
  if (StartsWith(n, "QueueDequeue")) return true;
  if (n == "dataset::GetNext") return true;
  return false;
}

bool IsCommunicationKernelName(std::string_view n) { return stepdoctor::IsCommunicationKernelName(n); }

EventKind ClassifyDeviceLineEvent(std::string_view name) {
  switch (ClassifyDeviceWork(name).role) {
    case DeviceWorkRole::kCollective: return EventKind::kCollective;
    case DeviceWorkRole::kCopy: return MemcpyKind(name);
    case DeviceWorkRole::kMemset: return EventKind::kMemset;
    case DeviceWorkRole::kCompute: break;
  }
  if (Contains(name, "MEMCPY")) return MemcpyKind(name);  // TensorFlow's MEMCPYHtoD lines
  // rocprof's copy lane: CopyHostToDevice, CopyDeviceToHost, CopyDeviceToDevice.
  if (StartsWith(name, "Copy") && MemcpyKind(name) != EventKind::kMemcpyOther) return MemcpyKind(name);
  return EventKind::kKernel;
}

EventKind ClassifyEvent(std::string_view cat, std::string_view name) {
  // No category: a runtime or driver call by its name (eBPF and LD_PRELOAD tracers), else an op.
  if (cat.empty()) return HostKind(name, IsAcceleratorApiName(name) ? EventKind::kRuntime : EventKind::kFrameworkOp);
  switch (cat[0]) {
    case 'k':
    case 'K':
      if (cat == "kernel" || cat == "Kernel")
        return IsCommunicationKernelName(name) ? EventKind::kCollective : EventKind::kKernel;
      break;
    case 'g':
      if (cat == "gpu_memcpy") return MemcpyKind(name);
      if (cat == "gpu_memset") return EventKind::kMemset;
      if (cat == "gpu_user_annotation") return EventKind::kDeviceAnnotation;
      if (cat == "gpu_instant_event") return EventKind::kOther;
      break;
    case 'M':
      if (cat == "Memcpy") return MemcpyKind(name);
      if (cat == "Memset") return EventKind::kMemset;
      break;
    case 'c':
      if (cat == "cpu_op") return HostKind(name, EventKind::kFrameworkOp);
      if (cat == "cuda_runtime" || cat == "cuda_driver") return EventKind::kRuntime;
      if (cat == "cuda_sync") return EventKind::kSync;
      if (cat == "cpu_instant_event") return EventKind::kMemoryEvent;
      break;
    case 'R':
      if (cat == "Runtime") return EventKind::kRuntime;
      break;
    case 'O':
      // "Operator": Kineto's old name for cpu_op.
      if (cat == "Operator") return HostKind(name, EventKind::kFrameworkOp);
      // "Op": TF1 timeline.Timeline's op executions, named by op type. The executor's bookkeeping
      // ops are overhead; _Send/_Recv are decided by the builder, which knows the trace's tasks.
      if (cat == "Op")
        return ClassifyTfOp(name) == TfOpRole::kBookkeeping ? EventKind::kFrameworkOverhead
                                                            : HostKind(name, EventKind::kFrameworkOp);
      break;
    case 'u':
      if (cat == "user_annotation") return HostKind(name, EventKind::kUserAnnotation);
      break;
    case 'p':
      if (cat == "python_function") return HostKind(name, EventKind::kPythonFunction);
      break;
    case 'T':
      if (cat == "Trace") return EventKind::kOther;
      break;
    default:
      break;
  }
  if (IsRuntimeCategory(cat)) return EventKind::kRuntime;
  return HostKind(name, EventKind::kOther);
}

EventKind EventKindMemo::Classify(std::string_view cat, StringId name_id, std::string_view name) {
  if (last_ >= cats_.size() || cats_[last_].cat != cat) {
    last_ = 0;
    while (last_ < cats_.size() && cats_[last_].cat != cat) ++last_;
    if (last_ == cats_.size()) cats_.push_back({std::string(cat), {}});
  }
  std::vector<int8_t>& kinds = cats_[last_].kind_by_name;
  if (name_id.v >= kinds.size()) kinds.resize(std::max<size_t>(name_id.v + 1, kinds.size() * 2), -1);
  int8_t& k = kinds[name_id.v];
  if (k < 0) k = static_cast<int8_t>(ClassifyEvent(cat, name));
  return static_cast<EventKind>(k);
}

bool IsHostCategory(std::string_view c) {
  return c == "cpu_op" || c == "python_function" || c == "user_annotation" || c == "Operator" || c == "Runtime" ||
         c == "cuda_sync" || c == "cpu_instant_event" || IsRuntimeCategory(c);
}

// The profiler's records about itself rather than the program: Kineto's "Trace" spans
// ("PyTorch Profiler (0)" over the whole window) and instants scoped to the process or the
// whole trace ("Iteration Start", "Record Window End"), which belong to no thread.
bool IsProfilerBookkeeping(const ParsedEvent& e) {
  // "Trace": the profiler's span; "overhead": Kineto's own cost (Activity Buffer Request,
  // Instrumentation, Resource), on its own pid -1 lane: the profiler's time, not the program's.
  if (e.cat == "Trace" || e.cat == "overhead") return true;
  bool instant = e.ph == 'i' || e.ph == 'I' || e.ph == 'R';
  return instant && (e.scope == "g" || e.scope == "p");
}

}  // namespace stepdoctor::chrome
