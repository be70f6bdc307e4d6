// The JSON report's `collective_bandwidth` object (docs/json-report.md), written and read back:
// the inverse pair RenderJson and ReportFromJson use.
#pragma once

#include "stepdoctor/render/json_reader.h"
#include "stepdoctor/render/json_writer.h"
#include "stepdoctor/report/collectives.h"

namespace stepdoctor {

void WriteCollectiveBandwidth(JsonWriter& j, const CollectiveBandwidthSummary& bw);

namespace json_read {
Status ReadCollectiveBandwidth(const Obj& o, CollectiveBandwidthSummary* bw);
}  // namespace json_read

}  // namespace stepdoctor
