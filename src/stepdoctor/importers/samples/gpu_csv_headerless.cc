#include "stepdoctor/importers/samples/gpu_csv_headerless.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "stepdoctor/importers/samples/csv_fields.h"

namespace stepdoctor::gpucsv {
namespace {

using csv::kMiB;
using csv::Trim;

constexpr double kMaxTemperatureC = 120;      // a unitless whole number above this is no GPU temperature
constexpr double kMaxUtilPct = 100;           // a unitless utilisation never exceeds 100
constexpr double kMaxNoUnitsMemoryMiB = 200000;  // unitless memory used below this is MiB (the largest GPUs hold ~190000)
constexpr int kMaxCyclingIndex = 64;          // a cycling column with more values is no GPU index

enum class Cell { kAbsent, kTime, kUuid, kBusId, kName, kNumber, kText };

struct Parsed {
  Cell kind = Cell::kAbsent;
  std::string unit;  // for numbers: "", "%", "W", "MHz", "MiB" (any memory unit, value in bytes), or as written
  double value = 0;
};

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "00000000:07:00.0": hex digits, colons and a dot.
bool IsBusId(std::string_view s) {
  if (s.size() < 7 || s.find(':') == std::string_view::npos || s.find('.') == std::string_view::npos) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.')) return false;
  return true;
}

bool IsGpuName(std::string_view s) {
  for (std::string_view p : {"NVIDIA", "Tesla", "GeForce", "Quadro", "Orin"})
    if (StartsWith(s, p)) return true;
  return false;
}

Parsed ParseCell(std::string_view s) {
  s = Trim(s);
  if (s.empty() || s == "N/A" || s.front() == '[') return {};  // [N/A], [Not Supported]
  double v, scale;
  if (csv::ParseNumber(s, &v, &scale)) {
    if (scale > 0) return {Cell::kNumber, "MiB", v * scale};
    size_t u = s.find_first_not_of("0123456789.+-eE");
    std::string unit(u == std::string_view::npos ? "" : Trim(s.substr(u)));
    if (unit == "w") unit = "W";
    if (unit == "mhz") unit = "MHz";
    return {Cell::kNumber, unit, v};
  }
  int64_t ns;
  if (csv::ParseTimestamp(s, &ns) == TimeParse::kOk) return {Cell::kTime, "", 0};
  if (StartsWith(s, "GPU-") || StartsWith(s, "MIG-")) return {Cell::kUuid, "", 0};
  if (IsBusId(s)) return {Cell::kBusId, "", 0};
  if (IsGpuName(s)) return {Cell::kName, "", 0};
  return {Cell::kText, "", 0};
}

// What one column's values have in common over the probe rows.
struct Profile {
  Cell kind = Cell::kAbsent;  // the kind of every present cell; kText where they differ
  std::string unit;
  bool integers = true;
  double min = std::numeric_limits<double>::infinity(), max = -std::numeric_limits<double>::infinity();
  std::vector<double> v;  // per row; NaN where absent
};

std::vector<Profile> ProfileColumns(const std::vector<std::vector<std::string>>& rows, size_t ncols) {
  std::vector<Profile> p(ncols);
  for (const auto& row : rows) {
    if (row.size() < ncols) continue;
    for (size_t c = 0; c < ncols; ++c) {
      Parsed x = ParseCell(row[c]);
      p[c].v.push_back(x.kind == Cell::kNumber ? x.value : std::nan(""));
      if (x.kind == Cell::kAbsent) continue;
      if (p[c].kind == Cell::kAbsent) p[c].kind = x.kind, p[c].unit = x.unit;
      else if (p[c].kind != x.kind || p[c].unit != x.unit) p[c].kind = Cell::kText;
      if (x.kind != Cell::kNumber) continue;
      p[c].integers = p[c].integers && x.value == std::floor(x.value);
      p[c].min = std::min(p[c].min, x.value);
      p[c].max = std::max(p[c].max, x.value);
    }
  }
  return p;
}

bool Unitless(const Profile& p) { return p.kind == Cell::kNumber && p.unit.empty(); }

// Whole numbers 0..N-1 (N >= 2) stepping by one and wrapping: the GPUs of each poll in turn.
bool Cycles(const Profile& p) {
  if (!Unitless(p) || !p.integers || p.min != 0 || p.max < 1 || p.max >= kMaxCyclingIndex) return false;
  for (size_t r = 0; r + 1 < p.v.size(); ++r)
    if (std::isnan(p.v[r]) || std::isnan(p.v[r + 1]) || p.v[r + 1] != std::fmod(p.v[r] + 1, p.max + 1)) return false;
  return p.v.size() >= 2;
}

std::string MiBText(double bytes) { return fmt::format("{:g} MiB", bytes / kMiB); }

// Memory columns judged per GPU where an index column numbers them (GPUs of different models
// differ in memory), else over all rows.
class MemoryJudge {
 public:
  MemoryJudge(const std::vector<Profile>& p, int index) : p_(p) {
    for (size_t r = 0; r < (p.empty() ? 0 : p[0].v.size()); ++r) group_.push_back(index >= 0 ? int(p[size_t(index)].v[r]) : 0);
  }
  // Constant over each GPU's rows: *first holds the first GPU's value.
  bool Constant(size_t c, double* first = nullptr) const { return ConstantOf([&](size_t r) { return p_[c].v[r]; }, first); }
  bool SumConstant(size_t a, size_t b, double* first) const {
    return ConstantOf([&](size_t r) { return p_[a].v[r] + p_[b].v[r]; }, first);
  }
  // On every row at or above each of the other memory columns.
  bool AtLeast(size_t c, const std::vector<size_t>& others) const {
    for (size_t r = 0; r < group_.size(); ++r)
      for (size_t o : others)
        if (o != c && p_[c].v[r] < p_[o].v[r]) return false;  // false for NaN too: absent cells do not count against
    return true;
  }
  bool PerGpu() const {
    for (int g : group_)
      if (g != group_[0]) return true;
    return false;
  }

