// What TensorFlow's own profiler concluded about a run: the TensorBoard profile plugin's analysis
// pages (`<host>.overview_page.pb`, `<host>.input_pipeline.pb`, or their JSON tables; `<host>.tensorflow_stats.pb`), read beside the trace so a report
// can show TensorFlow's verdict next to stepdoctor's. Figures are as TensorFlow wrote them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace stepdoctor {

// One TensorFlow op type's self time on one side (the op statistics page, tensorflow_stats.pb).
struct TfOpTypeStat {
  bool device = false;      // "Device" (the accelerator) or "Host"
  std::string type;         // "Conv2DBackpropInput"
  int64_t occurrences = 0;  // summed over the type's ops
  double self_ms = 0;       // total self time, summed over the profile
  double pct = 0;           // of the side's self time, idle left out
};

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
  // From the op statistics page (tensorflow_stats.pb): the device's idle share of its profiled
  // time (< 0 where the page has no idle row), the op types with the most self time per side
  // (largest first), and the self time in ops run eagerly (outside tf.function), per side.
  bool op_stats = false;
  double device_idle_pct = -1;
  std::vector<TfOpTypeStat> op_types;
  double eager_device_pct = 0, eager_host_pct = 0;
};

}  // namespace stepdoctor
