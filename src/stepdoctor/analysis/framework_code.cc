#include "stepdoctor/analysis/framework_code.h"

namespace stepdoctor {

void KeepTheFrameworksCode(Framework framework, std::vector<Finding>* findings) {
  if (framework != Framework::kPyTorch && framework != Framework::kTensorFlow) return;
  for (Finding& f : *findings) {
    // A finding with code for the other framework only keeps it: some code beats none.
    if (framework == Framework::kPyTorch && !f.fix.pytorch.empty()) f.fix.tensorflow.clear();
    if (framework == Framework::kTensorFlow && !f.fix.tensorflow.empty()) f.fix.pytorch.clear();
  }
}

}  // namespace stepdoctor
