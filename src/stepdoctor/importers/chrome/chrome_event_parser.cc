#include "stepdoctor/importers/chrome/chrome_event_parser.h"

#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/chrome/json_value_scan.h"
#include "stepdoctor/importers/chrome/utf8_repair.h"

namespace stepdoctor::chrome {

namespace od = simdjson::ondemand;

namespace {

uint64_t Load8(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;  // little-endian: the first character in the low byte
}

// Whether all eight bytes of `w` are ASCII digits.
bool AllDigits8(uint64_t w) {
  return ((w & 0xF0F0F0F0F0F0F0F0ull) | (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) ==
         0x3333333333333333ull;
}

// The value of eight ASCII digits, the first the most significant (simdjson's
// parse_eight_digits_unrolled): pairs, then fours, then the eight, by multiply and shift.
uint64_t EightDigits(uint64_t w) {
  const uint64_t mask = 0x000000FF000000FFull, mul1 = 100 + (1000000ull << 32), mul2 = 1 + (10000ull << 32);
  w -= 0x3030303030303030ull;
  w = (w * 10) + (w >> 8);
  return (((w & mask) * mul1) + (((w >> 16) & mask) * mul2)) >> 32;
}

}  // namespace

TimeParse ParseMicrosToNanos(std::string_view t, int64_t* out) {
  while (!t.empty() && IsJsonSpace(t.back())) t.remove_suffix(1);
  if (t.empty()) return TimeParse::kNotATime;
  size_t i = 0;
  bool neg = false;
  if (t[0] == '-') {
    neg = true;
    i = 1;
  }
  uint64_t whole = 0;
  size_t digits = 0;
  // Eight digits at a time while eight remain (times of epoch microseconds have 16), then one
  // at a time. Past 16 digits `whole` may wrap, but such a text takes the slow path below.
  for (uint64_t w; t.size() - i >= 8 && AllDigits8(w = Load8(t.data() + i)); i += 8, digits += 8)
    whole = whole * 100000000 + EightDigits(w);
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++digits) whole = whole * 10 + (t[i] - '0');
  // Up to 16 integer digits of microseconds fit in int64 nanoseconds (epoch µs have 16).
  if (digits == 0 || digits > 16 || whole > uint64_t(INT64_MAX) / 1000 - 1) goto slow;
  {
    uint64_t frac = 0;
    int fd = 0;
    bool round_up = false;
    if (i < t.size() && t[i] == '.') {
      ++i;
      for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
        if (fd < 3) {
          frac = frac * 10 + (t[i] - '0');
          ++fd;
        } else if (fd == 3) {
          round_up = t[i] >= '5';
          ++fd;
        }
      }
    }
    if (i != t.size()) goto slow;  // exponent or junk
    for (int k = fd < 3 ? fd : 3; k < 3; ++k) frac *= 10;
    int64_t ns = static_cast<int64_t>(whole * 1000 + frac + (round_up ? 1 : 0));
    if (neg) ns = -ns;
    if (!TimeInRange(ns)) return TimeParse::kOutOfRange;
    *out = ns;
    return TimeParse::kOk;
  }
slow : {
  std::string s(t);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || std::isnan(v)) return TimeParse::kNotATime;
  auto ns = MicrosToNs(v);  // infinities and huge exponents too
  if (!ns) return TimeParse::kOutOfRange;
  *out = *ns;
  return TimeParse::kOk;
}
}

namespace {

// The first quote or backslash at or after p. REQUIRED: p lies inside a string of a document
// simdjson has indexed, so one of them follows, with 16 bytes readable past it (its padding).
[[gnu::always_inline]] inline const char* QuoteOrBackslash(const char* p) {
#if defined(__SSE2__)
  // 16 bytes at a time: keys and names are short and rarely escaped.
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  for (;; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const unsigned hits = unsigned(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash))));
    if (hits != 0) return p + __builtin_ctz(hits);
  }
#else
  while (*p != '"' && *p != '\\') ++p;
  return p;
#endif
}

// Length of a raw (still escaped) JSON string starting just after its opening quote.
inline std::string_view RawKey(od::raw_json_string k) {
  const char* p = k.raw();
  const char* q = QuoteOrBackslash(p);
  while (*q != '"') q += (*q == '\\') ? 2 : 1;  // past escapes one at a time, where there are any
  return std::string_view(p, static_cast<size_t>(q - p));
}

