// The built-in knob sets (docs/tune.md): settings TensorFlow, PyTorch and any process read from
// the environment, each with the values worth trying on this machine.
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/core/result.h"
#include "stepdoctor/tune/knobs.h"

namespace stepdoctor::tune {

// The sets --builtin names: "pytorch", "tensorflow", "process".
std::vector<std::string> BuiltinSetNames();

struct BuiltinKnobs {
  std::vector<Knob> knobs;
  std::vector<std::string> notes;  // knobs left out and why ("needs a GPU; none found")
};

// The knobs of `set` for a machine with `cores` usable CPUs (values like "half the cores" are
// resolved here; a knob with nothing to try is left out) and, where `have_gpu` is false,
// without the GPU-only ones. An error for an unknown set name.
Result<BuiltinKnobs> BuiltinKnobSet(const std::string& set, int cores, bool have_gpu);

// The CPUs this process may run on (sched_getaffinity), and whether an NVIDIA GPU is visible.
int UsableCores();
bool HaveNvidiaGpu();

}  // namespace stepdoctor::tune
