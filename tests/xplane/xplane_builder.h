// Builds XSpace profiles in memory for tests: planes, lines, events and stats by name, then
// the serialized bytes an `.xplane.pb` would hold. Metadata ids are assigned as TF's own
// XPlaneBuilder does (one per distinct name, per plane).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "stepdoctor/proto/xplane.pb.h"

namespace stepdoctor::testing {

// A stat value: int64, uint64, double, string, or a reference to a stat-metadata name.
struct RefValue {
  std::string name;
};
using StatValue = std::variant<int64_t, uint64_t, double, std::string, RefValue>;

class XPlaneBuilder {
 public:
  explicit XPlaneBuilder(xplane::XPlane* plane) : plane_(plane) {}

  int64_t StatId(const std::string& name) {
    auto it = stat_ids_.find(name);
    if (it != stat_ids_.end()) return it->second;
    int64_t id = static_cast<int64_t>(stat_ids_.size()) + 1;
    stat_ids_[name] = id;
    auto& m = (*plane_->mutable_stat_metadata())[id];
    m.set_id(id);
    m.set_name(name);
    return id;
  }
  int64_t EventId(const std::string& name) {
    auto it = event_ids_.find(name);
    if (it != event_ids_.end()) return it->second;
    int64_t id = static_cast<int64_t>(event_ids_.size()) + 1;
    event_ids_[name] = id;
    auto& m = (*plane_->mutable_event_metadata())[id];
    m.set_id(id);
    m.set_name(name);
    return id;
  }
  void SetStat(xplane::XStat* st, const std::string& name, const StatValue& v) {
    st->set_metadata_id(StatId(name));
    if (auto* i = std::get_if<int64_t>(&v)) st->set_int64_value(*i);
    else if (auto* u = std::get_if<uint64_t>(&v)) st->set_uint64_value(*u);
    else if (auto* d = std::get_if<double>(&v)) st->set_double_value(*d);
    else if (auto* s = std::get_if<std::string>(&v)) st->set_str_value(*s);
    else st->set_ref_value(static_cast<uint64_t>(StatId(std::get<RefValue>(v).name)));
  }
  // A plane-level stat (core_count, memory_size, ...).
  XPlaneBuilder& Stat(const std::string& name, const StatValue& v) {
    SetStat(plane_->add_stats(), name, v);
    return *this;
  }
  // A stat on an event metadata (shared by every event of that name).
  XPlaneBuilder& MetadataStat(const std::string& event_name, const std::string& name, const StatValue& v) {
    SetStat((*plane_->mutable_event_metadata())[EventId(event_name)].add_stats(), name, v);
    return *this;
  }

  class Line {
   public:
    Line(XPlaneBuilder* p, xplane::XLine* l) : p_(p), l_(l) {}
    // An event from start/duration in nanoseconds from the line's timestamp.
    xplane::XEvent* Event(const std::string& name, int64_t start_ns, int64_t dur_ns,
                          std::initializer_list<std::pair<std::string, StatValue>> stats = {}) {
      xplane::XEvent* e = l_->add_events();
      e->set_metadata_id(p_->EventId(name));
      e->set_offset_ps(start_ns * 1000);
      e->set_duration_ps(dur_ns * 1000);
      for (const auto& [k, v] : stats) p_->SetStat(e->add_stats(), k, v);
      return e;
    }
    xplane::XLine* proto() { return l_; }

   private:
    XPlaneBuilder* p_;
    xplane::XLine* l_;
  };

  Line AddLine(int64_t id, const std::string& name, int64_t timestamp_ns = 0) {
    xplane::XLine* l = plane_->add_lines();
    l->set_id(id);
    l->set_name(name);
    l->set_timestamp_ns(timestamp_ns);
    return Line(this, l);
  }
  xplane::XPlane* proto() { return plane_; }

 private:
  xplane::XPlane* plane_;
  std::map<std::string, int64_t> stat_ids_, event_ids_;
};

class XSpaceBuilder {
 public:
  XPlaneBuilder& AddPlane(const std::string& name) {
    xplane::XPlane* p = space_.add_planes();
    p->set_id(space_.planes_size() - 1);
    p->set_name(name);
    planes_.emplace_back(std::make_unique<XPlaneBuilder>(p));
    return *planes_.back();
  }
  XSpaceBuilder& Hostname(const std::string& h) {
    space_.add_hostnames(h);
    return *this;
  }
  std::string Serialize() const { return space_.SerializeAsString(); }
  xplane::XSpace& proto() { return space_; }

 private:
  xplane::XSpace space_;
  std::vector<std::unique_ptr<XPlaneBuilder>> planes_;
};

}  // namespace stepdoctor::testing
