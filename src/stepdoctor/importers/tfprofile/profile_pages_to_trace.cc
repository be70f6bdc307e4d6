#include "stepdoctor/importers/tfprofile/profile_pages_to_trace.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

namespace stepdoctor {
namespace {

constexpr size_t kMaxPageBytes = size_t{256} << 20;  // pages are KB to a few MB; past this, not a page

// Field numbers (tensorflow.profiler protos).
constexpr uint32_t kOverviewInputAnalysis = 2;      // OverviewPage.input_analysis
constexpr uint32_t kOverviewRecommendation = 4;     // OverviewPage.recommendation
constexpr uint32_t kRecBottleneck = 1;              // OverviewPageRecommendation.bottleneck
constexpr uint32_t kRecStatement = 2;               // OverviewPageRecommendation.statement
constexpr uint32_t kIpaStepTimeSummary = 2;         // InputPipelineAnalysisResult.step_time_summary
constexpr uint32_t kIpaInputPercentSummary = 3;     // .input_percent_summary (TF <= 2.3)
constexpr uint32_t kIpaStepDetails = 4;             // .step_details (repeated Any)
constexpr uint32_t kIpaRecommendation = 7;          // .recommendation
constexpr uint32_t kIpaStepTimeBreakdown = 8;       // .step_time_breakdown (Any)
constexpr uint32_t kIpaInputPercent = 11;           // .input_percent (TF >= 2.4)
constexpr uint32_t kSummaryAverage = 1;             // StepSummary.average
constexpr uint32_t kIparBottleneckAnalysis = 2;     // InputPipelineAnalysisRecommendation.bottleneck_analysis (Any)
constexpr uint32_t kAnyValue = 2;                   // google.protobuf.Any.value
constexpr uint32_t kStatsWithIdle = 4;              // TfStatsDatabase.with_idle
constexpr uint32_t kStatsWithoutIdle = 5;           // .without_idle
constexpr uint32_t kStatsDeviceType = 6;            // .device_type
constexpr uint32_t kTableRecord = 1;                // TfStatsTable.tf_stats_record
constexpr uint32_t kRecHostOrDevice = 2;            // TfStatsRecord.host_or_device
constexpr uint32_t kRecOpType = 3;                  // .op_type
constexpr uint32_t kRecOccurrences = 5;             // .occurrences
constexpr uint32_t kRecTotalSelfUs = 8;             // .total_self_time_in_us
constexpr uint32_t kRecIsEager = 18;                // .is_eager
constexpr size_t kOpTypesKept = 8;                  // per side

// GenericStepTimeBreakdown: field number -> TensorFlow's name for the category, in the order the
// overview page shows them. input_ms_summary (11) is wait + host-to-device and is left out.
struct BreakdownField {
  uint32_t field;
  const char* name;
};
constexpr BreakdownField kBreakdownFields[] = {
    {9, "input: host wait"},   {10, "input: host to device"}, {4, "device compute"},
    {12, "device collectives"}, {5, "device to device"},       {7, "kernel launch"},
    {6, "host compute"},        {8, "compilation"},            {3, "output"},
    {1, "all others"},
};

// BottleneckAnalysis: classification -> statement pairs worth repeating when not "no".
struct StatementField {
  uint32_t classification, statement;
};
constexpr StatementField kOtherStatements[] = {{3, 4}, {5, 6}, {11, 12}};  // kernel launch, all other, collectives
constexpr uint32_t kBaInputClassification = 1, kBaInputStatement = 2;

// One protobuf message, field by field.
class Wire {
 public:
  explicit Wire(std::string_view b) : b_(b) {}
  bool ok() const { return ok_; }
  // Next field: its number, wire type, and (for length-delimited) its bytes or (for 64-bit) raw value.
  bool Next(uint32_t* field, uint32_t* type, std::string_view* bytes, uint64_t* value) {
    if (p_ >= b_.size() || !ok_) return false;
    uint64_t tag = 0;
    if (!Varint(&tag)) return Fail();
    *field = uint32_t(tag >> 3);
    *type = uint32_t(tag & 7);
    switch (*type) {
      case 0: return Varint(value) || Fail();
      case 1:
        if (b_.size() - p_ < 8) return Fail();
        std::memcpy(value, b_.data() + p_, 8);
        p_ += 8;
        return true;
      case 2: {
        uint64_t n = 0;
        if (!Varint(&n) || n > b_.size() - p_) return Fail();
        *bytes = b_.substr(p_, size_t(n));
        p_ += size_t(n);
        return true;
      }
      case 5:
        if (b_.size() - p_ < 4) return Fail();
        p_ += 4;
        return true;
      default: return Fail();
    }
  }

