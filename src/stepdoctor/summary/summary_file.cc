#include "stepdoctor/summary/summary_file.h"

#include <fmt/format.h>
#include <libdeflate.h>
#include <simdjson.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/render/json_read.h"
#include "stepdoctor/render/json_writer.h"
#include "stepdoctor/render/render.h"

namespace stepdoctor {
namespace {

namespace dom = simdjson::dom;

// The largest summary read: far past any real one (a summary is about 1% of its trace).
constexpr size_t kMaxSummaryBytes = size_t(1) << 30;

void WriteFigures(JsonWriter& j, const WorkerStepFigures& f) {
  j.BeginObject();
  j.Key("name").String(f.name);
  j.Key("rank").Int(f.rank);
  j.Key("steps").Int(f.steps);
  j.Key("median_step_ms").Exact(f.median_step_ms);
  j.Key("compute_ms").Exact(f.compute_ms);
  j.Key("collectives_ms").Exact(f.collectives_ms);
  j.Key("host_ms").Exact(f.host_ms);
  j.Key("input_ms").Exact(f.input_ms);
  j.Key("step_numbers").BeginArray();
  for (int64_t n : f.step_numbers) j.Int(n);
  j.EndArray();
  j.Key("step_ms").BeginArray();
  for (double ms : f.step_ms) j.Exact(ms);
  j.EndArray();
  j.EndObject();
}

void WriteRecords(JsonWriter& j, const std::vector<RankCollectives::Record>& records) {
  j.BeginArray();
  for (const auto& r : records) j.Int(r.step).Int(r.name).Int(r.start_ns).Int(r.end_ns);
  j.EndArray();
}

// What the trace records of each device call, beside its record (optional, within version 1):
// five values a record: process group (index into `groups`, -1 none), sequence number (-1 none),
// kind name, group size (0 none), message bytes (0 none).
bool AnyCallInfo(const std::vector<RankCollectives::Record>& records) {
  return std::any_of(records.begin(), records.end(),
                     [](const auto& r) { return r.group >= 0 || r.seq >= 0 || r.group_size > 0 || r.bytes > 0; });
}

void WriteCallInfo(JsonWriter& j, const std::vector<RankCollectives::Record>& records) {
  j.BeginArray();
  for (const auto& r : records)
    j.Int(r.group).Int(r.seq).String(CollectiveKindName(r.kind)).Int(r.group_size).Exact(r.bytes);
  j.EndArray();
}

void WritePairs(JsonWriter& j, const std::vector<std::pair<double, double>>& pairs) {
  j.BeginArray();
  for (const auto& [a, b] : pairs) j.Exact(a).Exact(b);
  j.EndArray();
}

// Typed access with the key path in errors: the first problem found is kept.
class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}
  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  void Fail(const std::string& path, const char* what) {
    if (error_.empty()) error_ = fmt::format("{}: not a stepdoctor summary: {}: {}", source_, path, what);
  }
  dom::element Field(dom::object o, const char* key, const std::string& path) {
    dom::element e;
    if (o[key].get(e)) Fail(path + key, "missing");
    return e;
  }
  dom::object Object(dom::object o, const char* key, const std::string& path) {
    dom::object out;
    if (!failed() && Field(o, key, path).get(out)) Fail(path + key, "expected an object");
    return out;
  }
  dom::array Array(dom::object o, const char* key, const std::string& path) {
    dom::array out;
    if (!failed() && Field(o, key, path).get(out)) Fail(path + key, "expected an array");
    return out;
  }
  std::string String(dom::object o, const char* key, const std::string& path) {
    std::string_view v;
    if (!failed() && Field(o, key, path).get(v)) Fail(path + key, "expected a string");
    return std::string(v);
  }
  int64_t Int(dom::object o, const char* key, const std::string& path) {
    int64_t v = 0;
    if (!failed() && Field(o, key, path).get(v)) Fail(path + key, "expected an integer");
    return v;
  }
  double Number(dom::object o, const char* key, const std::string& path) {
    double v = 0;
    if (!failed() && Field(o, key, path).get(v)) Fail(path + key, "expected a number");
    return v;
  }
  bool Bool(dom::object o, const char* key, const std::string& path) {
    bool v = false;
    if (!failed() && Field(o, key, path).get(v)) Fail(path + key, "expected true or false");
    return v;
  }
  std::vector<int64_t> Ints(dom::array a, const std::string& path) {
    std::vector<int64_t> out;
    for (dom::element e : a) {
      int64_t v;
      if (e.get(v)) {
        Fail(path, "expected integers");
        break;
      }
      out.push_back(v);
    }
    return out;
  }
  std::vector<double> Numbers(dom::array a, const std::string& path) {
    std::vector<double> out;
    for (dom::element e : a) {
      double v;
      if (e.get(v)) {
        Fail(path, "expected numbers");
        break;
      }
      out.push_back(v);
    }
    return out;
  }
  std::vector<std::pair<double, double>> Pairs(dom::array a, const std::string& path) {
    std::vector<double> v = Numbers(a, path);
    if (v.size() % 2) Fail(path, "expected pairs of numbers");
    std::vector<std::pair<double, double>> out;
    for (size_t i = 0; i + 1 < v.size(); i += 2) out.push_back({v[i], v[i + 1]});
    return out;
  }

