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

}  // namespace stepdoctor::testing
