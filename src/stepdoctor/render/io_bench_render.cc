#include "stepdoctor/render/io_bench_render.h"

#include <fmt/format.h>

#include "stepdoctor/render/json_writer.h"

namespace stepdoctor {
namespace {

void Optional(JsonWriter& j, const char* key, const std::optional<double>& v, int decimals = 1) {
  j.Key(key);
  if (v) j.Number(*v, decimals);
  else j.Null();
}

std::string Size(double b) { return IoBenchSize(b); }

}  // namespace

std::string IoBenchSize(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

std::string RenderIoBenchText(const IoBenchReport& r) {
  std::string out;
  out += fmt::format("io-bench {}: {} files, {} ({} small < {} MiB, mean {}; {} large)\n", r.path, r.files,
                     Size(double(r.bytes)), r.small_files, r.small_file_threshold_bytes >> 20,
                     Size(r.mean_small_file_bytes), r.large_files);
  out += fmt::format("cache: {}\n\n", r.cache_note);
  out += fmt::format("  {:<12} {:>7} {:>9} {:>10} {:>8} {:>10} {:>10}\n", "read", "readers", "files", "bytes",
                     "seconds", "MB/s", "files/s");
  for (const auto& p : r.phases)
    out += fmt::format("  {:<12} {:>7} {:>9} {:>10} {:>8.2f} {:>10.1f} {:>10}\n", p.kind, p.readers, p.files,
                       Size(double(p.bytes)), p.seconds, p.mb_per_s,
                       p.kind == kPhaseSmallFiles ? fmt::format("{:.0f}", p.files_per_s) : "-");
  if (r.need)
    out += fmt::format("\njob needs: {:.0f} samples/s x {} = {:.1f} MB/s ({})\n", r.need->samples_per_s,
                       Size(r.need->bytes_per_sample), r.need->mb_per_s, r.need->source);
  out += "\n";
  for (const auto& f : r.findings) out += "- " + f + "\n";
  return out;
}

std::string RenderIoBenchJson(const IoBenchReport& r) {
  JsonWriter j;
  j.BeginObject();
  j.Key("path").String(r.path);
  j.Key("cold").Bool(r.cold);
  j.Key("cache_note").String(r.cache_note);
  j.Key("files").Int(int64_t(r.files));
  j.Key("bytes").Int(int64_t(r.bytes));
  j.Key("small_files").Int(int64_t(r.small_files));
  j.Key("large_files").Int(int64_t(r.large_files));
  j.Key("small_file_threshold_bytes").Int(int64_t(r.small_file_threshold_bytes));
  j.Key("mean_file_bytes").Number(r.mean_file_bytes, 0);
  j.Key("mean_small_file_bytes").Number(r.mean_small_file_bytes, 0);
  j.Key("phases").BeginArray();
  for (const auto& p : r.phases) {
    j.BeginObject();
    j.Key("kind").String(p.kind);
    j.Key("readers").Int(p.readers);
    j.Key("files").Int(int64_t(p.files));
    j.Key("bytes").Int(int64_t(p.bytes));
    j.Key("seconds").Number(p.seconds, 3);
    j.Key("mb_per_s").Number(p.mb_per_s, 1);
    j.Key("files_per_s").Number(p.files_per_s, 0);
    j.EndObject();
  }
  j.EndArray();
  Optional(j, "sequential_mb_per_s", r.sequential_mb_per_s);
  Optional(j, "small_files_per_s", r.small_files_per_s, 0);
  Optional(j, "small_mb_per_s", r.small_mb_per_s);
  Optional(j, "small_file_penalty", r.small_file_penalty, 2);
  j.Key("need");
  if (r.need) {
    j.BeginObject();
    j.Key("samples_per_s").Number(r.need->samples_per_s, 1);
    j.Key("bytes_per_sample").Number(r.need->bytes_per_sample, 0);
    j.Key("mb_per_s").Number(r.need->mb_per_s, 1);
    j.Key("source").String(r.need->source);
    j.EndObject();
  } else {
    j.Null();
  }
  j.Key("can_feed");
  if (r.can_feed) j.Bool(*r.can_feed);
  else j.Null();
  j.Key("readers_needed").Int(r.readers_needed);
  j.Key("read_path").String(r.read_path);
  j.Key("packing_helps");
  if (r.packing_helps) j.Bool(*r.packing_helps);
  else j.Null();
  j.Key("findings").StringArray(r.findings);
  j.EndObject();
  return j.Take() + "\n";
}

}  // namespace stepdoctor
