#include "stepdoctor/model/event_kind.h"

namespace stepdoctor {

std::string_view EventKindName(EventKind k) {
  switch (k) {
    case EventKind::kOther: return "other";
    case EventKind::kFrameworkOp: return "framework_op";
    case EventKind::kKernel: return "kernel";
    case EventKind::kCollective: return "collective";
    case EventKind::kMemcpyH2D: return "memcpy_h2d";
    case EventKind::kMemcpyD2H: return "memcpy_d2h";
    case EventKind::kMemcpyD2D: return "memcpy_d2d";
    case EventKind::kMemcpyOther: return "memcpy";
    case EventKind::kMemset: return "memset";
    case EventKind::kRuntime: return "runtime";
    case EventKind::kInputWait: return "input_wait";
    case EventKind::kStepMarker: return "step";
    case EventKind::kPythonFunction: return "python_function";
    case EventKind::kUserAnnotation: return "user_annotation";
    case EventKind::kDeviceAnnotation: return "device_annotation";
    case EventKind::kMemoryEvent: return "memory";
    case EventKind::kSync: return "sync";
    case EventKind::kCollectiveWait: return "collective_wait";
    case EventKind::kCount_: break;
  }
  return "?";
}

}  // namespace stepdoctor
