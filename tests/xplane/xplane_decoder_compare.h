// Imports one XSpace with both XPlane decoders (in place and libprotobuf, the reference) and
// checks the two Traces agree in everything the model keeps: status and its message, workers,
// devices, every timeline and every event's kind, name, start, duration, correlation id and
// args (strings compared by text: interning order differs), counters, diagnostics, format.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "stepdoctor/importers/xplane/xspace_to_trace.h"
#include "stepdoctor/io/byte_source.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::testing {

struct DecodedXSpace {
  Status status;
  Trace trace;
};

inline DecodedXSpace ImportXSpaceWith(std::string_view bytes, const std::string& name, XPlaneDecoder d) {
  DecodedXSpace out;
  auto src = MemorySource(bytes, name);
  XSpaceImportOptions opts;
  opts.decoder = d;
  out.status = ImportXSpace(*src, out.trace, opts);
  return out;
}

// The same from a file opened as diagnose opens it (mapped: XSpaceReader reads it in place).
inline DecodedXSpace ImportXSpaceFileWith(const std::string& path, XPlaneDecoder d) {
  DecodedXSpace out;
  auto src = OpenMaybeCompressed(path);
  if (!src.ok()) {
    out.status = src.status();
    return out;
  }
  XSpaceImportOptions opts;
  opts.decoder = d;
  out.status = ImportXSpace(**src, out.trace, opts);
  return out;
}

inline std::string ArgText(const Trace& t, const Arg& a) {
  std::string s(t.str(a.key));
  switch (a.type) {
    case ArgType::kInt: return s + "=i" + std::to_string(a.i);
    case ArgType::kDouble: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%a", a.d);  // exact, NaN and signed zero included
      return s + "=d" + buf;
    }
    case ArgType::kString: return s + "=s" + std::string(t.str(a.s));
  }
  return s;
}

// Adds a failure (with `what` naming the input) at the first difference.
inline void ExpectSameTrace(const DecodedXSpace& w, const DecodedXSpace& p, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(w.status.ok(), p.status.ok());
  ASSERT_EQ(w.status.message(), p.status.message());
  const Trace& a = w.trace;
  const Trace& b = p.trace;
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.framework, b.framework);
  EXPECT_EQ(a.sources, b.sources);
  ASSERT_EQ(a.workers.size(), b.workers.size());
  for (size_t i = 0; i < a.workers.size(); ++i) {
    EXPECT_EQ(a.workers[i].hostname, b.workers[i].hostname);
    EXPECT_EQ(a.workers[i].source_path, b.workers[i].source_path);
  }
  ASSERT_EQ(a.devices.size(), b.devices.size());
  for (size_t i = 0; i < a.devices.size(); ++i) {
    const Device &x = a.devices[i], &y = b.devices[i];
    EXPECT_EQ(x.worker.v, y.worker.v);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.index, y.index);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.vendor, y.vendor);
    EXPECT_EQ(x.sm_count, y.sm_count);
    EXPECT_EQ(x.memory_bytes, y.memory_bytes);
    EXPECT_EQ(x.compute_major, y.compute_major);
    EXPECT_EQ(x.compute_minor, y.compute_minor);
  }
  ASSERT_EQ(a.timelines.size(), b.timelines.size());
  for (size_t t = 0; t < a.timelines.size(); ++t) {
    const Timeline &x = a.timelines[t], &y = b.timelines[t];
    SCOPED_TRACE("timeline " + std::to_string(t) + " " + x.name);
    EXPECT_EQ(x.worker.v, y.worker.v);
    EXPECT_EQ(x.device.v, y.device.v);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.tid, y.tid);
    EXPECT_EQ(x.name, y.name);
    ASSERT_EQ(x.ev.size(), y.ev.size());
    for (size_t i = 0; i < x.ev.size(); ++i) {
      ASSERT_EQ(x.ev.start_ns[i], y.ev.start_ns[i]) << "event " << i;
      ASSERT_EQ(x.ev.dur_ns[i], y.ev.dur_ns[i]) << "event " << i;
      ASSERT_EQ(a.str(x.ev.name[i]), b.str(y.ev.name[i])) << "event " << i;
      ASSERT_EQ(x.ev.kind[i], y.ev.kind[i]) << "event " << i;
      ASSERT_EQ(x.ev.corr[i], y.ev.corr[i]) << "event " << i;
      ASSERT_EQ(x.ev.args_n[i], y.ev.args_n[i]) << "event " << i;
      for (uint32_t k = 0; k < x.ev.args_n[i]; ++k)
        ASSERT_EQ(ArgText(a, x.args[x.ev.args_at[i] + k]), ArgText(b, y.args[y.ev.args_at[i] + k])) << "event " << i;
    }
  }
  ASSERT_EQ(a.counters.size(), b.counters.size());
  for (size_t i = 0; i < a.counters.size(); ++i) {
    EXPECT_EQ(a.counters[i].name, b.counters[i].name);
    EXPECT_EQ(a.counters[i].unit, b.counters[i].unit);
    EXPECT_EQ(a.counters[i].device.v, b.counters[i].device.v);
    EXPECT_EQ(a.counters[i].ts_ns, b.counters[i].ts_ns);
    EXPECT_EQ(a.counters[i].value, b.counters[i].value);
  }
  for (size_t i = 0; i < static_cast<size_t>(ImportIssue::kCount_); ++i)
    EXPECT_EQ(a.diagnostics.count(static_cast<ImportIssue>(i)), b.diagnostics.count(static_cast<ImportIssue>(i)))
        << GetImportIssueInfo(static_cast<ImportIssue>(i)).name;
  EXPECT_EQ(a.diagnostics.notes(), b.diagnostics.notes());
}

// Both decoders on `bytes`; returns the wire decoder's result for further checks.
inline DecodedXSpace ExpectDecodersAgree(std::string_view bytes, const std::string& what,
                                         const std::string& name = "host.xplane.pb") {
  DecodedXSpace w = ImportXSpaceWith(bytes, name, XPlaneDecoder::kWire);
  DecodedXSpace p = ImportXSpaceWith(bytes, name, XPlaneDecoder::kProtobuf);
  ExpectSameTrace(w, p, what);
  return w;
}

}  // namespace stepdoctor::testing