// A string value's text: a view of the input where it holds no escape (nearly every string of a
// trace: the same text simdjson would unescape), else simdjson's unescaped copy. Anything but a
// string gives simdjson's error, as get_string does.
[[gnu::always_inline]] inline simdjson::error_code GetString(od::value& v, std::string_view* out) {
  const std::string_view tok = v.raw_json_token();
  if (!tok.empty() && tok[0] == '"') {
    const char* q = QuoteOrBackslash(tok.data() + 1);
    if (*q == '"') {
      *out = std::string_view(tok.data() + 1, static_cast<size_t>(q - tok.data() - 1));
      return simdjson::SUCCESS;
    }
  }
  return v.get_string().get(*out);
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsJsonSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool ParseInt(std::string_view s, int64_t* out) {
  s = Trim(s);
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Reads a pid/tid value.
simdjson::error_code ReadPidTid(od::value v, PidTid* out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::number) {
    std::string_view tok;
    tok = v.raw_json_token();
    int64_t n;
    if (ParseInt(tok, &n)) {
      out->num = n;
      return simdjson::SUCCESS;
    }
    // 3.0 and 1e3 are the numbers 3 and 1000; 1e300, 2^64 - 1 and 1.5 are no int64: their text
    // names them, so each stays its own process or thread.
    double d;
    if (auto e = v.get_double().get(d)) return e;
    if (auto exact = ExactInt64(d)) {
      out->num = *exact;
    } else {
      out->is_string = out->not_int64 = true;
      out->str = Trim(tok);
    }
    return simdjson::SUCCESS;
  }
  if (t == od::json_type::string) {
    std::string_view s;
    if (auto e = GetString(v, &s)) return e;
    int64_t n;
    if (!s.empty() && ParseInt(s, &n)) {
      out->num = n;
    } else {
      out->is_string = true;
      out->str = s;
    }
    return simdjson::SUCCESS;
  }
  return simdjson::INCORRECT_TYPE;
}

// Reads ts or dur: a number of microseconds, or the same number quoted (some writers quote
// both).
simdjson::error_code ReadMicros(od::value v, TimeParse* field, int64_t* ns) {
  std::string_view tok;
  tok = v.raw_json_token();
  if (!tok.empty() && tok[0] == '"') {
    if (auto e = GetString(v, &tok)) return e;
  }
  *field = ParseMicrosToNanos(tok, ns);
  return simdjson::SUCCESS;
}

}  // namespace

const std::string_view kKnownArgKeys[kKnownArgCount] = {
    "name", "labels", "sort_index",
    "correlation", "correlation_id", "correlationId", "device", "Device Id", "Device Type",
    "Total Allocated", "Total Reserved",
    "bytes", "stream", "grid", "block", "Collective name", "In msg nelems",
    "Out msg nelems", "Group size", "Process Group Name", "dtype", "step_num", "group_id", "tf_op", "is_eager",
    "tf_function_call", "kernel_details", "memcpy_details", "Seq", "Input Dims", "shape",
};

bool KnownArgIsStored(KnownArg a) { return a >= KnownArg::kBytes || a == KnownArg::kName; }

