#include "stepdoctor/live/samples_writer.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

namespace stepdoctor::live {

std::string JsonQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", int(c));
        else out += c;
    }
  }
  return out + "\"";
}

std::string SamplesHeaderJson(const SamplesHeader& h) {
  std::string s = fmt::format("{{\"stepdoctor_samples\":{},\"hostname\":{},\"pid\":{},\"start_ns\":{},\"interval_ns\":{},\"cores\":{}",
                              kSamplesFormatVersion, JsonQuote(h.hostname), h.pid, h.start_ns, h.interval_ns, h.cores);
  if (h.rank >= 0) s += fmt::format(",\"rank\":{}", h.rank);
  s += ",\"command\":[";
  for (size_t i = 0; i < h.command.size(); ++i) s += (i ? "," : "") + JsonQuote(h.command[i]);
  s += "],\"gpus\":[";
  for (size_t i = 0; i < h.gpus.size(); ++i)
    s += fmt::format("{}{{\"index\":{},\"name\":{},\"memory_total_bytes\":{}}}", i ? "," : "", h.gpus[i].index,
                     JsonQuote(h.gpus[i].name), h.gpus[i].memory_total_bytes);
  s += "],\"nvml\":" + JsonQuote(h.nvml) + "}";
  return s;
}

std::string SampleJson(const Sample& smp) {
  std::string s = fmt::format("{{\"ts_ns\":{}", smp.ts_ns);
  for (const auto& [name, v] : smp.values) {
    if (!std::isfinite(v)) continue;  // JSON has no NaN; a missing key means "not sampled"
    double r = std::round(v * 1000.0) / 1000.0;
    s += fmt::format(",{}:{}", JsonQuote(name), r);
  }
  return s + "}";
}

namespace {

constexpr int kMaxNameTries = 1000;  // "-2" .. "-1000": past that a folder is not one job's

// "dir/x.jsonl", 3 -> "dir/x-3.jsonl" (the suffix before the last extension of the file name).
std::string NumberedName(const std::string& path, int n) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
  return path.substr(0, dot) + "-" + std::to_string(n) + path.substr(dot);
}

}  // namespace

Result<std::unique_ptr<SamplesWriter>> SamplesWriter::Create(const std::string& path, SamplesPathMode mode) {
  using R = Result<std::unique_ptr<SamplesWriter>>;
  for (int n = 1; n <= kMaxNameTries; ++n) {
    const std::string name = n == 1 ? path : NumberedName(path, n);
    int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      std::FILE* f = ::fdopen(fd, "w");  // "w" on an fd truncates nothing: the file is new
      if (!f) {
        int e = errno;
        ::close(fd);
        return R(ErrorCode::kIoError, name + ": " + std::strerror(e));
      }
      return std::unique_ptr<SamplesWriter>(new SamplesWriter(f, name));
    }
    if (errno != EEXIST) return R(ErrorCode::kIoError, name + ": " + std::strerror(errno));
    if (mode == SamplesPathMode::kExact)
      return R(ErrorCode::kInvalidArgument, name + ": the file exists and is not overwritten (choose another --out)");
  }
  return R(ErrorCode::kIoError, path + ": " + std::to_string(kMaxNameTries) + " samples files of that name exist already");
}

SamplesWriter::~SamplesWriter() {
  if (f_) std::fclose(f_);
}

void SamplesWriter::Line(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), f_);
  std::fputc('\n', f_);
  std::fflush(f_);
}

void SamplesWriter::WriteHeader(const SamplesHeader& h) { Line(SamplesHeaderJson(h)); }
void SamplesWriter::Write(const Sample& s) { Line(SampleJson(s)); }
void SamplesWriter::WriteEnd(int64_t ts_ns, int exit_code, int64_t samples) {
  Line(fmt::format("{{\"stepdoctor_samples_end\":true,\"ts_ns\":{},\"exit_code\":{},\"samples\":{}}}", ts_ns, exit_code,
                   samples));
}

}  // namespace stepdoctor::live
