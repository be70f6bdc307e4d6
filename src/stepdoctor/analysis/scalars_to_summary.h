// TensorBoard scalars -> ScalarsSummary (`stepdoctor scalars`): per run and tag the count, step
// range, last value, min and max, the trend over the last half of the points and the step rate;
// per run the stalls its wall times show (tf_event_stalls).
#pragma once

#include "stepdoctor/importers/import_paths.h"
#include "stepdoctor/report/scalars.h"

namespace stepdoctor {

inline constexpr double kTrendFlatPct = 2.0;   // |change over the last half| under 2% of its mean: flat
inline constexpr size_t kTrendMinPoints = 4;   // fewer points: no trend (a half of one point has no slope)

// The trend of one series: least-squares slope of value over step on the last half of the
// points, as a change over that half relative to its mean.
void ScalarSeriesTrend(const ScalarSeries& s, ScalarTrend* trend, std::optional<double>* change_pct);

// `imported` as ImportPaths returns it (scalar runs already relative to the logdir). Series
// with no values are left out; damaged or truncated event files, and the files of a folder that
// could not be read, become notes.
ScalarsSummary ScalarsToSummary(const ImportResult& imported);

}  // namespace stepdoctor
