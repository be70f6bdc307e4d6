// Each rule on both sides of each threshold (xprof's smart_suggestion habit: 71% fires,
// 69% does not), with signals built directly.
#include <gtest/gtest.h>

#include "stepdoctor/analysis/rule.h"
#include "stepdoctor/analysis/rules/rules.h"
#include "stepdoctor/analysis/rules/thresholds.h"
#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/analysis/trace_to_coverage.h"
#include "stepdoctor/analysis/verdict.h"

#include "test_util.h"

namespace stepdoctor {
namespace {

// A 100 ms step whose categories take the given ms; the rest is device compute.
StepSignals Step(double input_wait_ms, double exposed_input_ms, double launch_ms, double host_ms, double compute_ms) {
  StepSignals s;
  s.has_steps = true;
  s.step_count = 5;
  s.mean_step_ms = s.median_step_ms = 100;
  s.step_ms = {100, 100, 100, 100, 100};
  s.step_numbers = {1, 2, 3, 4, 5};
  s.input_wait_ms = input_wait_ms;
  s.category_ms[int(StepCategory::kInput)] = exposed_input_ms;
  s.category_ms[int(StepCategory::kKernelLaunch)] = launch_ms;
  s.category_ms[int(StepCategory::kHostCompute)] = host_ms;
  s.category_ms[int(StepCategory::kDeviceCompute)] = compute_ms;
  return s;
}

std::optional<Finding> Eval(std::optional<Finding> (*rule)(const Signals&), const StepSignals& s) {
  Signals sig;
  sig.steps = &s;
  return rule(sig);
}

// Steps are 100 ms, so a share in percent is the same number of ms.
TEST(RuleInputBound, Thresholds) {
  const double lo = kInputModeratePct, hi = kInputHighPct;
  EXPECT_FALSE(Eval(rules::InputBound, Step(lo - 0.1, lo - 0.1, 0, 0, 90)));
  auto m = Eval(rules::InputBound, Step(lo + 0.1, lo + 0.1, 0, 0, 90));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->severity, FindingSeverity::kModerate);
  EXPECT_EQ(Eval(rules::InputBound, Step(hi - 0.1, hi - 0.1, 0, 0, 70))->severity, FindingSeverity::kModerate);
  auto h = Eval(rules::InputBound, Step(hi + 0.1, hi + 0.1, 0, 0, 70));
  EXPECT_EQ(h->severity, FindingSeverity::kHigh);
  EXPECT_NEAR(h->share_pct, hi + 0.1, 1e-9);
  EXPECT_NEAR(h->gain_upper_bound, 1.0 / (1 - (hi + 0.1) / 100), 1e-9);
}

TEST(RuleInputBound, TiersAreOnTheExposedWait) {
  // 30% of the step in the DataLoader, but the device is busy for all but 4.9% of it.
  EXPECT_FALSE(Eval(rules::InputBound, Step(30, kInputModeratePct - 0.1, 0, 0, 90)));
  EXPECT_EQ(Eval(rules::InputBound, Step(30, kInputHighPct - 0.1, 0, 0, 70))->severity, FindingSeverity::kModerate);
  EXPECT_EQ(Eval(rules::InputBound, Step(30, kInputHighPct + 0.1, 0, 0, 70))->severity, FindingSeverity::kHigh);
}

TEST(RuleInputBound, GainCountsOnlyTheExposedWait) {
  // 30 ms of waiting, of which the device idles for 10: hiding it all saves at most 10 ms.
  auto f = Eval(rules::InputBound, Step(30, 10, 0, 0, 80));
  ASSERT_TRUE(f);
  EXPECT_NEAR(f->share_pct, 30, 1e-9);
  EXPECT_NEAR(f->gain_upper_bound, 1.0 / 0.9, 1e-9);
  EXPECT_FALSE(f->fix.pytorch.empty());
  EXPECT_NE(f->fix.pytorch.find("num_workers"), std::string::npos);
  EXPECT_NE(f->fix.tensorflow.find("num_parallel_calls"), std::string::npos);
}

TEST(RuleHostBound, Thresholds) {
  // Launch and host compute add up: half of each.
  const double lo = kHostModeratePct, hi = kHostHighPct;
  EXPECT_FALSE(Eval(rules::HostBound, Step(0, 0, lo / 2 - 0.1, lo / 2, 90)));
  EXPECT_EQ(Eval(rules::HostBound, Step(0, 0, lo / 2, lo / 2 + 0.1, 89))->severity, FindingSeverity::kModerate);
  EXPECT_EQ(Eval(rules::HostBound, Step(0, 0, hi / 2, hi / 2 - 0.1, 70))->severity, FindingSeverity::kModerate);
  EXPECT_EQ(Eval(rules::HostBound, Step(0, 0, hi / 2, hi / 2 + 0.1, 69))->severity, FindingSeverity::kHigh);
}

TEST(RuleHostBound, CpuOnlyWording) {
  StepSignals s = Step(0, 0, 0, 40, 60);
  s.cpu_only = true;
  s.top_level_ops_per_step = 12;
  auto f = Eval(rules::HostBound, s);
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("Python/framework overhead"), std::string::npos);
}

