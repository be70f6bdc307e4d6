#include "stepdoctor/importers/detect_format.h"

#include <cstdint>
#include <cstring>

#include "stepdoctor/importers/chrome/json_value_scan.h"
#include "stepdoctor/importers/memory_timeline/memory_timeline_to_trace.h"
#include "stepdoctor/importers/samples/gpu_csv_columns.h"
#include "stepdoctor/importers/samples/nvidia_smi_dmon_to_trace.h"
#include "stepdoctor/importers/samples/tegrastats_to_trace.h"

namespace stepdoctor {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool IsSpaceByte(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

size_t SkipSpace(std::string_view s, size_t i) {
  while (i < s.size() && IsSpaceByte(s[i])) ++i;
  return i;
}

// Reads a protobuf varint; returns false past the end or beyond 10 bytes.
bool Varint(std::string_view s, size_t* i, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *i < s.size(); shift += 7) {
    uint8_t b = static_cast<uint8_t>(s[(*i)++]);
    *v |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

bool LooksLikeTfRecord(std::string_view h) {
  // uint64 length, uint32 masked CRC of the length, then an Event proto whose first field is
  // wall_time (field 1, fixed64: tag 0x09).
  if (h.size() < 13) return false;
  uint64_t len;
  std::memcpy(&len, h.data(), 8);
  return len > 0 && len < (uint64_t(1) << 32) && static_cast<uint8_t>(h[12]) == 0x09;
}

// A serialized XSpace with planes, by content alone (a renamed .xplane.pb): field 1 `planes`
// (tag 0x0a) and a non-zero length, then an XPlane that opens with its id (field 1, varint:
// 0x08) and/or its name (field 2: 0x12) — a short printable string ("/host:CPU",
// "/device:GPU:0"). The profile plugin's pages (overview_page.pb opens with 0x12,
// tensorflow_stats.pb with 0x22) and a TFRecord's 8-byte length do not fit.
bool LooksLikeXSpaceContent(std::string_view h) {
  constexpr uint64_t kMaxPlaneNameBytes = 1024;  // plane names are short paths; longer is not an XPlane
  if (h.size() < 4 || static_cast<uint8_t>(h[0]) != 0x0a) return false;
  size_t i = 1;
  uint64_t len;
  if (!Varint(h, &i, &len) || len < 2) return false;
  uint64_t id;
  if (i < h.size() && h[i] == 0x08) {
    ++i;
    if (!Varint(h, &i, &id)) return false;
  }
  if (i >= h.size() || h[i] != 0x12) return false;
  ++i;
  uint64_t name_len;
  if (!Varint(h, &i, &name_len) || name_len == 0 || name_len > kMaxPlaneNameBytes) return false;
  std::string_view name = h.substr(i, name_len);  // may be cut by the end of the head
  if (name.empty()) return false;
  for (char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) return false;
  return true;
}

// With an XPlane file name, a looser check: an XSpace holding no planes (only errors,
// warnings or hostnames) is still one.
bool LooksLikeXSpace(std::string_view h) {
  // XSpace: field 1 (planes, length-delimited: tag 0x0a), whose XPlane starts with id (0x08)
  // or name (0x12); or, with no planes, errors/warnings/hostnames (0x12/0x1a/0x22).
  if (h.empty()) return false;
  uint8_t tag = static_cast<uint8_t>(h[0]);
  if (tag != 0x0a && tag != 0x12 && tag != 0x1a && tag != 0x22) return false;
  size_t i = 1;
  uint64_t len;
  if (!Varint(h, &i, &len)) return false;
  if (tag != 0x0a) return true;
  if (i >= h.size()) return true;
  uint8_t inner = static_cast<uint8_t>(h[i]);
  return inner == 0x08 || inner == 0x12 || inner == 0x1a;
}

// Walks the top-level keys of the object that opens at head[i]. True when a Chrome-trace key
// is one of them, or when the head ends inside a top-level value before the object's keys are
// all seen: key order is free in JSON, so traceEvents may follow a value of any size, and only
// the Chrome importer (which skips such values by scanning) can tell.
bool TopLevelKeysMayBeChromeTrace(std::string_view head, size_t i) {
  const char* d = head.data();
  size_t n = head.size();
  size_t p = i + 1;
  for (;;) {
    while (p < n && (IsSpaceByte(d[p]) || d[p] == ',')) ++p;
    if (p >= n) return true;           // cut between keys: undecided
    if (d[p] != '"') return false;     // the object ended ('}') or is not JSON
    size_t key_end = chrome::ScanValueEnd(d, p, n, false);
    if (key_end == chrome::kIncomplete) return true;
    std::string_view key(d + p + 1, key_end - p - 2);
    if (key == "traceEvents" || key == "schemaVersion" || key == "displayTimeUnit") return true;
    p = SkipSpace(head, key_end);
    if (p >= n) return true;
    if (d[p] != ':') return false;
    p = SkipSpace(head, p + 1);
    if (p >= n) return true;
    size_t v_end = chrome::ScanValueEnd(d, p, n, false);
    if (v_end == chrome::kIncomplete) return true;
    if (v_end == p) return false;      // a structural byte where a value should be
    p = v_end;
  }
}

// Lines of the head, the last one dropped when the head cuts it.
template <typename F>
bool AnyLine(std::string_view head, size_t max_lines, F&& f) {
  size_t start = 0;
  for (size_t n = 0; n < max_lines && start < head.size(); ++n) {
    size_t nl = head.find('\n', start);
    if (nl == std::string_view::npos) return false;
    if (f(head.substr(start, nl - start))) return true;
    start = nl + 1;
  }
  return false;
}

// A CSV header below nvidia-smi's table (a job log that runs `nvidia-smi` and then
// `nvidia-smi --query-gpu=... --format=csv`): a line with a comma, outside the table's box,
// naming a GPU metric, that is not the command line (which names the fields too).
bool HoldsGpuCsvHeader(std::string_view head) {
  constexpr size_t kMaxLines = 1000;  // all of a 64 KiB head
  return AnyLine(head, kMaxLines, [](std::string_view line) {
    size_t i = line.find_first_not_of(std::string_view(" \t\0", 3));
    if (i == std::string_view::npos || line[i] == '|' || line[i] == '+') return false;
    return Contains(line, ",") && !Contains(line, "nvidia-smi") && gpucsv::NamesAGpuMetric(line.substr(i));
  });
}

// A text log whose lines open with a bracketed stamp ("[04-03-2021 @ 13:32:39] > Utilization:
// 0%"), not a JSON array: the first line closes its bracket and goes on with text, where JSON
// goes on with a comma, a closing bracket or nothing.
bool BracketedTextLine(std::string_view head) {
  const std::string_view line = head.substr(0, head.find('\n'));
  if (line.size() < 2 || line[0] != '[') return false;
  const size_t first = SkipSpace(line, 1);
  if (first < line.size() && (line[first] == '{' || line[first] == '[' || line[first] == '"'))
    return false;  // an element that JSON alone opens so
  const size_t close = line.find(']');
  if (close == std::string_view::npos) return false;
  const size_t next = SkipSpace(line, close + 1);
  return next < line.size() && line[next] != ',' && line[next] != ']' && line[next] != '}' && line[next] != '\r';
}

}  // namespace

const char* InputFormatName(InputFormat f) {
  switch (f) {
    case InputFormat::kUnknown: return "unknown";
    case InputFormat::kChromeJson: return "chrome-json";
    case InputFormat::kJsonOther: return "json";
    case InputFormat::kMemoryTimeline: return "memory-timeline";
    case InputFormat::kJsonLines: return "json-lines";
    case InputFormat::kXSpace: return "xspace";
    case InputFormat::kTfRecordEvents: return "tfevents";
    case InputFormat::kCsv: return "csv";
    case InputFormat::kNvidiaSmiTable: return "nvidia-smi-table";
    case InputFormat::kNvidiaSmiDmon: return "nvidia-smi-dmon";
    case InputFormat::kTegrastats: return "tegrastats";
  }
  return "?";
}

InputFormat DetectFormat(std::string_view head, std::string_view name) {
  // Before JSON: an XSpace opens with 0x0a ('\n'), and a first plane of 91 or 123 bytes puts
  // '[' or '{' after it.
  if (LooksLikeXSpaceContent(head)) return InputFormat::kXSpace;
  if (head.size() >= 3 && std::memcmp(head.data(), "\xEF\xBB\xBF", 3) == 0) head.remove_prefix(3);
  size_t i = SkipSpace(head, 0);
  if (i < head.size() && (head[i] == '{' || (head[i] == '[' && !BracketedTextLine(head.substr(i))))) {
    if (head[i] == '{') {
      if (Contains(head, "\"traceEvents\"") || Contains(head, "\"schemaVersion\"")) return InputFormat::kChromeJson;
      // One object per line: the first line closes an object and the next opens another.
      size_t nl = head.find('\n', i);
      if (nl != std::string_view::npos) {
        size_t j = SkipSpace(head, nl + 1);
        size_t k = head.find_last_not_of(" \r\t", nl == 0 ? 0 : nl - 1);
        if (j < head.size() && head[j] == '{' && k != std::string_view::npos && head[k] == '}')
          return InputFormat::kJsonLines;
      }
      // A file of one line: SageMaker's system monitor writes a file per minute, some holding one
      // record, and W&B's events file starts with one; the lines importer reads either.
      if (nl == std::string_view::npos || SkipSpace(head, nl + 1) >= head.size()) {
        const bool sagemaker = Contains(head, "\"Dimension\"") && Contains(head, "\"Timestamp\"");
        const bool wandb = Contains(head, "\"system.") && Contains(head, "\"_timestamp\"");
        if (sagemaker || wandb) return InputFormat::kJsonLines;
      }
      if (Contains(head, "\"displayTimeUnit\"")) return InputFormat::kChromeJson;
      if (TopLevelKeysMayBeChromeTrace(head, i)) return InputFormat::kChromeJson;
      return InputFormat::kJsonOther;
    }
    // A bare array: a trace when its first element is an event-like object.
    size_t j = SkipSpace(head, i + 1);
    if (j >= head.size() || head[j] == ']') return InputFormat::kChromeJson;  // empty: let the importer say so
    if (head[j] == '{' && (Contains(head, "\"ph\"") || Contains(head, "\"ts\""))) return InputFormat::kChromeJson;
    if (LooksLikeMemoryTimeline(head)) return InputFormat::kMemoryTimeline;
    return InputFormat::kJsonOther;
  }
  if (LooksLikeTfRecord(head) || Contains(name, "tfevents")) {
    if (LooksLikeTfRecord(head)) return InputFormat::kTfRecordEvents;
  }
  if ((EndsWith(name, ".xplane.pb") || EndsWith(name, ".xspace.pb") || EndsWith(name, ".xspace")) &&
      LooksLikeXSpace(head))
    return InputFormat::kXSpace;
  // `nvidia-smi dmon`: its "# gpu  pwr  gtemp ..." header within the first lines (a job log
  // may echo a line or two first). Before CSV: `dmon --format csv` has commas.
  constexpr size_t kDmonHeaderLines = 20;
  if (AnyLine(head, kDmonHeaderLines, [](std::string_view l) { return IsDmonHeader(l); })) return InputFormat::kNvidiaSmiDmon;
  // tegrastats: "RAM used/totalMB ... GR3D_FREQ N%" lines (commas inside its CPU list). Before CSV.
  if (AnyLine(head, kDmonHeaderLines, [](std::string_view l) { return IsTegrastatsLine(l); })) return InputFormat::kTegrastats;
  // nvidia-smi's default table: a log of its snapshots, or a job log that prints it before its
  // `--query-gpu --format=csv` rows, where the CSV importer finds the header below the table.
  if (Contains(head, "NVIDIA-SMI") && Contains(head, "Driver Version"))
    return HoldsGpuCsvHeader(head) ? InputFormat::kCsv : InputFormat::kNvidiaSmiTable;
  // CSV: printable text whose first line has commas, or names a GPU metric by itself (a log
  // of `nvidia-smi --query-gpu=utilization.gpu --format=csv` has one column and no comma).
  size_t nl = head.find('\n');
  std::string_view first = head.substr(0, nl);
  bool printable = !first.empty();
  for (char c : first)
    if (static_cast<unsigned char>(c) < 0x20 && c != '\r' && c != '\t') printable = false;
  if (printable && (Contains(first, ",") || gpucsv::NamesAGpuMetric(first))) return InputFormat::kCsv;
  return InputFormat::kUnknown;
}

}  // namespace stepdoctor
