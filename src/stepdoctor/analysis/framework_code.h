// The code each finding shows, for the framework that wrote the input: a PyTorch trace gets its
// fixes in PyTorch, a TensorFlow profile or timeline in TensorFlow. Where the input does not say
// (GPU logs, samples, Horovod timelines of either framework, JAX), both are kept.
#pragma once

#include <vector>

#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

void KeepTheFrameworksCode(Framework framework, std::vector<Finding>* findings);

}  // namespace stepdoctor
