#include "stepdoctor/tfrecord/tfrecord_pack.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "stepdoctor/render/json_writer.h"
#include "stepdoctor/tfrecord/example_wire.h"
#include "stepdoctor/tfrecord/tfrecord_writer.h"

namespace stepdoctor::tfrecord {
namespace fs = std::filesystem;
namespace {

struct Input {
  std::string rel;   // path relative to input_dir: the `path` feature
  uint64_t size = 0;
  int64_t label = -1;
};

// Reads the files of one shard in order, each opened a window ahead and handed to the kernel
// to read in (posix_fadvise WILLNEED), so cold small files are fetched many at once instead of
// one read at a time; each is read with one read(2) into a buffer reused from file to file.
class AheadReader {
 public:
  static constexpr size_t kWindow = 32;              // files opened ahead of the one read
  static constexpr uint64_t kAdviseBytes = 8 << 20;  // of each, at most this much asked for ahead

  AheadReader(const std::string& dir, const std::vector<Input>& inputs, size_t begin, size_t end)
      : dir_(dir), inputs_(inputs), end_(end), fds_(kWindow, -1) {
    for (size_t i = begin; i < end && i < begin + kWindow; ++i) OpenAhead(i);
  }
  ~AheadReader() {
    for (int fd : fds_)
      if (fd >= 0) ::close(fd);
  }

  // File `i` (taken in order), whole; the view lasts until the next call.
  Result<std::string_view> Read(size_t i) {
    int fd = fds_[i % kWindow];
    fds_[i % kWindow] = -1;
    if (i + kWindow < end_) OpenAhead(i + kWindow);
    if (fd < 0) return Result<std::string_view>(ErrorCode::kIoError, std::strerror(-fd));
    // One byte more than listed: a read that returns short has met the end (a regular file).
    buf_.resize(inputs_[i].size + 1);
    size_t n = 0;
    int err = 0;
    for (;;) {
      if (n == buf_.size()) buf_.resize(buf_.size() * 2);
      ssize_t r = ::read(fd, buf_.data() + n, buf_.size() - n);
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) err = errno;
      if (r <= 0) break;
      n += size_t(r);
      if (n < buf_.size()) break;
    }
    ::close(fd);
    if (err) return Result<std::string_view>(ErrorCode::kIoError, std::strerror(err));
    return std::string_view(buf_.data(), n);
  }

 private:
  void OpenAhead(size_t i) {
    int fd = ::open((dir_ + "/" + inputs_[i].rel).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      fds_[i % kWindow] = -errno;
      return;
    }
    ::posix_fadvise(fd, 0, off_t(std::min(inputs_[i].size, kAdviseBytes)), POSIX_FADV_WILLNEED);
    fds_[i % kWindow] = fd;
  }

  const std::string& dir_;
  const std::vector<Input>& inputs_;
  size_t end_;
  std::vector<int> fds_;  // file i at i % kWindow: an open descriptor, or -errno
  std::string buf_;
};

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '"')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '"')) ++i;
  return s.substr(i);
}

// "path,label" rows; a first row whose label column is "label" is a header. Labels that are all
// integers keep their values; otherwise names are numbered in sorted order.
Status ReadLabelsCsv(const std::string& csv, std::map<std::string, std::string>* by_path) {
  std::ifstream in(csv);
  if (!in) return Status(ErrorCode::kNotFound, csv + ": cannot open the labels CSV");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (Trim(line).empty()) continue;
    auto comma = line.rfind(',');
    if (comma == std::string::npos)
      return Status(ErrorCode::kInvalidArgument, fmt::format("{}:{}: expected 'path,label'", csv, n));
    std::string path = Trim(line.substr(0, comma)), label = Trim(line.substr(comma + 1));
    if (n == 1 && label == "label") continue;
    (*by_path)[fs::path(path).lexically_normal().string()] = label;
  }
  return Status::Ok();
}

