#include "stepdoctor/core/byte_size.h"

#include <cctype>
#include <cstdlib>

namespace stepdoctor {

Result<uint64_t> ParseByteSize(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  std::string unit = text.substr(i);
  double v = i > 0 ? std::atof(text.substr(0, i).c_str()) : -1;
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();  // MiB, GiB
  double mult = unit.empty() || unit == "B" ? 1 : unit == "K" ? 1024.0 : unit == "M" ? 1048576.0 : unit == "G" ? 1073741824.0 : 0;
  if (v <= 0 || mult == 0)
    return Result<uint64_t>(ErrorCode::kInvalidArgument, "bad size '" + text + "' (e.g. 128MB, 1G, 4096)");
  return static_cast<uint64_t>(v * mult);
}

}  // namespace stepdoctor
