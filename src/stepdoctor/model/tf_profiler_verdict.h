// What TensorFlow's own profiler concluded about a run: the TensorBoard profile plugin's analysis
// pages (`<host>.overview_page.pb`, `<host>.input_pipeline.pb`, or their JSON tables), read beside the trace so a report
// can show TensorFlow's verdict next to stepdoctor's. Figures are as TensorFlow wrote them.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace stepdoctor {

struct TfProfilerVerdict {
  std::string source;            // the page read
  std::string host;              // the page's file stem: "localhost", "10.240.1.50"
  bool overview = false;         // an overview page (with the recommendation), not only the input pipeline
  double input_pct = -1;         // share of step time waiting for input; < 0 where the page has none
  double step_ms = 0;            // average step time, ms; 0 where unknown
  int steps = 0;                 // steps the page's breakdown covers
  // TensorFlow's step-time categories in its own words and order, average ms per step.
  std::vector<std::pair<std::string, double>> breakdown_ms;
  std::string device;            // the device the page names ("TPU v2"); empty where it names none
  std::string bottleneck;        // "host", "device", "both" (the recommendation's, else the input analysis')
  std::string statement;         // the recommendation text, markup removed
  std::vector<std::string> other_statements;  // kernel launch, all-other, collectives lines that say "high"/"moderate"
};

}  // namespace stepdoctor
