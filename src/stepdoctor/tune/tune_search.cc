#include "stepdoctor/tune/tune_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "stepdoctor/analysis/statistics.h"

namespace stepdoctor::tune {
namespace {

std::string Secs(int64_t ns) { return fmt::format("{:.1f} s", double(ns) / 1e9); }

std::string ShellQuote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") ==
                        std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// One search in progress: the budget spent so far, the noise, the setting to beat.
class Search {
 public:
  Search(const TuneOptions& o, TrialRunner& runner, TuneReport& r) : o_(o), runner_(runner), r_(r) {}

  int64_t cost_ns = 0;  // the most one run can take: its limit, the kill grace, the slack
  int64_t limit_ns = 0;
  double h = kNoiseFloorPct / 100;  // the noise: an interval's half-width, fraction of throughput

  bool interrupted() const { return interrupted_; }
  int64_t used() const { return used_ns_; }
  // Whether one more run fits, leaving `reserve` runs' worth for what must follow.
  bool Fits(int reserve) const { return used_ns_ + cost_ns * (1 + reserve) <= o_.budget_ns; }

  TrialRun RunOnce(const Setting& s, const std::string& label, bool profile = false) {
    auto spec = ApplySetting(o_.command, o_.knobs, s);
    TrialRun run;
    if (!spec.ok()) {
      run.failure = spec.message();
      return run;
    }
    spec->profile = profile;
    run = runner_.Run(*spec, limit_ns);
    used_ns_ += run.wall_ns;
    ++r_.runs_done;
    interrupted_ |= run.interrupted;
    if (o_.progress)
      o_.progress(fmt::format("run {}/{} {}: {}", r_.runs_done, r_.runs_planned, label,
                              !run.failure.empty() ? run.failure : fmt::format("{:.4g} {}", run.throughput, o_.unit)));
    return run;
  }

  // "" when the run is usable, else why not (failed or diverged; `diverged` says which).
  std::string Problem(const TrialRun& run, bool* diverged) const {
    *diverged = false;
    if (!run.failure.empty()) return run.failure;
    if (!o_.check) return "";
    std::string d = CheckDivergence(check_ref_, run.check, o_.check_tolerance);
    *diverged = !d.empty();
    return d;
  }

  TuneMeasurement Measure(const std::vector<double>& runs) const {
    TuneMeasurement m;
    m.runs = runs;
    m.throughput = Median(runs);
    m.low = m.throughput * (1 - h);
    m.high = m.throughput * (1 + h);
    return m;
  }

  void SetCheckReference(std::vector<double> ref) { check_ref_ = std::move(ref); }

