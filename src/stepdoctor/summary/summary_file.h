// A RankSummary as a file (`.sdsum`): gzip-compressed JSON, versioned (kSummaryVersion).
//
//   {"stepdoctor_summary": 1, "tool_version": ..., "worker": {hostname, rank, world_size,
//    source_path, communicates, events}, "steps": null | [start_ns, end_ns],
//    "figures": {...the per-rank table's figures...},
//    "collectives": {device_total, host_total, names[], device[], host[]}  (records flattened:
//                   step, name index, start_ns, end_ns, ... on the rank's own clock),
//    "report": {...the rank's JSON report, docs/json-report.md...},
//    "extras": {window_ms, breakdown_detail_ms, lanes, series}}  (what the JSON report leaves out
//                   that the text and HTML reports show)
//
// Figures are written exactly (shortest round-trip decimals), so a summary read back gives the
// job report the same numbers as the summary in memory.
#pragma once

#include <string>
#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/summary/rank_summary.h"

namespace stepdoctor {

inline constexpr std::string_view kSummaryExtension = ".sdsum";

std::string SummaryToJson(const RankSummary& s);
// `source` names the input in errors.
Result<RankSummary> SummaryFromJson(std::string_view json, const std::string& source);

// gzip of SummaryToJson, written to `path` through a temporary file renamed into place.
Status WriteSummaryFile(const RankSummary& s, const std::string& path);
// Reads a summary file (gzip or plain JSON). Errors name the file and the reason.
Result<RankSummary> ReadSummaryFile(const std::string& path);

// Whether `path` is named like a summary.
bool IsSummaryPath(std::string_view path);

}  // namespace stepdoctor
