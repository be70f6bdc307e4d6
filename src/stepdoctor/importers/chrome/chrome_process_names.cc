#include "stepdoctor/importers/chrome/chrome_process_names.h"

namespace stepdoctor::chrome {

int TrailingDeviceNumber(std::string_view s, std::string_view marker) {
  size_t at = s.find(marker);
  if (at == std::string_view::npos) return -1;
  at += marker.size();
  int v = 0;
  bool any = false;
  while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
    v = v * 10 + (s[at++] - '0');
    any = true;
  }
  return any ? v : -1;
}

std::pair<std::string_view, int> DeviceProcessName(std::string_view n) {
  size_t sp = n.rfind(' ');
  std::string_view word, num;
  if (sp != std::string_view::npos && sp > 0 && sp + 1 < n.size()) {
    word = n.substr(0, sp);
    num = n.substr(sp + 1);
  } else if (sp == std::string_view::npos) {
    // "GPU0", as rocprof names its agents: the word runs up to the first digit.
    size_t d = 0;
    while (d < n.size() && !(n[d] >= '0' && n[d] <= '9')) ++d;
    if (d == 0 || d == n.size()) return {{}, -1};
    word = n.substr(0, d);
    num = n.substr(d);
  } else {
    return {{}, -1};
  }
  for (char c : word)
    if (!(c >= 'A' && c <= 'Z')) return {{}, -1};
  int v = 0;
  for (char c : num) {
    if (c < '0' || c > '9') return {{}, -1};
    v = v * 10 + (c - '0');
  }
  if (word == "CPU") return {{}, -1};
  return {word, v};
}

}  // namespace stepdoctor::chrome
