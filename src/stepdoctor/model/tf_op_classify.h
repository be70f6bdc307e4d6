// The one table of TensorFlow op types that do no math: the executor's own bookkeeping, run as
// graph nodes. Their time in a trace is the framework's per-run cost, not the model's compute.
// Read by the importers (which set EventKind::kFrameworkOverhead from it); the table and the
// reason for each entry are in tf_op_classify.cc, tested in tests/model/tf_op_classify_test.cc.
#pragma once

#include <cstdint>
#include <string_view>

namespace stepdoctor {

enum class TfOpRole : uint8_t {
  kCompute,      // the model's work (MatMul, Conv2D, Shape, ...): anything not in the table
  kBookkeeping,  // does no math and moves no data: NoOp (_SOURCE, _SINK), _Arg, _Retval, Const, ...
  kRendezvous,   // _Send/_Recv: a hand-off inside one process, a network transfer between tasks
};

// Role of an op by its type ("NoOp", "_Recv"), or by the executor's node names _SOURCE/_SINK,
// which some writers use as the event's name.
TfOpRole ClassifyTfOp(std::string_view op_type);

}  // namespace stepdoctor