 private:
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && p_ < b_.size(); shift += 7) {
      uint8_t c = uint8_t(b_[p_++]);
      *v |= uint64_t(c & 0x7f) << shift;
      if (c < 0x80) return true;
    }
    return false;
  }
  bool Fail() {
    ok_ = false;
    return false;
  }
  std::string_view b_;
  size_t p_ = 0;
  bool ok_ = true;
};

double AsDouble(uint64_t raw) {
  double d;
  std::memcpy(&d, &raw, sizeof d);
  return d;
}

// Each field's bytes or value, for a message read once; `on` returns false to stop.
template <typename Fn>
bool ForEachField(std::string_view msg, Fn on) {
  Wire w(msg);
  uint32_t f = 0, t = 0;
  std::string_view bytes;
  uint64_t v = 0;
  while (w.Next(&f, &t, &bytes, &v)) on(f, t, bytes, v);
  return w.ok();
}

double Average(std::string_view summary, bool* ok) {
  double avg = 0;
  *ok &= ForEachField(summary, [&](uint32_t f, uint32_t t, std::string_view, uint64_t v) {
    if (f == kSummaryAverage && t == 1) avg = AsDouble(v);
  });
  return avg;
}

std::string_view AnyValue(std::string_view any, bool* ok) {
  std::string_view value;
  *ok &= ForEachField(any, [&](uint32_t f, uint32_t t, std::string_view b, uint64_t) {
    if (f == kAnyValue && t == 2) value = b;
  });
  return value;
}

void ReadBottleneckAnalysis(std::string_view ba, TfProfilerVerdict& v, bool* ok) {
  std::string fields[13];
  *ok &= ForEachField(ba, [&](uint32_t f, uint32_t t, std::string_view b, uint64_t) {
    if (t == 2 && f < 13) fields[f] = std::string(b);
  });
  if (v.bottleneck.empty()) v.bottleneck = fields[kBaInputClassification];
  if (v.statement.empty()) v.statement = StripProfilerMarkup(fields[kBaInputStatement]);
  for (const auto& s : kOtherStatements)
    if (!fields[s.classification].empty() && fields[s.classification] != "no" && !fields[s.statement].empty())
      v.other_statements.push_back(StripProfilerMarkup(fields[s.statement]));
}

void ReadInputAnalysis(std::string_view ipa, TfProfilerVerdict& v, bool* ok) {
  double input_pct = -1, input_pct_summary = -1;
  *ok &= ForEachField(ipa, [&](uint32_t f, uint32_t t, std::string_view b, uint64_t raw) {
    if (f == kIpaStepTimeSummary && t == 2) v.step_ms = Average(b, ok);
    else if (f == kIpaInputPercentSummary && t == 2) input_pct_summary = Average(b, ok);
    else if (f == kIpaInputPercent && t == 1) input_pct = AsDouble(raw);
    else if (f == kIpaStepDetails && t == 2) ++v.steps;
    else if (f == kIpaRecommendation && t == 2)
      ForEachField(b, [&](uint32_t rf, uint32_t rt, std::string_view rb, uint64_t) {
        if (rf == kIparBottleneckAnalysis && rt == 2) ReadBottleneckAnalysis(AnyValue(rb, ok), v, ok);
      });
    else if (f == kIpaStepTimeBreakdown && t == 2) {
      std::string_view bd = AnyValue(b, ok);
      double avg[16] = {};
      bool seen[16] = {};
      *ok &= ForEachField(bd, [&](uint32_t bf, uint32_t bt, std::string_view bb, uint64_t) {
        if (bt == 2 && bf < 16) {
          avg[bf] = Average(bb, ok);
          seen[bf] = true;
        }
      });
      for (const auto& c : kBreakdownFields)
        if (seen[c.field]) v.breakdown_ms.emplace_back(c.name, avg[c.field]);
    }
  });
  // TF 2.4 added input_percent; older pages only have the per-step summary's average.
  v.input_pct = input_pct >= 0 ? input_pct : input_pct_summary;
}

