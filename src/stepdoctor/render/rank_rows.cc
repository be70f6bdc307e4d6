#include <algorithm>

#include "stepdoctor/render/render.h"

namespace stepdoctor {

std::vector<size_t> RankRowsShown(const Report& r) {
  std::vector<size_t> rows(r.workers.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  if (rows.size() <= kMaxRankRows) return rows;
  std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
    const auto& x = r.workers[a];
    const auto& y = r.workers[b];
    const double lx = x.late_ms.value_or(0), ly = y.late_ms.value_or(0);
    return lx != ly ? lx > ly : x.median_step_ms > y.median_step_ms;
  });
  rows.resize(kMaxRankRows);
  return rows;
}

std::vector<size_t> DeviceRowsShown(const Report& r) {
  std::vector<size_t> rows(r.devices.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;
  if (rows.size() <= kMaxRankRows) return rows;
  std::stable_sort(rows.begin(), rows.end(),
                   [&](size_t a, size_t b) { return r.devices[a].idle_pct > r.devices[b].idle_pct; });
  rows.resize(kMaxRankRows);
  return rows;
}

}  // namespace stepdoctor
