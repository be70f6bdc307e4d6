#include "stepdoctor/tune/throughput.h"

#include <cmath>
#include <cstdlib>

#include "stepdoctor/analysis/statistics.h"

namespace stepdoctor::tune {
namespace {

// std::regex reports a bad pattern by throwing; the library API returns it instead.
Result<std::regex> Compile(const std::string& flag, const std::string& pattern) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return Result<std::regex>(ErrorCode::kInvalidArgument, flag + " '" + pattern + "': not a regular expression (" + e.what() + ")");
  }
}

// A captured number; nullopt when the text is none ("nan" and "inf" are numbers: a diverged loss).
std::optional<double> Number(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end == s.c_str()) return std::nullopt;
  return v;
}

}  // namespace

Status ValidateMetric(MetricSpec* spec) {
  if (!spec->pattern.empty() && !spec->logdir.empty())
    return Status(ErrorCode::kInvalidArgument, "--metric and --logdir: give one way to measure, not both");
  if (spec->pattern.empty() && spec->logdir.empty())
    return Status(ErrorCode::kInvalidArgument,
                  "no throughput to measure: give --metric REGEX (what the job prints) or --logdir DIR (its event files)");
  if (!spec->pattern.empty()) {
    auto re = Compile("--metric", spec->pattern);
    if (!re.ok()) return re.status();
    if (re->mark_count() > 1)
      return Status(ErrorCode::kInvalidArgument, "--metric '" + spec->pattern +
                                                     "': at most one capture group (the number to read), found " +
                                                     std::to_string(re->mark_count()));
    spec->source = re->mark_count() == 1 ? MetricSource::kPrintedValue : MetricSource::kStepLines;
  } else {
    spec->source = MetricSource::kLogdir;
  }
  if (!spec->check_pattern.empty()) {
    auto re = Compile("--check-metric", spec->check_pattern);
    if (!re.ok()) return re.status();
    if (re->mark_count() != 1)
      return Status(ErrorCode::kInvalidArgument,
                    "--check-metric '" + spec->check_pattern + "': needs exactly one capture group (the value to check)");
  }
  if (spec->unit.empty()) spec->unit = spec->source == MetricSource::kPrintedValue ? "(as printed)" : "steps/s";
  return Status::Ok();
}

LineMeter::LineMeter(const MetricSpec& spec) : spec_(spec) {
  // REQUIRED: ValidateMetric accepted `spec`, so both compile.
  if (!spec.pattern.empty()) metric_ = std::regex(spec.pattern, std::regex::ECMAScript);
  if (!spec.check_pattern.empty()) check_re_ = std::regex(spec.check_pattern, std::regex::ECMAScript);
}

bool LineMeter::Warmup(size_t index, int64_t t_ns) const {
  return int64_t(index) < spec_.warmup_steps || t_ns - start_ns_ < spec_.warmup_ns;
}

void LineMeter::Feed(const std::string& line, int64_t t_ns) {
  if (line.empty()) return;
  last_line_ = line;
  std::smatch m;
  if (metric_ && std::regex_search(line, m, *metric_)) {
    if (spec_.source == MetricSource::kStepLines) {
      times_.push_back(t_ns);
    } else if (auto v = Number(m[1].str())) {
      values_.push_back(*v);
      times_.push_back(t_ns);
    }
  }
  if (check_re_ && std::regex_search(line, m, *check_re_))
    if (auto v = Number(m[1].str())) check_.push_back(*v);
}

int64_t LineMeter::MeasuredSteps() const {
  int64_t n = 0;
  for (size_t i = 0; i < times_.size(); ++i) n += Warmup(i, times_[i]) ? 0 : 1;
  return n;
}

bool LineMeter::Enough() const {
  return spec_.steps > 0 && spec_.source != MetricSource::kLogdir && MeasuredSteps() >= spec_.steps;
}

std::optional<double> LineMeter::Throughput(std::string* why) const {
  if (times_.empty()) {
    *why = "no line matched --metric";
    return std::nullopt;
  }
  size_t first = 0;  // the first measured step
  while (first < times_.size() && Warmup(first, times_[first])) ++first;
  if (first == times_.size()) {
    *why = std::to_string(times_.size()) + " steps matched --metric, all within the warm-up";
    return std::nullopt;
  }
  if (spec_.source == MetricSource::kPrintedValue)
    return Median(std::vector<double>(values_.begin() + long(first), values_.end()));
  // Step lines: measured steps over the time from the last warm-up step (or the start) to the last.
  const int64_t from = first > 0 ? times_[first - 1] : start_ns_;
  const int64_t span = times_.back() - from;
  if (span <= 0) {
    *why = "the measured steps arrived at once (is the output buffered?)";
    return std::nullopt;
  }
  return double(times_.size() - first) * 1e9 / double(span);
}

std::optional<double> ScalarsStepRate(const std::vector<ScalarSeries>& scalars, const MetricSpec& spec,
                                      std::string* why) {
  const ScalarSeries* best = nullptr;
  for (const auto& s : scalars)
    if (!best || s.step.size() > best->step.size()) best = &s;
  if (!best || best->step.empty()) {
    *why = "no scalars in the event files written during the run";
    return std::nullopt;
  }
  size_t first = size_t(std::max<int64_t>(0, spec.warmup_steps));
  while (first < best->step.size() && (best->wall_time_s[first] - best->wall_time_s[0]) * 1e9 < double(spec.warmup_ns))
    ++first;
  if (first + 2 > best->step.size()) {
    *why = "fewer than two points of '" + best->tag + "' after the warm-up";
    return std::nullopt;
  }
  const double steps = double(best->step.back() - best->step[first]);
  const double secs = best->wall_time_s.back() - best->wall_time_s[first];
  if (!(secs > 0) || !(steps > 0)) {
    *why = "the points of '" + best->tag + "' after the warm-up span no time or no steps";
    return std::nullopt;
  }
  return steps / secs;
}

}  // namespace stepdoctor::tune
