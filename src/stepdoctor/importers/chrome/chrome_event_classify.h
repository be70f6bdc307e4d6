// Maps Chrome-trace categories and names (Kineto's new and old spellings, ROCm's hip names,
// TensorFlow, Horovod, SageMaker) onto EventKind, once, at import.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/core/string_pool.h"
#include "stepdoctor/model/event_kind.h"

namespace stepdoctor::chrome {

// Kind from an event's category and name. `cat` may be empty (TensorFlow, Horovod, smdebug).
EventKind ClassifyEvent(std::string_view cat, std::string_view name);

// ClassifyEvent remembered per (category, interned name): a trace repeats a few thousand names
// millions of times, and matching a name against the kernel tables (ClassifyDeviceWork) cost a
// third of a Kineto import before this. Same answers as ClassifyEvent, by construction.
class EventKindMemo {
 public:
  EventKind Classify(std::string_view cat, StringId name_id, std::string_view name);

 private:
  struct PerCategory {
    std::string cat;
    std::vector<int8_t> kind_by_name;  // -1: not classified yet
  };
  std::vector<PerCategory> cats_;  // a trace has a few dozen categories at most
  size_t last_ = 0;                // the slot the previous event used
};

// Kind of an event on a device line of a TensorFlow trace (no categories there).
EventKind ClassifyDeviceLineEvent(std::string_view name);

// Categories only a host thread records: operators, Python, host annotations, and the runtime or
// driver calls of any accelerator (cuda_runtime, mtia_runtime, xpu_runtime, hpu_driver, ...).
bool IsHostCategory(std::string_view cat);

// True for names that mean "the training loop waits for the next batch".
bool IsInputWaitName(std::string_view name);
// True for communication kernels (NCCL/RCCL/HCCL) by name.
bool IsCommunicationKernelName(std::string_view name);

struct ParsedEvent;  // chrome_event.h
// The profiler's records about itself rather than the program's (Kineto's "Trace" span, its
// "overhead" events, process- or trace-scoped instants).
bool IsProfilerBookkeeping(const ParsedEvent& e);

}  // namespace stepdoctor::chrome
