// What the benchmarks share: the best time of several runs, and the parsing floor they hold
// stepdoctor's import against. Header-only: each benchmark is one program.
#pragma once

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstddef>

namespace stepdoctor::bench {

// The fastest of `repeat` runs of `fn`, in seconds.
template <typename Fn>
double BestSeconds(int repeat, Fn fn) {
  using Clock = std::chrono::steady_clock;
  double best = 1e30;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = Clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  return best;
}

// The parsing floor: simdjson On-Demand over the whole document (a {"traceEvents": [...]} object
// or a bare array), touching each event's name, ts and dur (what EXPECTED.md's "bare scan"
// measures). Returns a figure that depends on every byte read, so the scan is not optimised away.
inline size_t BareScan(const simdjson::padded_string& json) {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  if (parser.iterate(json).get(doc)) return 0;
  simdjson::ondemand::array events;
  simdjson::ondemand::json_type t;
  if (doc.type().get(t)) return 0;
  if (t == simdjson::ondemand::json_type::array) {
    if (doc.get_array().get(events)) return 0;
  } else if (doc["traceEvents"].get_array().get(events)) {
    return 0;
  }
  size_t n = 0;
  for (auto e : events) {
    simdjson::ondemand::object o;
    if (e.get_object().get(o)) continue;
    for (auto field : o) {
      std::string_view k;
      if (field.unescaped_key().get(k)) break;
      if (k == "name") {
        std::string_view v;
        if (field.value().get_string().get(v)) break;
        n += v.size();
      } else if (k == "ts" || k == "dur") {
        double d;
        if (field.value().get_double().get(d)) break;
        n += d > 0;
      }
    }
  }
  return n;
}

}  // namespace stepdoctor::bench
