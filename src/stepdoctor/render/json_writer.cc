#include "stepdoctor/render/json_writer.h"

#include <iterator>

#include <fmt/format.h>

#include <cmath>

namespace stepdoctor {

void JsonWriter::Escape(std::string& out, std::string_view s) {
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) out += fmt::format("\\u{:04x}", c);
        else out += static_cast<char>(c);
    }
  }
  out += '"';
}

void JsonWriter::Newline() {
  if (indent_ <= 0) return;
  out_ += '\n';
  out_.append(first_.size() * indent_, ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_ += ',';
    first_.back() = false;
    Newline();
  }
}

JsonWriter& JsonWriter::BeginObject() {
  BeforeValue();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) Newline();
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  BeforeValue();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  bool empty = first_.back();
  first_.pop_back();
  if (!empty) Newline();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view k) {
  BeforeValue();
  Escape(out_, k);
  out_ += indent_ > 0 ? ": " : ":";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view s) {
  BeforeValue();
  Escape(out_, s);
  return *this;
}

JsonWriter& JsonWriter::Number(double v, int decimals) {
  if (exact_) return Exact(v);
  BeforeValue();
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  std::string s = fmt::format("{:.{}f}", v, decimals);
  // Trim trailing zeros for readability: 12.500 -> 12.5, 3.000 -> 3
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  out_ += s;
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t v) {
  BeforeValue();
  out_ += std::to_string(v);
  return *this;
}

JsonWriter& JsonWriter::Exact(double v) {
  BeforeValue();
  if (!std::isfinite(v)) out_ += "null";
  else fmt::format_to(std::back_inserter(out_), "{}", v);
  return *this;
}

JsonWriter& JsonWriter::Raw(std::string_view json) {
  BeforeValue();
  out_ += json;
  return *this;
}

JsonWriter& JsonWriter::Bool(bool b) {
  BeforeValue();
  out_ += b ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::StringArray(const std::vector<std::string>& items) {
  BeginArray();
  for (const auto& i : items) String(i);
  return EndArray();
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

}  // namespace stepdoctor
