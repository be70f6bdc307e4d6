#include "stepdoctor/importers/samples/csv_fields.h"

#include <charconv>
#include <cmath>
#include <ctime>

namespace stepdoctor::csv {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string> SplitRecord(std::string_view rec) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < rec.size(); ++i) {
    char c = rec[i];
    if (quoted) {
      if (c == '"' && i + 1 < rec.size() && rec[i + 1] == '"') out.back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

double MemoryUnitBytes(std::string_view unit) {
  std::string u;
  for (char c : Trim(unit)) u += char(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if (u == "mib" || u == "mb") return kMiB;
  if (u == "gib" || u == "gb") return kMiB * 1024;
  if (u == "kib" || u == "kb") return 1024;
  if (u == "bytes" || u == "b") return 1;
  return 0;
}

namespace {

// The units a GPU log writes after a number that are not amounts of memory.
bool IsOtherUnit(std::string_view u) {
  for (std::string_view k : {"%", "W", "w", "MHz", "mhz", "C", "c", "s", "ms"})
    if (u == k) return true;
  return false;
}

}  // namespace

bool ParseNumber(std::string_view s, double* out, double* unit_scale) {
  s = Trim(s);
  *unit_scale = 0;  // 0: no unit in the value
  // The unit after the number, with or without a space: "20 %", "1024MiB", "75.31 W".
  size_t u = s.find_first_not_of("0123456789.+-eE");
  if (u != std::string_view::npos && u > 0) {
    std::string_view unit = Trim(s.substr(u));
    *unit_scale = MemoryUnitBytes(unit);
    if (*unit_scale == 0 && !IsOtherUnit(unit)) return false;  // "26.11\n0", "12 apples"
    s = Trim(s.substr(0, u));
  }
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && std::isfinite(*out);
}

namespace {

// Reads ".123456" (any number of digits) after the seconds; returns nanoseconds.
int64_t Fraction(const char** p) {
  int64_t ns = 0;
  if (**p != '.') return 0;
  int digits = 0;
  for (++*p; **p >= '0' && **p <= '9'; ++*p)
    if (digits++ < 9) ns = ns * 10 + (**p - '0');
  for (; digits < 9; ++digits) ns *= 10;
  return ns;
}

// "Z", "+02:00", "-0530" -> seconds east of UTC in *offset_s; false when no zone is given.
bool Zone(const char* p, int64_t* offset_s) {
  if (*p == 'Z' || *p == 'z') return *offset_s = 0, true;
  if (*p != '+' && *p != '-') return false;
  int sign = *p == '-' ? -1 : 1;
  int v[4], n = 0;
  for (++p; *p && n < 4; ++p)
    if (*p >= '0' && *p <= '9') v[n++] = *p - '0';
    else if (*p != ':') break;
  if (n != 4) return false;
  *offset_s = sign * int64_t((v[0] * 10 + v[1]) * 3600 + (v[2] * 10 + v[3]) * 60);
  return true;
}

}  // namespace

bool YearLastDate(std::string_view s, int* first, int* second) {
  s = Trim(s);
  auto two = [&](size_t at, int* v) {
    if (s.size() < at + 2 || s[at] < '0' || s[at] > '9' || s[at + 1] < '0' || s[at + 1] > '9') return false;
    *v = (s[at] - '0') * 10 + (s[at + 1] - '0');
    return true;
  };
  if (s.size() < 10 || (s[2] != '-' && s[2] != '.' && s[2] != '/') || s[5] != s[2]) return false;
  for (size_t i = 6; i < 10; ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return two(0, first) && two(3, second);
}

TimeParse ParseTimestamp(std::string_view s, int64_t* ns, DateOrder order) {
  s = Trim(s);
  double secs;
  double unused;
  if (ParseNumber(s, &secs, &unused)) {
    auto v = SecondsToNs(secs);
    if (!v) return TimeParse::kOutOfRange;
    *ns = *v;
    return TimeParse::kOk;
  }
  std::tm tm{};
  std::string str(s);
  const char* end = nullptr;
  if (str.size() > 2 && (str[2] == '-' || str[2] == '.' || str[2] == '/')) {
    // The year last: day first with '-' or '.' (04-03-2021, 04.03.2021), month first with '/'
    // (the US 03/04/2021), unless the log's dates showed otherwise.
    const char sep = str[2];
    const bool day_first = order == DateOrder::kDayFirst || (order == DateOrder::kAsWritten && sep != '/');
    const std::string fmt = day_first ? std::string("%d") + sep + "%m" + sep + "%Y %H:%M:%S"
                                      : std::string("%m") + sep + "%d" + sep + "%Y %H:%M:%S";
    end = strptime(str.c_str(), fmt.c_str(), &tm);
  } else {
    end = strptime(str.c_str(), "%Y/%m/%d %H:%M:%S", &tm);
    if (!end) end = strptime(str.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end) end = strptime(str.c_str(), "%Y-%m-%d %H:%M:%S", &tm);
  }
  if (!end) return TimeParse::kNotATime;
  int64_t frac_ns = Fraction(&end);
  int64_t offset_s = 0;
  time_t t;
  if (Zone(end, &offset_s)) {
    t = timegm(&tm);
    if (t == time_t(-1)) return TimeParse::kNotATime;
    t -= time_t(offset_s);
  } else {
    tm.tm_isdst = -1;
    t = std::mktime(&tm);
    if (t == time_t(-1)) return TimeParse::kNotATime;
  }
  // A year strptime reads (4, 8834) can be any date: seconds x 1e9 may leave the range.
  auto v = EpochSecondsToNs(int64_t(t), frac_ns);
  if (!v) return TimeParse::kOutOfRange;
  *ns = *v;
  return TimeParse::kOk;
}

bool ParseClockTime(std::string_view s, int64_t* ns) {
  std::tm tm{};
  std::string str(Trim(s));
  const char* end = strptime(str.c_str(), "%H:%M:%S", &tm);
  if (!end) return false;
  int64_t frac_ns = Fraction(&end);
  if (*end != '\0') return false;
  *ns = int64_t(tm.tm_hour * 3600 + tm.tm_min * 60 + tm.tm_sec) * 1000000000 + frac_ns;
  return true;
}

bool ParseTableDate(std::string_view s, int64_t* ns) {
  std::tm tm{};
  std::string str(Trim(s));
  const char* end = strptime(str.c_str(), "%a %b %d %H:%M:%S %Y", &tm);
  if (!end || *end != '\0') return false;
  tm.tm_isdst = -1;
  time_t t = std::mktime(&tm);
  if (t == time_t(-1)) return false;
  auto v = EpochSecondsToNs(int64_t(t), 0);
  if (!v) return false;
  *ns = *v;
  return true;
}

}  // namespace stepdoctor::csv
