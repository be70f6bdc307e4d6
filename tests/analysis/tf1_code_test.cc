// A TF 1.x session job gets its TensorFlow code in TF1's APIs: TF 2's Keras steps per call,
// tf.config threading and memory growth, the mixed-precision policy, tf.data.AUTOTUNE and map's
// `deterministic` each in the form a TF1 session has; TF2 code is left as it is.
#include <gtest/gtest.h>

#include <string>

#include "inline_chrome.h"
#include "stepdoctor/analysis/analyze.h"
#include "stepdoctor/analysis/framework_code.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

bool Has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

TEST(Tf1Code, Tf2ApisBecomeTheirTf1Forms) {
  const std::string tf2 =
      "ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)\n"
      "model.compile(..., steps_per_execution=32)   # several steps per host round-trip\n"
      "tf.config.threading.set_intra_op_parallelism_threads(0)  # 0 = all cores\n"
      "tf.config.threading.set_inter_op_parallelism_threads(0)\n"
      "for gpu in tf.config.list_physical_devices(\"GPU\"):\n"
      "    tf.config.experimental.set_memory_growth(gpu, True)\n"
      "tf.keras.mixed_precision.set_global_policy(\"mixed_float16\")\n"
      "tf.config.optimizer.set_jit(True)   # XLA auto-clustering\n"
      "print(tf.config.threading.get_intra_op_parallelism_threads())";
  const std::string tf1 = Tf1Code(tf2);
  EXPECT_TRUE(Has(tf1, "XLA auto-clustering in a TF1 session")) << tf1;
  EXPECT_TRUE(Has(tf1, "check the ConfigProto the session is built with")) << tf1;
  for (const char* gone : {"tf.data.AUTOTUNE", "deterministic", "steps_per_execution", "tf.config.", "set_global_policy"})
    EXPECT_FALSE(Has(tf1, gone)) << gone << " in\n" << tf1;
  for (const char* there : {"tf.data.experimental.AUTOTUNE", "tf.ConfigProto(intra_op_parallelism_threads=0",
                            "allow_growth = True", "enable_mixed_precision_graph_rewrite", "ds = ds.map(parse"})
    EXPECT_TRUE(Has(tf1, there)) << there << " not in\n" << tf1;
  // Code with none of them is unchanged.
  const std::string plain = "ds = ds.cache()";
  EXPECT_EQ(Tf1Code(plain), plain);
}

// End to end: a TF1 timeline's input-bound step shows tf.data code in TF1's form.
TEST(Tf1Code, Tf1TimelineFindingsShowTf1Code) {
  std::string ev = testing::Tf1Lane(1, "/job:localhost/replica:0/task:0/device:CPU:0 Compute");
  ev += testing::Tf1Node(1, "NoOp", "_SOURCE", 0, 5);
  ev += testing::Tf1Op(1, "IteratorGetNext", 10, 6000);
  ev += testing::Tf1Op(1, "Conv2D", 6020, 2000);
  const Report r = AnalyzeTrace(testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}"));
  ASSERT_FALSE(r.findings.empty()) << r.verdict.summary;
  bool any_tf = false;
  for (const Finding& f : r.findings) {
    any_tf |= !f.fix.tensorflow.empty();
    EXPECT_FALSE(Has(f.fix.tensorflow, "tf.data.AUTOTUNE")) << f.id << ":\n" << f.fix.tensorflow;
    EXPECT_FALSE(Has(f.fix.tensorflow, "steps_per_execution")) << f.id;
  }
  EXPECT_TRUE(any_tf);
}

