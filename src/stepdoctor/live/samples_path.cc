#include "stepdoctor/live/samples_path.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace stepdoctor::live {
namespace {

constexpr size_t kMaxHostChars = 64;  // a longer host name is cut: file names stay readable

bool SafeFileChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
         c == '_';
}

}  // namespace

int RankFromEnvironment(const std::function<const char*(const char*)>& getenv) {
  for (const char* var : {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK"}) {
    const char* v = getenv ? getenv(var) : std::getenv(var);
    if (!v || !*v) continue;
    int rank = -1;
    std::string_view s(v);
    auto r = std::from_chars(s.data(), s.data() + s.size(), rank);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size() && rank >= 0) return rank;
  }
  return -1;
}

std::string DefaultSamplesName(std::string_view host, int rank, int64_t pid, std::time_t started) {
  std::tm tm{};
  localtime_r(&started, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y%m%d-%H%M%S", &tm);
  std::string h;
  for (char c : host.substr(0, kMaxHostChars)) h += SafeFileChar(c) ? c : '_';
  if (h.empty()) h = "host";
  std::string name = "stepdoctor-samples-" + std::string(when) + "-" + h;
  if (rank >= 0) name += "-rank" + std::to_string(rank);
  return name + "-pid" + std::to_string(pid) + ".jsonl";
}

std::string DefaultSamplesNameNow() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return DefaultSamplesName(host, RankFromEnvironment(), int64_t(::getpid()), std::time(nullptr));
}

}  // namespace stepdoctor::live