// A step that already runs as a TensorFlow graph (a TF1 session, tf.function) is not told to wrap
// itself in tf.function: the advice left is XLA auto-clustering; without the graph it is tf.function.
TEST(RuleHostBound, TfGraphInUseAdvisesXlaNotTfFunction) {
  for (bool cpu_only : {false, true}) {
    StepSignals s = Step(0, 0, 10, 40, 50);
    s.cpu_only = cpu_only;
    s.top_level_ops_per_step = 12;
    AppliedOptimizations graph;
    graph.tf_graph = true;
    Signals sig;
    sig.steps = &s;
    sig.applied = &graph;
    auto f = rules::HostBound(sig);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->fix.tensorflow.find("@tf.function"), std::string::npos) << f->fix.tensorflow;
    EXPECT_NE(f->fix.tensorflow.find("tf.config.optimizer.set_jit(True)"), std::string::npos);
    EXPECT_NE(f->fix.summary.find("already runs as a TensorFlow graph"), std::string::npos) << f->fix.summary;
    bool said = false;
    for (const auto& e : f->evidence) said |= e.label == "already in use" && e.value == "TensorFlow graph execution";
    EXPECT_TRUE(said);
    AppliedOptimizations eager;
    sig.applied = &eager;
    auto g = rules::HostBound(sig);
    ASSERT_TRUE(g);
    EXPECT_NE(g->fix.tensorflow.find("@tf.function(jit_compile=True)"), std::string::npos);
  }
}

// A CPU trace with no operators (a Horovod timeline) cannot show overhead between operators.
TEST(RuleHostBound, CpuOnlyWithoutOperatorsDoesNotFire) {
  StepSignals s = Step(0, 0, 0, 100, 0);
  s.cpu_only = true;
  s.top_level_ops_per_step = 0;
  EXPECT_FALSE(Eval(rules::HostBound, s));
}

TEST(RuleComputeBound, Thresholds) {
  EXPECT_FALSE(Eval(rules::ComputeBound, Step(0, 0, 0, 0, kComputeBoundPct - 0.1)));
  auto f = Eval(rules::ComputeBound, Step(0, 0, 0, 0, kComputeBoundPct + 0.1));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, FindingSeverity::kNone);
  // Under the share at which compute wins the verdict, the note claims no bound (a host- or
  // communication-bound verdict may stand above it); at it, it does.
  EXPECT_EQ(f->title.find("compute-bound"), std::string::npos) << f->title;
  auto at = Eval(rules::ComputeBound, Step(0, 0, 0, 0, kComputeVerdictPct));
  ASSERT_TRUE(at);
  EXPECT_NE(at->title.find("compute-bound"), std::string::npos) << at->title;
}

// A CPU-only step under kSmallCpuStepMs: a larger batch first, no move to an accelerator; at
// kSmallCpuStepMs, the usual CPU advice.
TEST(RuleComputeBound, SmallCpuStepsAdviseMoreWorkFirstBothSides) {
  auto fix = [](double median_ms) {
    StepSignals s = Step(0, 0, 0, 0, 90);
    s.cpu_only = true;
    s.median_step_ms = s.mean_step_ms = median_ms;
    auto f = Eval(rules::ComputeBound, s);
    EXPECT_TRUE(f);
    return f ? f->fix.summary + "\n" + f->fix.pytorch : std::string();
  };
  const std::string small = fix(kSmallCpuStepMs - 0.1);
  EXPECT_NE(small.find("Give each step more work first (a larger batch)"), std::string::npos) << small;
  EXPECT_EQ(small.find("move the work to an accelerator"), std::string::npos) << small;
  EXPECT_NE(small.find("batch_size=8 * batch_size"), std::string::npos) << small;
  const std::string usual = fix(kSmallCpuStepMs);
  EXPECT_NE(usual.find("move the work to an accelerator"), std::string::npos) << usual;
  EXPECT_EQ(usual.find("larger batch"), std::string::npos) << usual;
}

