#include "stepdoctor/importers/memory_timeline/memory_timeline_to_trace.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/model/series_names.h"

namespace stepdoctor {
namespace {

namespace od = simdjson::ondemand;
using series::MemoryCategory;
using series::kMemoryCategoryCount;
using State = std::array<double, kMemoryCategoryCount>;

// A memory timeline is read whole (its entries are small; a long profile's raw file runs to tens
// of MB): past this it is refused rather than held.
constexpr size_t kMaxTimelineBytes = size_t{2} << 30;
// PyTorch's raw actions (its Action enum's values) and the coalesced rows' width (an unused
// first column, then one per category).
constexpr int64_t kPreexisting = 1, kDestroy = 4;
constexpr size_t kCoalescedRowWidth = 1 + kMemoryCategoryCount;
// A coalesced timeline's first time at or past this is in nanoseconds since the epoch (2001 on),
// else microseconds.
constexpr double kEpochNsFrom = 1e18;

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
  return i;
}

bool IsNumberStart(char c) { return c == '-' || (c >= '0' && c <= '9'); }

// After the first inner array of `[[...], X`: true where X opens an array of arrays (the
// coalesced form's rows), false where it opens an array of numbers or nothing follows.
bool SecondIsArrayOfArrays(std::string_view s) {
  size_t i = SkipSpace(s, 0);
  if (i >= s.size() || s[i] != '[') return false;
  i = SkipSpace(s, i + 1);
  if (i >= s.size() || s[i] != '[') return false;
  const size_t close = s.find(']', i + 1);
  if (close == std::string_view::npos) return false;
  i = SkipSpace(s, close + 1);
  if (i >= s.size() || s[i] != ',') return false;
  i = SkipSpace(s, i + 1);
  if (i >= s.size() || s[i] != '[') return false;
  i = SkipSpace(s, i + 1);
  return i < s.size() && s[i] == '[';
}

std::string StemOf(const std::string& path) {
  std::string s = path.substr(path.find_last_of('/') + 1);
  for (std::string_view ext : {".gz", ".json", ".raw"})
    if (s.size() > ext.size() && s.compare(s.size() - ext.size(), ext.size(), ext) == 0) s.resize(s.size() - ext.size());
  return s;
}

// A JSON number as a double and, where it is a whole number int64 holds, exactly (times in
// nanoseconds since the epoch lose their last digits as doubles).
struct Num {
  double d = 0;
  std::optional<int64_t> i;
};

// Reads an array of numbers into `out`; false where an element is not a number.
bool Numbers(od::array arr, std::vector<Num>* out) {
  out->clear();
  for (auto v : arr) {
    od::number n;
    if (v.get_number().get(n)) return false;
    Num x;
    if (n.is_int64()) {
      x.i = n.get_int64();
      x.d = double(*x.i);
    } else if (n.is_uint64()) {
      x.d = double(n.get_uint64());
    } else {
      x.d = n.get_double();
      x.i = ExactInt64(x.d);
    }
    out->push_back(x);
  }
  return true;
}

class TimelineBuilder {
 public:
  TimelineBuilder(Trace& trace, const std::string& name) : trace_(trace), name_(name) {}

  // One point: the state after everything at time `t_ns`.
  void Point(int64_t t_ns, const State& s) {
    if (!ts_.empty() && ts_.back() == t_ns) {
      values_.back() = s;
      return;
    }
    ts_.push_back(t_ns);
    values_.push_back(s);
  }
  size_t points() const { return ts_.size(); }

  void Finish(std::string_view form) {
    Worker w;
    w.hostname = StemOf(name_);
    w.source_path = name_;
    const WorkerId wid = trace_.AddWorker(std::move(w));
    for (int c = 0; c < kMemoryCategoryCount; ++c) {
      CounterSeries cs;
      cs.worker = wid;
      cs.name = series::MemoryTimelineSeriesName(MemoryCategory(c));
      cs.unit = std::string(series::SeriesUnit(cs.name));
      cs.ts_ns = ts_;
      cs.value.reserve(values_.size());
      for (const State& v : values_) cs.value.push_back(v[c]);
      trace_.counters.push_back(std::move(cs));
    }
    trace_.sources.push_back(name_);
    if (trace_.format.empty()) trace_.format = std::string("pytorch memory timeline (") + std::string(form) + ")";
    if (trace_.framework == Framework::kUnknown) trace_.framework = Framework::kPyTorch;
  }

