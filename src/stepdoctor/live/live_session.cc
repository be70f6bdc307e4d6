#include "stepdoctor/live/live_session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cmath>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/live/live_sampler.h"
#include "stepdoctor/live/monitor.h"
#include "stepdoctor/live/samples_writer.h"

namespace stepdoctor::live {

Result<int64_t> ParseDurationNs(std::string_view text) {
  double v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  std::string_view unit = text.substr(size_t(r.ptr - text.data()));
  double scale = unit.empty() || unit == "s" ? 1e9 : unit == "ms" ? 1e6 : unit == "m" || unit == "min" ? 60e9
               : unit == "h" ? 3600e9 : -1;
  if (r.ec != std::errc() || scale < 0 || !(v > 0) || !std::isfinite(v))
    return Result<int64_t>(ErrorCode::kInvalidArgument,
                           "'" + std::string(text) + "' is not a duration (e.g. 1s, 500ms, 2m)");
  // Durations share the time range (core/checked_time.h): a "1e300s" interval is no interval.
  auto ns = UnitsToNs(v, scale);
  if (!ns || *ns <= 0)
    return Result<int64_t>(ErrorCode::kInvalidArgument,
                           "'" + std::string(text) + "' is not a duration that fits (at most about 146 years)");
  return *ns;
}

std::string FormatStatusLine(const Sample& s, int64_t samples, double elapsed_s) {
  int secs = int(elapsed_s);
  std::string line = fmt::format("{}:{:02d}", secs / 60, secs % 60);
  double cpu = s.Get(series::kProcCpuPct);
  if (cpu >= 0) line += fmt::format("  CPU {:.0f}%", cpu);
  // GPUs: the mean of gpu<N>_util_pct.
  double gsum = 0;
  int gn = 0;
  for (const auto& [n, v] : s.values)
    if (series::IsGpuSeries(n, series::GpuMetric::kUtilPct, nullptr)) gsum += v, ++gn;
  if (gn > 0) line += fmt::format("  GPU {:.0f}%", gsum / gn);
  double rd = s.Get(series::kDiskReadBytesPerS), wr = s.Get(series::kDiskWriteBytesPerS);
  if (rd >= 0) line += fmt::format("  disk {:.1f} MB/s", (rd + std::max(0.0, wr)) / 1e6);
  line += fmt::format("  {} samples", samples);
  return line;
}

LiveSessionResult RunLiveSession(int64_t root_pid, SamplesWriter& writer, const LiveSessionOptions& opts,
                                 const std::function<int()>& finish) {
  LiveSamplerOptions so;
  so.gpus = opts.gpus;
  so.nvml_library = opts.nvml_library;
  LiveSampler sampler(root_pid, so);
  if (sampler.nvml_status() != "ok" && opts.gpus && opts.note)
    opts.note("no GPU samples (" + sampler.nvml_status() + "); CPU, memory and disk are still sampled");

  LiveSessionResult res;
  SamplesHeader h;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) h.hostname = host;
  h.pid = root_pid;
  h.rank = opts.rank;
  h.command = opts.command;
  h.start_ns = res.start_ns = WallNowNs();
  h.interval_ns = opts.interval_ns;
  h.cores = int(::sysconf(_SC_NPROCESSORS_ONLN));
  h.gpus = sampler.gpus();
  h.nvml = sampler.nvml_status();
  writer.WriteHeader(h);

  MonitorOptions mo;
  mo.interval_ns = opts.interval_ns;
  mo.duration_ns = opts.duration_ns;
  mo.child_pid = opts.child_pid;
  mo.stop = opts.stop;
  const int64_t mono_start = MonotonicNowNs();
  if (opts.status)
    mo.on_sample = [&](const Sample& s, int64_t n) {
      opts.status(FormatStatusLine(s, n, double(MonotonicNowNs() - mono_start) / 1e9));
    };
  MonitorResult mr = RunMonitor(sampler, &writer, mo);
  res.samples = mr.samples;
  res.end_ns = mr.end_ns;
  int code = finish ? finish() : -1;
  writer.WriteEnd(WallNowNs(), code, mr.samples);
  return res;
}

}  // namespace stepdoctor::live
