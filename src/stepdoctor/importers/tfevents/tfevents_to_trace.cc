#include "stepdoctor/importers/tfevents/tfevents_to_trace.h"

#include <google/protobuf/arena.h>

#include <cstring>
#include <map>
#include <string>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/tfevents/tfrecord_reader.h"
#include "stepdoctor/proto/tb_event.pb.h"

namespace stepdoctor {
namespace {

namespace pb = ::stepdoctor::tb;

constexpr int kArenaResetRecords = 4096;  // records parsed per arena before it is reset

std::string FolderOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

float HalfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while (!(man & 0x400));
      bits = sign | uint32_t(127 - 15 - e) << 23 | (man & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | man << 13;
  } else {
    bits = sign | (exp + 127 - 15) << 23 | man << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

template <typename T>
bool FromContent(const std::string& content, double* out) {
  if (content.size() < sizeof(T)) return false;
  T v;
  std::memcpy(&v, content.data(), sizeof(T));
  *out = static_cast<double>(v);
  return true;
}

// The value of a rank-0 (or one-element) numeric tensor.
bool ScalarOfTensor(const pb::TensorProto& t, double* out) {
  int64_t elems = 1;
  for (const auto& d : t.tensor_shape().dim()) elems *= d.size();
  if (elems != 1) return false;
  switch (t.dtype()) {
    case pb::DT_FLOAT:
      if (t.float_val_size()) return *out = t.float_val(0), true;
      return FromContent<float>(t.tensor_content(), out);
    case pb::DT_DOUBLE:
      if (t.double_val_size()) return *out = t.double_val(0), true;
      return FromContent<double>(t.tensor_content(), out);
    case pb::DT_INT32:
      if (t.int_val_size()) return *out = t.int_val(0), true;
      return FromContent<int32_t>(t.tensor_content(), out);
    case pb::DT_INT64:
      if (t.int64_val_size()) return *out = static_cast<double>(t.int64_val(0)), true;
      return FromContent<int64_t>(t.tensor_content(), out);
    case pb::DT_HALF:
    case pb::DT_BFLOAT16: {
      uint16_t bits = 0;
      if (t.half_val_size()) bits = static_cast<uint16_t>(t.half_val(0));
      else if (t.tensor_content().size() >= 2) std::memcpy(&bits, t.tensor_content().data(), 2);
      else return false;
      if (t.dtype() == pb::DT_HALF) {
        *out = HalfToFloat(bits);
      } else {
        uint32_t f32 = uint32_t(bits) << 16;
        float f;
        std::memcpy(&f, &f32, 4);
        *out = f;
      }
      return true;
    }
    default:
      return false;
  }
}

class ScalarSink {
 public:
  ScalarSink(Trace& trace, std::string run) : trace_(trace), run_(std::move(run)) {
    for (size_t i = 0; i < trace.scalars.size(); ++i)
      if (trace.scalars[i].run == run_) index_[trace.scalars[i].tag] = i;
  }
  // A point whose wall time is past the time range, or whose step number is past
  // kMaxStepNumber, is counted and skipped: analyses subtract steps and wall times freely.
  void Add(const std::string& tag, int64_t step, double wall_time, double value) {
    if (!SecondsToNs(wall_time)) {
      trace_.diagnostics.Count(ImportIssue::kTimeOutOfRange);
      return;
    }
    if (step > kMaxStepNumber || step < -kMaxStepNumber) {
      trace_.diagnostics.Count(ImportIssue::kValueOutOfRange);
      return;
    }
    auto it = index_.find(tag);
    if (it == index_.end()) {
      ScalarSeries s;
      s.run = run_;
      s.tag = tag;
      trace_.scalars.push_back(std::move(s));
      it = index_.emplace(tag, trace_.scalars.size() - 1).first;
    }
    ScalarSeries& s = trace_.scalars[it->second];
    s.step.push_back(step);
    s.wall_time_s.push_back(wall_time);
    s.value.push_back(value);
  }

 private:
  Trace& trace_;
  std::string run_;
  std::map<std::string, size_t> index_;
};

}  // namespace

Status ImportTfEvents(ByteSource& src, Trace& trace) {
  tfevents::TfRecordReader reader(src);
  ScalarSink sink(trace, FolderOf(src.name()));
  google::protobuf::Arena arena;
  std::map<std::string, std::string> plugin_of_tag;  // from the metadata on a tag's first value
  size_t records = 0, bad = 0, histograms = 0;
  int since_reset = 0;
  for (;;) {
    std::string_view rec;
    auto next = reader.Read(&rec);
    if (!next.ok()) return next.status();
    using Next = tfevents::TfRecordReader::Next;
    if (*next == Next::kEnd) break;
    if (*next == Next::kTruncated) {
      // TensorBoard's writer flushes whole records; a cut tail is a file still being written.
      trace.diagnostics.Note(ImportIssue::kTruncatedInput, src.name() + ": the last record is cut at byte " +
                                                               std::to_string(reader.offset()));
      break;
    }
    if (*next == Next::kCorrupt) {
      if (records == 0 && bad == 0 && reader.offset() == 0 && src.name().find("tfevents") == std::string::npos)
        return Status(ErrorCode::kCorruptInput, src.name() + ": not a TFRecord file (bad checksum at byte 0)");
      ++bad;
      trace.diagnostics.Note(ImportIssue::kCorruptRecord,
                             src.name() + ": damaged record at byte " + std::to_string(reader.offset()) + " skipped");
      continue;
    }
    if (++since_reset > kArenaResetRecords) {
      arena.Reset();
      since_reset = 0;
    }
    auto* ev = google::protobuf::Arena::CreateMessage<pb::Event>(&arena);
    if (!ev->ParseFromArray(rec.data(), static_cast<int>(rec.size()))) {
      ++bad;
      trace.diagnostics.Note(ImportIssue::kCorruptRecord, src.name() + ": record at byte " +
                                                              std::to_string(reader.offset()) + " is not an Event");
      continue;
    }
    ++records;
    if (!ev->has_summary()) continue;
    for (const auto& v : ev->summary().value()) {
      const std::string& tag = v.tag().empty() ? v.node_name() : v.tag();
      if (v.has_metadata() && !v.metadata().plugin_data().plugin_name().empty())
        plugin_of_tag[tag] = v.metadata().plugin_data().plugin_name();
      switch (v.value_case()) {
        case pb::Summary::Value::kSimpleValue:
          sink.Add(tag, ev->step(), ev->wall_time(), v.simple_value());
          break;
        case pb::Summary::Value::kHisto:
        case pb::Summary::Value::kObsoleteOldStyleHistogram:
          ++histograms;
          break;
        case pb::Summary::Value::kTensor: {
          auto p = plugin_of_tag.find(tag);
          std::string_view plugin = p == plugin_of_tag.end() ? std::string_view() : std::string_view(p->second);
          if (plugin == "histograms") {
            ++histograms;
            break;
          }
          double x = 0;
          // A rank-0 number under "scalars", or under no plugin at all (older writers).
          if ((plugin.empty() || plugin == "scalars") && ScalarOfTensor(v.tensor(), &x))
            sink.Add(tag, ev->step(), ev->wall_time(), x);
          break;
        }
        default:
          break;  // images, audio, text: nothing to analyse
      }
    }
  }
  if (records == 0 && bad > 0)
    return Status(ErrorCode::kCorruptInput, src.name() + ": no readable record (every checksum failed)");
  if (histograms)
    trace.diagnostics.Note(ImportIssue::kUnsupportedContent,
                           src.name() + ": " + std::to_string(histograms) + " histogram values counted, not analysed");
  if (trace.format.empty()) trace.format = "tensorboard events";
  trace.sources.push_back(src.name());
  return Status::Ok();
}

void NormalizeScalarRuns(Trace& trace) {
  if (trace.scalars.empty()) return;
  // Longest common folder prefix (whole path components) of every run.
  std::string common = trace.scalars[0].run;
  for (const auto& s : trace.scalars) {
    size_t n = 0;
    while (n < common.size() && n < s.run.size() && common[n] == s.run[n]) ++n;
    common.resize(n);
  }
  bool all_same = true;
  for (const auto& s : trace.scalars) all_same &= s.run.size() == common.size();
  if (!all_same) {
    size_t slash = common.find_last_of('/');
    common = slash == std::string::npos ? std::string() : common.substr(0, slash + 1);
  }
  for (auto& s : trace.scalars) {
    std::string rel = s.run.substr(std::min(common.size(), s.run.size()));
    if (rel.empty()) {  // the only folder: keep its own name
      size_t slash = s.run.find_last_of('/');
      rel = slash == std::string::npos ? s.run : s.run.substr(slash + 1);
    }
    while (!rel.empty() && rel.back() == '/') rel.pop_back();
    s.run = rel.empty() ? "." : rel;
  }
}

}  // namespace stepdoctor
