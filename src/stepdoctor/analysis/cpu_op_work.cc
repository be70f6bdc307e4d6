#include "stepdoctor/analysis/cpu_op_work.h"

#include <algorithm>

#include "stepdoctor/analysis/trace_to_step_signals.h"  // kTinyOpNs

namespace stepdoctor {
namespace {

struct Open {
  int64_t end;     // the operator's end
  int64_t cursor;  // how far its own time has been handed out (its start, then past each child)
};

void Piece(int64_t b, int64_t e, CpuOpPieces* out) {
  if (e <= b) return;
  (e - b >= kTinyOpNs ? out->work : out->dispatch).push_back({b, e});
}

// Closes the innermost open operator: its own time after its last child.
void Close(std::vector<Open>* stack, CpuOpPieces* out) {
  const Open o = stack->back();
  stack->pop_back();
  Piece(o.cursor, o.end, out);
  // The parent's own time resumes where this child ended (clamped: the autograd profiler rounds
  // start and duration apart, so a child may end a microsecond past its parent).
  if (!stack->empty()) stack->back().cursor = std::max(stack->back().cursor, std::min(o.end, stack->back().end));
}

}  // namespace

CpuOpPieces TimelineToCpuOpPieces(const Timeline& t, StepAnnotationNames& is_step,
                                  const std::function<void(int64_t start, int64_t end)>& top_level) {
  CpuOpPieces out;
  std::vector<Open> stack;
  for (uint32_t i = 0; i < t.ev.size(); ++i) {
    const EventKind k = t.ev.kind[i];
    // Operators only: a user annotation (record_function, a tf.function call) is a container
    // whose own time is the caller's code between the operators it wraps, not their work.
    if (k != EventKind::kFrameworkOp || is_step(t.ev.name[i])) continue;
    const int64_t s = t.ev.start_ns[i], e = t.end_ns(i);
    while (!stack.empty() && stack.back().end <= s) Close(&stack, &out);
    if (stack.empty()) {
      top_level(s, e);
    } else {
      Open& parent = stack.back();
      Piece(parent.cursor, s, &out);  // the parent's own time before this child
      parent.cursor = std::max(parent.cursor, s);
    }
    const int64_t end = stack.empty() ? e : std::min(e, stack.back().end);
    stack.push_back({end, s});
  }
  while (!stack.empty()) Close(&stack, &out);
  return out;
}

}  // namespace stepdoctor
