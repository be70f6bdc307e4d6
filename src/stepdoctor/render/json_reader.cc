#include "stepdoctor/render/json_reader.h"

#include <fmt/format.h>

#include <limits>

namespace stepdoctor::json_read {
namespace {

// simdjson's DOM refuses a whole number past the 64-bit integers, and RenderJson writes a double
// that large (2^64 and over) without a fraction, having none: give each long whole number outside
// strings a ".0" so it reads as the double it is.
std::string WithFractions(std::string_view json) {
  auto digit = [&](size_t i) { return i < json.size() && json[i] >= '0' && json[i] <= '9'; };
  std::string out;
  out.reserve(json.size() + 64);
  bool in_string = false;
  for (size_t i = 0; i < json.size();) {
    const char c = json[i];
    if (in_string || c == '"') {
      out += c;
      ++i;
      if (in_string && c == '\\' && i < json.size()) out += json[i++];
      else if (c == '"') in_string = !in_string;
      continue;
    }
    if (c != '-' && !digit(i)) {
      out += c;
      ++i;
      continue;
    }
    size_t j = i + (c == '-');
    const size_t whole = j;
    while (digit(j)) ++j;
    const size_t whole_digits = j - whole;
    bool fraction = false;
    if (j < json.size() && json[j] == '.') {
      fraction = true;
      for (++j; digit(j);) ++j;
    }
    if (j < json.size() && (json[j] == 'e' || json[j] == 'E')) {
      fraction = true;
      ++j;
      if (j < json.size() && (json[j] == '+' || json[j] == '-')) ++j;
      while (digit(j)) ++j;
    }
    out.append(json.substr(i, j - i));
    if (!fraction && whole_digits >= 19) out += ".0";
    i = j;
  }
  return out;
}

}  // namespace

std::string Path::Str() const {
  if (!parent) return std::string(key);
  std::string up = parent->Str();
  if (is_index) return fmt::format("{}[{}]", up, index);
  return up.empty() ? std::string(key) : fmt::format("{}.{}", up, key);
}

Status Bad(const Path& p, std::string_view what) {
  return Status(ErrorCode::kCorruptInput, fmt::format("{}: {}", p.Str(), what));
}

Status Read(element e, const Path& p, std::string* out) {
  std::string_view s;
  if (e.get_string().get(s)) return Bad(p, "expected a string");
  out->assign(s);
  return {};
}

Status Read(element e, const Path& p, bool* out) {
  if (e.get_bool().get(*out)) return Bad(p, "expected true or false");
  return {};
}

Status Read(element e, const Path& p, double* out) {
  if (e.is_null()) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return {};
  }
  if (e.get_double().get(*out)) return Bad(p, "expected a number");
  return {};
}

Status Read(element e, const Path& p, std::optional<double>* out) {
  out->reset();
  if (e.is_null()) return {};
  double v = 0;
  if (e.get_double().get(v)) return Bad(p, "expected a number or null");
  *out = v;
  return {};
}

Status Read(element e, const Path& p, int64_t* out) {
  if (!e.is_int64()) return Bad(p, "expected an integer");
  *out = e.get_int64().value_unsafe();
  return {};
}

Status Read(element e, const Path& p, std::optional<int64_t>* out) {
  out->reset();
  if (e.is_null()) return {};
  int64_t v = 0;
  SD_JSON_TRY(Read(e, p, &v));
  *out = v;
  return {};
}

Status Read(element e, const Path& p, int* out) {
  int64_t v = 0;
  SD_JSON_TRY(Read(e, p, &v));
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    return Bad(p, fmt::format("{} is out of range", v));
  *out = int(v);
  return {};
}

Status Parse(simdjson::dom::parser& parser, std::string_view json, element* root) {
  simdjson::padded_string padded(json);
  auto err = parser.parse(padded).get(*root);
  if (err == simdjson::NUMBER_ERROR) {
    padded = simdjson::padded_string(WithFractions(json));
    err = parser.parse(padded).get(*root);
  }
  if (err) return Status(ErrorCode::kCorruptInput, fmt::format("invalid JSON: {}", simdjson::error_message(err)));
  return {};
}

}  // namespace stepdoctor::json_read