 private:
  Trace& trace_;
  std::string name_;
  std::vector<int64_t> ts_;
  std::vector<State> values_;
};

// Notes where the structure broke: a file cut short (the input ended) or damaged (it did not).
void NoteBreak(simdjson::error_code e, const std::string& name, Trace& trace) {
  const bool cut = e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e == simdjson::TAPE_ERROR || e == simdjson::EMPTY;
  trace.diagnostics.Note(cut ? ImportIssue::kTruncatedInput : ImportIssue::kBrokenStructure,
                         name + ": " + simdjson::error_message(e) + "; the entries before it were read");
}

// [[t_ns, action, bytes, category], ...]. Pre-existing entries (t -1) come first; they are placed
// at the first real time, as PyTorch's own plot places them.
Status ReadRaw(od::array top, const std::string& name, Trace& trace, TimelineBuilder* out) {
  State state{};
  std::vector<Num> e;
  bool any_real = false, any_before = false;
  int64_t skipped = 0;
  for (auto item : top) {
    od::array arr;
    if (auto err = item.get_array().get(arr)) {
      if (err == simdjson::INCORRECT_TYPE) {
        ++skipped;
        continue;
      }
      NoteBreak(err, name, trace);
      break;
    }
    if (!Numbers(arr, &e) || e.size() != 4) {
      ++skipped;
      continue;
    }
    const std::optional<int64_t> t = e[0].i, action = e[1].i, bytes = e[2].i ? e[2].i : RoundToInt64(e[2].d),
                                 cat = e[3].i;
    if (!t || !action || !bytes || !cat || *action < kPreexisting || *action > kDestroy || *cat < 0 ||
        *cat >= kMemoryCategoryCount) {
      ++skipped;
      continue;
    }
    const bool before_start = *t < 0;  // pre-existing: held when profiling began
    if (!before_start && !TimeInRange(*t)) {
      trace.diagnostics.Count(ImportIssue::kTimeOutOfRange);
      continue;
    }
    state[size_t(*cat)] += double(*bytes);
    any_before |= before_start;
    if (before_start) continue;  // placed at the first real time, with what follows there
    any_real = true;
    out->Point(*t, state);
  }
  if (!any_real && any_before) out->Point(0, state);  // nothing happened after profiling began
  if (skipped)
    trace.diagnostics.Note(ImportIssue::kMalformedEvent,
                           fmt::format("{}: {} entries that are not [time, action 1-4, bytes, category 0-7] skipped",
                                       name, skipped));
  return Status::Ok();
}

// [[times], [[0, bytes by category], ...]]: one row per time.
Status ReadCoalesced(od::array top, const std::string& name, Trace& trace, TimelineBuilder* out) {
  auto it = top.begin();
  std::vector<Num> times;
  {
    od::array arr;
    if (it == top.end() || (*it).get_array().get(arr) || !Numbers(arr, &times))
      return Status(ErrorCode::kCorruptInput, name + ": a memory timeline whose first list is not its times");
  }
  ++it;
  Num first_time;
  for (const Num& t : times)
    if (t.d > 0) {
      first_time = t;
      break;
    }
  const double first = first_time.d;
  const double ns_per_unit = first >= kEpochNsFrom ? 1.0 : 1e3;
  if (first > 0 && first < kEpochNsFrom / 1e3)  // neither epoch microseconds nor nanoseconds: a clock of its own
    trace.diagnostics.Note(ImportIssue::kAssumedUnit, name + ": times read as microseconds (the unit is not stated)");
  od::array rows;
  if (it == top.end() || (*it).get_array().get(rows))
    return Status(ErrorCode::kCorruptInput, name + ": a memory timeline without its rows of sizes");
  size_t i = 0;
  int64_t skipped = 0;
  std::vector<Num> row;
  for (auto item : rows) {
    od::array arr;
    if (auto err = item.get_array().get(arr)) {
      if (err == simdjson::INCORRECT_TYPE) {
        ++skipped, ++i;
        continue;
      }
      NoteBreak(err, name, trace);
      break;
    }
    if (i >= times.size()) break;
    const Num t = times[i++];
    if (!Numbers(arr, &row) || row.size() != kCoalescedRowWidth) {
      ++skipped;
      continue;
    }
    // Pre-existing memory (time -1) is placed at the first real time, as PyTorch's plot does.
    const Num& at = t.d < 0 ? first_time : t;
    std::optional<int64_t> t_ns = at.i ? CheckedMul(*at.i, int64_t(ns_per_unit)) : UnitsToNs(at.d, ns_per_unit);
    if (t_ns && !TimeInRange(*t_ns)) t_ns.reset();
    if (!t_ns) {
      trace.diagnostics.Count(ImportIssue::kTimeOutOfRange);
      continue;
    }
    State s{};
    for (int c = 0; c < kMemoryCategoryCount; ++c) s[size_t(c)] = row[size_t(c) + 1].d;
    out->Point(*t_ns, s);
  }
  if (skipped) trace.diagnostics.Note(ImportIssue::kMalformedEvent,
                                      fmt::format("{}: {} rows that are not {} numbers skipped", name, skipped,
                                                  kCoalescedRowWidth));
  if (times.size() != i && !times.empty())
    trace.diagnostics.Note(ImportIssue::kMalformedEvent,
                           fmt::format("{}: {} times and {} rows; only the pairs were read", name, times.size(), i));
  return Status::Ok();
}

// A file cut short (a job killed while writing it): keeps it up to the last array that closed and
// closes the ones still open, so the entries before the cut are read. False where no array
// closed, or the bytes are not cut (every array closed).
bool CloseCutArrays(std::string* buf) {
  int depth = 0;
  bool in_string = false, escaped = false;
  size_t keep = 0;
  int depth_at_keep = 0;
  for (size_t i = 0; i < buf->size(); ++i) {
    const char c = (*buf)[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[') ++depth;
    else if (c == ']' && --depth >= 1) keep = i + 1, depth_at_keep = depth;
  }
  if (depth <= 0 || keep == 0) return false;
  buf->resize(keep);
  buf->append(size_t(depth_at_keep), ']');
  return true;
}

}  // namespace

bool LooksLikeMemoryTimeline(std::string_view head) {
  size_t i = SkipSpace(head, 0);
  if (i >= head.size() || head[i] != '[') return false;
  i = SkipSpace(head, i + 1);
  if (i >= head.size() || head[i] != '[') return false;
  i = SkipSpace(head, i + 1);
  return i < head.size() && (IsNumberStart(head[i]) || head[i] == ']');
}

Status ImportMemoryTimeline(PeekableSource& src, Trace& trace) {
  auto bytes = ReadAll(src, kMaxTimelineBytes);
  if (!bytes.ok()) return bytes.status();
  std::string& buf = *bytes;
  const bool cut = CloseCutArrays(&buf);
  if (cut) trace.diagnostics.Note(ImportIssue::kTruncatedInput, src.name() + ": the timeline ends inside an entry; the entries before it were read");
  const bool coalesced = SecondIsArrayOfArrays(buf);
  buf.reserve(buf.size() + simdjson::SIMDJSON_PADDING);
  od::parser parser;
  od::document doc;
  if (auto err = parser.iterate(simdjson::padded_string_view(buf.data(), buf.size(), buf.capacity())).get(doc))
    return Status(ErrorCode::kCorruptInput, src.name() + ": " + simdjson::error_message(err));
  od::array top;
  if (auto err = doc.get_array().get(top))
    return Status(ErrorCode::kCorruptInput, src.name() + ": not a memory timeline (" + simdjson::error_message(err) + ")");
  TimelineBuilder out(trace, src.name());
  Status st = coalesced ? ReadCoalesced(top, src.name(), trace, &out) : ReadRaw(top, src.name(), trace, &out);
  if (!st.ok()) return st;
  if (src.truncated()) trace.diagnostics.Note(ImportIssue::kTruncatedInput, src.name() + ": the compressed file ends early");
  if (out.points() == 0)
    return Status(ErrorCode::kEmptyInput, src.name() + ": an array of numbers with no entry of a PyTorch memory "
                                                       "timeline in it ([time, action 1-4, bytes, category 0-7], or "
                                                       "[[times], [[sizes by category]]])");
  out.Finish(coalesced ? "coalesced" : "raw");
  return Status::Ok();
}

}  // namespace stepdoctor
