#include "stepdoctor/analysis/trace_to_applied_optimizations.h"

#include <fmt/format.h>

#include <set>
#include <unordered_set>
#include <string_view>

namespace stepdoctor {
namespace {

// A OneShotIterator call this long or longer built its pipeline; a handle handed back takes
// microseconds (6 us in a recorded TF1 step).
constexpr int64_t kOneShotMakesNs = 100'000;

enum class Applied : uint8_t {
  kNone, kGraphLaunch, kCapture, kCompiled, kTorchScript, kXla, kTfGraph, kLoaderWorkers, kPrefetch, kIteratorMade,
  kBackward,  // PyTorch's backward pass or optimizer step: the window trains
  kDropout,   // dropout drawing its random mask (training mode): eval mode calls neither
  kPinMemory, // a batch pinned in page-locked memory (the DataLoader's pin_memory thread, tensor.pin_memory())
  kGradScaler, // torch.cuda.amp.GradScaler's ops: mixed precision with loss scaling
  kDdp,       // DistributedDataParallel's forward: gradients bucketed and all-reduced by its reducer
  kAtenOp,    // any other ATen operator: PyTorch operators are recorded
};

struct NamePattern {
  std::string_view text;
  bool prefix;  // true: the name starts with it; false: contains it
  Applied what;
};

// What each optimisation leaves in a trace, by event name (host side).
constexpr NamePattern kPatterns[] = {
    {"cudaGraphLaunch", true, Applied::kGraphLaunch},
    {"hipGraphLaunch", true, Applied::kGraphLaunch},
    {"cuGraphLaunch", true, Applied::kGraphLaunch},
    {"cudaStreamBeginCapture", true, Applied::kCapture},
    {"hipStreamBeginCapture", true, Applied::kCapture},
    // Not cudaStreamGetCaptureInfo or cudaStreamIsCapturing: NCCL and the caching allocator ask
    // whether a stream is being captured before each launch, graphs or not.
    {"cudaStreamEndCapture", true, Applied::kCapture},
    {"hipStreamEndCapture", true, Applied::kCapture},
    {"cudaGraphInstantiate", true, Applied::kCapture},
    {"hipGraphInstantiate", true, Applied::kCapture},
    {"CompiledFunction", false, Applied::kCompiled},
    {"Torch-Compiled Region", false, Applied::kCompiled},
    {"CompiledFxGraph", false, Applied::kCompiled},
    // Dynamo converting a frame: it compiles. Not any torch/_dynamo file: the profiler itself
    // reads torch/_dynamo/config_utils.py, and eager PyTorch runs eval_frame.py's _fn wrapper
    // around every function it keeps out of Dynamo (torch._disable_dynamo: the optimizers'
    // step and zero_grad, via torch/_compile.py's inner).
    {"torch/_dynamo/convert_frame.py", false, Applied::kCompiled},
    // TorchScript: the autograd node of a differentiable graph the JIT built, the JIT's own
    // functions, and the profiling executor's placeholders for a graph's forward and backward.
    {"DifferentiableGraph", false, Applied::kTorchScript},
    {"torch::jit::", false, Applied::kTorchScript},
    {"<forward op>", true, Applied::kTorchScript},
    {"<backward op>", true, Applied::kTorchScript},
    {"XlaLaunch", false, Applied::kXla},
    {"_XlaRun", false, Applied::kXla},
    {"XlaCompile", false, Applied::kXla},
    // A tf.function's graph, run as one function call (TF2 names its concrete functions so).
    {"__inference_", false, Applied::kTfGraph},
    {"_MultiProcessingDataLoaderIter", false, Applied::kLoaderWorkers},
    // DDP's forward, recorded by its own range: the model is wrapped already.
    {"DistributedDataParallel.forward", true, Applied::kDdp},
    // Autograd nodes ("AddmmBackward0", "autograd::engine::evaluate_function: ...") and optimizers.
    {"Backward", false, Applied::kBackward},
    {"autograd::engine::", true, Applied::kBackward},
    {"Optimizer.step#", true, Applied::kBackward},
    {"Optimizer.zero_grad#", true, Applied::kBackward},
    // GradScaler's unscale and scale update: fp16 mixed precision, however the kernels are named
    // (Triton's and cuBLASLt's names state no precision).
    {"aten::_amp_foreach_non_finite_check_and_unscale_", true, Applied::kGradScaler},
    {"aten::_amp_update_scale_", true, Applied::kGradScaler},
    {"aten::bernoulli_", true, Applied::kDropout},
    {"aten::native_dropout", true, Applied::kDropout},
    {"aten::pin_memory", true, Applied::kPinMemory},
    {"aten::_pin_memory", true, Applied::kPinMemory},
    {"aten::", true, Applied::kAtenOp},
    {"::Prefetch", false, Applied::kPrefetch},
    // Ops that make a tf.data iterator (TF1's OneShotIterator and MakeIterator, TF2's per-epoch
    // AnonymousIteratorV2/V3).
    {"OneShotIterator", true, Applied::kIteratorMade},
    {"MakeIterator", true, Applied::kIteratorMade},
    {"AnonymousIterator", true, Applied::kIteratorMade},
    {"PrefetchDataset", false, Applied::kPrefetch},
};

Applied Classify(std::string_view n) {
  for (const NamePattern& p : kPatterns)
    if (p.prefix ? n.substr(0, p.text.size()) == p.text : n.find(p.text) != std::string_view::npos) return p.what;
  return Applied::kNone;
}

// TensorFlow op types that only a training step runs: gradients and optimizer updates.
bool IsTfTrainingOpType(std::string_view n) {
  const bool apply = n.substr(0, 5) == "Apply" || n.substr(0, 13) == "ResourceApply" ||
                     n.substr(0, 11) == "SparseApply" || n.substr(0, 19) == "ResourceSparseApply";
  return apply || n.find("Grad") != std::string_view::npos || n.find("Backprop") != std::string_view::npos;
}

// The casts autocast inserts before re-dispatching an operator to itself.
bool IsCastName(std::string_view n) { return n == "aten::to" || n == "aten::_to_copy"; }

// The operators torch.autocast runs in reduced precision (its lower-precision lists, CPU and
// CUDA alike: matrix products, convolutions, attention, recurrent cells). Other operators may
// cast and call an overload of their own name in full precision (aten::where, aten::clamp with
// a scalar promote their inputs so): no sign of autocast.
bool IsAutocastLowerPrecisionOp(std::string_view n) {
  static constexpr std::string_view kOps[] = {
      "aten::linear",      "aten::matmul",          "aten::mm",           "aten::bmm",
      "aten::addmm",       "aten::addbmm",          "aten::baddbmm",      "aten::addmv",
      "aten::addr",        "aten::chain_matmul",    "aten::linalg_multi_dot",
      "aten::conv1d",      "aten::conv2d",          "aten::conv3d",       "aten::conv_tbc",
      "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
      "aten::convolution", "aten::_convolution",    "aten::cudnn_convolution", "aten::prelu",
      "aten::scaled_dot_product_attention", "aten::_native_multi_head_attention",
      "aten::lstm_cell",   "aten::gru_cell",        "aten::rnn_tanh_cell", "aten::rnn_relu_cell",
      "aten::mkldnn_rnn_layer"};
  for (std::string_view op : kOps)
    if (n == op) return true;
  return false;
}

// Matrix operators on one host thread that cast their inputs and then call an operator of their
// own name: torch.autocast's re-dispatch (aten::linear > aten::to, aten::to, aten::linear). Eager
// code in full precision never nests such an operator in itself with casts beside it.
// REQUIRED: the trace is finalized (each timeline sorted by start, enclosing events first).
// `memo` holds per name id: -1 not yet, 0 neither, 1 a cast, 2 an autocast operator.
int64_t AutocastOps(const Trace& trace, const Timeline& t, std::vector<int8_t>& memo) {
  struct Open {
    int64_t end;
    StringId name;
    bool cast_child;
  };
  std::vector<Open> stack;
  int64_t n = 0;
  for (uint32_t i = 0; i < t.ev.size(); ++i) {
    const EventKind k = t.ev.kind[i];
    if (k != EventKind::kFrameworkOp) continue;
    const int64_t s = t.ev.start_ns[i];
    while (!stack.empty() && stack.back().end <= s) stack.pop_back();
    const StringId name = t.ev.name[i];
    if (!stack.empty()) {
      Open& parent = stack.back();
      int8_t c = 0;
      if (name.v < memo.size()) {
        if (memo[name.v] < 0) {
          const std::string_view n = trace.str(name);
          memo[name.v] = IsCastName(n) ? 1 : IsAutocastLowerPrecisionOp(n) ? 2 : 0;
        }
        c = memo[name.v];
      }
      if (c == 1) parent.cast_child = true;
      else if (c == 2 && name == parent.name && parent.cast_child) ++n;
    }
    stack.push_back({t.end_ns(i), name, false});
  }
  return n;
}

}  // namespace

std::vector<std::string> AppliedOptimizations::Labels() const {
  std::vector<std::string> out;
  if (graph_launches > 0)
    out.push_back(fmt::format("CUDA/HIP graph replay ({} launch{})", graph_launches, graph_launches == 1 ? "" : "es"));
  if (capture_calls > 0) out.push_back("CUDA/HIP graph capture");
  if (compiled) out.push_back("torch.compile");
  if (torchscript) out.push_back("TorchScript");
  if (xla) out.push_back("XLA");
  if (tf_graph) out.push_back("TensorFlow graph execution");
  if (autocast_ops > 0) out.push_back("mixed precision (autocast)");
  else if (grad_scaler) out.push_back("mixed precision (GradScaler)");
  if (loader_workers) out.push_back("DataLoader worker processes");
  if (prefetch) out.push_back("tf.data prefetch");
  return out;
}

AppliedOptimizations TraceToAppliedOptimizations(const Trace& trace, WorkerId worker) {
  AppliedOptimizations a;
  std::vector<int8_t> memo(trace.strings.size(), -1);  // Applied per name id, classified once
  std::vector<int8_t> autocast_memo(trace.strings.size(), -1);
  std::vector<int8_t> memo_frame(trace.strings.size(), -1);  // compiled region names read once
  std::vector<int8_t> memo_triton(trace.strings.size(), -1);  // kernel names Inductor gave, read once
  std::unordered_set<uint32_t> triton_names;
  std::set<std::string_view> frames;                          // torch.compile frame ids seen
  bool backward = false, aten = false;
  int64_t pinned_h2d = 0, pageable_h2d = 0, pinned_d2h = 0, pageable_d2h = 0;
  for (const auto& t : trace.timelines) {
    if (t.worker != worker) continue;
    if (t.kind == TimelineKind::kDeviceStream) {
      // Inductor names the Triton kernels it generates "triton_<kind>_fused_...", "triton__0d1d2d"
      // (PyTorch 2.0): torch.compile, even where no host range says so (inference under 2.0,
      // a trace of device activity alone). Only in PyTorch traces: XLA names Triton fusions too.
      // Kineto names each host-to-device copy by its source memory: "Memcpy HtoD (Pinned ->
      // Device)" or "(Pageable -> Device)".
      for (size_t i = 0; i < t.ev.size(); ++i) {
        if (t.ev.kind[i] == EventKind::kMemcpyD2H) {
          const std::string_view n = trace.str(t.ev.name[i]);
          if (n.find("-> Pinned") != std::string_view::npos) ++pinned_d2h;
          else if (n.find("-> Pageable") != std::string_view::npos) ++pageable_d2h;
        }
        if (t.ev.kind[i] != EventKind::kMemcpyH2D) continue;
        const std::string_view n = trace.str(t.ev.name[i]);
        if (n.find("Pinned ->") != std::string_view::npos) ++pinned_h2d;
        else if (n.find("Pageable ->") != std::string_view::npos) ++pageable_h2d;
      }
      if (FrameworkOf(trace, worker) != Framework::kPyTorch) continue;
      for (size_t i = 0; i < t.ev.size(); ++i) {
        if (t.ev.kind[i] != EventKind::kKernel) continue;
        int8_t& is_triton = memo_triton[t.ev.name[i].v];
        if (is_triton < 0) is_triton = int8_t(trace.str(t.ev.name[i]).substr(0, 7) == "triton_");
        if (!is_triton) continue;
        a.compiled = true;
        ++a.triton_kernels;
        triton_names.insert(t.ev.name[i].v);
      }
      continue;
    }
    for (size_t i = 0; i < t.ev.size(); ++i) {
      uint32_t id = t.ev.name[i].v;
      if (id >= memo.size()) continue;
      if (memo[id] < 0) memo[id] = int8_t(Classify(trace.str(t.ev.name[i])));
      switch (Applied(memo[id])) {
        case Applied::kGraphLaunch: ++a.graph_launches; break;
        case Applied::kCapture: ++a.capture_calls; break;
        case Applied::kCompiled:
          a.compiled = true;
          if (memo_frame[id] < 0) {
            memo_frame[id] = 0;
            const std::string_view n = trace.str(t.ev.name[i]);
            constexpr std::string_view kRegion = "Torch-Compiled Region: ";
            if (n.substr(0, kRegion.size()) == kRegion) frames.insert(n.substr(kRegion.size(), n.find('/') - kRegion.size()));
          }
          break;
        case Applied::kTorchScript: a.torchscript = true; break;
        case Applied::kXla: a.xla = true; break;
        case Applied::kTfGraph: a.tf_graph = true; break;
        case Applied::kLoaderWorkers: a.loader_workers = true; break;
        case Applied::kPrefetch: a.prefetch = true; break;
        case Applied::kIteratorMade:
          // TF1's OneShotIterator runs in every sess.run, handing back the iterator it made in the
          // first: only a call long enough to build the pipeline made it here.
          if (trace.str(t.ev.name[i]).substr(0, 15) != "OneShotIterator" || t.ev.dur_ns[i] >= kOneShotMakesNs)
            a.pipeline_created = true;
          break;
        case Applied::kBackward: backward = true; break;
        case Applied::kDropout: ++a.dropout_ops; aten = true; break;
        case Applied::kPinMemory: a.pinned_memory = true; aten = true; break;
        case Applied::kAtenOp: aten = true; break;
        case Applied::kGradScaler: a.grad_scaler = true; aten = true; break;
        case Applied::kDdp: a.ddp = true; break;
        case Applied::kNone: break;
      }
    }
    if (t.kind == TimelineKind::kHostThread) a.autocast_ops += AutocastOps(trace, t, autocast_memo);
  }
  // A TF1 session timeline names every op by its type: gradients (ReluGrad, Conv2DBackpropFilter)
  // and optimizer updates (ApplyAdam, ResourceApplyGradientDescent) show a training step.
  const bool tf1 = worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).tf1_session;
  if (tf1) {
    bool any_op = false;
    for (const auto& t : trace.timelines) {
      if (t.worker != worker || t.kind != TimelineKind::kHostThread) continue;
      for (size_t i = 0; i < t.ev.size() && !backward; ++i) {
        if (t.ev.kind[i] != EventKind::kFrameworkOp) continue;
        any_op = true;
        backward = IsTfTrainingOpType(trace.str(t.ev.name[i]));
      }
    }
    a.forward_only = any_op && !backward;
  } else {
    a.forward_only = FrameworkOf(trace, worker) == Framework::kPyTorch && aten && !backward;
  }
  a.trains = backward;
  a.compiled_frames = int64_t(frames.size());
  a.triton_names = int64_t(triton_names.size());
  if (!a.forward_only) a.dropout_ops = 0;  // training: dropout belongs there
  // Most host-to-device copies read page-locked memory: batches are pinned (pin_memory=True).
  if (pinned_h2d > 0 && pinned_h2d >= pageable_h2d) a.pinned_memory = true;
  if (pinned_d2h > 0 && pinned_d2h >= pageable_d2h) a.pinned_results = true;
  // JAX programs are jit-compiled by XLA whatever their names say.
  if (FrameworkOf(trace, worker) == Framework::kJax) a.xla = true;
  if (worker.valid() && worker.v < trace.workers.size() && trace.worker(worker).tf1_session) a.tf_graph = true;
  return a;
}

}  // namespace stepdoctor
