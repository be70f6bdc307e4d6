#include "stepdoctor/importers/chrome/chrome_process_names.h"

#include <initializer_list>

namespace stepdoctor::chrome {

int TrailingDeviceNumber(std::string_view s, std::string_view marker) {
  size_t at = s.find(marker);
  if (at == std::string_view::npos) return -1;
  at += marker.size();
  int v = 0;
  bool any = false;
  while (at < s.size() && s[at] >= '0' && s[at] <= '9') {
    v = v * 10 + (s[at++] - '0');
    any = true;
  }
  return any ? v : -1;
}

std::pair<std::string_view, int> DeviceProcessName(std::string_view n) {
  size_t sp = n.rfind(' ');
  std::string_view word, num;
  if (sp != std::string_view::npos && sp > 0 && sp + 1 < n.size()) {
    word = n.substr(0, sp);
    num = n.substr(sp + 1);
  } else if (sp == std::string_view::npos) {
    // "GPU0", as rocprof names its agents: the word runs up to the first digit.
    size_t d = 0;
    while (d < n.size() && !(n[d] >= '0' && n[d] <= '9')) ++d;
    if (d == 0 || d == n.size()) return {{}, -1};
    word = n.substr(0, d);
    num = n.substr(d);
  } else {
    return {{}, -1};
  }
  for (char c : word)
    if (!(c >= 'A' && c <= 'Z')) return {{}, -1};
  int v = 0;
  for (char c : num) {
    if (c < '0' || c > '9') return {{}, -1};
    v = v * 10 + (c - '0');
  }
  if (word == "CPU") return {{}, -1};
  return {word, v};
}

namespace {
bool StartsWithAny(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes)
    if (s.substr(0, p.size()) == p) return true;
  return false;
}
}  // namespace

void TraceViewerProgram::NoteThread(std::string_view n) {
  // TensorFlow's executor and tf.data threads, its op and name-scope lines on a device.
  if (StartsWithAny(n, {"tf_", "TensorFlow ", "TFRT"})) tensorflow = true;
  // PJRT's execute threads, as jaxlib names them.
  if (StartsWithAny(n, {"py_xla_execute", "pjrt", "PjRt"})) jax = true;
}

void TraceViewerProgram::NoteEvent(std::string_view n) {
  // Eager and tf.function dispatch, the graph executor, tf.data iterators, TF1's source node.
  if (StartsWithAny(n, {"EagerExecute", "EagerLocalExecute", "EagerKernelExecute", "__inference_", "__forward_",
                        "__backward_", "ExecutorState::", "Iterator::", "IteratorGetNext", "_SOURCE", "TFE_",
                        "tf.data", "tf_data", "KerasModel", "SessionRun"}))
    tensorflow = true;
  // jax.jit's dispatch (PjitFunction(f)), its compiled modules and executions.
  if (StartsWithAny(n, {"PjitFunction", "pjit", "jit_", "PjRtStreamExecutorLoadedExecutable",
                        "PjRtCApiLoadedExecutable", "PyLoadedExecutable", "$jax"}))
    jax = true;
}

}  // namespace stepdoctor::chrome