namespace {

// The KnownArg of a key, by length first so most keys are rejected on one compare.
KnownArg ClassifyArgKey(std::string_view k) {
  // The first byte turns most candidates away without a call to memcmp.
  auto is = [&](KnownArg a) {
    const std::string_view want = kKnownArgKeys[int(a)];
    return k.size() == want.size() && k[0] == want[0] && std::memcmp(k.data(), want.data(), k.size()) == 0;
  };
  switch (k.size()) {
    case 3:
      if (is(KnownArg::kSeq)) return KnownArg::kSeq;
      break;
    case 4:
      if (is(KnownArg::kName)) return KnownArg::kName;
      if (is(KnownArg::kGrid)) return KnownArg::kGrid;
      break;
    case 5:
      for (KnownArg a : {KnownArg::kBytes, KnownArg::kBlock, KnownArg::kDtype, KnownArg::kTfOp, KnownArg::kShape})
        if (is(a)) return a;
      break;
    case 6:
      for (KnownArg a : {KnownArg::kDevice, KnownArg::kStream, KnownArg::kLabels})
        if (is(a)) return a;
      break;
    case 8:
      for (KnownArg a : {KnownArg::kStepNum, KnownArg::kGroupId, KnownArg::kIsEager})
        if (is(a)) return a;
      break;
    case 9:
      if (is(KnownArg::kDeviceId)) return KnownArg::kDeviceId;
      break;
    case 10:
      for (KnownArg a : {KnownArg::kSortIndex, KnownArg::kGroupSize, KnownArg::kInputDims})
        if (is(a)) return a;
      break;
    case 11:
      for (KnownArg a : {KnownArg::kCorrelation, KnownArg::kDeviceType})
        if (is(a)) return a;
      break;
    case 13:
      for (KnownArg a : {KnownArg::kInMsgNelems, KnownArg::kCorrelationCupti})
        if (is(a)) return a;
      break;
    case 14:
      for (KnownArg a : {KnownArg::kCorrelationId, KnownArg::kTotalReserved, KnownArg::kOutMsgNelems,
                         KnownArg::kKernelDetails, KnownArg::kMemcpyDetails})
        if (is(a)) return a;
      break;
    case 15:
      for (KnownArg a : {KnownArg::kTotalAllocated, KnownArg::kCollectiveName})
        if (is(a)) return a;
      break;
    case 16:
      if (is(KnownArg::kTfFunctionCall)) return KnownArg::kTfFunctionCall;
      break;
    case 18:
      if (is(KnownArg::kProcessGroupName)) return KnownArg::kProcessGroupName;
      break;
    default:
      break;
  }
  return KnownArg::kUnknown;
}

simdjson::error_code ReadArgs(od::object obj, bool keep_all, ParsedEvent* ev) {
  for (auto field : obj) {
    od::raw_json_string rk;
    if (auto e = field.key().get(rk)) return e;
    std::string_view key = RawKey(rk);
    od::value v = field.value();
    if (ev->nargs >= ParsedEvent::kMaxArgs) continue;
    KnownArg known = ClassifyArgKey(key);
    if (known == KnownArg::kUnknown && !keep_all) continue;  // skipped lazily by On-Demand
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    ParsedArg a;
    a.key = key;
    a.known = known;
    switch (t) {
      case od::json_type::number: {
        std::string_view tok;
        tok = v.raw_json_token();
        if (ParseInt(tok, &a.i)) {
          a.type = ArgType::kInt;
          a.d = static_cast<double>(a.i);
        } else {
          if (auto e = v.get_double().get(a.d)) return e;
          a.type = ArgType::kDouble;
        }
        break;
      }
      case od::json_type::string:
        if (auto e = GetString(v, &a.s)) return e;
        a.type = ArgType::kString;
        break;
      case od::json_type::array: {
        od::array arr;
        if (auto e = v.get_array().get(arr)) return e;
        if (auto e = arr.raw_json().get(a.s)) return e;
        a.s = Trim(a.s);
        a.type = ArgType::kString;
        break;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto e = v.get_bool().get(b)) return e;
        a.i = b;
        a.d = b;
        break;
      }
      default:
        continue;  // objects and nulls are not kept
    }
    ev->args[ev->nargs++] = a;
  }
  return simdjson::SUCCESS;
}

bool KeyIs(std::string_view k, const char* lit, size_t n) { return k.size() == n && std::memcmp(k.data(), lit, n) == 0; }

