// The sess.run calls a TF 1.x timeline merges: files that join several runs' StepStats (a
// tutorial's timeline merger, a loop that appends each run's Chrome trace) have no step markers,
// but each run starts its executors with a _SOURCE op on every device it uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

// The start of each run the worker's TF1 timeline holds, in time order: the _SOURCE ops (an
// event whose `name` arg is "_SOURCE") that no other event of the worker spans (a function's
// executor inside a run starts inside its caller's op) and that follow some other op since the
// previous start (a run's partitions start their _SOURCE ops together). Empty where fewer than
// two runs are found.
std::vector<int64_t> Tf1RunStarts(const Trace& trace, WorkerId worker);

// The tensors a TF1 timeline's runs are fed by feed_dict: each fed tensor enters the run as an
// `_Arg` op whose node is named `_arg_<feed>_0_<n>` (TF 1.2 and later), or, in older releases, as
// a receive named `_recv_<feed>_0` whose output a device copy `edge_<N>__recv_<feed>_0` moves in.
// Building the feed and copying it in happen in
// Python before sess.run, where the trace records nothing: a note saying so, naming the feeds, or
// "" where the worker is no TF1 session or nothing is fed.
std::string Tf1FeedNote(const Trace& trace, WorkerId worker);

// A TF1 session of TensorFlow before 1.0: its variables run as `Variable` ops (1.0 made them
// `VariableV2`). That release has no XLA and no tf.compat.v1, so code for it leaves both out.
bool Tf1BeforeRelease1(const Trace& trace, WorkerId worker);

// The model's weights a TF1 run copies to a device: copies whose tensor is a variable's read
// (`edge_<N>_<var>/read`, the Identity every variable read goes through), which a run makes
// only where the variable, or the op that makes the weight (a Dequantize of quantized
// constants), sits on the CPU. `made_on_cpu_ms`: CPU ops of the run that produce those weights
// (their node is the variable's name), remade in every run.
struct Tf1WeightCopies {
  double copy_ms = 0;        // the copies' device time, over the window
  int64_t copies = 0;
  double made_on_cpu_ms = 0;  // the CPU ops that make them, over the window
  std::vector<std::string> names;  // the variables, largest copy first (up to 3)
};
Tf1WeightCopies Tf1CopiedWeights(const Trace& trace, WorkerId worker);

}  // namespace stepdoctor
