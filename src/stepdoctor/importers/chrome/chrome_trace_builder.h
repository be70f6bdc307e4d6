// Turns parsed Chrome-trace events of one file into one worker of the Trace: timelines per
// (pid, tid), B/E pairing, counters, names from metadata events, devices from
// deviceProperties / process labels / TensorFlow plane names, flows onto correlation ids.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "stepdoctor/importers/chrome/chrome_event.h"
#include "stepdoctor/importers/chrome/chrome_event_parser.h"
#include "stepdoctor/importers/chrome/chrome_json_tokenizer.h"
#include "stepdoctor/model/trace.h"

namespace stepdoctor::chrome {

class ChromeTraceBuilder final : public EventSink {
 public:
  ChromeTraceBuilder(Trace& trace, std::string source_name);
  ~ChromeTraceBuilder() override;

  // The top-level keys whose values it reads (schemaVersion, deviceProperties, ...).
  bool WantsTopLevelField(std::string_view key) const;
  void OnTopLevelField(std::string_view key, std::string_view raw_value);
  void OnEvent(const ParsedEvent& e) override;
  void OnMalformed() override;
  void OnRepaired(ImportIssue issue, uint64_t n) override;
  // Closes open ranges, assigns devices and names. REQUIRED: called once, after all events.
  void Finish(const TokenizerStats& stats);

  uint64_t events_added() const;
  // Events counted under a diagnostic and not kept, and the reason the first of them was.
  uint64_t events_skipped() const;
  ImportIssue first_skip_reason() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace stepdoctor::chrome