// Reads one event object. Returns an error for anything unreadable.
simdjson::error_code ReadEvent(od::object obj, ParsedEvent* ev) {
  bool args_seen_before_ph = false;
  for (auto field : obj) {
    od::raw_json_string rk;
    if (auto e = field.key().get(rk)) return e;
    std::string_view k = RawKey(rk);
    od::value v = field.value();
    switch (k.size()) {
      case 2:
        if (KeyIs(k, "ph", 2)) {
          std::string_view s;
          if (auto e = GetString(v, &s)) return e;
          ev->ph = s.empty() ? 0 : s[0];
        } else if (KeyIs(k, "ts", 2)) {
          if (auto e = ReadMicros(v, &ev->ts, &ev->ts_ns)) return e;
        } else if (KeyIs(k, "id", 2)) {
          std::string_view tok;
          tok = v.raw_json_token();
          if (!tok.empty() && tok[0] == '"') {
            if (auto e = GetString(v, &tok)) return e;
          }
          ev->id = Trim(tok);
          ev->has_id = true;
        } else if (KeyIs(k, "bp", 2)) {
          if (auto e = GetString(v, &ev->bp)) return e;
        }
        break;
      case 1:
        if (KeyIs(k, "s", 1)) {
          if (auto e = GetString(v, &ev->scope)) return e;
        }
        break;
      case 3:
        if (KeyIs(k, "dur", 3)) {
          if (auto e = ReadMicros(v, &ev->dur, &ev->dur_ns)) return e;
        } else if (KeyIs(k, "pid", 3)) {
          if (auto e = ReadPidTid(v, &ev->pid)) return e;
        } else if (KeyIs(k, "tid", 3)) {
          if (auto e = ReadPidTid(v, &ev->tid)) return e;
        } else if (KeyIs(k, "cat", 3)) {
          if (auto e = GetString(v, &ev->cat)) return e;
        }
        break;
      case 4:
        if (KeyIs(k, "name", 4)) {
          od::json_type t;
          if (auto e = v.type().get(t)) return e;
          if (t == od::json_type::string) {
            if (auto e = GetString(v, &ev->name)) return e;
          } else if (t == od::json_type::number) {
            std::string_view tok;
            tok = v.raw_json_token();
            ev->name = Trim(tok);
          }
        } else if (KeyIs(k, "args", 4)) {
          od::object a;
          if (v.get_object().get(a)) break;  // args that are not an object are ignored
          if (ev->ph == 0) args_seen_before_ph = true;
          if (auto e = ReadArgs(a, ev->ph == 'C' || ev->ph == 'M' || ev->ph == 0, ev)) return e;
        }
        break;
      default:
        break;
    }
  }
  (void)args_seen_before_ph;  // args read before ph was known were kept in full: nothing lost
  return simdjson::SUCCESS;
}

}  // namespace

struct ChromeEventParser::Impl {
  od::parser parser;
  ParsedEvent ev;
  std::string scratch;  // an event with its invalid UTF-8 replaced, while it is parsed
  std::string slim;     // a large event without its large values, while it is parsed
};

ChromeEventParser::ChromeEventParser() : impl_(std::make_unique<Impl>()) {}
ChromeEventParser::~ChromeEventParser() = default;

namespace {

// An event larger than this is checked for values too large to read (CopyWithoutLargeValues).
constexpr size_t kLargeElementBytes = 1u << 20;

// Parses one element; false when it is not a readable event object.
bool ParseElement(od::parser& parser, ParsedEvent& ev, const char* p, size_t n, size_t readable) {
  od::document doc;
  od::object obj;
  ev.Reset();
  return !(parser.iterate(p, n, readable).get(doc) || doc.get_object().get(obj) || ReadEvent(obj, &ev));
}

// Copies an element whose UTF-8 is invalid into `scratch` with the bad bytes replaced and
// simdjson's padding after them; false when its UTF-8 was valid (so something else is wrong).
bool RepairedCopy(const char* p, size_t n, std::string* scratch) {
  if (simdjson::validate_utf8(p, n) || RepairUtf8(std::string_view(p, n), scratch) == 0) return false;
  scratch->append(simdjson::SIMDJSON_PADDING, ' ');
  return true;
}

// Parses elements one by one, from element `skip` on: the slow path after a batch error.
void ParseOneByOne(od::parser& parser, ParsedEvent& ev, std::string& scratch, std::string& slim, const char* json,
                   size_t len, size_t skip, EventSink& sink) {
  // json is "[e1,e2,...]"; walk the elements with the structural scanner.
  size_t p = 1, end = len - 1, index = 0;
  while (p < end) {
    while (p < end && (IsJsonSpace(json[p]) || json[p] == ',')) ++p;
    if (p >= end) break;
    size_t e = ScanValueEnd(json, p, end, true);
    if (e == kIncomplete) e = end;
    if (e <= p) e = p + 1;  // not the start of a value: step over the byte (the parse below fails)
    if (index++ >= skip) {
      size_t dropped = 0;
      if (e - p > kLargeElementBytes &&
          (dropped = CopyWithoutLargeValues(json + p, e - p, kMaxTextBytes, &slim)) > 0) {
        slim.append(simdjson::SIMDJSON_PADDING, ' ');
      }
      if (dropped > 0 && ParseElement(parser, ev, slim.data(), slim.size() - simdjson::SIMDJSON_PADDING, slim.size())) {
        sink.OnRepaired(ImportIssue::kLargeValueDropped, dropped);  // `ev` views `slim`
        sink.OnEvent(ev);
      } else if (ParseElement(parser, ev, json + p, e - p, e - p + simdjson::SIMDJSON_PADDING)) {
        sink.OnEvent(ev);
      } else if (RepairedCopy(json + p, e - p, &scratch) &&
                 ParseElement(parser, ev, scratch.data(), scratch.size() - simdjson::SIMDJSON_PADDING, scratch.size())) {
        // Invalid UTF-8 (a mangled name) costs the bad bytes, not the event. `ev` views `scratch`.
        sink.OnRepaired(ImportIssue::kInvalidUtf8, 1);
        sink.OnEvent(ev);
      } else {
        sink.OnMalformed();
      }
    }
    p = e;
  }
}

}  // namespace

