#include "stepdoctor/analysis/framework_code.h"

#include <string_view>

namespace stepdoctor {
namespace {
constexpr std::string_view kPinArg = "pin_memory=True";
}  // namespace

void KeepTheFrameworksCode(Framework framework, std::vector<Finding>* findings) {
  if (framework != Framework::kPyTorch && framework != Framework::kTensorFlow) return;
  for (Finding& f : *findings) {
    // A finding with code for the other framework only keeps it: some code beats none.
    if (framework == Framework::kPyTorch && !f.fix.pytorch.empty()) f.fix.tensorflow.clear();
    if (framework == Framework::kTensorFlow && !f.fix.tensorflow.empty()) f.fix.pytorch.clear();
  }
}

std::string WithoutPinMemoryArg(std::string code) {
  std::string out;
  size_t pos = 0;
  while (pos < code.size()) {
    size_t eol = code.find('\n', pos);
    const size_t end = eol == std::string::npos ? code.size() : eol + 1;
    std::string line = code.substr(pos, end - pos);
    pos = end;
    const size_t at = line.find(kPinArg);
    // A pinned destination for results (torch.empty(..., pin_memory=True)) is not the batches'
    // pinning the trace shows: it stays.
    if (at == std::string::npos || line.find("torch.empty(") != std::string::npos) {
      out += line;
      continue;
    }
    // A line of its own: only blanks before it, a comma and perhaps a comment after.
    const size_t after = at + kPinArg.size();
    // What follows the argument on its line: nothing but a comma, blanks and a comment.
    size_t rest = after < line.size() && line[after] == ',' ? after + 1 : after;
    rest = line.find_first_not_of(' ', rest);
    const bool alone = line.find_first_not_of(' ') == at &&
                       (rest == std::string::npos || line[rest] == '#' || line[rest] == '\n');
    if (alone) continue;
    // One argument among others: take it with the separator on one side.
    if (line.compare(after, 2, ", ") == 0) line.erase(at, kPinArg.size() + 2);
    else if (at >= 2 && line.compare(at - 2, 2, ", ") == 0) line.erase(at - 2, kPinArg.size() + 2);
    else line.erase(at, kPinArg.size());
    out += line;
  }
  return out;
}

void DropAppliedSettingsFromCode(const AppliedOptimizations& applied, std::vector<Finding>* findings) {
  if (!applied.pinned_memory) return;
  for (Finding& f : *findings) {
    if (f.fix.pytorch.find(kPinArg) == std::string::npos) continue;
    f.fix.pytorch = WithoutPinMemoryArg(std::move(f.fix.pytorch));
    f.evidence.push_back({"already in use", "pinned memory (host-to-device copies read page-locked memory)"});
  }
}

}  // namespace stepdoctor

namespace stepdoctor {
namespace {

void ReplaceAll(std::string* s, std::string_view from, std::string_view to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size()))
    s->replace(at, from.size(), to);
}

// The line of `s` that holds position `at`, as [begin, end) with end past its newline.
std::pair<size_t, size_t> LineAt(const std::string& s, size_t at) {
  const size_t b = s.rfind('\n', at);
  const size_t e = s.find('\n', at);
  return {b == std::string::npos ? 0 : b + 1, e == std::string::npos ? s.size() : e + 1};
}

// Each line that holds `marker` becomes `with` (a line of TF1 code or a comment).
void ReplaceLines(std::string* s, std::string_view marker, std::string_view with) {
  for (size_t at = s->find(marker); at != std::string::npos; at = s->find(marker)) {
    auto [b, e] = LineAt(*s, at);
    const bool newline = e > b && (*s)[e - 1] == '\n';
    s->replace(b, e - b, std::string(with) + (newline ? "\n" : ""));
    if (with.find(marker) != std::string_view::npos) break;  // never loops on its own output
  }
}

// Drops the lines of *code that `drop` holds for; whether it dropped any.
template <typename Pred>
bool DropLines(std::string* code, Pred drop) {
  std::string kept;
  bool any = false;
  for (size_t b = 0; b < code->size();) {
    size_t e = code->find('\n', b);
    if (e == std::string::npos) e = code->size();
    const std::string_view line(code->data() + b, e - b);
    if (drop(line)) any = true;
    else kept.append(line).append("\n");
    b = e + 1;
  }
  if (!kept.empty()) kept.pop_back();
  *code = std::move(kept);
  return any;
}

}  // namespace