 private:
  std::string source_;
  std::string error_;
};

std::vector<RankCollectives::Record> ReadRecords(Reader& rd, dom::array a, size_t names, const std::string& path) {
  std::vector<int64_t> v = rd.Ints(a, path);
  if (v.size() % 4) rd.Fail(path, "expected groups of four integers (step, name, start, end)");
  std::vector<RankCollectives::Record> out;
  for (size_t i = 0; i + 3 < v.size(); i += 4) {
    if (v[i + 1] < 0 || size_t(v[i + 1]) >= names || v[i + 3] < v[i + 2]) {
      rd.Fail(path, "a record names no collective, or ends before it starts");
      break;
    }
    out.push_back({v[i], uint32_t(v[i + 1]), v[i + 2], v[i + 3]});
  }
  return out;
}

// The kinds of records read from a summary without call info: from their names.
void KindsFromNames(RankCollectives* k) {
  for (auto* records : {&k->device, &k->host})
    for (auto& r : *records) r.kind = ClassifyCollective(k->names[r.name]);
}

void ReadCallInfo(Reader& rd, dom::array a, RankCollectives* k, const std::string& path) {
  std::vector<dom::element> v;
  for (dom::element e : a) v.push_back(e);
  if (v.size() != 5 * k->device.size()) {
    rd.Fail(path, "expected five values (group, seq, kind, group size, bytes) for each device record");
    return;
  }
  for (size_t i = 0; i < k->device.size(); ++i) {
    auto& r = k->device[i];
    int64_t group = 0, seq = 0, size = 0;
    std::string_view kind;
    double bytes = 0;
    if (v[5 * i].get(group) || v[5 * i + 1].get(seq) || v[5 * i + 2].get(kind) || v[5 * i + 3].get(size) ||
        v[5 * i + 4].get(bytes) || group < -1 || group >= int64_t(k->groups.size()) || size < 0 || size > INT32_MAX ||
        !(bytes >= 0)) {
      rd.Fail(path, "a record's call info is not (group, seq, kind, group size, bytes)");
      return;
    }
    auto named = CollectiveKindFromName(kind);
    if (!named) {
      rd.Fail(path, "unknown collective kind");
      return;
    }
    r.group = int32_t(group);
    r.seq = seq;
    r.kind = *named;
    r.group_size = int32_t(size);
    r.bytes = bytes;
  }
}

}  // namespace

std::string SummaryToJson(const RankSummary& s) {
  JsonWriter j(0);
  j.BeginObject();
  j.Key("stepdoctor_summary").Int(kSummaryVersion);
  j.Key("tool_version").String(s.tool_version);
  j.Key("worker").BeginObject();
  j.Key("hostname").String(s.hostname);
  j.Key("rank").Int(s.rank);
  j.Key("world_size").Int(s.world_size);
  j.Key("source_path").String(s.source_path);
  j.Key("communicates").Bool(s.communicates);
  j.Key("events").Int(int64_t(s.events));
  j.EndObject();
  j.Key("steps");
  if (s.has_steps) j.BeginArray().Int(s.steps_start_ns).Int(s.steps_end_ns).EndArray();
  else j.Null();
  j.Key("figures");
  WriteFigures(j, s.figures);
  const RankCollectives& c = s.collectives;
  j.Key("collectives").BeginObject();
  j.Key("device_total").Int(c.device_total);
  j.Key("host_total").Int(c.host_total);
  j.Key("names").StringArray(c.names);
  j.Key("device");
  WriteRecords(j, c.device);
  j.Key("host");
  WriteRecords(j, c.host);
  if (AnyCallInfo(c.device)) {
    j.Key("groups").StringArray(c.groups);
    j.Key("device_calls");
    WriteCallInfo(j, c.device);
  }
  j.EndObject();
  RenderOptions exact;
  exact.exact_numbers = true;
  j.Key("report").Raw(RenderJson(s.report, exact));
  j.Key("extras").BeginObject();
  j.Key("window_ms").Exact(s.report.window_ms);
  j.Key("breakdown_detail_ms").BeginArray();
  for (const auto& d : s.report.breakdown_detail) j.Exact(d.ms_per_step);
  j.EndArray();
  j.Key("lanes").BeginArray();
  for (const auto& l : s.report.lanes) {
    j.BeginObject().Key("label").String(l.label).Key("busy_ms");
    WritePairs(j, l.busy_ms);
    j.EndObject();
  }
  j.EndArray();
  j.Key("series").BeginArray();
  for (const auto& t : s.report.series) {
    j.BeginObject().Key("name").String(t.name).Key("unit").String(t.unit).Key("points");
    WritePairs(j, t.points);
    j.EndObject();
  }
  j.EndArray();
  j.EndObject();
  j.EndObject();
  return j.Take();
}