bool IsInteger(const std::string& s) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  return i < s.size() && std::all_of(s.begin() + i, s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Files under `dir`, sorted by relative path, skipping the output folder if it lies inside.
Status ListInputs(const PackOptions& o, std::vector<Input>* inputs, std::vector<SkippedInput>* skipped) {
  std::error_code ec;
  fs::path root(o.input_dir);
  if (!fs::is_directory(root, ec)) return Status(ErrorCode::kNotFound, o.input_dir + ": not a folder");
  fs::path out = fs::weakly_canonical(o.output_dir, ec);
  auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
  if (ec) return Status(ErrorCode::kIoError, o.input_dir + ": cannot list: " + ec.message());
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return Status(ErrorCode::kIoError, o.input_dir + ": cannot list: " + ec.message());
    if (it->is_directory(ec) && fs::weakly_canonical(it->path(), ec) == out) {
      it.disable_recursion_pending();
      continue;
    }
    // Lexically: a symlinked file keeps the name it has in the folder.
    std::string rel = it->path().lexically_relative(root).string();
    if (!it->is_regular_file(ec)) {
      if (!it->is_directory(ec)) skipped->push_back({rel, "not a regular file"});
      continue;
    }
    inputs->push_back({rel, it->file_size(ec), -1});
  }
  std::sort(inputs->begin(), inputs->end(), [](const Input& a, const Input& b) { return a.rel < b.rel; });
  return Status::Ok();
}

Status AssignLabels(const PackOptions& o, std::vector<Input>* inputs, PackResult* r) {
  std::map<std::string, std::string> csv;
  if (!o.labels_csv.empty()) {
    Status s = ReadLabelsCsv(o.labels_csv, &csv);
    if (!s.ok()) return s;
  }
  std::vector<Input> kept;
  std::vector<std::string> names;  // label name per kept input ("" = none)
  for (Input& in : *inputs) {
    std::string name;
    if (!o.labels_csv.empty()) {
      auto it = csv.find(fs::path(in.rel).lexically_normal().string());
      if (it == csv.end()) {
        r->skipped.push_back({in.rel, "not listed in " + o.labels_csv});
        continue;
      }
      name = it->second;
    } else if (auto slash = in.rel.find('/'); slash != std::string::npos) {
      name = in.rel.substr(0, slash);
    }
    kept.push_back(in);
    names.push_back(name);
  }
  bool numeric = !o.labels_csv.empty() &&
                 std::all_of(names.begin(), names.end(), [](const std::string& n) { return IsInteger(n); });
  for (const auto& n : names)
    if (!n.empty()) r->labels[n] = 0;
  int64_t next = 0;
  for (auto& [name, id] : r->labels) id = numeric ? std::stoll(name) : next++;
  for (size_t i = 0; i < kept.size(); ++i) kept[i].label = names[i].empty() ? -1 : r->labels[names[i]];
  *inputs = std::move(kept);
  return Status::Ok();
}

// Fisher-Yates with a fixed generator, so a seed gives the same order on every platform.
void Shuffle(std::vector<Input>* v, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[rng() % i]);
}

// Shard boundaries: [bounds[k], bounds[k+1]) of the shuffled inputs.
std::vector<size_t> ShardBounds(const PackOptions& o, const std::vector<Input>& inputs) {
  std::vector<size_t> bounds{0};
  if (o.shards > 0) {
    size_t n = std::min<size_t>(o.shards, std::max<size_t>(inputs.size(), 1));
    for (size_t k = 1; k <= n; ++k) bounds.push_back(inputs.size() * k / n);
    return bounds;
  }
  // Records carry the data plus the path and about 40 bytes of framing and Example fields.
  uint64_t in_shard = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    uint64_t rec = inputs[i].size + inputs[i].rel.size() + 40;
    if (in_shard > 0 && in_shard + rec > o.shard_bytes) {
      bounds.push_back(i);
      in_shard = 0;
    }
    in_shard += rec;
  }
  bounds.push_back(inputs.size());
  return bounds;
}

Status WriteManifest(const PackOptions& o, PackResult* r) {
  JsonWriter j;
  j.BeginObject();
  j.Key("format").String("tfrecord");
  j.Key("compression").String(CompressionName(o.compression));
  j.Key("example").BeginObject().Key("data").String("bytes").Key("label").String("int64").Key("path").String("bytes").EndObject();
  j.Key("seed").Int(static_cast<int64_t>(o.seed));
  j.Key("records").Int(static_cast<int64_t>(r->records));
  j.Key("data_bytes").Int(static_cast<int64_t>(r->data_bytes));
  j.Key("unlabeled").Int(static_cast<int64_t>(r->unlabeled));
  j.Key("labels").BeginObject();
  for (const auto& [name, id] : r->labels) j.Key(name).Int(id);
  j.EndObject();
  j.Key("label_counts").BeginObject();
  for (const auto& [id, n] : r->label_counts) j.Key(std::to_string(id)).Int(static_cast<int64_t>(n));
  j.EndObject();
  j.Key("shards").BeginArray();
  for (const auto& s : r->shards) {
    j.BeginObject().Key("file").String(s.file).Key("records").Int(static_cast<int64_t>(s.records));
    j.Key("bytes").Int(static_cast<int64_t>(s.bytes)).Key("crc32c").String(fmt::format("{:08x}", s.crc32c));
    j.EndObject();
  }
  j.EndArray();
  j.Key("skipped").BeginArray();
  for (const auto& s : r->skipped) j.BeginObject().Key("path").String(s.path).Key("reason").String(s.reason).EndObject();
  j.EndArray();
  j.EndObject();
  std::string text = j.Take() + "\n";
  r->manifest_path = (fs::path(o.output_dir) / "manifest.json").string();
  std::string temp = r->manifest_path + ".tmp-" + std::to_string(::getpid());
  std::ofstream out(temp, std::ios::binary);
  out << text;
  out.close();
  if (!out || ::rename(temp.c_str(), r->manifest_path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return Status(ErrorCode::kIoError, r->manifest_path + ": cannot write the manifest");
  }
  return Status::Ok();
}

}  // namespace

