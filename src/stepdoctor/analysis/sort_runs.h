// Sorting values gathered timeline by timeline: they arrive as a few ascending runs (each
// timeline's part in time order), which merging puts in order faster than sorting afresh.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace stepdoctor {

// Sorts `v` ascending by merging its ascending runs pairwise; many short runs (no such shape)
// are sorted with std::sort. REQUIRED: `<` is a total order on the values (two that compare
// equal are indistinguishable: int64, pairs of them), so the result is std::sort's exactly.
template <typename T>
void SortRuns(std::vector<T>& v) {
  std::vector<size_t> runs{0};  // where each ascending run starts, then v.size()
  for (size_t i = 1; i < v.size(); ++i)
    if (v[i] < v[i - 1]) runs.push_back(i);
  if (runs.size() == 1) return;
  constexpr size_t kMinRunLength = 16;
  if (runs.size() * kMinRunLength > v.size()) {
    std::sort(v.begin(), v.end());
    return;
  }
  runs.push_back(v.size());
  while (runs.size() > 2) {
    std::vector<size_t> next{0};
    for (size_t r = 0; r + 1 < runs.size(); r += 2) {
      if (r + 2 < runs.size()) {
        std::inplace_merge(v.begin() + std::ptrdiff_t(runs[r]), v.begin() + std::ptrdiff_t(runs[r + 1]),
                           v.begin() + std::ptrdiff_t(runs[r + 2]));
        next.push_back(runs[r + 2]);
      } else {
        next.push_back(runs[r + 1]);
      }
    }
    runs.swap(next);
  }
}

}  // namespace stepdoctor
