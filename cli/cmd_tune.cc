// stepdoctor tune [--knob NAME=v1,v2 | --builtin SET] (--metric REGEX | --logdir DIR) -- CMD:
// runs the command once per setting, one knob changed at a time, and reports which settings are
// faster beyond the noise (docs/tune.md). Exits 2 on bad arguments or a baseline that does not
// run; 128 + the signal when interrupted (after printing what it measured).
#include <sys/stat.h>

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
  std::string scratch;              // --scratch DIR
  bool profile = false;             // --profile (implied by --profile-dir)
  std::string profile_dir;          // --profile-dir DIR: where the job writes its traces
  bool no_gpu = false;
};

bool IsFolder(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool Mentions(const std::vector<std::string>& args, const std::string& token) {
  for (const auto& x : args)
    if (x.find(token) != std::string::npos) return true;
  return false;
}

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
  const std::string token = tune::kScratchToken;
  if (!a.scratch.empty()) {
    if (!IsFolder(a.scratch)) return fail("--scratch " + a.scratch + ": not a folder (each run gets a copy of it)");
    for (const auto& k : o->knobs)
      if ("{" + k.name + "}" == token) return fail("--knob SCRATCH: the name --scratch uses; call the knob otherwise");
  } else if (Mentions(a.command, token) || a.logdir.find(token) != std::string::npos ||
             a.profile_dir.find(token) != std::string::npos) {
    bool knob = false;
    for (const auto& k : o->knobs) knob |= "{" + k.name + "}" == token;
    if (!knob) return fail(token + " appears without --scratch DIR: give the folder each run gets a copy of");
  }
  if (!a.profile_dir.empty() && a.profile_dir.find(token) == std::string::npos && !IsFolder(a.profile_dir))
    return fail("--profile-dir " + a.profile_dir + ": not a folder (the one the job writes its traces to)");
  o->command = a.command;
  o->dry_run = a.dry_run;
  o->profile = a.profile;
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
  sub.add_option("--scratch", a->scratch,
                 "a folder each run gets a fresh copy of ({SCRATCH} in the command, --logdir or --profile-dir, and "
                 "$STEPDOCTOR_SCRATCH, name the copy)");
  sub.add_flag("--profile", a->profile, "sample the baseline's first run and diagnose it beside the results");
  sub.add_option("--profile-dir", a->profile_dir,
                 "--profile, with the trace files the run writes under this folder (its profiler's or TensorBoard's "
                 "logdir; {SCRATCH} allowed)");
  sub.add_flag("--no-gpu", a->no_gpu, "--profile: do not load NVML (no GPU samples)");
  sub.add_flag("--dry-run", a->dry_run, "print the plan: knobs, runs and what fits in the budget; run nothing");
  sub.add_option("-f,--format", a->format, "output format: " + JoinNames(TuneRendererNames()));
  sub.add_option("-o,--output", a->output, "write the report to this file instead of stdout");
  return [a]() -> int {
    a->profile |= !a->profile_dir.empty();
    tune::TuneOptions o;
    tune::MetricSpec m;
    if (!MakeOptions(*a, &o, &m)) return kExitBadInput;
    if (!Quiet()) o.progress = [](const std::string& line) { PrintInfo(line); };
    tune::ProcessRunnerOptions ro;
    ro.scratch = a->scratch;
    ro.profile_dir = a->profile_dir;
    ro.gpus = !a->no_gpu;
    tune::ProcessTrialRunner runner(m, ro);
    auto report = tune::RunTune(o, runner);
    if (report.ok() && report->profile.asked && !report->dry_run) {
      report->profile.interval_s = double(ro.profile_interval_ns) / 1e9;
      if (!report->profile.inputs.empty()) {
        // The samples, with the traces beside them; the samples alone when the traces cannot be read.
        DiagnoseOutput out;
        out.fall_back_to_first = true;
        report->profile.diagnosis = DiagnoseReport(report->profile.inputs, out);
        if (!report->profile.diagnosis)
          report->profile.note += std::string(report->profile.note.empty() ? "" : "; ") +
                                  "its inputs could not be diagnosed (the error is above)";
      }
    }
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