Result<PackResult> PackFolder(const PackOptions& o) {
  PackResult r;
  std::vector<Input> inputs;
  Status s = ListInputs(o, &inputs, &r.skipped);
  if (!s.ok()) return s;
  s = AssignLabels(o, &inputs, &r);
  if (!s.ok()) return s;
  if (inputs.empty()) return Result<PackResult>(ErrorCode::kEmptyInput, o.input_dir + ": no files to pack");
  std::error_code ec;
  fs::create_directories(o.output_dir, ec);
  if (ec) return Result<PackResult>(ErrorCode::kIoError, o.output_dir + ": cannot create: " + ec.message());

  Shuffle(&inputs, o.seed);
  std::vector<size_t> bounds = ShardBounds(o, inputs);
  size_t n = bounds.size() - 1;
  r.shards.resize(n);
  std::vector<std::unique_ptr<TfRecordWriter>> writers(n);
  std::vector<std::vector<SkippedInput>> unreadable(n);  // per shard, merged in order
  std::vector<Status> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < n;) {
      r.shards[k].file = fmt::format("{}-{:05}-of-{:05}.tfrecord{}", o.prefix, k, n,
                                     o.compression == Compression::kGzip ? ".gz" : o.compression == Compression::kZlib ? ".zz" : "");
      auto w = std::make_unique<TfRecordWriter>();
      Status st = w->Open((fs::path(o.output_dir) / r.shards[k].file).string(), o.compression);
      AheadReader reader(o.input_dir, inputs, bounds[k], bounds[k + 1]);
      for (size_t i = bounds[k]; st.ok() && i < bounds[k + 1]; ++i) {
        auto data = reader.Read(i);
        if (!data.ok()) {
          unreadable[k].push_back({inputs[i].rel, "cannot read: " + data.message()});
          inputs[i].label = INT64_MIN;  // marks it unpacked for the counts below
          continue;
        }
        inputs[i].size = data->size();
        st = w->Append(ExampleBuilder().Bytes("data", *data).Int64("label", inputs[i].label).Bytes("path", inputs[i].rel).Take());
      }
      if (st.ok()) st = w->Finish();
      r.shards[k].records = w->records();
      r.shards[k].bytes = w->file_bytes();
      r.shards[k].crc32c = w->file_crc32c();
      errors[k] = st;
      writers[k] = std::move(w);
    }
  };
  int threads = std::clamp<int>(o.threads, 1, static_cast<int>(n));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  // Any failed shard: the writers' destructors remove every temporary file.
  for (const Status& e : errors)
    if (!e.ok()) return e;
  for (auto& w : writers) {
    s = w->Commit();
    if (!s.ok()) return s;
  }
  for (auto& u : unreadable) r.skipped.insert(r.skipped.end(), u.begin(), u.end());
  for (const Input& in : inputs) {
    if (in.label == INT64_MIN) continue;
    ++r.records;
    r.data_bytes += in.size;
    if (in.label < 0) ++r.unlabeled;
    else ++r.label_counts[in.label];
  }
  s = WriteManifest(o, &r);
  if (!s.ok()) return s;
  std::set<std::string> ours;
  for (const auto& sh : r.shards) ours.insert(sh.file);
  for (const auto& e : fs::directory_iterator(o.output_dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(o.prefix + "-", 0) == 0 && name.find("-of-") != std::string::npos &&
        name.find(".tfrecord") != std::string::npos && name.find(".tmp-") == std::string::npos && !ours.count(name))
      r.stale.push_back(name);
  }
  std::sort(r.stale.begin(), r.stale.end());
  return r;
}

}  // namespace stepdoctor::tfrecord