TEST(RuleComputeBound, SuggestsMixedPrecisionOnlyWhenFp32OnTensorCores) {
  StepSignals s = Step(0, 0, 0, 0, 90);
  s.tensor_core_capable = true;
  s.fp16_kernel_pct = kLowReducedPrecisionPct - 0.1;
  EXPECT_NE(Eval(rules::ComputeBound, s)->fix.summary.find("mixed precision"), std::string::npos);
  s.fp16_kernel_pct = kLowReducedPrecisionPct + 0.1;
  EXPECT_EQ(Eval(rules::ComputeBound, s)->fix.summary.find("mixed precision"), std::string::npos);
}

// A step of GEMMs and convolutions gets no "fuse elementwise ops" advice: nothing is around them.
TEST(RuleComputeBound, MatrixBoundStepsGetNoFusionAdvice) {
  StepSignals s = Step(0, 0, 0, 0, 90);
  s.tensor_core_capable = true;
  s.fp16_kernel_pct = 100;
  s.matrix_kernel_pct = kMatrixBoundPct - 0.1;
  EXPECT_NE(Eval(rules::ComputeBound, s)->fix.pytorch.find("fuse elementwise"), std::string::npos);
  s.matrix_kernel_pct = kMatrixBoundPct + 0.1;
  auto f = Eval(rules::ComputeBound, s);
  EXPECT_EQ(f->fix.pytorch.find("fuse"), std::string::npos) << f->fix.pytorch;
  EXPECT_NE(f->fix.summary.find("matrix math"), std::string::npos);
}

// fp32 kernels on TensorCores, most of their time outside GEMMs and convolutions: the advice is
// fusing and halving the bytes those kernels move, not TensorCores alone; at half or more in
// matrix math, mixed precision for the matrix units.
TEST(RuleComputeBound, MemoryBoundKernelsGetFusionAdviceBothSides) {
  StepSignals s = Step(0, 0, 0, 0, 90);
  s.tensor_core_capable = true;
  s.top_kernels.push_back({"void cudnn::bn_bw_1C11_kernel_new<float>", 12, 32, 27});
  s.matrix_kernel_pct = kMatrixMinorPct - 0.1;
  auto f = Eval(rules::ComputeBound, s);
  EXPECT_NE(f->fix.summary.find("outside GEMMs and convolutions"), std::string::npos) << f->fix.summary;
  EXPECT_NE(f->fix.pytorch.find("channels_last"), std::string::npos) << f->fix.pytorch;
  s.matrix_kernel_pct = kMatrixMinorPct + 0.1;
  f = Eval(rules::ComputeBound, s);
  EXPECT_NE(f->fix.summary.find("Run in mixed precision so matrix math uses TensorCores"), std::string::npos)
      << f->fix.summary;
}

StepSignals Steps(std::vector<double> ms) { return testing::StepsFromMs(std::move(ms)); }

TEST(RuleStepTimeOutliers, Thresholds) {
  // Median 100 ms: an outlier is over kOutlierStepFactor x 100 ms.
  EXPECT_FALSE(Eval(rules::StepTimeOutliers, Steps({100, 100, 100 * kOutlierStepFactor - 0.1, 100, 100, 100})));
  auto f = Eval(rules::StepTimeOutliers, Steps({100, 100, 100 * kOutlierStepFactor + 0.1, 100, 100, 100}));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, FindingSeverity::kLow);  // 31 ms of 631: under 10%
  EXPECT_EQ(Eval(rules::StepTimeOutliers, Steps({100, 100, 300, 100, 100, 100}))->severity,
            FindingSeverity::kModerate);
}

TEST(RuleStepTimeOutliers, PeriodicStall) {
  std::vector<double> ms(20, 100);
  ms[4] = ms[9] = ms[14] = ms[19] = 250;  // every 5 steps: a checkpoint
  auto f = Eval(rules::StepTimeOutliers, Steps(ms));
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("every 5 steps"), std::string::npos) << f->title;
  ms[14] = 100;  // 5, 10, 20: not evenly spaced
  auto g = Eval(rules::StepTimeOutliers, Steps(ms));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->title.find("every"), std::string::npos) << g->title;
}

