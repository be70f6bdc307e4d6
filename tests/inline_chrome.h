// Small Chrome-trace JSON documents built inside tests: one "X" event a call, and a document
// with a main process named "python". Shared by the analysis tests that build their inputs inline.
#pragma once

#include <string>

namespace stepdoctor::testing {

// One complete ("X") event, with a leading comma; ts and dur in microseconds.
inline std::string X(const char* cat, const char* name, int pid, int tid, double ts, double dur,
                     const std::string& args = "") {
  return std::string(",{\"ph\":\"X\",\"cat\":\"") + cat + "\",\"name\":\"" + name + "\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":" + std::to_string(tid) + ",\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
         (args.empty() ? "" : ",\"args\":" + args) + "}";
}
// An args object with a correlation id.
inline std::string Corr(int c) { return "{\"correlation\":" + std::to_string(c) + "}"; }
// A Kineto-style document: `top` holds extra top-level keys (",\"deviceProperties\":[...]").
inline std::string Doc(const std::string& events, const std::string& top = "") {
  return "{\"schemaVersion\":1" + top + ",\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,"
         "\"args\":{\"name\":\"python\"}}" + events + "]}";
}

// A device operation on GPU 0's stream 7 (pid 0, tid 7) with a correlation id, leading comma.
inline std::string StreamKernel(const char* name, double ts, double dur, int corr, const char* cat = "kernel") {
  return X(cat, name, 0, 7, ts, dur, "{\"correlation\":" + std::to_string(corr) + ",\"stream\":7,\"device\":0}");
}

// A TF1 timeline lane (a Chrome "process" named for its device) and an op on it, each with a
// leading comma; ts and dur in microseconds.
inline std::string Tf1Lane(int pid, const char* name) {
  return ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + std::to_string(pid) + ",\"args\":{\"name\":\"" + name + "\"}}";
}
inline std::string Tf1Op(int pid, const char* name, double ts, double dur) {
  return ",{\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"" + std::string(name) + "\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":0,\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) +
         ",\"args\":{\"name\":\"" + name + "\",\"op\":\"" + name + "\"}}";
}
// A TF1 timeline op whose node has its own name (the executor's _SOURCE is a NoOp named _SOURCE).
inline std::string Tf1Node(int pid, const char* op, const char* node, double ts, double dur) {
  return ",{\"ph\":\"X\",\"cat\":\"Op\",\"name\":\"" + std::string(op) + "\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":0,\"ts\":" + std::to_string(ts) + ",\"dur\":" + std::to_string(dur) + ",\"args\":{\"name\":\"" +
         node + "\",\"op\":\"" + op + "\"}}";
}

// A CPU-only training loop of `steps` ProfilerStep#N steps: each loads a batch from the DataLoader
// for `load_ms` (in the training process, or from worker processes), then computes `compute_ms`.
inline std::string DataLoaderLoop(int steps, double load_ms, double compute_ms, bool workers = false) {
  const char* next = workers ? "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
                             : "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";
  std::string ev;
  double t = 0, step = (load_ms + compute_ms) * 1000;
  for (int i = 0; i < steps; ++i, t += step) {
    ev += X("user_annotation", ("ProfilerStep#" + std::to_string(i)).c_str(), 1, 1, t, step);
    if (load_ms > 0) ev += X("cpu_op", next, 1, 1, t, load_ms * 1000);
    ev += X("cpu_op", "aten::addmm", 1, 1, t + load_ms * 1000, compute_ms * 1000);
  }
  return Doc(ev);
}

}  // namespace stepdoctor::testing
