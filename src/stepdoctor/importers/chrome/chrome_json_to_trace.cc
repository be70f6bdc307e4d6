#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"

#include "stepdoctor/importers/chrome/chrome_event_parser.h"
#include "stepdoctor/importers/chrome/chrome_trace_builder.h"

namespace stepdoctor {
namespace {

class Sink final : public chrome::TokenizerSink {
 public:
  Sink(chrome::ChromeTraceBuilder& b, ByteSource& src, const std::function<void(uint64_t, uint64_t)>& progress)
      : builder_(b), src_(src), progress_(progress) {}
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
  if (builder.events_added() == 0) {
    if (ts.truncated) return Status(ErrorCode::kCorruptInput, src.name() + ": truncated before the first event");
    return Status(ErrorCode::kEmptyInput, src.name() + ": no trace events (not a Chrome trace, or an empty one)");
  }
  return Status::Ok();
}

}  // namespace stepdoctor