 private:
  const TuneOptions& o_;
  TrialRunner& runner_;
  TuneReport& r_;
  int64_t used_ns_ = 0;
  bool interrupted_ = false;
  std::vector<double> check_ref_;
};

void SetChange(const TuneMeasurement& base, TuneTrial& t) {
  t.change_pct = (t.m.throughput / base.throughput - 1) * 100;
  t.change_low_pct = (t.m.low / base.throughput - 1) * 100;
  t.change_high_pct = (t.m.high / base.throughput - 1) * 100;
}

std::string KnobLine(const Knob& k) {
  std::string line = k.name + ": ";
  for (size_t i = 0; i < k.values.size(); ++i)
    line += (i ? ", " : "") + (i == 0 && k.inherited ? std::string("inherited") : k.values[i]) + (i == 0 ? " (baseline)" : "");
  const char* how = k.kind == KnobKind::kEnv ? "environment" : k.kind == KnobKind::kArgv ? "argument" : "CPU affinity";
  return line + " [" + how + "]" + (k.why.empty() ? "" : "; " + k.why);
}

}  // namespace

std::string CheckDivergence(const std::vector<double>& baseline, const std::vector<double>& run, double tolerance) {
  if (baseline.empty()) return "";  // nothing to compare with (noted once, at the baseline)
  if (run.empty()) return "printed no --check-metric value";
  for (double v : run)
    if (!std::isfinite(v)) return fmt::format("--check-metric value {} is no finite number", v);
  const size_t i = std::min(baseline.size(), run.size()) - 1;
  const double ref = baseline[i], got = run[i];
  if (got > ref + tolerance * std::fabs(ref))
    return fmt::format("--check-metric {:.4g} at value {}, baseline {:.4g} (more than {:.0f}% above)", got, i + 1, ref,
                       tolerance * 100);
  return "";
}

std::string ShellCommandLine(const TrialSpec& spec) {
  std::string line;
  if (!spec.affinity.empty()) line += "taskset -c " + spec.affinity + " ";
  if (!spec.env.empty()) {
    line += "env";
    for (const auto& [k, v] : spec.env) line += " " + ShellQuote(k + "=" + v);
    line += " ";
  }
  for (size_t i = 0; i < spec.argv.size(); ++i) line += (i ? " " : "") + ShellQuote(spec.argv[i]);
  return line;
}

Result<TuneReport> RunTune(const TuneOptions& o, TrialRunner& runner) {
  auto bad = [](const std::string& m) { return Result<TuneReport>(ErrorCode::kInvalidArgument, m); };
  if (o.knobs.empty()) return bad("nothing to tune: give --knob NAME=v1,v2 or --builtin pytorch|tensorflow|process");
  if (o.repeats < 2) return bad("--repeats: at least 2 baseline runs (the noise is measured from them)");
  TuneReport r;
  r.command = o.command;
  r.metric = o.metric;
  r.unit = o.unit;
  r.dry_run = o.dry_run;
  r.repeats = o.repeats;
  r.budget_s = double(o.budget_ns) / 1e9;
  r.confidence_pct = MedianRangeConfidence(size_t(o.repeats)) * 100;
  r.profile.asked = o.profile;
  for (const auto& k : o.knobs) r.knobs.push_back(KnobLine(k));

  // The plan: the baseline's runs, one per value tried, one confirmation per knob, the best's
  // re-measurements. Without --trial-time each run gets an equal share of the budget.
  int planned = 2 * o.repeats;
  for (const auto& k : o.knobs) planned += int(k.values.size() - 1) + 1;
  r.runs_planned = planned;
  Search s(o, runner, r);
  const int64_t extra = runner.KillGraceNs() + kRunSlackNs;
  s.limit_ns = o.run_limit_ns > 0 ? o.run_limit_ns : o.budget_ns / planned - extra;
  s.cost_ns = s.limit_ns + extra;
  r.run_limit_s = double(s.limit_ns) / 1e9;
  if (o.run_limit_ns == 0 && s.limit_ns < kMinRunLimitNs)
    return bad(fmt::format("--budget {}: too small for {} runs of at least {} each (plus {} to stop each)",
                           Secs(o.budget_ns), planned, Secs(kMinRunLimitNs), Secs(extra)));
  if (2 * o.repeats * s.cost_ns > o.budget_ns)
    return bad(fmt::format("--budget {}: the baseline's {} runs and the best's {} re-measurements need {} at "
                           "--trial-time {}", Secs(o.budget_ns), o.repeats, o.repeats,
                           Secs(2 * o.repeats * s.cost_ns), Secs(s.limit_ns)));

  const Setting baseline(o.knobs.size(), 0);
  if (o.dry_run) {
    // Every run taking its whole limit: what fits and what does not.
    int64_t used = o.repeats * s.cost_ns;
    const int64_t reserve = o.repeats * s.cost_ns;
    for (size_t i = 0; i < o.knobs.size(); ++i) {
      for (size_t j = 1; j < o.knobs[i].values.size(); ++j) {
        TuneTrial t;
        t.knob = o.knobs[i].name;
        t.value = o.knobs[i].values[j];
        t.setting = KnobValueText(o.knobs[i], j);
        if (used + s.cost_ns + reserve <= o.budget_ns) {
          used += s.cost_ns;
        } else {
          t.verdict = TuneVerdict::kSkipped;
          t.why = "would not fit in the budget";
        }
        r.trials.push_back(std::move(t));
      }
      if (used + s.cost_ns + reserve <= o.budget_ns) used += s.cost_ns;  // the knob's confirmation
    }
    r.used_s = double(used + reserve) / 1e9;
    return r;
  }

  // The baseline, `repeats` times: its median, and the noise from the spread of its runs.
  std::vector<double> base_runs;
  for (int k = 0; k < o.repeats; ++k) {
    const bool profile = o.profile && k == 0;
    TrialRun run = s.RunOnce(baseline, profile ? "baseline (profiled)" : "baseline", profile);
    if (profile) {
      r.profile.run = r.runs_done;
      r.profile.inputs = run.profile_inputs;
      r.profile.note = run.profile_note;
    }
    if (run.interrupted) return Result<TuneReport>(ErrorCode::kInvalidArgument, "interrupted during the baseline");
    if (!run.failure.empty())
      return bad(fmt::format("the baseline's run {} of {} failed: {}", k + 1, o.repeats, run.failure));
    if (k == 0) {
      if (o.check && run.check.empty())
        r.notes.push_back("--check-metric matched nothing in the baseline's output: no trial is checked");
      s.SetCheckReference(run.check);
    }
    base_runs.push_back(run.throughput);
  }
  const MedianRange spread = MedianWithRange(base_runs);
  if (!(spread.median > 0)) return bad("the baseline's throughput is not positive: check --metric");
  s.h = std::max(kNoiseFloorPct / 100, std::max(spread.median - spread.low, spread.high - spread.median) / spread.median);
  r.noise_pct = s.h * 100;
  r.baseline = s.Measure(base_runs);
  if (r.noise_pct > kNoisyBaselinePct)
    r.notes.push_back(fmt::format("the baseline varies by +/-{:.0f}% between runs: only larger changes can be told "
                                  "apart (longer runs, or --repeats, narrow it)", r.noise_pct));

  // Coordinate descent: each knob in turn, every value tried from the best setting so far.
  Setting current = baseline;
  TuneMeasurement cur = r.baseline;
  // A first run outside the noise gets a second: its verdict (faster or slower than `than`)
  // stands only when the second agrees. False when it does not stand.
  auto confirm = [&](TuneTrial& t, const Setting& setting, const TuneMeasurement& than, int reserve) {
    const bool faster = t.verdict == TuneVerdict::kFaster;
    if (s.interrupted() || !s.Fits(reserve)) {
      if (faster) t.verdict = TuneVerdict::kNotConfirmed;
      t.why = s.interrupted() ? "tune was interrupted before a second run"
                              : "one run: no budget left for the second";
      return false;
    }
    TrialRun run = s.RunOnce(setting, t.setting + " (second run)");
    ++t.runs;
    bool diverged = false;
    std::string problem = s.Problem(run, &diverged);
    if (!problem.empty()) {
      t.verdict = diverged ? TuneVerdict::kDiverged : TuneVerdict::kFailed;
      t.why = "second run: " + problem;
      return false;
    }
    t.m = s.Measure({t.m.runs[0], run.throughput});
    SetChange(r.baseline, t);
    const double x = run.throughput;
    if (faster ? x * (1 - s.h) > than.high : x * (1 + s.h) < than.low) return true;
    t.verdict = faster ? TuneVerdict::kNotConfirmed : TuneVerdict::kWithinNoise;
    t.why = fmt::format("second run {:.4g} {}: within the noise", x, o.unit);
    return false;
  };
  std::vector<std::string> kept;
  const int reserve = o.repeats;  // the best's re-measurements
  for (size_t i = 0; i < o.knobs.size(); ++i) {
    const Knob& knob = o.knobs[i];
    std::vector<size_t> faster;  // indices into r.trials
    for (size_t j = 1; j < knob.values.size(); ++j) {
      TuneTrial t;
      t.knob = knob.name;
      t.value = knob.values[j];
      t.setting = KnobValueText(knob, j);
      t.on_top_of = kept;
      Setting setting = current;
      setting[i] = j;
      if (s.interrupted()) {
        t.verdict = TuneVerdict::kSkipped;
        t.why = "tune was interrupted";
      } else if (!s.Fits(reserve)) {
        t.verdict = TuneVerdict::kSkipped;
        t.why = fmt::format("would not fit in the budget ({} left, a run may take {})",
                            Secs(std::max<int64_t>(0, o.budget_ns - s.used())), Secs(s.cost_ns));
      } else {
        TrialRun run = s.RunOnce(setting, t.setting);
        t.runs = 1;
        bool diverged = false;
        std::string problem = s.Problem(run, &diverged);
        if (run.interrupted) {
          t.verdict = TuneVerdict::kSkipped;
          t.why = "tune was interrupted";
        } else if (!problem.empty()) {
          t.verdict = diverged ? TuneVerdict::kDiverged : TuneVerdict::kFailed;
          t.why = problem;
        } else {
          t.measured = true;
          t.m = s.Measure({run.throughput});
          SetChange(r.baseline, t);
          t.verdict = t.m.low > cur.high ? TuneVerdict::kFaster
                      : t.m.high < cur.low ? TuneVerdict::kSlower : TuneVerdict::kWithinNoise;
          if (t.verdict == TuneVerdict::kFaster) faster.push_back(r.trials.size());
          if (t.verdict == TuneVerdict::kSlower) confirm(t, setting, cur, reserve);
        }
      }
      r.trials.push_back(std::move(t));
    }
    if (faster.empty()) continue;
    // The fastest value gets a second run; it is kept only when that one beats the noise too.
    std::sort(faster.begin(), faster.end(),
              [&](size_t a, size_t b) { return r.trials[a].m.throughput > r.trials[b].m.throughput; });
    TuneTrial& top = r.trials[faster[0]];
    for (size_t k = 1; k < faster.size(); ++k) r.trials[faster[k]].why = top.setting + " was faster";
    size_t j = size_t(std::find(knob.values.begin(), knob.values.end(), top.value) - knob.values.begin());
    Setting setting = current;
    setting[i] = j;
    if (!confirm(top, setting, cur, reserve)) continue;
    top.verdict = TuneVerdict::kKept;
    current = setting;
    cur = top.m;
    kept.push_back(top.setting);
  }

  // The best combination, re-measured as the baseline was.
  auto spec = ApplySetting(o.command, o.knobs, current);
  if (!spec.ok()) return Result<TuneReport>(spec.status());
  TuneBest& best = r.best;
  r.have_best = true;
  best.settings = kept;
  best.env = spec->env;
  best.argv = spec->argv;
  best.affinity = spec->affinity;
  best.command_line = ShellCommandLine(*spec);
  best.m = cur;
  if (!kept.empty()) {
    std::vector<double> runs;
    std::string failure;
    for (int k = 0; k < o.repeats && !s.interrupted() && s.Fits(0); ++k) {
      TrialRun run = s.RunOnce(current, "best (re-measured)");
      bool diverged = false;
      std::string problem = s.Problem(run, &diverged);
      if (problem.empty()) runs.push_back(run.throughput);
      else failure = problem;
    }
    if (!runs.empty()) {
      best.m = s.Measure(runs);
      best.remeasured = true;
    } else {
      r.notes.push_back("the best setting could not be re-measured" + (failure.empty() ? "" : ": " + failure) +
                        "; its figures are the trials'");
    }
    if (best.remeasured && best.m.low <= r.baseline.high)
      r.notes.push_back("re-measured, the best setting is within the noise of the baseline");
  }
  best.speedup = best.m.throughput / r.baseline.throughput;
  if (s.interrupted()) r.notes.push_back("interrupted: the trials after it were not run");
  r.used_s = double(s.used()) / 1e9;
  return r;
}

}  // namespace stepdoctor::tune
