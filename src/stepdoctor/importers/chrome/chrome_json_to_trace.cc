#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"

#include "stepdoctor/importers/chrome/chrome_event_parser.h"
#include "stepdoctor/importers/chrome/chrome_trace_builder.h"

namespace stepdoctor {
namespace {

class Sink final : public chrome::TokenizerSink {
 public:
  Sink(chrome::ChromeTraceBuilder& b, ByteSource& src, const std::function<void(uint64_t, uint64_t)>& progress)
      : builder_(b), src_(src), progress_(progress) {}
  bool WantsTopLevelField(std::string_view key) const override { return builder_.WantsTopLevelField(key); }
  void OnTopLevelField(std::string_view key, std::string_view raw) override { builder_.OnTopLevelField(key, raw); }
  void OnEventBatch(const char* json, size_t len, size_t) override {
    parser_.ParseBatch(json, len, builder_);
    if (progress_) progress_(src_.consumed(), src_.total());
  }

 private:
  chrome::ChromeTraceBuilder& builder_;
  chrome::ChromeEventParser parser_;
  ByteSource& src_;
  const std::function<void(uint64_t, uint64_t)>& progress_;
};

// Why a file gave no events, in its own words: each cause has its own message.
Status NoEventsStatus(const std::string& name, const chrome::TokenizerStats& ts, const chrome::ChromeTraceBuilder& b) {
  if (b.events_skipped() > 0)
    return Status(ErrorCode::kCorruptInput,
                  name + ": a Chrome trace, but none of its " + std::to_string(b.events_skipped()) +
                      " events could be read (the first: " +
                      std::string(GetImportIssueInfo(b.first_skip_reason()).description) + ")");
  if (ts.value_too_large)
    return Status(ErrorCode::kCorruptInput, name + ": a single JSON value before the first event is larger than the "
                                                   "importer's size cap");
  if (ts.broken)
    return Status(ErrorCode::kCorruptInput,
                  name + ": the JSON structure breaks at byte " + std::to_string(ts.broken_at) + ", before the first event");
  if (ts.truncated) return Status(ErrorCode::kCorruptInput, name + ": truncated before the first event");
  if (!ts.bare_array && !ts.saw_trace_events)
    return Status(ErrorCode::kUnknownFormat, name + ": a JSON object with no traceEvents array (not a Chrome trace)");
  return Status(ErrorCode::kEmptyInput, name + ": no trace events (an empty Chrome trace)");
}

}  // namespace

Status ImportChromeJson(ByteSource& src, Trace& trace, ChromeImportStats* stats,
                        const chrome::TokenizerOptions& opts, const std::function<void(uint64_t, uint64_t)>& progress) {
  chrome::ChromeTraceBuilder builder(trace, src.name());
  Sink sink(builder, src, progress);
  chrome::TokenizerStats ts;
  Status st = chrome::TokenizeChromeJson(src, sink, &ts, opts);
  if (!st.ok()) return Status(st.code(), src.name() + ": " + st.message());
  if (src.truncated()) ts.truncated = true;
  builder.Finish(ts);
  if (stats) {
    stats->bytes = ts.bytes;
    stats->events = builder.events_added();
  }
  if (builder.events_added() == 0) return NoEventsStatus(src.name(), ts, builder);
  return Status::Ok();
}

}  // namespace stepdoctor