 private:
  template <typename F>
  bool ConstantOf(F value, double* first) const {
    std::map<int, double> seen;
    bool any = false;
    for (size_t r = 0; r < group_.size(); ++r) {
      double v = value(r);
      if (std::isnan(v)) continue;
      auto [it, fresh] = seen.emplace(group_[r], v);
      if (!fresh && std::fabs(it->second - v) > 0.5) return false;
      if (!any && first) *first = v;
      any = true;
    }
    return any;
  }
  const std::vector<Profile>& p_;
  std::vector<int> group_;
};

}  // namespace

bool LooksLikeHeaderlessRow(const std::vector<std::string>& fields) {
  if (fields.size() < 2) return false;
  bool number = false;
  for (const std::string& f : fields) {
    Parsed x = ParseCell(f);
    if (x.kind == Cell::kText) return false;
    number = number || x.kind == Cell::kNumber;
  }
  return number;
}

HeaderlessColumns InferHeaderlessColumns(const std::vector<std::vector<std::string>>& rows) {
  const size_t n = rows[0].size();
  std::vector<Profile> p = ProfileColumns(rows, n);
  HeaderlessColumns out;
  out.col.resize(n);
  out.name.resize(n);
  std::vector<std::string> why(n);  // the note's text for each column; "" to leave it out
  auto take = [&](size_t c, std::string name, std::string reason) {
    out.name[c] = name;
    std::string spelled = name;
    if (name == "memory.used" || name == "memory.free" || name == "memory.total") spelled += " [MiB]";
    out.col[c] = ClassifyHeader(spelled);
    why[c] = fmt::format("{} {}{}", c + 1, name, reason.empty() ? "" : " (" + reason + ")");
  };

  int time = -1, index = -1;
  bool units = false;
  for (size_t c = 0; c < n; ++c) {
    if (p[c].kind == Cell::kTime && time < 0) time = int(c), take(c, "timestamp", "");
    else if (index < 0 && Cycles(p[c]))
      index = int(c), take(c, "index", fmt::format("whole numbers cycling 0..{}", p[c].max));
    units = units || (p[c].kind == Cell::kNumber && !p[c].unit.empty());
  }
  bool keys[3] = {};
  for (size_t c = 0; c < n; ++c) {
    Cell k = p[c].kind;
    int slot = k == Cell::kUuid ? 0 : k == Cell::kBusId ? 1 : k == Cell::kName ? 2 : -1;
    if (slot < 0 || keys[slot]) continue;
    keys[slot] = true;
    take(c, slot == 0 ? "uuid" : slot == 1 ? "pci.bus_id" : "name", "");
  }

  if (!units) {
    // nounits: only the narrow shape nvidia-smi's usual order makes readable.
    std::vector<size_t> bare;
    for (size_t c = 0; c < n; ++c)
      if (Unitless(p[c]) && int(c) != index) bare.push_back(c);
    if (time < 0) {
      out.error = "no column reads as a time and none states a unit";
      return out;
    }
    if (bare.size() != 2) {
      out.error = fmt::format("{} unitless number column(s) besides time and index; without units only "
                              "time, [index], utilization.gpu, memory.used can be read",
                              bare.size());
      return out;
    }
    const Profile &u = p[bare[0]], &m = p[bare[1]];
    if (int(bare[0]) < time || int(bare[0]) < index || u.min < 0 || u.max > kMaxUtilPct || !m.integers || m.min < 0 ||
        m.max <= kMaxUtilPct || m.max >= kMaxNoUnitsMemoryMiB) {
      out.error = "without units, the columns after the time do not read as a utilisation (0..100) then memory "
                  "used in MiB (reaching above 100)";
      return out;
    }
    take(bare[0], "utilization.gpu", "values 0..100 right after the time, nvidia-smi's usual order; no unit");
    take(bare[1], "memory.used", fmt::format("values up to {:g}, above any percentage: MiB", m.max));
  } else {
    int pct = 0, watts = 0, mhz = 0;
    bool temperature = false;
    std::vector<size_t> memory;
    for (size_t c = 0; c < n; ++c) {
      if (!out.name[c].empty() || p[c].kind != Cell::kNumber) continue;
      const std::string& unit = p[c].unit;
      if (unit == "%" && pct < 2) {
        take(c, pct == 0 ? "utilization.gpu" : "utilization.memory", pct == 0 ? "first %" : "second %");
        ++pct;
      } else if (unit == "W" && watts < 2) {
        take(c, watts == 0 ? "power.draw" : "power.limit", watts == 0 ? "first W" : "second W");
        ++watts;
      } else if (unit == "MHz" && mhz++ == 0)
        take(c, "clocks.sm", "first MHz");
      else if (unit == "MiB") memory.push_back(c);
      else if (unit.empty() && !temperature && pct > 0 && p[c].integers && p[c].min >= 0 && p[c].max <= kMaxTemperatureC)
        temperature = true, take(c, "temperature.gpu", "unitless whole numbers 0..120 after a % utilisation");
    }
    // Memory: used and free where two vary with a constant sum, a total where one is constant
    // at or above the rest, and used for the one left.
    MemoryJudge judge(p, index);
    const std::string per_gpu = judge.PerGpu() ? " for each GPU" : "";
    int used = -1, free = -1, total = -1;
    for (size_t i = 0; i < memory.size() && used < 0; ++i)
      for (size_t j = i + 1; j < memory.size() && used < 0; ++j) {
        double sum;
        if (judge.SumConstant(memory[i], memory[j], &sum) && !(judge.Constant(memory[i]) && judge.Constant(memory[j]))) {
          used = int(memory[i]), free = int(memory[j]);
          take(memory[i], "memory.used", "");
          take(memory[j], "memory.free", "");
          why[memory[i]] = fmt::format("{} memory.used and {} memory.free (their sum is constant{} at {}; the first "
                                       "taken as used, nvidia-smi's order)",
                                       memory[i] + 1, memory[j] + 1, per_gpu, MiBText(sum));
          why[memory[j]].clear();
        }
      }
    for (size_t c : memory) {
      double v;
      if (int(c) == used || int(c) == free || total >= 0 || !judge.Constant(c, &v) || !judge.AtLeast(c, memory)) continue;
      total = int(c);
      bool all_constant = true;
      for (size_t o : memory) all_constant = all_constant && judge.Constant(o);
      take(c, "memory.total",
           fmt::format("constant{} at {}, at least every other memory column{}", per_gpu, MiBText(v),
                       all_constant && memory.size() > 1 ? "; every memory column is constant, so it may be memory.free" : ""));
    }
    for (size_t c : memory)
      if (used < 0 && int(c) != total && int(c) != free)
        used = int(c), take(c, "memory.used", memory.size() == 1 ? "the only memory column" : "the memory column left");
  }

  bool metric = false;
  for (const ColumnMeaning& m : out.col) metric = metric || m.kind == ColumnKind::kMetric;
  if (!metric) {
    out.error = "no column reads as a GPU metric";
    return out;
  }
  std::string list;
  for (size_t c = 0; c < n; ++c) {
    if (why[c].empty() && out.name[c].empty()) why[c] = fmt::format("{} unread", c + 1);
    if (why[c].empty()) continue;
    list += (list.empty() ? "" : ", ") + why[c];
  }
  out.note = "no header row: columns read as " + list;
  return out;
}

}  // namespace stepdoctor::gpucsv
