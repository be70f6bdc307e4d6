// Rows of a GPU CSV log -> the GPU and the time of each row. Logs name their GPUs in an
// index, uuid, bus-id or name column, or not at all, and some get it wrong (an `index` column
// reading 0 on every row while another column numbers the GPUs); their times may be coarser
// than their polling (a clock in whole seconds, several rows a second) or absent (`nvidia-smi
// --query-gpu=... -l N` without timestamp).
//
// How GPUs are told apart is decided once, from the first kProbeRows rows: the key column
// that never repeats among the rows sharing a time (preferring one whose values vary, then
// index over uuid over bus id over name); where none does but the log names GPUs at all, a
// row's position among the rows at its time; without any GPU column, one GPU, unless the rows
// come in bursts of N (N >= 2, the same N over the probe, gaps within a burst at most 5% of those
// between, not all at one time): N GPUs polled one after another (nvidia-smi writes each GPU's row as it reads it,
// a millisecond or so apart), GPU k the k-th row of each burst. Rows of one GPU that share a
// time are spread evenly up to the next time.
// REQUIRED: rows arrive in file order; Finish() is called once after the last.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stepdoctor/importers/samples/gpu_csv_columns.h"

namespace stepdoctor {

class GpuRowPlacer {
 public:
  struct KeyColumn {
    size_t col;
    gpucsv::ColumnKind kind;  // kGpuIndex, kGpuUuid, kGpuBusId or kGpuName
    std::string header;       // as the log spells it, for the notes
  };
  struct Row {
    int64_t ts_ns = 0;  // unused for logs without times
    std::vector<std::string> fields;
    int64_t line = 0;   // the file's line, for the notes
  };
  // Logs without a time column: polls from start_ns, interval_s apart; rows without a GPU
  // column cycle through the table_gpus GPUs nvidia-smi's table listed (one when none).
  struct Polls {
    int64_t start_ns = 0;
    double interval_s = 1;
    int table_gpus = 0;
  };
  using Emit = std::function<void(const Row& row, int gpu, int64_t ts_ns)>;

  GpuRowPlacer(std::vector<KeyColumn> keys, std::optional<Polls> polls, Emit emit);
  void Add(Row row);
  void Finish();

  // For the import diagnostics: how GPUs were told apart where the log's own GPU column could
  // not (empty where it could), and the rows that shared a time with another of their GPU.
  const std::string& attribution_note() const { return attribution_note_; }
  int64_t shared_time_rows() const { return shared_rows_; }
  int64_t shared_times() const { return shared_times_; }
  int64_t times() const { return times_; }  // distinct times placed (runs of rows at one time)

 private:
  enum class Mode { kUndecided, kColumn, kPosition, kOneGpu, kTableCycle, kBurst };
  void Decide();
  // kBurst where the probe's rows come in bursts of one size; sets burst_size_ and burst_gap_ns_.
  bool DecideBursts();
  void Place(Row row);
  void FlushGroup(std::optional<int64_t> next_ts);
  int GpuOf(const Row& row);
  std::string KeyValue(const Row& row, size_t key) const;

  std::vector<KeyColumn> keys_;
  std::optional<Polls> polls_;
  Emit emit_;
  Mode mode_ = Mode::kUndecided;
  size_t key_ = 0;               // the key column used in kColumn mode
  std::vector<Row> probe_;       // rows held until the decision
  std::vector<Row> group_;       // rows sharing the current time
  std::vector<int> group_gpu_;   // kBurst: each grouped row's GPU
  int burst_size_ = 0;           // kBurst: GPUs per burst
  int64_t burst_gap_ns_ = 0;     // kBurst: a gap longer than this starts a burst
  int burst_pos_ = 0;            // kBurst: the next row's place in its burst
  int64_t last_ts_ = 0;          // kBurst: the previous row's time
  int64_t last_gap_ns_ = 0;      // the latest gap between times, to spread the last group
  std::map<std::string, int> ids_;  // non-numeric key values, numbered in order of appearance
  std::string attribution_note_;
  int64_t shared_rows_ = 0, shared_times_ = 0, times_ = 0;
  // Logs without times.
  int64_t rows_ = 0, poll_ = 0;
  std::vector<int> seen_in_poll_;
};

}  // namespace stepdoctor
