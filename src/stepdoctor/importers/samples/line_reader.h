// Cuts a ByteSource into lines without reading it whole: a window of a few hundred KB that
// slides along the input. Shared by the JSON-lines and CSV importers.
#pragma once

#include <string>
#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"

namespace stepdoctor {

class LineReader {
 public:
  explicit LineReader(ByteSource& src) : src_(src) {}
  // Sets *line to the next line without its '\n' (and '\r'); false at the end of input.
  // The view stays valid until the next call. A last line without '\n' is returned too,
  // and ended_without_newline() then says so (a cut file).
  Result<bool> Next(std::string_view* line);
  bool ended_without_newline() const { return no_newline_; }
  int64_t line_number() const { return line_no_; }

 private:
  ByteSource& src_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false, no_newline_ = false;
  int64_t line_no_ = 0;
};

// `line` without its NUL bytes (a log's padding after a crash or a copy), in *buf where it had
// any; adds how many to *dropped.
std::string_view WithoutNuls(std::string_view line, std::string* buf, int64_t* dropped);

}  // namespace stepdoctor
