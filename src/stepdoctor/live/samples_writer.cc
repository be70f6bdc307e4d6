#include "stepdoctor/live/samples_writer.h"

#include <fmt/format.h>

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

Result<std::unique_ptr<SamplesWriter>> SamplesWriter::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return Result<std::unique_ptr<SamplesWriter>>(ErrorCode::kIoError, path + ": " + std::strerror(errno));
  return std::unique_ptr<SamplesWriter>(new SamplesWriter(f, path));
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
