#include "stepdoctor/analysis/batch_scaling.h"

#include <algorithm>
#include <vector>

#include "stepdoctor/analysis/cpu_op_work.h"
#include "stepdoctor/analysis/trace_to_steps.h"

namespace stepdoctor {

bool PerParameterName(std::string_view n) {
  if (n.starts_with("Optimizer.step#") || n.starts_with("Optimizer.zero_grad#")) return true;
  if (n.find("AccumulateGrad") != std::string_view::npos) return true;
  if (n.find("ResourceApply") != std::string_view::npos) return true;
  // TensorFlow's ApplyAdam, ApplyGradientDescent, ...: "Apply" then a capital.
  return n.size() > 5 && n.starts_with("Apply") && n[5] >= 'A' && n[5] <= 'Z';
}

PerItemWork TraceToPerItemWork(const Trace& trace, WorkerId worker, bool cpu_only) {
  PerItemWork out;
  std::vector<int8_t> memo(trace.strings.size(), -1);  // by name: per parameter or not
  std::vector<Interval> per_param;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    for (uint32_t i = 0; i < t.ev.size(); ++i) {
      int8_t& m = memo[t.ev.name[i].v];
      if (m < 0) m = int8_t(PerParameterName(trace.str(t.ev.name[i])));
      if (m == 1) per_param.push_back({t.ev.start_ns[i], t.end_ns(i)});
    }
  }
  out.per_param = MakeIntervalSet(std::move(per_param));
  if (!cpu_only) return out;
  StepAnnotationNames is_step(trace);
  std::vector<Interval> scaled;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
    CpuOpPieces pieces = TimelineToCpuOpPieces(t, is_step, [](int64_t, int64_t) {});
    for (const auto* list : {&pieces.work, &pieces.dispatch})
      for (const Interval& p : *list)
        if (p.end - p.start > kCpuDispatchNs) scaled.push_back({p.start + kCpuDispatchNs, p.end});
  }
  out.cpu_scaled = Subtract(MakeIntervalSet(std::move(scaled)), out.per_param);
  return out;
}

}  // namespace stepdoctor
