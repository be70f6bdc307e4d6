#include "stepdoctor/analysis/framework_code.h"

#include <string_view>

namespace stepdoctor {
namespace {
constexpr std::string_view kPinArg = "pin_memory=True";
}  // namespace

void KeepTheFrameworksCode(Framework framework, std::vector<Finding>* findings) {
  if (framework != Framework::kPyTorch && framework != Framework::kTensorFlow) return;
  for (Finding& f : *findings) {
    // A finding with code for the other framework only keeps it: some code beats none.
    if (framework == Framework::kPyTorch && !f.fix.pytorch.empty()) f.fix.tensorflow.clear();
    if (framework == Framework::kTensorFlow && !f.fix.tensorflow.empty()) f.fix.pytorch.clear();
  }
}

std::string WithoutPinMemoryArg(std::string code) {
  std::string out;
  size_t pos = 0;
  while (pos < code.size()) {
    size_t eol = code.find('\n', pos);
    const size_t end = eol == std::string::npos ? code.size() : eol + 1;
    std::string line = code.substr(pos, end - pos);
    pos = end;
    const size_t at = line.find(kPinArg);
    if (at == std::string::npos) {
      out += line;
      continue;
    }
    // A line of its own: only blanks before it, a comma and perhaps a comment after.
    const size_t after = at + kPinArg.size();
    // What follows the argument on its line: nothing but a comma, blanks and a comment.
    size_t rest = after < line.size() && line[after] == ',' ? after + 1 : after;
    rest = line.find_first_not_of(' ', rest);
    const bool alone = line.find_first_not_of(' ') == at &&
                       (rest == std::string::npos || line[rest] == '#' || line[rest] == '\n');
    if (alone) continue;
    // One argument among others: take it with the separator on one side.
    if (line.compare(after, 2, ", ") == 0) line.erase(at, kPinArg.size() + 2);
    else if (at >= 2 && line.compare(at - 2, 2, ", ") == 0) line.erase(at - 2, kPinArg.size() + 2);
    else line.erase(at, kPinArg.size());
    out += line;
  }
  return out;
}

void DropAppliedSettingsFromCode(const AppliedOptimizations& applied, std::vector<Finding>* findings) {
  if (!applied.pinned_memory) return;
  for (Finding& f : *findings) {
    if (f.fix.pytorch.find(kPinArg) == std::string::npos) continue;
    f.fix.pytorch = WithoutPinMemoryArg(std::move(f.fix.pytorch));
    f.evidence.push_back({"already in use", "pinned memory (host-to-device copies read page-locked memory)"});
  }
}

}  // namespace stepdoctor
