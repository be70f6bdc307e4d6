// JSON report -> Report: the inverse of RenderJson (render/json.cc), so per-rank reports kept in
// summary files can be read back and merged into one job report. Reads schema_version 4
// (kReportSchemaVersion) only; the keys are those of docs/json-report.md.
//
// What it promises: RenderJson(ReportFromJson(RenderJson(r))) == RenderJson(r), byte for byte.
// RenderJson rounds numbers to fixed decimals, so the Report read back holds the rounded values,
// not the analysis's own; a number RenderJson wrote as null (not finite) reads back as NaN (or
// as absent, for the optional ones), which renders as null again.
//
// Fields RenderJson does not write, so they come back as their defaults:
//   - Report::window_ms, Report::lanes, Report::series (the HTML charts' data);
//   - StepRecord::start_ns (steps.per_step[] and steps.warmup[]), and a warm-up step's
//     category_ms;
//   - BreakdownEntry::ms_per_step of breakdown_detail (only its percentages are written);
//   - of a finding's Prediction: fix, baseline_step_ms, baseline_median_ms, model_baseline_ms,
//     predicted_median_ms and critical_path (its parts); why_not where it predicted;
//   - of critical_path: the segments of every step but the median one.
//
// Reading:
//   - unknown keys are ignored (fields are added within a version); of a key given twice, the
//     first counts. `critical_path`, `kernel_tables` and `collective_bandwidth` came within
//     version 4: a report written before them lacks them, and they read as absent (as does
//     `alignment.matched_by`, read as "step order"). Every other key RenderJson always writes
//     is required.
//   - an error is one line naming the key path and the problem: "findings[2].severity: expected
//     a string", "report schema 3, this build reads 4" (ErrorCode::kUnknownFormat); JSON that
//     does not parse, wrong types and missing keys are ErrorCode::kCorruptInput.
//   - the text must be valid UTF-8, as the JSON parser (simdjson) requires; RenderJson copies the
//     bytes of trace names as they are, so a name that is not UTF-8 makes a report unreadable.
#pragma once

#include <string_view>

#include "stepdoctor/core/result.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

Result<Report> ReportFromJson(std::string_view json);

}  // namespace stepdoctor