TEST(RuleColdStart, Thresholds) {
  StepSignals s = Step(0, 0, 0, 0, 90);
  s.step_count = 1;
  s.startup_ms = kColdWindowStartupPct - 0.1;  // of a 100 ms window
  EXPECT_FALSE(Eval(rules::ColdStart, s));
  s.startup_ms = kColdWindowStartupPct + 0.1;
  auto low = Eval(rules::ColdStart, s);
  ASSERT_TRUE(low);
  EXPECT_EQ(low->severity, FindingSeverity::kLow);
  s.startup_ms = kColdStartModeratePct - 0.1;
  EXPECT_EQ(Eval(rules::ColdStart, s)->severity, FindingSeverity::kLow);
  s.startup_ms = kColdStartModeratePct + 0.1;
  EXPECT_EQ(Eval(rules::ColdStart, s)->severity, FindingSeverity::kModerate);
}

TEST(RuleUntracedTime, Thresholds) {
  StepSignals s = Step(0, 0, 0, 0, 90);
  s.step_count = 1;
  s.untraced_host_ms = kUntracedModeratePct - 0.1;  // of a 100 ms step
  EXPECT_FALSE(Eval(rules::UntracedTime, s));
  s.untraced_host_ms = kUntracedModeratePct + 0.1;
  auto f = Eval(rules::UntracedTime, s);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  s.untraced_host_ms = kUntracedHighPct - 0.1;
  EXPECT_EQ(Eval(rules::UntracedTime, s)->severity, FindingSeverity::kModerate);
  s.untraced_host_ms = kUntracedHighPct + 0.1;
  EXPECT_EQ(Eval(rules::UntracedTime, s)->severity, FindingSeverity::kHigh);
}

// No threshold: it fires exactly where the step signals say device activity is missing.
TEST(RuleDeviceActivityMissing, FiresOnlyWhereDeviceWorkIsMissing) {
  Trace t;
  StepSignals s = Step(0, 0, 0, 0, 90);
  Signals sig;
  sig.trace = &t;
  sig.steps = &s;
  EXPECT_FALSE(rules::DeviceActivityMissing(sig));
  s.device_missing = true;
  auto f = rules::DeviceActivityMissing(sig);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, FindingSeverity::kModerate);
  EXPECT_EQ(f->gain_upper_bound, 1.0);
}

TEST(Verdict, HighActionableBeatsBusyDevice) {
  std::vector<Finding> f(2);
  f[0].id = "input_bound";
  f[0].severity = FindingSeverity::kHigh;
  f[0].title = "30% waits";
  f[1].id = "compute_bound";
  f[1].share_pct = 65;
  EXPECT_EQ(MakeVerdict(f, nullptr).bottleneck, Bottleneck::kInput);
  f[0].severity = FindingSeverity::kModerate;
  EXPECT_EQ(MakeVerdict(f, nullptr).bottleneck, Bottleneck::kInput);  // compute under 70%
  f[1].share_pct = 75;
  EXPECT_EQ(MakeVerdict(f, nullptr).bottleneck, Bottleneck::kDeviceCompute);
  EXPECT_EQ(MakeVerdict({}, nullptr).bottleneck, Bottleneck::kUnknown);
}

// collective_bound's bandwidth evidence: a 100 ms step with 20 ms of exposed collectives (the rule
// fires), and a table of a small-message row and a large one built by hand.
struct BandwidthCase {
  double small_bytes = 64 * 1024, small_ms = 10, large_ms = 90, large_pct = 80;
};

std::optional<Finding> CollectiveBoundWith(const BandwidthCase& c, CollectiveBandwidthSummary* bw) {
  static StepSignals s = [] {
    StepSignals x = Step(0, 0, 0, 0, 80);
    x.category_ms[int(StepCategory::kCollectives)] = 20;
    x.collective_total_ms = 20;
    return x;
  }();
  CollectiveLinkInfo link;
  link.kind = "nvlink";
  link.name = "NVLink 3 (A100 SXM4)";
  link.peak_gbps = 300;
  bw->links = {link};
  CollectiveBandwidthRow small, large;
  small.kind = large.kind = "all_reduce";
  small.group_size = large.group_size = 8;
  small.calls = large.calls = 10;
  small.mean_bytes = c.small_bytes;
  small.kernel_ms = c.small_ms;
  small.busbw_gbps = 3;
  small.busbw_of_peak_pct = 1;
  small.link = large.link = 0;
  large.mean_bytes = 64.0 * 1024 * 1024;
  large.kernel_ms = c.large_ms;
  large.busbw_gbps = 3 * c.large_pct;
  large.busbw_of_peak_pct = c.large_pct;
  bw->rows = {small, large};
  Signals sig;
  sig.steps = &s;
  sig.collective_bandwidth = bw;
  return rules::CollectiveBound(sig);
}

