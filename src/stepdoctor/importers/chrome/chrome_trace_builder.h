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

  void OnTopLevelField(std::string_view key, std::string_view raw_value);
  void OnEvent(const ParsedEvent& e) override;
  void OnMalformed() override;
  // Closes open ranges, assigns devices and names. REQUIRED: called once, after all events.
  void Finish(const TokenizerStats& stats);

  uint64_t events_added() const;

 private:
  // Horovod timelines: phases get their kinds, rank-ready markers stay instants (horovod_phases.h).
  void ReadAsHorovod();
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace stepdoctor::chrome