struct StatsRecord {
  bool device = false, eager = false, idle = false;
  std::string_view type;
  int64_t occurrences = 0;
  double self_us = 0;
};

// The records of one TfStatsTable; records whose self time is not a finite, non-negative number
// are left out (none such in TensorFlow's output).
std::vector<StatsRecord> ReadStatsTable(std::string_view table, bool* ok) {
  std::vector<StatsRecord> out;
  *ok &= ForEachField(table, [&](uint32_t f, uint32_t t, std::string_view b, uint64_t) {
    if (f != kTableRecord || t != 2) return;
    StatsRecord r;
    *ok &= ForEachField(b, [&](uint32_t rf, uint32_t rt, std::string_view rb, uint64_t v) {
      if (rf == kRecHostOrDevice && rt == 2) r.device = rb == "Device";
      else if (rf == kRecOpType && rt == 2) r.type = rb;
      else if (rf == kRecOccurrences && rt == 0) r.occurrences = int64_t(std::min<uint64_t>(v, INT64_MAX));
      else if (rf == kRecTotalSelfUs && rt == 1) r.self_us = AsDouble(v);
      else if (rf == kRecIsEager && rt == 0) r.eager = v != 0;
    });
    if (!std::isfinite(r.self_us) || r.self_us < 0) return;
    r.idle = r.type == "IDLE";
    out.push_back(r);
  });
  return out;
}

void ReadTfStats(std::string_view db, TfProfilerVerdict& v, bool* ok) {
  std::string_view with_idle, without_idle;
  *ok &= ForEachField(db, [&](uint32_t f, uint32_t t, std::string_view b, uint64_t) {
    if (f == kStatsWithIdle && t == 2) with_idle = b;
    else if (f == kStatsWithoutIdle && t == 2) without_idle = b;
    else if (f == kStatsDeviceType && t == 2) v.device = std::string(b);
  });
  v.op_stats = true;
  const std::vector<StatsRecord> all = ReadStatsTable(with_idle, ok);
  double device_us = 0, device_idle_us = 0;
  for (const auto& r : all)
    if (r.device) {
      device_us += r.self_us;
      if (r.idle) device_idle_us += r.self_us;
    }
  if (device_us > 0) v.device_idle_pct = 100.0 * device_idle_us / device_us;
  // Busy time by op type: the table without idle where written, else the other less its idle rows.
  std::vector<StatsRecord> busy = without_idle.empty() ? all : ReadStatsTable(without_idle, ok);
  std::map<std::pair<bool, std::string_view>, TfOpTypeStat> by_type;
  double side_us[2] = {0, 0}, eager_us[2] = {0, 0};
  for (const auto& r : busy) {
    if (r.idle) continue;
    TfOpTypeStat& s = by_type[{r.device, r.type}];
    s.device = r.device;
    s.type = std::string(r.type);
    s.occurrences += r.occurrences;
    s.self_ms += r.self_us / 1000.0;
    side_us[r.device] += r.self_us;
    if (r.eager) eager_us[r.device] += r.self_us;
  }
  for (int side = 0; side < 2; ++side) {
    std::vector<TfOpTypeStat> rows;
    for (auto& [key, s] : by_type)
      if (s.device == bool(side)) {
        s.pct = side_us[side] > 0 ? 100.0 * s.self_ms * 1000.0 / side_us[side] : 0;
        rows.push_back(s);
      }
    std::sort(rows.begin(), rows.end(), [](const TfOpTypeStat& a, const TfOpTypeStat& b) {
      return a.self_ms != b.self_ms ? a.self_ms > b.self_ms : a.type < b.type;
    });
    if (rows.size() > kOpTypesKept) rows.resize(kOpTypesKept);
    // Device rows first: they are what the accelerator spent its time on.
    v.op_types.insert(side == 1 ? v.op_types.begin() : v.op_types.end(), rows.begin(), rows.end());
    (side == 1 ? v.eager_device_pct : v.eager_host_pct) = side_us[side] > 0 ? 100.0 * eager_us[side] / side_us[side] : 0;
  }
}

}  // namespace