std::string Tf1Code(std::string code, bool forward_only, bool before_1_0) {
  // TF 2 Keras' steps per call and TF 2's config API have TF1 session equivalents.
  ReplaceLines(&code, "steps_per_execution",
               "# TF1 session: fewer host round-trips per step: feed from tf.data (no feed_dict), fetch only the train op");
  ReplaceLines(&code, "tf.config.threading.get_intra_op_parallelism_threads",
               "# TF1 session: check the ConfigProto the session is built with: intra_op_parallelism_threads=N "
               "limits each op to N cores (0, the default, uses every core)");
  ReplaceLines(&code, "tf.config.threading.set_intra_op_parallelism_threads",
               "config = tf.ConfigProto(intra_op_parallelism_threads=0, inter_op_parallelism_threads=0)  # 0 = all cores");
  ReplaceLines(&code, "tf.config.threading.set_inter_op_parallelism_threads",
               "sess = tf.Session(config=config)");
  ReplaceLines(&code, "tf.config.list_physical_devices", "config = tf.ConfigProto()");
  // XLA auto-clustering: tf.config.optimizer is TF 2's; a TF1 session sets the jit level in its
  // ConfigProto (the lines that follow it, where the code has them).
  ReplaceLines(&code, "tf.config.optimizer.set_jit",
               "# XLA auto-clustering in a TF1 session (a TF 1.x build with XLA; tf.ConfigProto before TF 1.13):");
  ReplaceLines(&code, "tf.config.experimental.set_memory_growth",
               "config.gpu_options.allow_growth = True   # sess = tf.Session(config=config)");
  ReplaceLines(&code, "tf.keras.mixed_precision.set_global_policy",
               "opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)   # TF 1.14+");
  // tf.data: AUTOTUNE lives under experimental before TF 2; `deterministic` is TF 2.2's.
  ReplaceAll(&code, ", deterministic=False", "");
  if (code.find("tf.data.AUTOTUNE") != std::string::npos) {
    ReplaceAll(&code, "tf.data.AUTOTUNE", "tf.data.experimental.AUTOTUNE");
    code += "\n# TF < 1.13: a number in place of tf.data.experimental.AUTOTUNE (e.g. the core count)";
  }
  // The profiler's Python API (tf.profiler.experimental.Trace, ProfilerOptions) is TF 2.2's; a
  // TF1 session traces one run through its RunOptions, and names work with name scopes.
  if (code.find("tf.profiler.experimental") != std::string::npos) {
    ReplaceLines(&code, "tf.profiler.experimental.ProfilerOptions",
                 "# TF1 session: trace a run with options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), "
                 "run_metadata=tf.RunMetadata(), then timeline.Timeline(run_metadata.step_stats)");
    ReplaceLines(&code, "tf.profiler.experimental.Trace(",
                 "with tf.name_scope(\"prepare_batch\"):   # TF1: the ops it builds carry the name in the timeline");
  }
  if (forward_only)
    ReplaceLines(&code, "fetches = train_op", "fetches = outputs   # what the traced inference fetched: its outputs");
  if (before_1_0) {
    // TensorFlow 0.x: no XLA to turn on, and its session API is tf.* itself. The XLA lines go,
    // with the session config lines that only carry them.
    const bool xla = DropLines(&code, [](std::string_view line) {
      return line.find("XLA") != std::string_view::npos || line.find("xla") != std::string_view::npos ||
             line.find("jit") != std::string_view::npos || line.find("# TF1 sessions: config = ") != std::string_view::npos ||
             line.find("#   sess = ") != std::string_view::npos;
    });
    ReplaceAll(&code, "tf.compat.v1.", "tf.");
    // tf.data is TF 1.4's: a 0.x pipeline reads through queues, whose runner threads batch the
    // examples; one element per enqueue is what keeps them slow.
    if (DropLines(&code, [](std::string_view line) {
          return line.find("tf.data") != std::string_view::npos || line.find("ds = ds.") != std::string_view::npos;
        })) {
      code += std::string(code.empty() ? "" : "\n") +
             "# TensorFlow 0.x has no tf.data (TF 1.4+): batch whole slices per enqueue, with several runner threads\n"
             "batch = tf.train.shuffle_batch(tensors, batch_size, capacity=16 * batch_size, "
             "min_after_dequeue=4 * batch_size, num_threads=8, enqueue_many=True)";
    }
    if (xla)
      code += std::string(code.empty() ? "" : "\n") +
              "# TensorFlow 0.x (its variables are Variable ops, not 1.0's VariableV2): no XLA before TF 1.0; "
              "upgrading TensorFlow gives XLA auto-clustering";
    return code;
  }
  if (code.find("tf.compat.v1.") != std::string::npos)
    code += "\n# TF < 1.13 has no tf.compat.v1: write tf.RunOptions, tf.RunMetadata, tf.ConfigProto, tf.OptimizerOptions";
  return code;
}

void AdaptTensorFlowCodeToTf1(std::vector<Finding>* findings, bool forward_only, bool before_1_0) {
  for (Finding& f : *findings)
    if (!f.fix.tensorflow.empty()) f.fix.tensorflow = Tf1Code(std::move(f.fix.tensorflow), forward_only, before_1_0);
}

}  // namespace stepdoctor
