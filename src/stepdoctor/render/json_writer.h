// A small streaming JSON writer (no DOM): keys, strings escaped, numbers rounded for reading.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace stepdoctor {

class JsonWriter {
 public:
  // exact: Number() writes as Exact() does, whatever its decimals.
  explicit JsonWriter(int indent = 2, bool exact = false) : indent_(indent), exact_(exact) {}
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view k);
  JsonWriter& String(std::string_view s);
  JsonWriter& Number(double v, int decimals = 3);
  JsonWriter& Int(int64_t v);
  // The shortest text that reads back as the same double (files read back, not by people).
  JsonWriter& Exact(double v);
  // A value already in JSON, inserted as it is.
  JsonWriter& Raw(std::string_view json);
  JsonWriter& Bool(bool b);
  JsonWriter& Null();
  // An array of strings, the value of the current key.
  JsonWriter& StringArray(const std::vector<std::string>& items);
  std::string Take() { return std::move(out_); }

  static void Escape(std::string& out, std::string_view s);

 private:
  void BeforeValue();
  void Newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
  int indent_;
  bool exact_;
};

}  // namespace stepdoctor
