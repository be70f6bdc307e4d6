// A trace built event by event for step tests: one worker, its main host thread and one GPU
// stream; Run() finalizes it and returns its step signals (keeping the step windows).
#pragma once

#include <cstdint>

#include "stepdoctor/analysis/signals.h"
#include "stepdoctor/analysis/trace_to_step_signals.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::testing {

struct StepBuilder {
  Trace t;
  WorkerId w;
  TimelineId host, stream;
  StepBuilder() {
    w = t.AddWorker({});
    host = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kHostCpu, 0), TimelineKind::kHostThread, 1, "main");
    stream = t.AddTimeline(w, t.GetOrAddDevice(w, DeviceKind::kGpu, 0), TimelineKind::kDeviceStream, 7, "s7");
  }
  void Host(int64_t s, int64_t d, EventKind k, const char* name, int64_t corr = 0) {
    t.timeline(host).Add(s, d, t.strings.Intern(name), k, corr);
  }
  void Dev(int64_t s, int64_t d, int64_t corr = 0) {
    t.timeline(stream).Add(s, d, t.strings.Intern("k"), EventKind::kKernel, corr);
  }
  StepSignals Run(StepWindows* keep = nullptr) {
    t.Finalize();
    StepWindows w = TraceToSteps(t, this->w);
    if (keep) *keep = w;
    return TraceToStepSignals(t, this->w, w);
  }
};

}  // namespace stepdoctor::testing
