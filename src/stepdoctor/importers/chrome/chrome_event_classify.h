// Maps Chrome-trace categories and names (Kineto's new and old spellings, ROCm's hip names,
// TensorFlow, Horovod, SageMaker) onto EventKind, once, at import.
#pragma once

#include <string_view>

#include "stepdoctor/model/event_kind.h"

namespace stepdoctor::chrome {

// Kind from an event's category and name. `cat` may be empty (TensorFlow, Horovod, smdebug).
EventKind ClassifyEvent(std::string_view cat, std::string_view name);

// Kind of an event on a device line of a TensorFlow trace (no categories there).
EventKind ClassifyDeviceLineEvent(std::string_view name);

// Categories only a host thread records: operators, Python, host annotations, and the runtime or
// driver calls of any accelerator (cuda_runtime, mtia_runtime, xpu_runtime, hpu_driver, ...).
bool IsHostCategory(std::string_view cat);

// True for names that mean "the training loop waits for the next batch".
bool IsInputWaitName(std::string_view name);
// True for communication kernels (NCCL/RCCL/HCCL) by name.
bool IsCommunicationKernelName(std::string_view name);

}  // namespace stepdoctor::chrome
