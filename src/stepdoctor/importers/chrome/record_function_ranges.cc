#include "stepdoctor/importers/chrome/record_function_ranges.h"

#include <array>

namespace stepdoctor::chrome {
namespace {

bool EndsWithNode(std::string_view n, std::string_view suffix) {
  // "AddmmBackward", "AddmmBackward0", "CompiledFunctionBackward12": the suffix, then digits.
  size_t end = n.size();
  while (end > 0 && n[end - 1] >= '0' && n[end - 1] <= '9') --end;
  return end >= suffix.size() && n.substr(end - suffix.size(), suffix.size()) == suffix;
}

}  // namespace

bool IsRecordFunctionRangeName(std::string_view n) {
  if (n.empty() || n.find("::") != std::string_view::npos) return false;
  if (EndsWithNode(n, "Backward") || n == "CompiledFunction") return false;
  // Recorded by the autograd layer's hand-written kernels (VariableTypeManual) under bare names.
  static constexpr std::array<std::string_view, 14> kBareOps = {
      "detach",  "detach_", "set_data", "data",     "is_leaf",     "output_nr",  "_version",
      "requires_grad_", "retain_grad", "copy_", "resize_", "resize_as_", "_fw_primal", "_make_dual"};
  for (std::string_view op : kBareOps)
    if (n == op) return false;
  return true;
}

size_t MarkRecordFunctionRanges(Trace& trace, const std::vector<TimelineId>& timelines) {
  // Decided once per name: 1 a range, 0 not, -1 not yet seen.
  std::vector<int8_t> range(trace.strings.size(), -1);
  bool namespaced = false;
  for (TimelineId id : timelines) {
    const Timeline& t = trace.timeline(id);
    if (t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size() && !namespaced; ++i)
      if (t.ev.kind[i] == EventKind::kFrameworkOp && trace.str(t.ev.name[i]).rfind("aten::", 0) == 0) namespaced = true;
  }
  if (!namespaced) return 0;
  size_t changed = 0;
  for (TimelineId id : timelines) {
    Timeline& t = trace.timeline(id);
    if (t.kind != TimelineKind::kHostThread) continue;
    for (size_t i = 0; i < t.ev.size(); ++i) {
      if (t.ev.kind[i] != EventKind::kFrameworkOp) continue;
      const StringId name = t.ev.name[i];
      if (name.v >= range.size()) range.resize(name.v + 1, -1);
      int8_t& r = range[name.v];
      if (r < 0) r = IsRecordFunctionRangeName(trace.str(name)) ? 1 : 0;
      if (r == 1) {
        t.ev.kind[i] = EventKind::kUserAnnotation;
        ++changed;
      }
    }
  }
  return changed;
}

}  // namespace stepdoctor::chrome
