// One Chrome-trace event as the parser hands it to the builder: views into the parser's
// buffers, valid only during the callback.
#pragma once

#include <cstdint>
#include <string_view>

#include "stepdoctor/core/checked_time.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

// pid/tid may be numbers or strings ("CPU functions", "stream 7"); numeric strings are
// read as numbers so "25738" and 25738 name the same thread. A number that is not a whole
// int64 (1e300, 18446744073709551615, 1.5) is read as its text, like a string, so no two such
// ids merge into one clamped or wrapped number.
struct PidTid {
  bool is_string = false;
  bool not_int64 = false;  // a JSON number outside int64 or not whole: `str` holds its text
  int64_t num = 0;
  std::string_view str;
};

// The argument keys the importer knows: read from every event that has them. Index order is
// the table in chrome_event_parser.cc; kArgStore says which are kept on the event.
enum class KnownArg : int8_t {
  kUnknown = -1,
  kName, kLabels, kSortIndex,                                       // metadata (M) events
  // correlation (Kineto), correlation_id (TensorFlow), correlationId (CUPTI's own record field,
  // which custom CUPTI tracers copy): read, folded into columns, like the device keys.
  kCorrelation, kCorrelationId, kCorrelationCupti, kDevice, kDeviceId, kDeviceType,
  kTotalAllocated, kTotalReserved,                                  // memory counters
  kBytes, kStream, kGrid, kBlock, kCollectiveName, kInMsgNelems,    // kept on the event
  kOutMsgNelems, kGroupSize, kProcessGroupName, kDtype, kStepNum, kGroupId, kTfOp, kIsEager,
  kTfFunctionCall, kKernelDetails, kMemcpyDetails, kSeq,
  kInputDims,  // kept on batch copies only (analysis/trace_to_batch_size.h)
  kShape,      // kept in Horovod timelines only: a tensor's shape on its operation's end
  kCount_
};
inline constexpr int kKnownArgCount = static_cast<int>(KnownArg::kCount_);
// The key text of each KnownArg.
extern const std::string_view kKnownArgKeys[kKnownArgCount];
// Whether the builder keeps a KnownArg on the event (the others are folded into columns).
bool KnownArgIsStored(KnownArg a);
// A correlation id's key, whichever spelling.
inline bool IsCorrelationArg(KnownArg a) {
  return a == KnownArg::kCorrelation || a == KnownArg::kCorrelationId || a == KnownArg::kCorrelationCupti;
}

struct ParsedArg {
  std::string_view key;
  KnownArg known = KnownArg::kUnknown;
  ArgType type = ArgType::kInt;
  int64_t i = 0;
  double d = 0;
  std::string_view s;  // strings, and the raw JSON of arrays
};

struct ParsedEvent {
  static constexpr int kMaxArgs = 24;  // args past this are not kept

  char ph = 0;
  std::string_view name, cat, id, scope, bp;
  bool has_id = false;
  TimeParse ts = TimeParse::kAbsent, dur = TimeParse::kAbsent;
  int64_t ts_ns = 0, dur_ns = 0;  // meaningful where ts / dur is kOk
  PidTid pid, tid;
  int nargs = 0;
  ParsedArg args[kMaxArgs];

  // Forgets the previous event without touching the args array (a reset per event must be cheap:
  // assigning a fresh ParsedEvent would clear ~1.3 KB each time).
  // Each field is cleared by its own stores: a chained `a = b = {}` reads each view back just
  // after writing it, a load the CPU cannot forward from the two stores (a stall per event).
  void Reset() {
    ph = 0;
    name = {};
    cat = {};
    id = {};
    scope = {};
    bp = {};
    has_id = false;
    ts = TimeParse::kAbsent;
    dur = TimeParse::kAbsent;
    ts_ns = 0;
    dur_ns = 0;
    pid = PidTid();
    tid = PidTid();
    nargs = 0;
  }

  const ParsedArg* arg(std::string_view key) const {
    for (int k = 0; k < nargs; ++k)
      if (args[k].key == key) return &args[k];
    return nullptr;
  }
  const ParsedArg* arg(KnownArg a) const {
    for (int k = 0; k < nargs; ++k)
      if (args[k].known == a) return &args[k];
    return nullptr;
  }
};

// Parses a decimal number of microseconds ("1623143566756.123", "-5", "1.5e3") into
// nanoseconds exactly where the text has at most 3 fractional digits (rounded past that).
// kOk, kNotATime, or kOutOfRange where the nanoseconds would lie past +-kMaxTimeNs.
TimeParse ParseMicrosToNanos(std::string_view text, int64_t* out_ns);

}  // namespace stepdoctor::chrome
