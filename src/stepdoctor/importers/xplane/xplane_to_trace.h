// One XPlane -> the Trace: a device, a timeline per line, the stats analyses read kept as args.
// Written once over a decoder `S` so both decoders give the same Trace: xplane_pb_decoder.h
// (libprotobuf's parsed messages, the reference) and xplane_wire_decoder.h (the bytes read in
// place). S supplies static accessors: PlaneName, ForEachStatMetadata(f(id, name)),
// ForEachPlaneStat(f(StatView)), EventMetadataCount, ForEachEventMetadata(f(id, MetaRef)),
// MetaName, MetaDisplayName, ForEachMetaStat (of a MetaRef, a cheap handle kept per plane),
// ForEachLine, LineEventCount, LineName, LineDisplayName, LineId, LineTimestampNs,
// ForEachEvent, IsAggregated, DurationPs, OffsetPs, MetadataId, ForEachEventStat.
// A decoder that meets a bad byte midway (the wire decoder checks the lines as it walks them)
// ends its walks early; the caller then undoes what the plane added (xspace_to_trace.cc).
#pragma once

#include <array>
#include <charconv>
#include <string>
#include <unordered_map>
#include <vector>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/xplane/xplane_classify.h"
#include "stepdoctor/importers/xplane/xplane_id_map.h"
#include "stepdoctor/importers/xplane/xplane_stat_view.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::xplane {

inline constexpr size_t kLineClasses = 6;

// What we do with a stat, decided once per XStatMetadata.
enum class StatUse : uint8_t {
  kDrop,
  kKeep,         // kept as an arg under its TF name
  kCorrelation,  // becomes the event's corr
  kIteratorId,   // "id": kept on tf.data iterator events only (elsewhere it is noise)
};
StatUse UseOfStat(std::string_view stat_name);

// One XStatMetadata. Its name is interned only when a kept stat or a ref needs it: a plane
// declares hundreds that no event the model keeps carries.
struct StatInfo {
  std::string_view name;        // in the plane's bytes or message
  StringId key;                 // the interned name, once `interned`
  bool interned = false;
  StatUse use = StatUse::kDrop;
  bool memcpy_details = false;  // the stat is "memcpy_details" (a stream event is a copy)
  std::string_view last_str;    // the last string value interned under this stat, and its id:
  StringId last_str_id;         // allocator names, op names and categories repeat event after event
};

struct MetaInfo {
  StringId name;
  std::string_view text;       // the interned name (the pool keeps it alive)
  bool iterator = false;       // a tf.data "Iterator::..." stage
  std::array<EventKind, kLineClasses> kind{};
  std::vector<Arg> args;       // kept stats of the metadata (TPU ops carry hlo_category, tf_op here)
  bool has_tpu_kind = false;
  EventKind tpu_kind = EventKind::kKernel;
};

// What is kept across the planes of one XSpace.
struct XSpaceState {
  bool saw_jax = false, saw_tf = false;
  size_t aggregated = 0;                            // aggregated events (no start time), skipped
  std::unordered_map<uint32_t, size_t> counters;    // allocator name -> index in trace.counters
};

// The parts that do not depend on the decoder (xplane_to_trace.cc).
class PlaneConverterBase {
 protected:
  PlaneConverterBase(Trace& trace, WorkerId worker, XSpaceState& state)
      : trace_(trace), worker_(worker), state_(state) {}

  StatInfo* FindStat(int64_t id) { return stats_.Find(id); }
  StringId KeyOf(StatInfo& si) {
    if (!si.interned) {
      si.key = trace_.strings.Intern(si.name);
      si.interned = true;
    }
    return si.key;
  }
  void AddStatMetadata(int64_t id, std::string_view name);
  bool ToArg(const StatView& st, StatInfo& si, Arg* out);  // false for values not kept (bytes)
  static int64_t IntOf(const StatView& st);
  void ApplyPlaneStat(const StatView& st, Device& d, std::string* type_string);
  static void FinishDevice(Device& d, std::string_view plane_name, const std::string& type_string);
  void AddMetaStat(const StatView& st, MetaInfo* m);
  MetaInfo NewMeta(std::string_view name);
  MetaInfo MissingMeta(int64_t id);
  EventKind KindOf(MetaInfo& m, LineClass c);
  void NoteFramework(std::string_view line_name);
  static void AddStepNumber(std::string_view name, StringId key, std::vector<Arg>* args);
  void AddMemorySample(int64_t ts, const std::vector<Arg>& args, DeviceId host);

  Trace& trace_;
  WorkerId worker_;
  XSpaceState& state_;
  IdMap<StatInfo> stats_;
  IdMap<uint32_t> meta_index_;  // metadata id -> 1 + its index in the converter's slots
  std::vector<Arg> args_;       // one event's args, reused
};

template <typename S>
class PlaneConverter : public PlaneConverterBase {
 public:
  PlaneConverter(Trace& trace, WorkerId worker, XSpaceState& state) : PlaneConverterBase(trace, worker, state) {}