std::string Says(const Finding& f) {
  for (const auto& e : f.evidence)
    if (e.label == "bandwidth: what it says") return e.value;
  return "";
}

double Fig(const Finding& f, const std::string& key) {
  for (const auto& [k, v] : f.figures)
    if (k == key) return v;
  return -1;
}

TEST(RuleCollectiveBound, BandwidthThresholds) {
  CollectiveBandwidthSummary bw;
  // A row is small by its mean message size.
  BandwidthCase c;
  c.small_ms = 60;
  c.large_ms = 40;
  c.small_bytes = kCollectiveSmallMessageBytes - 0.1;
  auto f = CollectiveBoundWith(c, &bw);
  ASSERT_TRUE(f);
  EXPECT_NE(Says(*f).find("latency-bound"), std::string::npos) << Says(*f);
  c.small_bytes = kCollectiveSmallMessageBytes + 0.1;
  f = CollectiveBoundWith(c, &bw);
  EXPECT_EQ(Says(*f).find("latency-bound"), std::string::npos) << Says(*f);
  EXPECT_NEAR(Fig(*f, "small_message_time_pct"), 0, 1e-9);

  // Latency-bound by the small messages' share of the sized collective time.
  c = BandwidthCase{};
  c.small_ms = kCollectiveLatencyBoundPct - 0.1;
  c.large_ms = 100 - c.small_ms;
  f = CollectiveBoundWith(c, &bw);
  EXPECT_EQ(Says(*f).find("latency-bound"), std::string::npos) << Says(*f);
  EXPECT_NEAR(Fig(*f, "small_message_time_pct"), kCollectiveLatencyBoundPct - 0.1, 1e-9);
  c.small_ms = kCollectiveLatencyBoundPct + 0.1;
  c.large_ms = 100 - c.small_ms;
  f = CollectiveBoundWith(c, &bw);
  EXPECT_NE(Says(*f).find("latency-bound"), std::string::npos) << Says(*f);

  // The larger messages against the link's peak.
  c = BandwidthCase{};
  c.large_pct = kCollectiveBusbwFarBelowPct - 0.1;
  f = CollectiveBoundWith(c, &bw);
  EXPECT_NE(Says(*f).find("far less than it can"), std::string::npos) << Says(*f);
  EXPECT_NEAR(Fig(*f, "busbw_of_peak_pct"), kCollectiveBusbwFarBelowPct - 0.1, 1e-9);
  EXPECT_NEAR(Fig(*f, "link_peak_gbps"), 300, 1e-9);
  c.large_pct = kCollectiveBusbwFarBelowPct + 0.1;
  f = CollectiveBoundWith(c, &bw);
  EXPECT_NE(Says(*f).find("well used"), std::string::npos) << Says(*f);
}

TEST(RuleCollectiveBound, BandwidthEvidenceIsReplacedNotRepeated) {
  CollectiveBandwidthSummary bw;
  auto f = CollectiveBoundWith(BandwidthCase{}, &bw);
  ASSERT_TRUE(f);
  const size_t evidence = f->evidence.size(), figures = f->figures.size();
  rules::SetCollectiveBandwidthEvidence(bw, &*f);
  EXPECT_EQ(f->evidence.size(), evidence);
  EXPECT_EQ(f->figures.size(), figures);
  // Without a known peak there is nothing to hold the figure against: no verdict on the link.
  bw.links[0].peak_gbps.reset();
  for (auto& r : bw.rows) r.busbw_of_peak_pct.reset();
  rules::SetCollectiveBandwidthEvidence(bw, &*f);
  EXPECT_EQ(Says(*f), "");
  EXPECT_EQ(Fig(*f, "link_peak_gbps"), -1);
}

TEST(Rules, RegistryIsSortedAndIdsMatch) {
  const auto& rules = AllRules();
  for (size_t i = 1; i < rules.size(); ++i) EXPECT_LT(std::string(rules[i - 1].id), std::string(rules[i].id));
}

}  // namespace
}  // namespace stepdoctor
