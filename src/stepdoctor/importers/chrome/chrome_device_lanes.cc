#include "stepdoctor/importers/chrome/chrome_device_lanes.h"

#include <cctype>

#include "stepdoctor/importers/chrome/chrome_event_classify.h"
#include "stepdoctor/model/device_work_classify.h"

namespace stepdoctor::chrome {
namespace {

// A thread name that describes a stream ("stream 7", "Stream 14 (compute)") keeps the lane open to
// being a device's; any other ("MainThread", "python") says it is a host thread.
bool ThreadNameAllowsDevice(std::string_view n) {
  if (n.empty()) return true;
  std::string_view prefix = "stream";
  if (n.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(n[i])) != prefix[i]) return false;
  return true;
}

}  // namespace

DeviceShapedCounts CountDeviceShapedSpans(const Trace& trace, const Timeline& t) {
  DeviceShapedCounts c;
  // Names repeat: each is judged once.
  std::vector<int8_t> shaped_by_name;
  for (size_t i = 0; i < t.ev.size(); ++i) {
    if (t.ev.dur_ns[i] <= 0) continue;
    ++c.spans;
    const StringId id = t.ev.name[i];
    if (id.v >= shaped_by_name.size()) shaped_by_name.resize(id.v + 1, -1);
    int8_t& s = shaped_by_name[id.v];
    if (s < 0) s = IsDeviceWorkShapedName(trace.str(id)) ? 1 : 0;
    if (!s) continue;
    ++c.shaped;
    if (t.ev.corr[i] != 0) ++c.correlated;
  }
  return c;
}

bool IsDeviceShapedLane(const DeviceShapedCounts& c) {
  return c.shaped >= kDeviceShapedLaneMinSpans && double(c.shaped) >= kDeviceShapedLaneMinShare * double(c.spans) &&
         double(c.correlated) >= kDeviceShapedLaneMinCorrelatedShare * double(c.shaped);
}

bool ClaimDeviceShapedLane(Trace& trace, Timeline& t, const LaneDescription& d) {
  if (d.any_category || !d.process_name.empty() || !d.process_label.empty() || !ThreadNameAllowsDevice(d.thread_name))
    return false;
  if (!IsDeviceShapedLane(CountDeviceShapedSpans(trace, t))) return false;
  for (size_t i = 0; i < t.ev.size(); ++i)
    if (t.ev.dur_ns[i] > 0) t.ev.kind[i] = ClassifyDeviceLineEvent(trace.str(t.ev.name[i]));
  return true;
}

}  // namespace stepdoctor::chrome
