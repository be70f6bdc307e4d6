#include "stepdoctor/importers/samples/nvidia_smi_table_rows.h"

#include <cctype>
#include <vector>

namespace stepdoctor::smitable {
namespace {

constexpr int kMaxGpuIndex = 100000;  // a longer number in the first column is not a GPU index

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The whitespace-separated words of s.
std::vector<std::string_view> Words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsSpace(s[i])) ++i;
    size_t j = i;
    while (j < s.size() && !IsSpace(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// The cells between the '|' of a table line ("| a | b |" -> {" a ", " b "}); empty when the
// line does not start with '|'.
std::vector<std::string_view> Cells(std::string_view line) {
  std::vector<std::string_view> out;
  if (line.empty() || line[0] != '|') return out;
  size_t start = 1;
  for (size_t p; (p = line.find('|', start)) != std::string_view::npos; start = p + 1) out.push_back(line.substr(start, p - start));
  return out;
}

// A leading number ("0", "12"), or -1.
int Index(std::string_view w) {
  if (w.empty() || w.size() > 5) return -1;
  int n = 0;
  for (char c : w) {
    if (!IsDigit(c)) return -1;
    n = n * 10 + (c - '0');
  }
  return n < kMaxGpuIndex ? n : -1;
}

// "A / B" in a cell's words: the word before the '/' and the one after. Also "A/B" glued,
// but not "N/A", which is a value.
bool UsedSlashTotal(const std::vector<std::string_view>& w, size_t* slash_at, std::string_view* a, std::string_view* b) {
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "/" && i > 0 && i + 1 < w.size()) {
      *slash_at = i - 1;
      *a = w[i - 1], *b = w[i + 1];
      return true;
    }
  }
  for (size_t i = 0; i < w.size(); ++i) {
    size_t p = w[i].find('/');
    if (p == std::string_view::npos || w[i] == "N/A" || p == 0 || p + 1 == w[i].size()) continue;
    *slash_at = i;
    *a = w[i].substr(0, p), *b = w[i].substr(p + 1);
    return true;
  }
  return false;
}

}  // namespace

bool IsBanner(std::string_view line) {
  return line.find("NVIDIA-SMI") != std::string_view::npos && line.find("Driver Version") != std::string_view::npos;
}

bool IsProcessesTitle(std::string_view line) { return line.find("Processes:") != std::string_view::npos; }

bool ParseGpuHead(std::string_view line, GpuHead* out) {
  if (line.empty() || line[0] != '|') return false;
  size_t i = line.find_first_not_of(' ', 1);
  if (i == std::string_view::npos || !IsDigit(line[i])) return false;
  size_t e = i;
  while (e < line.size() && IsDigit(line[e])) ++e;
  int n = Index(line.substr(i, e - i));
  if (n < 0 || e + 1 >= line.size() || line[e] != ' ') return false;
  size_t name_at = line.find_first_not_of(' ', e);
  if (name_at == std::string_view::npos || !std::isalpha(static_cast<unsigned char>(line[name_at]))) return false;
  size_t bar = line.find('|', name_at);
  std::vector<std::string_view> w = Words(line.substr(name_at, bar == std::string_view::npos ? bar : bar - name_at));
  // The persistence mode (Linux) or driver model (Windows) closes the cell.
  if (w.size() > 1 && (w.back() == "On" || w.back() == "Off" || w.back() == "WDDM" || w.back() == "TCC" ||
                       w.back() == "N/A"))
    w.pop_back();
  if (w.empty()) return false;
  out->index = n;
  out->name = std::string_view(w.front().data(), size_t(w.back().data() + w.back().size() - w.front().data()));
  return true;
}

bool ParseGpuFigures(std::string_view line, GpuFigures* out) {
  std::vector<std::string_view> cells = Cells(line);
  if (cells.size() < 3) return false;
  GpuFigures f;
  size_t at;
  std::vector<std::string_view> mem = Words(cells[1]);
  if (!UsedSlashTotal(mem, &at, &f.mem_used, &f.mem_total)) return false;
  std::vector<std::string_view> w = Words(cells[0]);
  size_t before = w.size();  // the words before the power draw: fan, temperature, performance state
  if (UsedSlashTotal(w, &at, &f.power_draw, &f.power_cap)) before = at;
  if (before == 3) {
    f.fan = w[0], f.temp = w[1], f.perf = w[2];
  } else {
    // A layout with fewer words: told apart by their units.
    for (size_t i = 0; i < before; ++i) {
      std::string_view v = w[i];
      if (v.back() == '%') f.fan = v;
      else if (v.back() == 'C' && v.size() > 1 && IsDigit(v[v.size() - 2])) f.temp = v;
      else if (v[0] == 'P' && v.size() > 1 && IsDigit(v[1])) f.perf = v;
    }
  }
  std::vector<std::string_view> u = Words(cells[2]);
  if (!u.empty()) f.util = u[0];
  *out = f;
  return true;
}

bool ParseProcessRow(std::string_view line, ProcessRow* out) {
  std::vector<std::string_view> cells = Cells(line);
  if (cells.empty()) return false;
  std::vector<std::string_view> w = Words(cells[0]);
  if (w.size() < 3) return false;
  int gpu = Index(w[0]);
  if (gpu < 0) return false;
  std::string_view mem = w.back();
  bool mib = mem.size() > 3 && mem.substr(mem.size() - 3) == "MiB";
  if (!mib && mem != "N/A") return false;
  out->gpu = gpu;
  out->memory = mem;
  return true;
}

}  // namespace stepdoctor::smitable