Result<RankSummary> SummaryFromJson(std::string_view json, const std::string& source) {
  using R = Result<RankSummary>;
  dom::parser parser;
  simdjson::padded_string padded(json);
  dom::element doc;
  if (auto err = parser.parse(padded).get(doc))
    return R(ErrorCode::kCorruptInput, fmt::format("{}: not a stepdoctor summary: {}", source, simdjson::error_message(err)));
  dom::object top;
  int64_t version = 0;
  if (doc.get(top) || top["stepdoctor_summary"].get(version))
    return R(ErrorCode::kUnknownFormat, source + ": not a stepdoctor summary (no stepdoctor_summary version)");
  if (version != kSummaryVersion)
    return R(ErrorCode::kCorruptInput, fmt::format("{}: summary version {}, this build reads {}: summarise the trace "
                                                   "again with this build",
                                                   source, version, kSummaryVersion));
  Reader rd(source);
  RankSummary s;
  s.tool_version = rd.String(top, "tool_version", "");
  dom::object w = rd.Object(top, "worker", "");
  if (!rd.failed()) {
    s.hostname = rd.String(w, "hostname", "worker.");
    s.rank = int(rd.Int(w, "rank", "worker."));
    s.world_size = int(rd.Int(w, "world_size", "worker."));
    s.source_path = rd.String(w, "source_path", "worker.");
    s.communicates = rd.Bool(w, "communicates", "worker.");
    s.events = uint64_t(std::max<int64_t>(0, rd.Int(w, "events", "worker.")));
  }
  if (!rd.failed()) {
    dom::element steps = rd.Field(top, "steps", "");
    dom::array span;
    if (!rd.failed() && !steps.is_null()) {
      if (steps.get(span)) rd.Fail("steps", "expected null or [start_ns, end_ns]");
      std::vector<int64_t> v = rd.Ints(span, "steps");
      if (!rd.failed() && (v.size() != 2 || v[1] < v[0])) rd.Fail("steps", "expected [start_ns, end_ns]");
      if (!rd.failed()) {
        s.has_steps = true;
        s.steps_start_ns = v[0];
        s.steps_end_ns = v[1];
      }
    }
  }
  dom::object f = rd.Object(top, "figures", "");
  if (!rd.failed()) {
    s.figures.name = rd.String(f, "name", "figures.");
    s.figures.rank = int(rd.Int(f, "rank", "figures."));
    s.figures.steps = int(rd.Int(f, "steps", "figures."));
    s.figures.median_step_ms = rd.Number(f, "median_step_ms", "figures.");
    s.figures.compute_ms = rd.Number(f, "compute_ms", "figures.");
    s.figures.collectives_ms = rd.Number(f, "collectives_ms", "figures.");
    s.figures.host_ms = rd.Number(f, "host_ms", "figures.");
    s.figures.input_ms = rd.Number(f, "input_ms", "figures.");
    s.figures.step_numbers = rd.Ints(rd.Array(f, "step_numbers", "figures."), "figures.step_numbers");
    s.figures.step_ms = rd.Numbers(rd.Array(f, "step_ms", "figures."), "figures.step_ms");
    if (!rd.failed() && s.figures.step_numbers.size() != s.figures.step_ms.size())
      rd.Fail("figures.step_ms", "not one time per step number");
  }
  dom::object c = rd.Object(top, "collectives", "");
  if (!rd.failed()) {
    RankCollectives& k = s.collectives;
    k.device_total = rd.Int(c, "device_total", "collectives.");
    k.host_total = rd.Int(c, "host_total", "collectives.");
    for (dom::element e : rd.Array(c, "names", "collectives.")) {
      std::string_view n;
      if (e.get(n)) {
        rd.Fail("collectives.names", "expected strings");
        break;
      }
      k.names.emplace_back(n);
    }
    if (!rd.failed()) k.device = ReadRecords(rd, rd.Array(c, "device", "collectives."), k.names.size(), "collectives.device");
    if (!rd.failed()) k.host = ReadRecords(rd, rd.Array(c, "host", "collectives."), k.names.size(), "collectives.host");
    if (!rd.failed()) KindsFromNames(&k);
    // Within version 1, later: the process groups and each device record's call info.
    dom::element groups;
    if (!rd.failed() && !c["groups"].get(groups)) {
      dom::array names;
      if (groups.get(names)) rd.Fail("collectives.groups", "expected an array");
      for (dom::element e : names) {
        std::string_view n;
        if (e.get(n)) {
          rd.Fail("collectives.groups", "expected strings");
          break;
        }
        k.groups.emplace_back(n);
      }
    }
    dom::element calls;
    if (!rd.failed() && !c["device_calls"].get(calls)) {
      dom::array a;
      if (calls.get(a)) rd.Fail("collectives.device_calls", "expected an array");
      else ReadCallInfo(rd, a, &k, "collectives.device_calls");
    }
  }
  dom::object report = rd.Object(top, "report", "");
  if (!rd.failed()) {
    auto r = ReportFromJson(simdjson::minify(report));
    if (!r.ok()) return R(r.status().code(), source + ": report: " + r.status().message());
    s.report = std::move(*r);
  }
  dom::object x = rd.Object(top, "extras", "");
  if (!rd.failed()) {
    s.report.window_ms = rd.Number(x, "window_ms", "extras.");
    std::vector<double> detail = rd.Numbers(rd.Array(x, "breakdown_detail_ms", "extras."), "extras.breakdown_detail_ms");
    if (!rd.failed() && detail.size() != s.report.breakdown_detail.size())
      rd.Fail("extras.breakdown_detail_ms", "not one figure per report.breakdown_detail entry");
    for (size_t i = 0; i < detail.size() && i < s.report.breakdown_detail.size(); ++i)
      s.report.breakdown_detail[i].ms_per_step = detail[i];
    for (dom::element e : rd.Array(x, "lanes", "extras.")) {
      dom::object lane;
      if (e.get(lane)) {
        rd.Fail("extras.lanes", "expected objects");
        break;
      }
      DeviceLane l;
      l.label = rd.String(lane, "label", "extras.lanes[].");
      l.busy_ms = rd.Pairs(rd.Array(lane, "busy_ms", "extras.lanes[]."), "extras.lanes[].busy_ms");
      s.report.lanes.push_back(std::move(l));
    }
    for (dom::element e : rd.Array(x, "series", "extras.")) {
      dom::object series;
      if (e.get(series)) {
        rd.Fail("extras.series", "expected objects");
        break;
      }
      TimeSeries t;
      t.name = rd.String(series, "name", "extras.series[].");
      t.unit = rd.String(series, "unit", "extras.series[].");
      t.points = rd.Pairs(rd.Array(series, "points", "extras.series[]."), "extras.series[].points");
      s.report.series.push_back(std::move(t));
    }
  }
  if (rd.failed()) return R(ErrorCode::kCorruptInput, rd.error());
  return s;
}

