#include "stepdoctor/importers/samples/gpu_row_placer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/importers/samples/csv_fields.h"

namespace stepdoctor {
namespace {

using gpucsv::ColumnKind;

constexpr size_t kProbeRows = 512;           // rows read before deciding how GPUs are told apart
constexpr size_t kMaxRowsPerTime = 65536;    // a time shared by more rows is placed as it stands (bounded memory)
constexpr double kLastTimeSpreadS = 1.0;     // rows sharing the only time are spread over 1 s (a clock in whole seconds)
constexpr int kMaxNumericGpuIndex = 100000;  // a larger "index" is an id, numbered in order of appearance
constexpr double kMaxInBurstGapShare = 0.05;  // gaps within a burst at most this share of the gaps between bursts
constexpr int kMinFullBursts = 2;            // bursts of one size seen whole before rows are read as bursts
constexpr double kBurstSplitShare = 0.2;     // a gap over this share of the median between-burst gap parts two bursts
constexpr size_t kMaxBurstGpus = 16;         // the most GPUs a burst is read as
constexpr double kBurstResyncFactor = 3.0;   // once read, a gap this many times the median between bursts restarts a
                                             // burst left part-read (its rows lost while the logger paused)

// The number in a key cell ("3"), or -1.
int SmallNumber(const std::string& s) {
  if (s.empty() || s.size() > 6) return -1;
  int n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n < kMaxNumericGpuIndex ? n : -1;
}

}  // namespace

GpuRowPlacer::GpuRowPlacer(std::vector<KeyColumn> keys, std::optional<Polls> polls, Emit emit)
    : keys_(std::move(keys)), polls_(polls), emit_(std::move(emit)) {}

std::string GpuRowPlacer::KeyValue(const Row& row, size_t key) const {
  size_t c = keys_[key].col;
  return c < row.fields.size() ? std::string(csv::Trim(row.fields[c])) : std::string();
}

void GpuRowPlacer::Add(Row row) {
  if (mode_ != Mode::kUndecided) return Place(std::move(row));
  probe_.push_back(std::move(row));
  if (probe_.size() >= kProbeRows) Decide();
}

void GpuRowPlacer::Finish() {
  if (mode_ == Mode::kUndecided) Decide();
  if (!group_.empty()) FlushGroup(std::nullopt);
}

void GpuRowPlacer::Decide() {
  struct Score {
    bool distinguishes = true;  // no value repeats among the rows at one time
    std::set<std::string> values;
  };
  std::vector<Score> score(keys_.size());
  size_t rows_per_time = 1;  // the most rows at one time in the probe
  for (size_t i = 0; i < probe_.size();) {
    size_t j = i + 1;
    if (!polls_)
      while (j < probe_.size() && probe_[j].ts_ns == probe_[i].ts_ns) ++j;
    rows_per_time = std::max(rows_per_time, j - i);
    for (size_t k = 0; k < keys_.size(); ++k) {
      std::set<std::string> at_this_time;
      for (size_t r = i; r < j; ++r) {
        std::string v = KeyValue(probe_[r], k);
        if (!at_this_time.insert(v).second) score[k].distinguishes = false;
        score[k].values.insert(std::move(v));
      }
    }
    i = j;
  }
  // Best first: values that vary, then a number/uuid/bus id over a model name, then more
  // distinct values, then index over uuid over bus id, then the column order.
  auto rank = [&](size_t k) {
    return std::make_tuple(score[k].values.size() > 1 ? 0 : 1, keys_[k].kind == ColumnKind::kGpuName ? 1 : 0,
                           -int64_t(score[k].values.size()), int(keys_[k].kind), keys_[k].col);
  };
  std::optional<size_t> best;
  for (size_t k = 0; k < keys_.size(); ++k) {
    // Logs without times have no rows at one time to compare; a name does not number GPUs there.
    bool usable = polls_ ? keys_[k].kind != ColumnKind::kGpuName : score[k].distinguishes;
    if (usable && (!best || rank(k) < rank(*best))) best = k;
  }
  if (best) mode_ = Mode::kColumn, key_ = *best;
  else if (polls_) mode_ = Mode::kTableCycle;
  else if (keys_.empty()) mode_ = DecideBursts() ? Mode::kBurst : Mode::kOneGpu;
  else mode_ = Mode::kPosition;

  // Say so where a GPU column the log has was passed over.
  std::string chosen = mode_ == Mode::kColumn ? fmt::format("GPUs told apart by the `{}` column", keys_[key_].header)
                                              : "GPUs told apart by their row's position among the rows at one time "
                                                "(GPU 0 is the first)";
  for (size_t k = 0; k < keys_.size(); ++k) {
    if (keys_[k].kind == ColumnKind::kGpuName || (mode_ == Mode::kColumn && k == key_)) continue;
    bool failed = polls_ ? keys_[k].kind == ColumnKind::kGpuIndex && score[k].values.size() == 1 && mode_ == Mode::kColumn &&
                               score[key_].values.size() > 1
                         : !score[k].distinguishes;
    if (!failed || !attribution_note_.empty()) continue;
    std::string value = score[k].values.size() == 1 ? fmt::format(" (it reads {} on every row)", *score[k].values.begin()) : "";
    attribution_note_ =
        polls_ ? fmt::format("the `{}` column does not tell the GPUs apart{}; {}", keys_[k].header, value, chosen)
               : fmt::format("the `{}` column does not tell the GPUs apart: up to {} rows share a time{}; {}", keys_[k].header,
                             rows_per_time, value, chosen);
  }
  if (mode_ == Mode::kPosition && attribution_note_.empty())
    attribution_note_ = fmt::format("no column tells the GPUs apart: up to {} rows share a time; {}", rows_per_time, chosen);

  std::vector<Row> probe = std::move(probe_);
  probe_.clear();
  for (Row& r : probe) Place(std::move(r));
}

bool GpuRowPlacer::DecideBursts() {
  if (probe_.size() < 4) return false;
  std::vector<int64_t> gaps;
  for (size_t i = 0; i + 1 < probe_.size(); ++i) {
    const int64_t gap = probe_[i + 1].ts_ns - probe_[i].ts_ns;
    if (gap < 0) return false;  // rows out of time order: no bursts to speak of
    gaps.push_back(gap);
  }
  auto median = [](std::vector<int64_t> v) {
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  auto quantile = [](std::vector<int64_t> v, double q) {
    const size_t k = std::min(v.size() - 1, size_t(q * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return v[k];
  };
  // The smallest burst size N (and the phase of the first burst) for which the gaps every N rows
  // are long and the others short. Timing jitter makes the odd gap look wrong (nvidia-smi's rows of
  // one poll mostly a millisecond apart, now and then as far apart as two polls): a twentieth of
  // either kind may be out of place where the probe holds twenty bursts or more; with fewer, none.
  for (size_t n = 2; n <= kMaxBurstGpus && 2 * n <= gaps.size() + 1; ++n) {
    for (size_t phase = 0; phase < n; ++phase) {
      std::vector<int64_t> within, between;
      for (size_t i = 0; i < gaps.size(); ++i) ((i + n - phase) % n == n - 1 ? between : within).push_back(gaps[i]);
      if (between.size() < size_t(kMinFullBursts) || within.empty()) continue;
      const int64_t between_mid = median(between);
      if (between_mid <= 0) continue;
      const double cut = kBurstSplitShare * double(between_mid);
      const size_t allowed = between.size() >= 20 ? between.size() / 20 : 0;
      size_t wrong = 0;
      for (int64_t g : within) wrong += double(g) > cut;
      for (int64_t g : between) wrong += double(g) <= cut;
      if (wrong > allowed) continue;
      // Rows of every burst all at one time are a clock coarser than the polling (several samples
      // of one GPU a second, spread evenly below), not GPUs told apart by the clock.
      const int64_t within_mid = median(within);
      const int64_t within_p90 = quantile(within, 0.9);
      if (*std::max_element(within.begin(), within.end()) == 0 ||
          double(within_p90) > kMaxInBurstGapShare * double(between_mid))
        continue;
      // Rows before the first full burst (the probe may start mid-poll) are not placed as GPU 0.
      if (phase != 0) continue;
      burst_size_ = int(n);
      burst_gap_ns_ = int64_t(kBurstResyncFactor * double(between_mid));
      attribution_note_ = fmt::format(
          "no GPU column, but rows come in bursts of {} ({:g} ms apart within a burst, {:g} s between bursts, at the "
          "median): read as {} GPUs polled one after another, GPU 0 the first row of each burst",
          burst_size_, double(within_mid) / 1e6, double(between_mid) / 1e9, burst_size_);
      return true;
    }
  }
  return false;
}

int GpuRowPlacer::GpuOf(const Row& row) {
  std::string v = KeyValue(row, key_);
  if (keys_[key_].kind == ColumnKind::kGpuIndex)
    if (int n = SmallNumber(v); n >= 0) return n;
  return ids_.emplace(std::move(v), int(ids_.size())).first->second;
}

void GpuRowPlacer::Place(Row row) {
  if (polls_) {
    const int per_poll = std::max(1, polls_->table_gpus);
    int gpu = mode_ == Mode::kColumn ? GpuOf(row) : int(rows_ % per_poll);
    ++rows_;
    // A row whose GPU was already seen in this poll starts the next one.
    if (std::find(seen_in_poll_.begin(), seen_in_poll_.end(), gpu) != seen_in_poll_.end()) seen_in_poll_.clear(), ++poll_;
    seen_in_poll_.push_back(gpu);
    // Poll times past the time range are dropped (the sink counts them as out of range).
    auto interval = SecondsToNs(polls_->interval_s);
    auto offset = interval ? CheckedMul(poll_, *interval) : std::nullopt;
    auto ts = offset ? AddToTime(polls_->start_ns, *offset) : std::nullopt;
    emit_(row, gpu, ts ? *ts : INT64_MAX);
    return;
  }
  if (!group_.empty() && row.ts_ns != group_.front().ts_ns) FlushGroup(row.ts_ns);
  if (mode_ == Mode::kBurst) {
    // A burst already full starts the next; so does a very long gap (rows lost while the logger
    // paused). A gap within a burst as long as one between polls is jitter, not a new poll.
    if (rows_++ > 0 && (row.ts_ns - last_ts_ > burst_gap_ns_ || burst_pos_ >= burst_size_)) burst_pos_ = 0;
    last_ts_ = row.ts_ns;
    group_gpu_.push_back(burst_pos_++);
  }
  group_.push_back(std::move(row));
  if (group_.size() >= kMaxRowsPerTime) FlushGroup(std::nullopt);
}

void GpuRowPlacer::FlushGroup(std::optional<int64_t> next_ts) {
  const int64_t ts = group_.front().ts_ns;
  std::vector<int> gpu(group_.size());
  std::map<int, int> rows_of;  // GPU -> its rows at this time
  for (size_t i = 0; i < group_.size(); ++i) {
    gpu[i] = mode_ == Mode::kColumn ? GpuOf(group_[i]) : mode_ == Mode::kPosition ? int(i) : mode_ == Mode::kBurst ? group_gpu_[i] : 0;
    ++rows_of[gpu[i]];
  }
  int64_t span = next_ts && *next_ts > ts ? *next_ts - ts
                 : last_gap_ns_ > 0      ? last_gap_ns_
                                         : int64_t(kLastTimeSpreadS * 1e9);
  if (next_ts && *next_ts > ts) last_gap_ns_ = *next_ts - ts;
  bool shared = false;
  std::map<int, int> placed;
  for (size_t i = 0; i < group_.size(); ++i) {
    int n = rows_of[gpu[i]], k = placed[gpu[i]]++;
    if (n > 1) ++shared_rows_, shared = true;
    // k / n of a span that may be as long as the time range allows: the product in 128 bits.
    const int64_t offset = n > 1 ? int64_t(static_cast<__int128>(span) * k / n) : 0;
    emit_(group_[i], gpu[i], SaturatingAdd(ts, offset));
  }
  shared_times_ += shared;
  ++times_;
  group_.clear();
  group_gpu_.clear();
}

}  // namespace stepdoctor
