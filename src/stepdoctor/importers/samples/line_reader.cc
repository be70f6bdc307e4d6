#include "stepdoctor/importers/samples/line_reader.h"

#include <algorithm>

namespace stepdoctor {

constexpr size_t kChunkBytes = 256 * 1024;  // read size; lines longer than this grow the window

Result<bool> LineReader::Next(std::string_view* line) {
  for (;;) {
    size_t nl = buf_.find('\n', pos_);
    if (nl != std::string::npos || eof_) {
      if (nl == std::string::npos) {
        if (pos_ >= buf_.size()) return false;
        nl = buf_.size();
        no_newline_ = true;
      }
      std::string_view l(buf_.data() + pos_, nl - pos_);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      pos_ = nl + 1;
      ++line_no_;
      *line = l;
      return true;
    }
    buf_.erase(0, pos_);
    pos_ = 0;
    size_t old = buf_.size();
    buf_.resize(old + kChunkBytes);
    auto n = src_.Read(buf_.data() + old, kChunkBytes);
    if (!n.ok()) return n.status();
    buf_.resize(old + *n);
    if (*n == 0) eof_ = true;
  }
}

std::string_view WithoutNuls(std::string_view line, std::string* buf, int64_t* dropped) {
  if (line.find('\0') == std::string_view::npos) return line;
  buf->assign(line);
  const size_t before = buf->size();
  buf->erase(std::remove(buf->begin(), buf->end(), '\0'), buf->end());
  *dropped += int64_t(before - buf->size());
  return *buf;
}

}  // namespace stepdoctor
