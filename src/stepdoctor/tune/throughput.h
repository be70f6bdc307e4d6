// Throughput the way the job reports it (docs/tune.md): a number its output prints (a regex
// with one capture group), one step per matching line timed as it arrives (no group), or the
// step rate of its TensorBoard event files; the first steps or seconds are warm-up.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::tune {

enum class MetricSource {
  kPrintedValue,  // --metric with a group: the median of the values printed after warm-up
  kStepLines,     // --metric without a group: matching lines per second after warm-up
  kLogdir,        // --logdir: steps per second from the event files' wall times
};

struct MetricSpec {
  MetricSource source = MetricSource::kPrintedValue;
  std::string pattern;       // --metric
  std::string logdir;        // --logdir
  std::string check_pattern; // --check-metric (one group), empty: none
  int64_t warmup_steps = 0;  // the first steps (values, lines, events) left out
  int64_t warmup_ns = 0;     // and everything before this long after the start
  int64_t steps = 0;         // stop a run once this many are measured (0: let it end)
  std::string unit;          // what the throughput counts, for display
};

// Checks the patterns (a regex that compiles; at most one group for --metric, exactly one for
// --check-metric) and sets the source. Errors name the flag and the reason.
Status ValidateMetric(MetricSpec* spec);

// Reads a run's output lines as they arrive: steps, values and check values.
class LineMeter {
 public:
  explicit LineMeter(const MetricSpec& spec);
  void Start(int64_t t_ns) { start_ns_ = t_ns; }
  void Feed(const std::string& line, int64_t t_ns);
  // Enough measured for MetricSpec::steps (never, when it is 0 or the metric is a logdir's).
  bool Enough() const;
  // The run's throughput from what was fed, or nullopt with *why saying what was missing.
  std::optional<double> Throughput(std::string* why) const;
  int64_t MeasuredSteps() const;
  const std::vector<double>& Check() const { return check_; }
  // The last line fed, for a failed run's report.
  const std::string& LastLine() const { return last_line_; }

 private:
  bool Warmup(size_t index, int64_t t_ns) const;
  const MetricSpec& spec_;
  std::optional<std::regex> metric_, check_re_;
  int64_t start_ns_ = 0;
  std::vector<double> values_;    // kPrintedValue: every value, warm-up included
  std::vector<int64_t> times_;    // when each value or step line arrived
  std::vector<double> check_;
  std::string last_line_;
};

// Steps per second from TensorBoard scalars: of the tag with the most points (the first of
// equals, by run and tag), the points after warm-up (index < warmup_steps, or within warmup_ns
// of the first point) from first to last. nullopt with *why when fewer than two remain.
std::optional<double> ScalarsStepRate(const std::vector<ScalarSeries>& scalars, const MetricSpec& spec,
                                      std::string* why);

}  // namespace stepdoctor::tune
