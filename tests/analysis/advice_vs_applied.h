// What a report advises against what its coverage says is already in use: each finding's code
// that would turn on an optimisation the trace shows applied. Shared by the tests that hold
// examples and corpus traces to "never advise what is done".
#pragma once

#include <string>
#include <vector>

#include "stepdoctor/report/report.h"

namespace stepdoctor::testing {

// "finding: advises X, which is in use" for each such piece of advice; empty when there is none.
inline std::vector<std::string> AdviceRepeatingApplied(const Report& r) {
  auto applied = [&](const std::string& label) {
    for (const auto& a : r.coverage.applied)
      if (a.find(label) != std::string::npos) return true;
    return false;
  };
  const bool compiled = applied("torch.compile") || applied("TorchScript") || applied("XLA") || applied("graph replay");
  struct Rule {
    bool in_use;
    const char* what;
    bool pytorch;  // the PyTorch code, else the TensorFlow code
    const char* code;
  };
  const Rule rules[] = {
      {compiled, "compilation", true, "torch.compile("},
      {applied("XLA"), "XLA", false, "jit_compile=True"},
      {applied("graph replay"), "CUDA graphs", true, "torch.cuda.graph("},
      {applied("mixed precision"), "mixed precision", true, "torch.autocast("},
      {applied("mixed precision"), "mixed precision", true, "GradScaler"},
      {applied("DataLoader worker processes"), "worker processes", true, "num_workers=min("},
      {applied("tf.data prefetch"), "prefetch", false, ".prefetch("},
      {applied("XLA"), "XLA", false, "set_jit(True)"},
      {applied("TensorFlow graph execution"), "graph execution", false, "# one compiled graph per step"},
      {applied("TensorFlow graph execution"), "graph execution", false, "@tf.function"},
      {applied("TensorFlow graph execution"), "graph execution", false, "tf.function("},
  };
  // Under torch.compile without graph replay, capturing its regions as CUDA graphs is new advice:
  // torch.compile(..., mode="reduce-overhead") does not repeat what is in use.
  auto repeats = [&](const std::string& code, const Rule& rule) {
    for (size_t at = code.find(rule.code); at != std::string::npos; at = code.find(rule.code, at + 1)) {
      const size_t eol = code.find('\n', at);
      const std::string line = code.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
      if (rule.code == std::string("torch.compile(") && line.find("reduce-overhead") != std::string::npos &&
          !applied("graph replay"))
        continue;
      return true;
    }
    return false;
  };
  std::vector<std::string> out;
  for (const Finding& f : r.findings)
    for (const Rule& rule : rules)
      if (rule.in_use && repeats(rule.pytorch ? f.fix.pytorch : f.fix.tensorflow, rule))
        out.push_back(f.id + ": advises " + rule.code + " though " + rule.what + " is in use");
  return out;
}

}  // namespace stepdoctor::testing
