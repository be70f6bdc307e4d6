// The reference decoder for PlaneConverter (xplane_to_trace.h): libprotobuf's parsed XPlane.
#pragma once

#include <string_view>

#include "stepdoctor/importers/xplane/xplane_stat_view.h"
#include "stepdoctor/proto/xplane.pb.h"

namespace stepdoctor::xplane {

struct PbDecoder {
  using Plane = XPlane;
  using Line = XLine;
  using Event = XEvent;
  using MetaRef = const XEventMetadata*;

  static StatView View(const XStat& st) {
    StatView v;
    v.metadata_id = st.metadata_id();
    switch (st.value_case()) {
      case XStat::kDoubleValue: v.value_case = StatCase::kDouble; v.d = st.double_value(); break;
      case XStat::kUint64Value: v.value_case = StatCase::kUint64; v.u = st.uint64_value(); break;
      case XStat::kInt64Value: v.value_case = StatCase::kInt64; v.i = st.int64_value(); break;
      case XStat::kStrValue: v.value_case = StatCase::kStr; v.s = st.str_value(); break;
      case XStat::kBytesValue: v.value_case = StatCase::kBytes; v.s = st.bytes_value(); break;
      case XStat::kRefValue: v.value_case = StatCase::kRef; v.u = st.ref_value(); break;
      case XStat::VALUE_NOT_SET: break;
    }
    return v;
  }

  static std::string_view PlaneName(const Plane& p) { return p.name(); }
  template <typename F>
  static void ForEachStatMetadata(const Plane& p, F&& f) {
    for (const auto& [id, sm] : p.stat_metadata()) f(id, std::string_view(sm.name()));
  }
  template <typename F>
  static void ForEachPlaneStat(const Plane& p, F&& f) {
    for (const XStat& st : p.stats()) f(View(st));
  }
  static size_t EventMetadataCount(const Plane& p) { return p.event_metadata_size(); }
  template <typename F>
  static void ForEachEventMetadata(const Plane& p, F&& f) {
    for (const auto& [id, em] : p.event_metadata()) f(id, &em);
  }
  static std::string_view MetaName(MetaRef m) { return m->name(); }
  static std::string_view MetaDisplayName(MetaRef m) { return m->display_name(); }
  template <typename F>
  static void ForEachMetaStat(MetaRef m, F&& f) {
    for (const XStat& st : m->stats()) f(View(st));
  }
  template <typename F>
  static void ForEachLine(const Plane& p, F&& f) {
    for (const XLine& l : p.lines()) f(l);
  }
  static size_t LineEventCount(const Line& l) { return l.events_size(); }
  static std::string_view LineName(const Line& l) { return l.name(); }
  static std::string_view LineDisplayName(const Line& l) { return l.display_name(); }
  static int64_t LineId(const Line& l) { return l.id(); }
  static int64_t LineTimestampNs(const Line& l) { return l.timestamp_ns(); }
  template <typename F>
  static void ForEachEvent(const Line& l, F&& f) {
    for (const XEvent& e : l.events()) f(e);
  }
  static bool IsAggregated(const Event& e) { return e.data_case() == XEvent::kNumOccurrences; }
  static int64_t DurationPs(const Event& e) { return e.duration_ps(); }
  static int64_t OffsetPs(const Event& e) { return e.offset_ps(); }
  static int64_t MetadataId(const Event& e) { return e.metadata_id(); }
  template <typename F>
  static void ForEachEventStat(const Event& e, F&& f) {
    for (const XStat& st : e.stats()) f(View(st));
  }
};

}  // namespace stepdoctor::xplane
