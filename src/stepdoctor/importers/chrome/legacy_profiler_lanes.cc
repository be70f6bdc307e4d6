#include "stepdoctor/importers/chrome/legacy_profiler_lanes.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <numeric>
#include <vector>

namespace stepdoctor::chrome {

LegacyDeviceLane LegacyDeviceLaneOf(std::string_view process_name, int64_t tid) {
  LegacyDeviceLane out;
  constexpr std::string_view kSuffix = " functions";
  if (process_name.size() <= kSuffix.size()) return out;
  const std::string_view tail = process_name.substr(process_name.size() - kSuffix.size());
  for (size_t i = 0; i < kSuffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(tail[i])) != kSuffix[i]) return out;
  std::string word(process_name.substr(0, process_name.size() - kSuffix.size()));
  for (char& c : word) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (word.empty() || word == "CPU" || word.find(' ') != std::string::npos) return out;
  out.index = tid >= 0 && tid < 4096 ? int(tid) : 0;
  if (word == "CUDA" || word == "HIP" || word == "ROCM" || word == "GPU") {
    out.kind = DeviceKind::kGpu;
    return out;
  }
  // PyTorch's other device types, as the export upper-cases them; any other word is not a device.
  for (std::string_view d : {"XPU", "MTIA", "HPU", "MPS", "NPU", "PRIVATEUSEONE", "PRIVATEUSE1"})
    if (word == d) {
      out.kind = DeviceKind::kOther;
      out.name = word + " " + std::to_string(out.index);
    }
  return out;
}

namespace {

// Operators whose device time is a copy (tensor.to(device), .cuda(), .cpu(), copy_), direction
// not recorded; in PyTorch before 1.5 without the `aten::` prefix.
bool IsCopyOperator(std::string_view n) {
  if (n.substr(0, 6) == "aten::") n.remove_prefix(6);
  return n == "to" || n == "copy_" || n == "_to_copy" || n == "_copy_from" || n == "_copy_from_and_resize";
}

}  // namespace

void MarkLegacyDeviceSpans(const Trace& trace, Timeline& t) {
  auto name = [&](uint32_t i) { return trace.str(t.ev.name[i]); };
  std::vector<uint32_t> order(t.ev.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return t.ev.start_ns[a] != t.ev.start_ns[b] ? t.ev.start_ns[a] < t.ev.start_ns[b] : t.ev.dur_ns[a] > t.ev.dur_ns[b];
  });
  // Where the lane's operators are namespaced (aten::conv2d), a span whose name is not is a
  // record_function range (a user's "single_conv", "model_inference") timed on the device too:
  // an annotation around the operators, however long, never device work of its own.
  bool namespaced = false;
  for (size_t i = 0; i < t.ev.size() && !namespaced; ++i) namespaced = name(uint32_t(i)).find("::") != std::string_view::npos;
  int64_t held_until = INT64_MIN;
  for (uint32_t i : order) {
    if (t.ev.dur_ns[i] <= 0) continue;  // flow ends and instants stay what they are
    if (namespaced && name(i).find("::") == std::string_view::npos) {
      t.ev.kind[i] = EventKind::kDeviceAnnotation;
      continue;
    }
    const int64_t end = t.ev.start_ns[i] + t.ev.dur_ns[i];
    // Held whole by an earlier span: an operator inside another. One that runs past it is not.
    const bool held = t.ev.start_ns[i] < held_until && end <= held_until;
    t.ev.kind[i] = held ? EventKind::kDeviceAnnotation : IsCopyOperator(name(i)) ? EventKind::kMemcpyOther : EventKind::kKernel;
    held_until = std::max(held_until, end);
  }
}

}  // namespace stepdoctor::chrome
