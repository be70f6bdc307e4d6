#include "stepdoctor/importers/chrome/tf1_timeline_lanes.h"

#include "stepdoctor/importers/chrome/chrome_event_classify.h"
#include "stepdoctor/importers/chrome/chrome_process_names.h"

namespace stepdoctor::chrome {
namespace {

bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// "gpu:0 Compute" -> "GPU"; "cpu:12" -> "CPU"; anything else -> empty.
std::string_view LegacyDeviceType(std::string_view component) {
  if (component.size() < 5 || component[3] != ':' || component[4] < '0' || component[4] > '9') return {};
  std::string_view type = component.substr(0, 3);
  if (type == "gpu" || type == "GPU") return "GPU";
  if (type == "cpu" || type == "CPU") return "CPU";
  return {};
}

}  // namespace

std::string CanonicalTfDeviceName(std::string_view name) {
  if (name.empty() || name.front() != '/') return std::string(name);
  std::string out;
  out.reserve(name.size() + 8);
  while (!name.empty()) {  // name starts at a '/'
    size_t next = name.find('/', 1);
    std::string_view component = name.substr(1, next == std::string_view::npos ? std::string_view::npos : next - 1);
    out += '/';
    if (std::string_view type = LegacyDeviceType(component); !type.empty()) {
      out += "device:";
      out += type;
      component.remove_prefix(3);  // keeps ":N ..." after the type
    }
    out += component;
    name = next == std::string_view::npos ? std::string_view() : name.substr(next);
  }
  return out;
}

Tf1Lane ClassifyTf1Lane(std::string_view n) {
  constexpr std::string_view kCompute = " Compute";
  if (!EndsWith(n, kCompute)) return Tf1Lane::kNone;
  n.remove_suffix(kCompute.size());
  size_t dev = n.find("/device:");
  if (dev == std::string_view::npos) return Tf1Lane::kNone;
  std::string_view device = n.substr(dev + 8);  // "GPU:0", "GPU:0/stream:all", "CPU:0"
  size_t slash = device.find('/');
  std::string_view sub = slash == std::string_view::npos ? std::string_view() : device.substr(slash + 1);
  bool cpu = device.substr(0, 4) == "CPU:";
  if (sub.empty()) {
    // Only the job-qualified names are op-level lanes; a bare "/device:GPU:0" is TF2's plane.
    if (dev == 0) return Tf1Lane::kNone;
    return cpu ? Tf1Lane::kHostOps : Tf1Lane::kOpLevel;
  }
  if (cpu) return Tf1Lane::kNone;
  if (sub == "stream:all") return Tf1Lane::kAllStreams;
  if (sub == "memcpy") return Tf1Lane::kMemcpy;
  if (sub.substr(0, 7) == "stream:" && AllDigits(sub.substr(7))) return Tf1Lane::kStream;
  return Tf1Lane::kNone;
}

std::string_view Tf1LaneTask(std::string_view n) {
  if (n.substr(0, 5) != "/job:") return {};
  size_t dev = n.find("/device:");
  return dev == std::string_view::npos ? std::string_view() : n.substr(0, dev);
}

void Tf1GpuLanes::Count(Tf1Lane lane, EventKind kind) {
  const bool copy = IsMemcpy(kind) || kind == EventKind::kMemset;
  const bool compute = !copy && IsDeviceActivity(kind);
  if (lane == Tf1Lane::kStream) {
    stream_compute += compute;
    stream_copies += copy;
  } else if (lane == Tf1Lane::kAllStreams) {
    all_compute += compute;
    all_copies += copy;
  }
}

bool Tf1OpLevelIsHost(Tf1Lane lane, const Tf1GpuLanes&) { return lane == Tf1Lane::kOpLevel; }

bool Tf1LaneIsDeviceStream(Tf1Lane lane, const Tf1GpuLanes& gpu) {
  const bool streams = gpu.UseStreams();
  switch (lane) {
    case Tf1Lane::kStream: return streams;
    case Tf1Lane::kAllStreams: return !streams;
    case Tf1Lane::kMemcpy: return !streams && (!gpu.has_all_streams || gpu.all_copies == 0);
    default: return false;
  }
}

std::map<int, Tf1GpuLanes> Tf1GpuLanesOf(const Trace& trace,
                                         const std::vector<std::pair<TimelineId, std::string_view>>& lanes) {
  std::map<int, Tf1GpuLanes> out;
  for (const auto& [id, process] : lanes) {
    const Tf1Lane lane = ClassifyTf1Lane(process);
    const int gpu = TrailingDeviceNumber(process, "/device:GPU:");
    if (gpu < 0) continue;
    Tf1GpuLanes& g = out[gpu];
    if (lane == Tf1Lane::kStream) g.has_streams = true;
    if (lane == Tf1Lane::kAllStreams) g.has_all_streams = true;
    if (lane == Tf1Lane::kStream || lane == Tf1Lane::kAllStreams) {
      const Timeline& t = trace.timeline(id);
      for (size_t i = 0; i < t.ev.size(); ++i)
        if (t.ev.dur_ns[i] > 0) g.Count(lane, ClassifyDeviceLineEvent(trace.str(t.ev.name[i])));
    }
  }
  return out;
}

}  // namespace stepdoctor::chrome
