// Cuts a Chrome-trace JSON stream into batches of whole events, never holding the document.
//
// Accepts the object form ({"traceEvents": [...], other keys...}) and the bare-array form
// ([event, event, ...], PyTorch's legacy profiler). Events are handed over in batches as the
// text of a JSON array ("[e1,e2,...]") with simdjson's padding readable after it, so the
// parser can run simdjson On-Demand over a few hundred KB at a time; memory stays bounded by
// the read window whatever the file size (inputs past 4 GiB included).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/io/byte_source.h"

namespace stepdoctor::chrome {

class TokenizerSink {
 public:
  virtual ~TokenizerSink() = default;
  // Whether the sink wants the value of a top-level key other than traceEvents. A wanted value
  // is held whole (up to TokenizerOptions::max_value_bytes); any other is skipped by scanning
  // it in pieces, so a large one before traceEvents costs no memory.
  virtual bool WantsTopLevelField(std::string_view key) const = 0;
  // A wanted top-level key with its raw JSON value (small: deviceProperties, distributedInfo ...).
  virtual void OnTopLevelField(std::string_view key, std::string_view raw_value) = 0;
  // `json` is "[...]" holding `count` whole events; at least 64 readable bytes follow it.
  virtual void OnEventBatch(const char* json, size_t len, size_t count) = 0;
};

struct TokenizerStats {
  uint64_t bytes = 0;            // uncompressed bytes read
  uint64_t events = 0;           // array elements handed over
  bool bare_array = false;       // the document was a bare array of events
  bool saw_trace_events = false; // the object had a traceEvents array
  bool truncated = false;        // input ended inside the document
  bool broken = false;           // the top-level structure stopped making sense at `broken_at`
  uint64_t broken_at = 0;        // byte offset (uncompressed) where it did
  bool value_too_large = false;  // one event or kept value passed max_value_bytes: reading stopped
  bool ended_between_events = false;  // truncated right after a whole array element (a streamed
                                      // array never closed, as Horovod writes it)
  bool trailing_garbage = false; // non-space bytes after the document
};

struct TokenizerOptions {
  size_t window_bytes = 8u << 20;  // read window; grows if one value is larger
  size_t batch_bytes = 512u << 10; // target bytes of events per batch
  size_t max_value_bytes = 1u << 30; // one event or kept value larger than this is not read
};

// Errors only when nothing usable can be read (not JSON at all); problems after the start
// are reported in `stats` so a partial trace still imports.
Status TokenizeChromeJson(ByteSource& src, TokenizerSink& sink, TokenizerStats* stats,
                          const TokenizerOptions& opts = {});

}  // namespace stepdoctor::chrome