Status WriteSummaryFile(const RankSummary& s, const std::string& path) {
  const std::string json = SummaryToJson(s);
  std::unique_ptr<libdeflate_compressor, decltype(&libdeflate_free_compressor)> c(libdeflate_alloc_compressor(6),
                                                                                 &libdeflate_free_compressor);
  if (!c) return Status(ErrorCode::kInternal, path + ": cannot start gzip");
  std::string gz(libdeflate_gzip_compress_bound(c.get(), json.size()), '\0');
  const size_t n = libdeflate_gzip_compress(c.get(), json.data(), json.size(), gz.data(), gz.size());
  if (n == 0) return Status(ErrorCode::kInternal, path + ": gzip failed");
  gz.resize(n);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(gz.data(), std::streamsize(gz.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return Status(ErrorCode::kIoError, path + ": cannot write the summary");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return Status(ErrorCode::kIoError, path + ": " + ec.message());
  }
  return Status::Ok();
}

Result<RankSummary> ReadSummaryFile(const std::string& path) {
  auto src = OpenMaybeCompressed(path);
  if (!src.ok()) return Result<RankSummary>(src.status().code(), src.status().message());
  auto bytes = ReadAll(**src, kMaxSummaryBytes);
  if (!bytes.ok()) return Result<RankSummary>(bytes.status().code(), bytes.status().message());
  if ((*src)->truncated()) return Result<RankSummary>(ErrorCode::kCorruptInput, path + ": the summary is cut short");
  return SummaryFromJson(*bytes, path);
}

bool IsSummaryPath(std::string_view path) {
  return path.size() > kSummaryExtension.size() &&
         path.substr(path.size() - kSummaryExtension.size()) == kSummaryExtension;
}

}  // namespace stepdoctor
