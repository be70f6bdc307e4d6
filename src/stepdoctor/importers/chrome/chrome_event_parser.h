// Turns a batch of Chrome-trace events (JSON array text from the tokenizer) into ParsedEvents
// with simdjson On-Demand. The only place that includes simdjson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "stepdoctor/importers/chrome/chrome_event.h"
#include "stepdoctor/model/import_diagnostics.h"

namespace stepdoctor::chrome {

class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void OnEvent(const ParsedEvent& e) = 0;
  virtual void OnMalformed() = 0;  // one element that is not a readable event object
  // The next OnEvent's text was repaired before it was read: invalid UTF-8, each bad sequence
  // now U+FFFD (kInvalidUtf8), or `n` values too large to read dropped (kLargeValueDropped).
  virtual void OnRepaired(ImportIssue issue, uint64_t n) = 0;
};

class ChromeEventParser {
 public:
  ChromeEventParser();
  ~ChromeEventParser();
  // REQUIRED: at least 64 readable bytes after json[len-1].
  void ParseBatch(const char* json, size_t len, EventSink& sink);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Parses small top-level values (deviceProperties, distributedInfo) into a callback-friendly
// form: calls `fn(key, value_text)` for each scalar field of each object in an array or of
// a single object; value_text is the unescaped string or the number's text.
void ForEachScalarField(std::string_view raw_json,
                        void (*fn)(void* ctx, int object_index, std::string_view key, std::string_view value),
                        void* ctx);

}  // namespace stepdoctor::chrome