void ChromeEventParser::ParseBatch(const char* json, size_t len, EventSink& sink) {
  auto& parser = impl_->parser;
  auto& ev = impl_->ev;
  // The tokenizer's batches end after the event that passes 512 KiB: a longer one ends in a large
  // event, read on its own without its large values.
  if (len > kLargeElementBytes) {
    ParseOneByOne(parser, ev, impl_->scratch, impl_->slim, json, len, 0, sink);
    return;
  }
  size_t delivered = 0;
  od::document doc;
  od::array arr;
  if (!parser.iterate(json, len, len + simdjson::SIMDJSON_PADDING).get(doc) && !doc.get_array().get(arr)) {
    bool failed = false;
    for (auto elem : arr) {
      od::value v;
      od::object obj;
      if (elem.get(v) || v.get_object().get(obj)) {
        failed = true;
        break;
      }
      ev.Reset();
      if (ReadEvent(obj, &ev)) {
        failed = true;
        break;
      }
      sink.OnEvent(ev);
      ++delivered;
    }
    if (!failed) return;
  }
  // Something in the batch is not valid JSON: parse the rest one event at a time so only
  // the broken events are lost. The first undelivered element is where it failed.
  ParseOneByOne(parser, ev, impl_->scratch, impl_->slim, json, len, delivered, sink);
}

void ForEachScalarField(std::string_view raw, void (*fn)(void*, int, std::string_view, std::string_view),
                        void* ctx) {
  simdjson::padded_string ps(raw);
  od::parser parser;
  od::document doc;
  if (parser.iterate(ps).get(doc)) return;
  od::json_type t;
  if (doc.type().get(t)) return;
  auto visit_object = [&](od::object obj, int index) {
    for (auto field : obj) {
      std::string_view key;
      if (field.unescaped_key().get(key)) return;
      std::string owned_key(key);
      od::value v = field.value();
      od::json_type vt;
      if (v.type().get(vt)) return;
      if (vt == od::json_type::string) {
        std::string_view s;
        if (v.get_string().get(s)) return;
        fn(ctx, index, owned_key, s);
      } else if (vt == od::json_type::number || vt == od::json_type::boolean) {
        std::string_view tok;
        tok = v.raw_json_token();
        fn(ctx, index, owned_key, Trim(tok));
      }
    }
  };
  if (t == od::json_type::object) {
    od::object obj;
    if (!doc.get_object().get(obj)) visit_object(obj, 0);
  } else if (t == od::json_type::array) {
    od::array arr;
    if (doc.get_array().get(arr)) return;
    int i = 0;
    for (auto elem : arr) {
      od::object obj;
      if (elem.get_object().get(obj)) return;
      visit_object(obj, i++);
    }
  }
}

}  // namespace stepdoctor::chrome