  void Convert(const typename S::Plane& plane) {
    const std::string_view plane_name = S::PlaneName(plane);
    PlaneClass pc = ClassifyPlane(plane_name);
    if (!pc.keep) return;
    stats_.Clear();
    S::ForEachStatMetadata(plane, [&](int64_t id, std::string_view name) { AddStatMetadata(id, name); });
    DeviceId dev = trace_.GetOrAddDevice(worker_, pc.kind, pc.index, plane_name);
    Device& d = trace_.devices[dev.v];
    std::string type_string;
    S::ForEachPlaneStat(plane, [&](const StatView& st) { ApplyPlaneStat(st, d, &type_string); });
    FinishDevice(d, plane_name, type_string);
    meta_index_.Clear();
    metas_.clear();
    metas_.reserve(S::EventMetadataCount(plane));
    // Only where the metadata are found: each is read when an event first names it, since a
    // plane declares thousands that no kept line uses.
    S::ForEachEventMetadata(plane, [&](int64_t id, typename S::MetaRef em) {
      uint32_t& at = meta_index_.Put(id);  // a later entry of the same id replaces it, as in a map
      if (at == 0) {
        metas_.push_back(MetaSlot{em, false, {}});
        at = static_cast<uint32_t>(metas_.size());
      } else {
        metas_[at - 1] = MetaSlot{em, false, {}};
      }
    });
    S::ForEachLine(plane, [&](const typename S::Line& line) { ConvertLine(line, pc.kind, dev); });
  }

 private:
  struct MetaSlot {
    typename S::MetaRef ref;
    bool built = false;
    MetaInfo info;
  };

  MetaInfo& Meta(int64_t id) {
    const uint32_t* at = meta_index_.Find(id);
    if (!at) {
      metas_.push_back(MetaSlot{{}, true, MissingMeta(id)});
      meta_index_.Put(id) = static_cast<uint32_t>(metas_.size());
      return metas_.back().info;
    }
    MetaSlot& slot = metas_[*at - 1];
    if (!slot.built) {
      std::string_view name = S::MetaName(slot.ref);
      slot.info = NewMeta(name.empty() ? S::MetaDisplayName(slot.ref) : name);
      S::ForEachMetaStat(slot.ref, [&](const StatView& st) { AddMetaStat(st, &slot.info); });
      slot.built = true;
    }
    return slot.info;
  }

  void ConvertLine(const typename S::Line& line, DeviceKind dk, DeviceId dev) {
    const size_t n_events = S::LineEventCount(line);
    if (n_events == 0) return;
    const std::string_view line_name = S::LineName(line);
    const std::string_view display = S::LineDisplayName(line);
    NoteFramework(line_name);
    LineClass lc = ClassifyLine(dk, line_name);
    TimelineId tid = trace_.AddTimeline(worker_, dev, TimelineKindOf(lc), S::LineId(line),
                                        std::string(display.empty() ? line_name : display));
    Timeline& tl = trace_.timeline(tid);
    tl.ev.Reserve(n_events);
    const int64_t base_ns = S::LineTimestampNs(line);
    const StringId step_num_key = trace_.strings.Intern("step_num");
    S::ForEachEvent(line, [&](const typename S::Event& ev) {
      if (S::IsAggregated(ev)) {
        ++state_.aggregated;  // aggregated events have no time: nothing to place on a timeline
        return;
      }
      const int64_t dur_ps = S::DurationPs(ev);
      if (dur_ps < 0) {
        trace_.diagnostics.Count(ImportIssue::kNegativeDuration);
        return;
      }
      // The line's timestamp plus the event's offset, and that plus its duration, must both be
      // times in range (core/checked_time.h); the proto's int64s alone can be anything.
      const int64_t dur_ns = dur_ps / 1000;
      const std::optional<int64_t> start = AddToTime(base_ns, S::OffsetPs(ev) / 1000);
      if (!start || !AddToTime(*start, dur_ns)) {
        trace_.diagnostics.Count(ImportIssue::kTimeOutOfRange);
        return;
      }
      MetaInfo& m = Meta(S::MetadataId(ev));
      EventKind kind = KindOf(m, lc);
      int64_t corr = 0;
      bool has_memcpy_details = false;
      args_.clear();
      S::ForEachEventStat(ev, [&](const StatView& st) {
        StatInfo* si = FindStat(st.metadata_id);
        if (!si) return;
        switch (si->use) {
          case StatUse::kDrop: return;
          case StatUse::kCorrelation: corr = IntOf(st); return;
          case StatUse::kIteratorId:
            if (!m.iterator) return;
            break;
          case StatUse::kKeep: break;
        }
        Arg a;
        if (ToArg(st, *si, &a)) args_.push_back(a);
        if (lc == LineClass::kStream && si->memcpy_details) has_memcpy_details = true;
      });
      for (const Arg& a : m.args) {
        bool dup = false;
        for (const Arg& b : args_) dup |= b.key == a.key;
        if (!dup) args_.push_back(a);
      }
      if (lc == LineClass::kHostThread && corr != 0) kind = HostKindWithCorrelation(kind);
      if (lc == LineClass::kStream && has_memcpy_details && !IsMemcpy(kind)) kind = MemcpyKindOf(m.text, line_name);
      if (lc == LineClass::kSteps) AddStepNumber(m.text, step_num_key, &args_);
      // A host range carrying step_num is a step annotation: TF's profiler.experimental.Trace(
      // 'train', step_num=N), Keras' train_function, JAX's StepTraceAnnotation.
      if (lc == LineClass::kHostThread)
        for (const Arg& a : args_)
          if (a.key == step_num_key) kind = EventKind::kStepMarker;
      uint32_t i = tl.Add(*start, dur_ns, m.name, kind, corr);
      for (const Arg& a : args_) tl.AddArg(i, a);
      if (kind == EventKind::kMemoryEvent) AddMemorySample(*start, args_, dev);
    });
  }

  std::vector<MetaSlot> metas_;
};

}  // namespace stepdoctor::xplane