// The warm-run snippet runs what the traced run fetched: an inference's outputs, not a train op it
// lacks; code in tf.compat.v1 says what a TF before 1.13 (which has none) writes.
TEST(Tf1Code, InferenceFetchesItsOutputsAndOldTfIsToldBothSides) {
  const std::string code = "fetches = train_op   # what the traced run fetched\n"
                           "run_options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)";
  const std::string inference = Tf1Code(code, /*forward_only=*/true);
  EXPECT_EQ(inference.find("train_op"), std::string::npos) << inference;
  EXPECT_NE(inference.find("fetches = outputs"), std::string::npos) << inference;
  EXPECT_NE(inference.find("TF < 1.13 has no tf.compat.v1"), std::string::npos) << inference;
  const std::string training = Tf1Code(code, /*forward_only=*/false);
  EXPECT_NE(training.find("fetches = train_op"), std::string::npos) << training;
  EXPECT_EQ(Tf1Code("sess.run(train_op)").find("tf.compat.v1"), std::string::npos);
}

// TensorFlow 0.x (its variables are `Variable` ops; 1.0 made them VariableV2) has no XLA and no
// tf.compat.v1: its code leaves XLA out, says why, and writes tf.* instead. A TF1 session whose
// variables are VariableV2 keeps its XLA advice.
TEST(Tf1Code, TensorFlowBeforeOneHasNoXlaBothSides) {
  auto tf_code = [](const char* var_op) {
    std::string ev = testing::Tf1Lane(1, "/job:localhost/replica:0/task:0/cpu:0 Compute");
    double t = 0;
    for (int k = 0; k < 3; ++k) {
      ev += testing::Tf1Op(1, var_op, t, 5);
      ev += testing::Tf1Op(1, "MatMul", t + 10, 9000);
      t += 9100;
    }
    const Report r = AnalyzeTrace(testing::ImportChrome("{\"traceEvents\":[" + ev.substr(1) + "]}"));
    const Finding* f = testing::FindFinding(r, "compute_bound");
    return f ? f->fix.tensorflow : "(no compute_bound) " + r.verdict.summary;
  };
  const std::string old = tf_code("Variable");
  EXPECT_FALSE(Has(old, "TF_XLA_FLAGS")) << old;
  EXPECT_FALSE(Has(old, "tf.compat.v1")) << old;
  EXPECT_TRUE(Has(old, "no XLA before TF 1.0")) << old;
  const std::string v2 = tf_code("VariableV2");
  EXPECT_TRUE(Has(v2, "XLA")) << v2;
  EXPECT_FALSE(Has(v2, "no XLA before TF 1.0")) << v2;
}

// The profiler's Python API is TF 2.2's: a TF1 session is told to trace one run with RunOptions,
// and to name work with a name scope. TensorFlow 0.x has no tf.data (1.4 added it): its input
// advice is queue batching with whole slices per enqueue; TF 1.x keeps tf.data.
TEST(Tf1Code, ProfilerApiAndTfDataFitTheRelease) {
  const std::string trace = Tf1Code(
      "with tf.profiler.experimental.Trace(\"prepare_batch\", step_num=step):\n"
      "    batch = prepare(batch)\n"
      "# and python tracing: tf.profiler.experimental.ProfilerOptions(python_tracer_level=1)");
  EXPECT_FALSE(Has(trace, "tf.profiler.experimental")) << trace;
  EXPECT_TRUE(Has(trace, "tf.RunOptions.FULL_TRACE")) << trace;
  EXPECT_TRUE(Has(trace, "tf.name_scope")) << trace;
  const std::string input =
      "ds = tf.data.TFRecordDataset(files, num_parallel_reads=tf.data.AUTOTUNE)\n"
      "ds = ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)";
  const std::string old = Tf1Code(input, false, /*before_1_0=*/true);
  EXPECT_FALSE(Has(old, "tf.data.")) << old;
  EXPECT_FALSE(Has(old, "AUTOTUNE")) << old;
  EXPECT_TRUE(Has(old, "tf.train.shuffle_batch")) << old;
  EXPECT_TRUE(Has(old, "enqueue_many=True")) << old;
  const std::string v1 = Tf1Code(input);
  EXPECT_TRUE(Has(v1, "tf.data.experimental.AUTOTUNE")) << v1;
  EXPECT_FALSE(Has(v1, "shuffle_batch")) << v1;
}

}  // namespace
}  // namespace stepdoctor
