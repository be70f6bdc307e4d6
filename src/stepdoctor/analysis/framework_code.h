// The code each finding shows, for the framework that wrote the input: a PyTorch trace gets its
// fixes in PyTorch, a TensorFlow profile or timeline in TensorFlow. Where the input does not say
// (GPU logs, samples, Horovod timelines of either framework, JAX), both are kept.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/analysis/trace_to_applied_optimizations.h"
#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

void KeepTheFrameworksCode(Framework framework, std::vector<Finding>* findings);

// The settings the trace shows already in use leave the code the findings show, so no fix
// advises what the job does: with batches pinned, `pin_memory=True` goes from every DataLoader
// call (a line of its own, or one argument among others), and the finding says it is in use.
void DropAppliedSettingsFromCode(const AppliedOptimizations& applied, std::vector<Finding>* findings);

// `code` without the `pin_memory=True` argument: a line holding only it (and its comment) goes,
// as does the argument within a line. Unchanged where it holds none.
std::string WithoutPinMemoryArg(std::string code);

// `code` (TensorFlow) for a TF 1.x session job: TF 2's APIs (Keras steps_per_execution,
// tf.config.threading, memory growth, the mixed-precision policy, tf.data.AUTOTUNE and map's
// `deterministic`) in their TF1 forms (ConfigProto, the graph rewrite, tf.data.experimental).
// `forward_only`: the traced run was an inference, so what it fetched is its outputs, not a
// train op. Code using tf.compat.v1 says what TF before 1.13, which has none, writes instead.
// `before_1_0`: TensorFlow 0.x, with neither XLA nor tf.compat.v1.
std::string Tf1Code(std::string code, bool forward_only = false, bool before_1_0 = false);

// Each finding's TensorFlow code in its TF1 form (Tf1Code): for a TF1 session timeline.
void AdaptTensorFlowCodeToTf1(std::vector<Finding>* findings, bool forward_only = false, bool before_1_0 = false);

}  // namespace stepdoctor
