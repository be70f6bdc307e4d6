// stepdoctor tune [--knob NAME=v1,v2 | --builtin SET] (--metric REGEX | --logdir DIR) -- CMD:
// runs the command once per setting, one knob changed at a time, and reports which settings are
// faster beyond the noise (docs/tune.md). Exits 2 on bad arguments or a baseline that does not
// run; 128 + the signal when interrupted (after printing what it measured).
#include <charconv>
#include <memory>

#include "commands.h"
#include "stepdoctor/live/child_process.h"
#include "stepdoctor/live/live_session.h"
#include "stepdoctor/render/tune_render.h"
#include "stepdoctor/tune/builtin_knobs.h"
#include "stepdoctor/tune/process_trial_runner.h"
#include "stepdoctor/tune/tune_search.h"

namespace stepdoctor::cli {
namespace {

struct TuneArgs {
  std::vector<std::string> command, knobs, builtins;
  std::string metric, logdir, check_metric, check_tolerance = "10%", unit;
  std::string budget = "20m", trial_time, warmup = "2";
  int repeats = 3;
  int64_t steps = 0;
  bool dry_run = false;
  std::string format = "text", output;
};

bool ParseWhole(const std::string& s, int64_t* v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && *v >= 0;
}

// Fills `o` and `m` from the flags; false with the one-line error printed.
bool MakeOptions(const TuneArgs& a, tune::TuneOptions* o, tune::MetricSpec* m) {
  auto fail = [](const std::string& msg) {
    PrintError(msg);
    return false;
  };
  if (!FindTuneRenderer(a.format)) return fail("--format " + a.format + ": unknown format (" + JoinNames(TuneRendererNames()) + ")");
  auto budget = live::ParseDurationNs(a.budget);
  if (!budget.ok()) return fail("--budget " + budget.message());
  o->budget_ns = *budget;
  if (!a.trial_time.empty()) {
    auto t = live::ParseDurationNs(a.trial_time);
    if (!t.ok()) return fail("--trial-time " + t.message());
    o->run_limit_ns = *t;
  }
  if (a.repeats < 2 || a.repeats > 50) return fail("--repeats " + std::to_string(a.repeats) + ": between 2 and 50");
  o->repeats = a.repeats;
  if (!ParseWhole(a.warmup, &m->warmup_steps)) {
    m->warmup_steps = 0;
    auto w = live::ParseDurationNs(a.warmup);
    if (!w.ok()) return fail("--warmup " + a.warmup + ": a number of steps (e.g. 5) or a duration (e.g. 10s)");
    m->warmup_ns = *w;
  }
  if (a.steps < 0) return fail("--steps: must not be negative");
  m->steps = a.steps;
  m->pattern = a.metric;
  m->logdir = a.logdir;
  m->check_pattern = a.check_metric;
  m->unit = a.unit;
  if (Status st = tune::ValidateMetric(m); !st.ok()) return fail(st.message());
  std::string tol = a.check_tolerance;
  if (!tol.empty() && tol.back() == '%') tol.pop_back();
  double pct = -1;
  auto tr = std::from_chars(tol.data(), tol.data() + tol.size(), pct);
  if (tr.ec != std::errc() || tr.ptr != tol.data() + tol.size() || !(pct >= 0) || pct > 1000)
    return fail("--check-tolerance " + a.check_tolerance + ": a percentage, e.g. 10%");
  o->check_tolerance = pct / 100;
  o->check = !a.check_metric.empty();

  for (const auto& k : a.knobs) {
    auto knob = tune::ParseKnobFlag(k, a.command);
    if (!knob.ok()) return fail(knob.message());
    o->knobs.push_back(std::move(*knob));
  }
  std::vector<std::string> notes;
  for (const auto& set : a.builtins) {
    auto b = tune::BuiltinKnobSet(set, tune::UsableCores(), tune::HaveNvidiaGpu());
    if (!b.ok()) return fail(b.message());
    for (auto& k : b->knobs) o->knobs.push_back(std::move(k));
    for (auto& n : b->notes) PrintInfo(n);
  }
  for (size_t i = 0; i < o->knobs.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (o->knobs[i].name == o->knobs[j].name) return fail("--knob " + o->knobs[i].name + ": given twice");
  o->command = a.command;
  o->dry_run = a.dry_run;
  o->unit = m->unit;
  const std::string warm = m->warmup_ns > 0 ? a.warmup : std::to_string(m->warmup_steps) + " steps";
  switch (m->source) {
    case tune::MetricSource::kPrintedValue:
      o->metric = "median of the value '" + a.metric + "' captures, after " + warm + " of warm-up";
      break;
    case tune::MetricSource::kStepLines:
      o->metric = "lines matching '" + a.metric + "' per second, after " + warm + " of warm-up";
      break;
    case tune::MetricSource::kLogdir:
      o->metric = "steps per second of the event files written to " + a.logdir + ", after " + warm + " of warm-up";
      break;
  }
  if (m->steps > 0) o->metric += "; each run stopped after " + std::to_string(m->steps) + " measured steps";
  return true;
}

}  // namespace

std::function<int()> SetupTune(CLI::App& sub) {
  auto a = std::make_shared<TuneArgs>();
  sub.add_option("command", a->command, "the training command and its arguments, after --")->required();
  sub.add_option("--knob", a->knobs,
                 "NAME=v1,v2,... to try, the first the baseline's: an environment variable, or substituted "
                 "where {NAME} appears in the command; cpu-affinity=0-7,0-3 pins the CPUs (repeatable)")
      ->allow_extra_args(false);  // one value per --knob, so `--knob A=1,2 -- CMD` leaves CMD alone
  sub.add_option("--builtin", a->builtins, "built-in knobs to try: pytorch, tensorflow, process (repeatable)")
      ->allow_extra_args(false);
  sub.add_option("--metric", a->metric,
                 "regex over the job's output: one group = the throughput it prints; no group = one step per line");
  sub.add_option("--logdir", a->logdir, "TensorBoard logdir the job writes: steps per second from its event files");
  sub.add_option("--check-metric", a->check_metric, "regex with one group: a loss that must not rise (diverging trials are never chosen)");
  sub.add_option("--check-tolerance", a->check_tolerance, "how far the check metric may rise above the baseline's")
      ->capture_default_str();
  sub.add_option("--budget", a->budget, "total time for every run together, never exceeded")->capture_default_str();
  sub.add_option("--trial-time", a->trial_time, "the most one run takes before it is stopped (default: an equal share of the budget)");
  sub.add_option("--repeats", a->repeats, "baseline runs to measure the noise (and re-measurements of the best)")
      ->capture_default_str();
  sub.add_option("--warmup", a->warmup, "left out of each run: a number of steps, or a duration (10s)")->capture_default_str();
  sub.add_option("--steps", a->steps, "stop each run once this many steps are measured (0: let it end)");
  sub.add_option("--unit", a->unit, "what the throughput counts, for the report (default: steps/s, or '(as printed)')");
  sub.add_flag("--dry-run", a->dry_run, "print the plan: knobs, runs and what fits in the budget; run nothing");
  sub.add_option("-f,--format", a->format, "output format: " + JoinNames(TuneRendererNames()));
  sub.add_option("-o,--output", a->output, "write the report to this file instead of stdout");
  return [a]() -> int {
    tune::TuneOptions o;
    tune::MetricSpec m;
    if (!MakeOptions(*a, &o, &m)) return kExitBadInput;
    if (!Quiet()) o.progress = [](const std::string& line) { PrintInfo(line); };
    tune::ProcessTrialRunner runner(m);
    auto report = tune::RunTune(o, runner);
    const int signal = live::LastForwardedSignal();
    live::ForwardSignalsTo(-1);
    if (!report.ok()) {
      PrintError(report.message());
      return signal ? 128 + signal : kExitBadInput;
    }
    if (!WriteOutput(FindTuneRenderer(a->format)(*report), a->output)) return kExitBadInput;
    return signal ? 128 + signal : kExitOk;
  };
}

}  // namespace stepdoctor::cli
