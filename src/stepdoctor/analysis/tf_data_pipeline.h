// Trace -> the tf.data pipeline behind the input wait: the iterator tree rebuilt from
// `Iterator::...` event names, each stage's self time on the slow GetNext calls, and the
// stage that blocks the step.
//
// Self time follows the TF profiler's definition: an iterator's time minus the time one of its
// child iterators was working, where a child counts only while its parent waits on it (an
// async stage's background work that overlaps no waiting parent blocks nothing). Each slow
// root GetNext call is a window; inside it every stage's time is clipped to its parent's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stepdoctor/model/trace.h"
#include "stepdoctor/report/report.h"

namespace stepdoctor {

// A root GetNext call at least this long is "slow": it waited on the pipeline.
inline constexpr int64_t kTfDataSlowGetNextNs = 50'000;

enum class TfDataStageKind : uint8_t {
  kSource,          // reads data: TFRecord, TextLine, FixedLengthRecord, Generator, TensorSlice ...
  kParallelizable,  // has a parallel version not in use: Map, Interleave, FlatMap
  kParallel,        // already parallel: ParallelMap, ParallelInterleave, MapAndBatch, ParallelBatch
  kSequential,      // no parallel version: Filter, Batch, Shuffle, Zip, Repeat, Rebatch ...
  kPrefetch,        // Prefetch: a buffer between stages
  kCache,           // Cache / MemoryCache
  kOther,           // Model, MaxIntraOpParallelism and unknown stages
};
const char* TfDataStageKindName(TfDataStageKind k);  // "source", "parallelizable transformation", ...
// Kind of a stage from its dataset op ("ParallelMapV2", "TFRecord", "Map").
TfDataStageKind ClassifyTfDataOp(std::string_view op);
// "Iterator::Model::Prefetch::ParallelMapV2::Zip[0]::TFRecord" -> "TFRecord".
std::string_view TfDataOpOf(std::string_view iterator_name);

struct TfDataStage {
  std::string iterator;   // full name, e.g. "Iterator::Model::ParallelMapV2"
  std::string op;         // "ParallelMapV2"
  TfDataStageKind kind = TfDataStageKind::kOther;
  double self_ms = 0;     // summed over the slow calls
  double share_pct = 0;   // of all stages' self time on the slow calls
  int64_t events = 0;     // its GetNext events overlapping the slow calls
  double per_element_ms = 0;  // self_ms / events
};

struct TfDataPipeline {
  bool present = false;       // Iterator:: events were found
  std::string root;           // the root iterator name ("Iterator::Model")
  int64_t get_next_calls = 0; // root GetNext calls
  int64_t slow_calls = 0;     // those >= kTfDataSlowGetNextNs
  double slow_call_ms = 0;    // their total duration
  std::vector<TfDataStage> stages;  // by self time on slow calls, largest first
  int bottleneck = -1;        // index into stages, or -1
  double elements_per_step = 0;   // bottleneck-stage events per step (when steps are known)
  int parallelism_needed = 0;     // calls in flight that would keep up with the step (0: unknown)
};

// `step_count`/`step_ms`/`input_wait_ms` (per step) size the parallelism estimate; pass 0
// where unknown.
TfDataPipeline TraceToTfDataPipeline(const Trace& trace, WorkerId worker, int step_count, double step_ms,
                                     double input_wait_ms);

}  // namespace stepdoctor