std::string ProfilerPageHost(const std::string& name, std::initializer_list<std::string_view> markers) {
  size_t slash = name.find_last_of('/');
  std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
  for (std::string_view m : markers)
    if (size_t at = base.find(m); at != std::string::npos) return base.substr(0, at);
  return base;
}

std::string StripProfilerMarkup(std::string_view s) {
  std::string out;
  bool tag = false;
  for (char c : s) {
    if (c == '<') tag = true;
    else if (c == '>') tag = false;
    else if (!tag) out += c;
  }
  return out;
}

TfProfilerPageKind TfProfilerPageKindOf(std::string_view path) {
  auto ends = [&](std::string_view s) { return path.size() >= s.size() && path.substr(path.size() - s.size()) == s; };
  if (ends(".overview_page.pb")) return TfProfilerPageKind::kOverviewPage;
  if (ends(".input_pipeline.pb")) return TfProfilerPageKind::kInputPipeline;
  if (ends(".tensorflow_stats.pb")) return TfProfilerPageKind::kTfStats;
  return TfProfilerPageKind::kNone;
}

Result<TfProfilerVerdict> ParseTfProfilerPage(std::string_view bytes, TfProfilerPageKind kind, const std::string& name) {
  TfProfilerVerdict v;
  v.source = name;
  bool ok = true;
  if (kind == TfProfilerPageKind::kOverviewPage) {
    v.overview = true;
    v.host = ProfilerPageHost(name, {".overview_page."});
    std::string_view input, rec;
    ok = ForEachField(bytes, [&](uint32_t f, uint32_t t, std::string_view b, uint64_t) {
      if (f == kOverviewInputAnalysis && t == 2) input = b;
      else if (f == kOverviewRecommendation && t == 2) rec = b;
    });
    if (ok)
      ok = ForEachField(rec, [&](uint32_t f, uint32_t t, std::string_view b, uint64_t) {
        if (f == kRecBottleneck && t == 2) v.bottleneck = std::string(b);
        else if (f == kRecStatement && t == 2) v.statement = StripProfilerMarkup(b);
      });
    if (ok) ReadInputAnalysis(input, v, &ok);
  } else if (kind == TfProfilerPageKind::kInputPipeline) {
    v.host = ProfilerPageHost(name, {".input_pipeline."});
    ReadInputAnalysis(bytes, v, &ok);
  } else if (kind == TfProfilerPageKind::kTfStats) {
    v.host = ProfilerPageHost(name, {".tensorflow_stats."});
    ReadTfStats(bytes, v, &ok);
  } else {
    return Result<TfProfilerVerdict>(ErrorCode::kUnknownFormat, name + ": not a TensorFlow profiler page");
  }
  if (!ok)
    return Result<TfProfilerVerdict>(ErrorCode::kCorruptInput, name + ": not a readable TensorFlow profiler page (bad protobuf)");
  return v;
}

Status ImportTfProfilerPage(PeekableSource& src, Trace& trace) {
  auto bytes = ReadAll(src, kMaxPageBytes);
  if (!bytes.ok()) return bytes.status();
  auto v = ParseTfProfilerPage(*bytes, TfProfilerPageKindOf(src.name()), src.name());
  if (!v.ok()) return v.status();
  trace.sources.push_back(src.name());
  if (trace.format.empty()) trace.format = "tensorflow profiler pages";
  trace.tf_verdicts.push_back(std::move(*v));
  if (trace.framework == Framework::kUnknown) trace.framework = Framework::kTensorFlow;
  return Status::Ok();
}

}  // namespace stepdoctor
