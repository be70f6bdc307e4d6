// Knob flags, built-in sets, CPU lists, command lines to copy, and what a run's output lines
// measure (LineMeter): each edge on both sides.
#include <gtest/gtest.h>

#include <cmath>

#include "stepdoctor/tune/builtin_knobs.h"
#include "stepdoctor/tune/knobs.h"
#include "stepdoctor/tune/throughput.h"
#include "stepdoctor/tune/tune_search.h"

namespace stepdoctor::tune {
namespace {

TEST(TuneKnobs, EnvArgvAndAffinityKnobs) {
  auto env = ParseKnobFlag("NUM_WORKERS=0,2,4", {"python3", "train.py"});
  ASSERT_TRUE(env.ok()) << env.message();
  EXPECT_EQ(env->kind, KnobKind::kEnv);
  EXPECT_EQ(env->values, (std::vector<std::string>{"0", "2", "4"}));
  auto argv = ParseKnobFlag("BATCH=32,64", {"python3", "train.py", "--batch={BATCH}"});
  ASSERT_TRUE(argv.ok());
  EXPECT_EQ(argv->kind, KnobKind::kArgv);
  auto cpus = ParseKnobFlag("cpu-affinity=0-1,0", {"x"});
  ASSERT_TRUE(cpus.ok());
  EXPECT_EQ(cpus->kind, KnobKind::kAffinity);

  auto spec = ApplySetting({"python3", "train.py", "--batch={BATCH}"}, {*env, *argv, *cpus}, {2, 1, 1});
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->argv, (std::vector<std::string>{"python3", "train.py", "--batch=64"}));
  EXPECT_EQ(spec->env, (std::vector<std::pair<std::string, std::string>>{{"NUM_WORKERS", "4"}}));
  EXPECT_EQ(spec->cpus, (std::vector<int>{0}));
  EXPECT_EQ(ShellCommandLine(*spec), "taskset -c 0 env NUM_WORKERS=4 python3 train.py --batch=64");
}

TEST(TuneKnobs, BadKnobFlagsSayWhy) {
  auto why = [](const std::string& flag) { return ParseKnobFlag(flag, {"x"}).message(); };
  EXPECT_EQ(why("NUM_WORKERS"), "--knob NUM_WORKERS: expected NAME=v1,v2,...");
  EXPECT_EQ(why("A=1"), "--knob A=1: give at least two values, the first the baseline's");
  EXPECT_EQ(why("A=1,,2"), "--knob A=1,,2: an empty value");
  EXPECT_EQ(why("A=1,1"), "--knob A=1,1: '1' is listed twice");
  EXPECT_NE(why("1A=1,2").find("no environment variable name"), std::string::npos);
  EXPECT_NE(why("cpu-affinity=0,x").find("not a CPU list"), std::string::npos);
}

TEST(TuneKnobs, CpuLists) {
  EXPECT_EQ(ParseCpuList("0-3,8").value(), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_FALSE(ParseCpuList("3-1").ok());
  EXPECT_FALSE(ParseCpuList("").ok());
  EXPECT_FALSE(ParseCpuList("-1").ok());
}

TEST(TuneKnobs, ShellLinesQuoteWhatAShellWouldSplit) {
  TrialSpec spec;
  spec.argv = {"python3", "-c", "print('a b')"};
  spec.env = {{"TF_XLA_FLAGS", "--tf_xla_auto_jit=2"}};
  EXPECT_EQ(ShellCommandLine(spec), "env TF_XLA_FLAGS=--tf_xla_auto_jit=2 python3 -c 'print('\\''a b'\\'')'");
}

TEST(TuneBuiltins, SetsForThisMachine) {
  auto torch = BuiltinKnobSet("pytorch", 8, false);
  ASSERT_TRUE(torch.ok());
  ASSERT_EQ(torch->knobs.size(), 1u);  // the two CUDA knobs need a GPU
  EXPECT_EQ(torch->knobs[0].name, "OMP_NUM_THREADS");
  EXPECT_EQ(torch->knobs[0].values, (std::vector<std::string>{"", "1", "4", "8"}));
  EXPECT_TRUE(torch->knobs[0].inherited);
  ASSERT_EQ(torch->notes.size(), 1u);
  EXPECT_NE(torch->notes[0].find("PYTORCH_CUDA_ALLOC_CONF, TORCH_CUDNN_V8_API_ENABLED"), std::string::npos);
  EXPECT_EQ(BuiltinKnobSet("pytorch", 8, true)->knobs.size(), 3u);
  // On one core "half" is the whole machine: OMP_NUM_THREADS has only 1 to try, no affinity.
  EXPECT_EQ(BuiltinKnobSet("pytorch", 1, false)->knobs[0].values, (std::vector<std::string>{"", "1"}));
  auto process = BuiltinKnobSet("process", 1, false);
  ASSERT_EQ(process->knobs.size(), 1u);
  EXPECT_EQ(process->knobs[0].name, "MALLOC_ARENA_MAX");
  EXPECT_EQ(BuiltinKnobSet("process", 8, false)->knobs[1].values[1], "0-3");
  EXPECT_EQ(BuiltinKnobSet("tensorflow", 8, false)->knobs.size(), 4u);
  EXPECT_FALSE(BuiltinKnobSet("jax", 8, false).ok());
}

MetricSpec Spec(const std::string& pattern, int64_t warmup_steps = 0) {
  MetricSpec m;
  m.pattern = pattern;
  m.warmup_steps = warmup_steps;
  EXPECT_TRUE(ValidateMetric(&m).ok());
  return m;
}

TEST(TuneMetric, PrintedValuesAfterWarmup) {
  MetricSpec m = Spec("rate ([0-9.]+)", 2);
  m.check_pattern = "loss ([0-9.a-z]+)";
  ASSERT_TRUE(ValidateMetric(&m).ok());
  LineMeter meter(m);
  meter.Start(0);
  for (int i = 1; i <= 5; ++i) meter.Feed("step " + std::to_string(i) + " rate " + std::to_string(i * 10) + " loss 2", i);
  meter.Feed("loss nan", 6);
  std::string why;
  ASSERT_EQ(meter.Throughput(&why), 40.0);  // the median of 30, 40, 50
  EXPECT_EQ(meter.MeasuredSteps(), 3);
  ASSERT_EQ(meter.Check().size(), 6u);
  EXPECT_TRUE(std::isnan(meter.Check().back()));
}

TEST(TuneMetric, StepLinesAreTimedAsTheyArrive) {
  MetricSpec m = Spec("^step", 1);
  m.steps = 3;
  LineMeter meter(m);
  meter.Start(0);
  std::string why;
  EXPECT_FALSE(meter.Throughput(&why));
  EXPECT_EQ(why, "no line matched --metric");
  meter.Feed("step 1", 1'000'000'000);  // warm-up: the window starts here
  EXPECT_FALSE(meter.Throughput(&why));
  EXPECT_EQ(why, "1 steps matched --metric, all within the warm-up");
  meter.Feed("step 2", 1'500'000'000);
  meter.Feed("other", 1'700'000'000);
  EXPECT_FALSE(meter.Enough());
  meter.Feed("step 3", 2'000'000'000);
  meter.Feed("step 4", 2'500'000'000);
  EXPECT_TRUE(meter.Enough());
  EXPECT_DOUBLE_EQ(*meter.Throughput(&why), 2.0);  // 3 steps in 1.5 s
}

TEST(TuneMetric, WarmupByTime) {
  MetricSpec m = Spec("v=([0-9]+)");
  m.warmup_ns = 1'000'000'000;
  LineMeter meter(m);
  meter.Start(0);
  meter.Feed("v=1", 999'999'999);
  meter.Feed("v=7", 1'000'000'000);
  std::string why;
  EXPECT_EQ(meter.Throughput(&why), 7.0);
}

TEST(TuneMetric, PatternsAreChecked) {
  auto error = [](MetricSpec m) { return ValidateMetric(&m).message(); };
  MetricSpec m;
  EXPECT_NE(error(m).find("no throughput to measure"), std::string::npos);
  m.pattern = "(";
  EXPECT_NE(error(m).find("--metric '(': not a regular expression"), std::string::npos);
  m.pattern = "(a)(b)";
  EXPECT_NE(error(m).find("at most one capture group"), std::string::npos);
  m.pattern = "a";
  m.check_pattern = "loss";
  EXPECT_NE(error(m).find("--check-metric 'loss': needs exactly one capture group"), std::string::npos);
  m.check_pattern.clear();
  m.logdir = "logs";
  EXPECT_NE(error(m).find("not both"), std::string::npos);
}

ScalarSeries Series(std::vector<int64_t> steps, std::vector<double> wall) {
  ScalarSeries s;
  s.tag = "loss";
  s.step = std::move(steps);
  s.wall_time_s = std::move(wall);
  s.value.assign(s.step.size(), 1.0);
  return s;
}

TEST(TuneMetric, EventFileStepRateLeavesOutTheWarmup) {
  MetricSpec m;
  m.logdir = "logs";
  m.warmup_steps = 1;
  std::string why;
  // The first point came after a 10 s start-up; then 100 steps per second.
  auto rate = ScalarsStepRate({Series({0, 100, 200, 300}, {10, 20, 21, 22})}, m, &why);
  ASSERT_TRUE(rate) << why;
  EXPECT_DOUBLE_EQ(*rate, 100.0);
  EXPECT_FALSE(ScalarsStepRate({Series({0, 100}, {10, 20})}, m, &why));
  EXPECT_NE(why.find("fewer than two points of 'loss'"), std::string::npos);
  EXPECT_FALSE(ScalarsStepRate({}, m, &why));
}

}  // namespace
}  // namespace stepdoctor::tune
