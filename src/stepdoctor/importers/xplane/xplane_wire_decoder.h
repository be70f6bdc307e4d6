// The in-place decoder for PlaneConverter (xplane_to_trace.h): reads an XPlane's wire bytes
// where they lie, without building messages. Index() finds the plane's top-level fields once
// (the metadata maps follow the lines in the bytes TensorFlow writes, so they must be found
// before any event is read) and checks all but the lines in full; lines, events and stats are
// then decoded as the converter walks them, into values on the stack, and checked as they are
// walked, in one pass: the first malformed byte sets WirePlane::bad and ends the walk, and the
// caller undoes what the converter added (a plane libprotobuf refuses adds nothing). Every
// read is bounds-checked (xplane_wire.h).
#pragma once

#include <string_view>
#include <vector>

#include "stepdoctor/importers/xplane/xplane_stat_view.h"
#include "stepdoctor/importers/xplane/xplane_wire.h"

namespace stepdoctor::xplane {

struct WirePlane {
  std::string_view name;
  std::vector<std::string_view> stat_metadata;   // map entries (key 1, XStatMetadata 2)
  std::vector<std::string_view> event_metadata;  // map entries (key 1, XEventMetadata 2)
  std::vector<std::string_view> stats;           // XStat
  std::vector<std::string_view> lines;           // XLine
  mutable bool bad = false;                      // a line's bytes do not decode: see above

  // False where the plane's own fields, metadata or stats do not decode (the lines are
  // checked as they are read). Keeps the vectors' capacity across planes.
  bool Index(std::string_view plane_bytes);
};

struct WireLine {
  int64_t id = 0, timestamp_ns = 0;
  std::string_view name, display_name;
  size_t events = 0;
  std::string_view bytes;
  bool* bad = nullptr;      // the plane's
};

struct WireEvent {
  static constexpr size_t kInlineStats = 16;
  int64_t metadata_id = 0, offset_ps = 0, duration_ps = 0;
  bool aggregated = false;  // num_occurrences was the oneof member set last
  uint32_t n_stats = 0;     // stats found (all checked); the first kInlineStats decoded here
  StatView stats[kInlineStats];
  std::string_view bytes;
};

// What is left of libprotobuf's recursion limit inside each message of a plane.
inline constexpr int kLineDepth = wire::kRecursionLimit - 1, kEventDepth = kLineDepth - 1,
                     kEventStatDepth = kEventDepth - 1;

struct WireEventMeta {
  std::string_view entry;   // the map entry: values (field 2) parse as one merged message
};

struct WireDecoder {
  using Plane = WirePlane;
  using Line = WireLine;
  using Event = WireEvent;
  using MetaRef = WireEventMeta;

  // Each false where the bytes do not decode at `depth` (what is left of the recursion limit).
  static bool DecodeStat(std::string_view b, int depth, StatView* st);
  static bool DecodeLine(std::string_view b, WireLine* l);
  static bool DecodeEvent(std::string_view b, WireEvent* e);
  static StatView StatOf(std::string_view b) {  // REQUIRED: checked already (at its depth)
    StatView v;
    DecodeStat(b, wire::kRecursionLimit, &v);
    return v;
  }
  // Calls f(bytes) for each length-delimited field `field` of the message in `b`.
  template <typename F>
  static void ForEachLen(std::string_view b, uint32_t field, F&& f) {
    wire::Cursor c(b);
    const uint32_t want = field << 3 | wire::kLen;
    while (!c.done()) {
      uint32_t tag;
      if (!wire::NextTag(c, &tag)) return;
      if (tag == want) {
        std::string_view v;
        if (!wire::ReadBytes(c, &v)) return;
        f(v);
      } else if (!wire::SkipField(c, tag, wire::kRecursionLimit)) {
        return;
      }
    }
  }
  static int64_t EntryKey(std::string_view entry);
  // The last value of bytes field `field` over the entry's values (field 2), as a parse merges them.
  static std::string_view EntryValueBytes(std::string_view entry, uint32_t field);

  static std::string_view PlaneName(const Plane& p) { return p.name; }
  template <typename F>
  static void ForEachStatMetadata(const Plane& p, F&& f) {
    for (std::string_view e : p.stat_metadata) f(EntryKey(e), EntryValueBytes(e, 2));
  }
  template <typename F>
  static void ForEachPlaneStat(const Plane& p, F&& f) {
    for (std::string_view s : p.stats) f(StatOf(s));
  }
  static size_t EventMetadataCount(const Plane& p) { return p.event_metadata.size(); }
  template <typename F>
  static void ForEachEventMetadata(const Plane& p, F&& f) {
    for (std::string_view e : p.event_metadata) f(EntryKey(e), WireEventMeta{e});
  }
  static std::string_view MetaName(MetaRef m) { return EntryValueBytes(m.entry, 2); }
  static std::string_view MetaDisplayName(MetaRef m) { return EntryValueBytes(m.entry, 4); }
  template <typename F>
  static void ForEachMetaStat(MetaRef m, F&& f) {
    ForEachLen(m.entry, 2, [&](std::string_view value) {
      ForEachLen(value, 5, [&](std::string_view st) { f(StatOf(st)); });
    });
  }
  template <typename F>
  static void ForEachLine(const Plane& p, F&& f) {
    for (std::string_view l : p.lines) {
      if (p.bad) return;
      WireLine line;
      line.bad = &p.bad;
      if (!DecodeLine(l, &line)) p.bad = true;
      f(static_cast<const WireLine&>(line));
    }
  }
  static size_t LineEventCount(const Line& l) { return l.events; }
  static std::string_view LineName(const Line& l) { return l.name; }
  static std::string_view LineDisplayName(const Line& l) { return l.display_name; }
  static int64_t LineId(const Line& l) { return l.id; }
  static int64_t LineTimestampNs(const Line& l) { return l.timestamp_ns; }
  template <typename F>
  static void ForEachEvent(const Line& l, F&& f) {
    if (*l.bad) return;
    WireEvent ev;
    ForEachLen(l.bytes, 4, [&](std::string_view e) {
      if (*l.bad) return;
      if (!DecodeEvent(e, &ev)) {
        *l.bad = true;  // the converter's result is undone: nothing more to read
        return;
      }
      f(static_cast<const WireEvent&>(ev));
    });
  }
  static bool IsAggregated(const Event& e) { return e.aggregated; }
  static int64_t DurationPs(const Event& e) { return e.duration_ps; }
  static int64_t OffsetPs(const Event& e) { return e.offset_ps; }
  static int64_t MetadataId(const Event& e) { return e.metadata_id; }
  template <typename F>
  static void ForEachEventStat(const Event& e, F&& f) {
    if (e.n_stats <= WireEvent::kInlineStats) {
      for (uint32_t i = 0; i < e.n_stats; ++i) f(static_cast<const StatView&>(e.stats[i]));
    } else {
      ForEachLen(e.bytes, 4, [&](std::string_view st) { f(StatOf(st)); });
    }
  }
};

}  // namespace stepdoctor::xplane
