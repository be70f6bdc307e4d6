// stepdoctor tfrecord inspect|verify|pack: build and check the TFRecord shards an input-bound
// job should read instead of many small files.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include "commands.h"
#include "stepdoctor/core/byte_size.h"
#include "stepdoctor/render/tfrecord_json.h"
#include "stepdoctor/tfrecord/tfrecord_inspect.h"
#include "stepdoctor/tfrecord/tfrecord_pack.h"
#include "stepdoctor/tfrecord/tfrecord_verify.h"

namespace stepdoctor::cli {
namespace {

using namespace stepdoctor::tfrecord;

std::string Bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.1f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} KB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

std::string Pow2(uint64_t b) {
  if (b >= (1ull << 30)) return fmt::format("{} GiB", b >> 30);
  if (b >= (1ull << 20)) return fmt::format("{} MiB", b >> 20);
  if (b >= (1ull << 10)) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

const char* ProblemText(Problem p) {
  switch (p) {
    case Problem::kLengthCrc: return "length checksum failed; reading resumed at the next valid header";
    case Problem::kDataCrc: return "data checksum failed; record skipped";
    case Problem::kTruncated: return "file ends inside this record";
    case Problem::kCompressed: return "compressed stream damaged or cut here; the rest is lost";
  }
  return "";
}

// `json`: the count of files passed over goes into the JSON, not a note on stdout.
std::optional<std::vector<std::string>> Expand(const std::vector<std::string>& paths, bool json, size_t* passed_over) {
  auto files = ExpandTfRecordPaths(paths, passed_over);
  if (!files.ok()) {
    PrintError(files.message());
    return std::nullopt;
  }
  if (*passed_over > 0 && !json)
    std::printf("note: passed over %zu files in the folders that are not TFRecord\n", *passed_over);
  return std::move(files).value();
}

bool CheckFormat(const std::string& format) {
  if (format == "text" || format == "json") return true;
  PrintError("--format: text or json");
  return false;
}

// A file that cannot be read at all: its one-line error on stderr, and exit status 2.
int UnreadableStatus(const std::vector<VerifyResult>& files) {
  int rc = kExitOk;
  for (const auto& v : files) {
    if (!v.error.ok()) {
      PrintError(v.error.message());
      rc = kExitBadInput;
    } else if (!v.ok() && rc == kExitOk) {
      rc = kExitFailOn;
    }
  }
  return rc;
}

// Prints one file's problems; returns the exit status it implies.
int PrintFile(const VerifyResult& v, bool print_ok) {
  if (!v.error.ok()) {
    PrintError(v.error.message());
    return kExitBadInput;
  }
  if (v.ok()) {
    if (print_ok)
      std::printf("OK   %s: %llu records, %s%s\n", v.name.c_str(), static_cast<unsigned long long>(v.records),
                  Bytes(double(v.bytes)).c_str(),
                  v.compression == Compression::kNone ? "" : fmt::format(" ({})", CompressionName(v.compression)).c_str());
    return kExitOk;
  }
  std::printf("BAD  %s: %llu sound records, %zu problems%s\n", v.name.c_str(), static_cast<unsigned long long>(v.records),
              v.problems.size(),
              v.compression == Compression::kNone ? "" : fmt::format(" (offsets in the {}-decompressed stream)", CompressionName(v.compression)).c_str());
  for (const auto& p : v.problems)
    std::printf("     offset %llu: %s (%s)\n", static_cast<unsigned long long>(p.offset), ProblemName(p.problem),
                ProblemText(p.problem));
  return kExitFailOn;
}

int RunVerify(const std::vector<std::string>& paths, int threads, bool quiet, const std::string& format) {
  if (!CheckFormat(format)) return kExitBadInput;
  size_t passed_over = 0;
  auto files = Expand(paths, format == "json", &passed_over);
  if (!files) return kExitBadInput;
  auto t0 = std::chrono::steady_clock::now();
  auto results = VerifyFiles(*files, threads > 0 ? threads : WorkerThreads());
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (format == "json") {
    std::fputs(RenderVerifyJson(results, s, passed_over).c_str(), stdout);
    return UnreadableStatus(results);
  }
  int rc = kExitOk;
  uint64_t records = 0, bytes = 0;
  size_t bad = 0;
  for (const auto& v : results) {
    rc = std::max(rc, PrintFile(v, !quiet));
    records += v.records;
    bytes += v.bytes;
    bad += !v.ok();
  }
  std::printf("verified %zu files: %llu records, %s in %.2f s (%s/s); %zu bad\n", results.size(),
              static_cast<unsigned long long>(records), Bytes(double(bytes)).c_str(), s,
              Bytes(s > 0 ? double(bytes) / s : 0).c_str(), bad);
  return rc;
}

int RunInspect(const std::vector<std::string>& paths, uint64_t max_records, const std::string& format) {
  if (!CheckFormat(format)) return kExitBadInput;
  size_t passed_over = 0;
  auto files = Expand(paths, format == "json", &passed_over);
  if (!files) return kExitBadInput;
  InspectOptions o;
  o.max_records = max_records;
  InspectResult r = InspectFiles(*files, o);
  if (format == "json") {
    std::fputs(RenderInspectJson(r, passed_over).c_str(), stdout);
    return UnreadableStatus(r.files);
  }
  int rc = kExitOk;
  for (const auto& v : r.files) {
    std::printf("%s: %llu records, %s, compression %s\n", v.name.c_str(), static_cast<unsigned long long>(v.records),
                Bytes(double(v.bytes)).c_str(), CompressionName(v.compression));
    if (!v.ok()) rc = std::max(rc, PrintFile(v, false));
  }
  if (r.records == 0) {
    std::printf("no records\n");
    return rc;
  }
  std::printf("\n%llu records, %s of record data; size min %s, mean %s, max %s\n",
              static_cast<unsigned long long>(r.records), Bytes(double(r.total_record_bytes)).c_str(),
              Bytes(double(r.min_record_bytes)).c_str(), Bytes(double(r.total_record_bytes) / double(r.records)).c_str(),
              Bytes(double(r.max_record_bytes)).c_str());
  std::printf("record sizes:\n");
  uint64_t most = *std::max_element(r.size_histogram.begin(), r.size_histogram.end());
  for (size_t i = 0; i < r.size_histogram.size(); ++i) {
    if (r.size_histogram[i] == 0) continue;
    std::string range = i == 0 ? "empty" : fmt::format("{} - {}", Pow2(1ull << (i - 1)), Pow2(1ull << i));
    std::printf("  %-20s %10llu %s\n", range.c_str(), static_cast<unsigned long long>(r.size_histogram[i]),
                std::string(size_t(40.0 * double(r.size_histogram[i]) / double(most) + 0.5), '#').c_str());
  }
  std::printf("\nschema from %llu records decoded: %llu Example, %llu SequenceExample, %llu not an Example\n",
              static_cast<unsigned long long>(r.sampled), static_cast<unsigned long long>(r.examples),
              static_cast<unsigned long long>(r.sequence_examples), static_cast<unsigned long long>(r.not_examples));
  if (!r.schema.empty()) {
    std::printf("  %-24s %-8s %10s %16s %20s\n", "feature", "type", "records", "values/record", "bytes/record");
    for (const auto& [key, s] : r.schema) {
      std::string type = std::string(FeatureTypeName(s.type)) + (s.mixed_types ? "*" : "") + (s.sequence ? "[]" : "");
      std::string len = s.min_len == s.max_len ? std::to_string(s.min_len) : fmt::format("{}-{}", s.min_len, s.max_len);
      std::string bytes = s.type != FeatureType::kBytes ? "-"
                          : s.min_bytes == s.max_bytes ? std::to_string(s.min_bytes)
                                                       : fmt::format("{}-{}", s.min_bytes, s.max_bytes);
      std::printf("  %-24s %-8s %10llu %16s %20s\n", key.c_str(), type.c_str(), static_cast<unsigned long long>(s.records),
                  len.c_str(), bytes.c_str());
    }
    bool mixed = false, sequence = false;
    for (const auto& [key, s] : r.schema) mixed |= s.mixed_types, sequence |= s.sequence;
    if (mixed) std::printf("  * records disagree on this feature's type (the first seen is shown)\n");
    if (sequence) std::printf("  [] a SequenceExample feature list: values are steps\n");
  }
  return rc;
}

struct PackCli {
  std::string input, output, shard_size, labels, compression = "none", prefix = "data";
  int shards = 0, threads = 0;
  uint64_t seed = 0;
};

int RunPack(const PackCli& c) {
  PackOptions o;
  o.input_dir = c.input;
  o.output_dir = c.output;
  o.shards = c.shards;
  o.labels_csv = c.labels;
  o.seed = c.seed;
  o.prefix = c.prefix;
  o.threads = c.threads > 0 ? c.threads : WorkerThreads();
  if (!c.shard_size.empty()) {
    auto size = ParseByteSize(c.shard_size);
    if (!size.ok()) {
      PrintError("--shard-size: " + size.message());
      return kExitBadInput;
    }
    o.shard_bytes = *size;
  }
  auto comp = ParseCompression(c.compression);
  if (!comp.ok()) {
    PrintError("--compression: " + comp.message());
    return kExitBadInput;
  }
  o.compression = *comp;
  auto t0 = std::chrono::steady_clock::now();
  auto r = PackFolder(o);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok()) {
    PrintError(r.message());
    return kExitBadInput;
  }
  uint64_t out_bytes = 0;
  for (const auto& sh : r->shards) out_bytes += sh.bytes;
  std::printf("packed %llu files (%s) into %zu shards (%s) in %s in %.2f s (%s/s read)\n",
              static_cast<unsigned long long>(r->records), Bytes(double(r->data_bytes)).c_str(), r->shards.size(),
              Bytes(double(out_bytes)).c_str(), c.output.c_str(), s,
              Bytes(s > 0 ? double(r->data_bytes) / s : 0).c_str());
  std::string labels;
  for (const auto& [name, id] : r->labels) labels += fmt::format("{}{}={}", labels.empty() ? "" : ", ", name, id);
  if (!labels.empty()) std::printf("labels: %s\n", labels.c_str());
  if (r->unlabeled > 0)
    std::printf("%llu files outside any subfolder have label -1\n", static_cast<unsigned long long>(r->unlabeled));
  std::printf("manifest: %s\n", r->manifest_path.c_str());
  if (!r->stale.empty())
    std::printf("note: %zu shards of an earlier pack are still in %s (not in the manifest), e.g. %s\n",
                r->stale.size(), c.output.c_str(), r->stale.front().c_str());
  if (!r->skipped.empty()) {
    std::printf("skipped %zu inputs (listed in the manifest):\n", r->skipped.size());
    for (size_t i = 0; i < r->skipped.size() && i < 10; ++i)
      std::printf("  %s: %s\n", r->skipped[i].path.c_str(), r->skipped[i].reason.c_str());
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupTfrecord(CLI::App& sub) {
  sub.require_subcommand(1);
  auto run = std::make_shared<std::function<int()>>();

  CLI::App* inspect = sub.add_subcommand("inspect", "records, size histogram, compression and Example schema");
  auto ipaths = std::make_shared<std::vector<std::string>>();
  auto max_records = std::make_shared<uint64_t>(0);
  inspect->add_option("paths", *ipaths, "TFRecord files or folders")->required();
  inspect->add_option("--max-records", *max_records, "decode at most this many records for the schema (0: all)");
  auto iformat = std::make_shared<std::string>("text");
  inspect->add_option("-f,--format", *iformat, "output format: text|json");
  inspect->callback([=] { *run = [=] { return RunInspect(*ipaths, *max_records, *iformat); }; });

  CLI::App* verify = sub.add_subcommand("verify", "check both CRC-32Cs of every record; exit 1 when any is bad");
  auto vpaths = std::make_shared<std::vector<std::string>>();
  auto threads = std::make_shared<int>(0);
  auto quiet = std::make_shared<bool>(false);
  verify->add_option("paths", *vpaths, "TFRecord files or folders")->required();
  verify->add_option("--threads", *threads, "files verified at once (default: STEPDOCTOR_THREADS or the cores)");
  verify->add_flag("-q,--quiet", *quiet, "print only bad files and the summary");
  auto vformat = std::make_shared<std::string>("text");
  verify->add_option("-f,--format", *vformat, "output format: text|json");
  verify->callback([=] { *run = [=] { return RunVerify(*vpaths, *threads, *quiet, *vformat); }; });

  CLI::App* pack = sub.add_subcommand("pack", "a folder of files into shuffled shards of tf.train.Example");
  auto p = std::make_shared<PackCli>();
  pack->add_option("dir", p->input, "folder of input files (labels from the first subfolder name)")->required();
  pack->add_option("-o,--output", p->output, "output folder for the shards and manifest.json")->required();
  auto* shards = pack->add_option("--shards", p->shards, "number of shards");
  pack->add_option("--shard-size", p->shard_size, "target shard size, e.g. 128MB (the default)")->excludes(shards);
  pack->add_option("--labels", p->labels, "CSV of path,label (paths relative to DIR) instead of subfolder names");
  pack->add_option("--seed", p->seed, "shuffle seed (the same seed gives the same shards)");
  pack->add_option("--compression", p->compression, "none|gzip|zlib (TFRecordDataset's compression_type)");
  pack->add_option("--prefix", p->prefix, "shard file name prefix (PREFIX-00000-of-00004.tfrecord)");
  pack->add_option("--threads", p->threads, "shards written at once (default: STEPDOCTOR_THREADS or the cores)");
  pack->callback([=] { *run = [=] { return RunPack(*p); }; });

  return [run] { return *run ? (*run)() : kExitBadInput; };
}

}  // namespace stepdoctor::cli
