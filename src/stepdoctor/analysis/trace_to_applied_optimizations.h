// Trace -> the optimisations the trace shows already in use (graph replay, compiled regions,
// TorchScript, XLA, autocast mixed precision, DataLoader workers, tf.data prefetch), so no rule
// advises what the job already does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stepdoctor/model/trace.h"

namespace stepdoctor {

struct AppliedOptimizations {
  int64_t graph_launches = 0;   // cudaGraphLaunch / hipGraphLaunch calls: CUDA/HIP graph replay
  int64_t capture_calls = 0;    // stream capture calls: a graph-capture pass
  bool compiled = false;        // torch.compile regions (CompiledFunction, Torch-Compiled Region)
  // Distinct torch.compile frames ("Torch-Compiled Region: F/C", F the frame): more than one is
  // graph breaks splitting a compiled function, or several functions compiled.
  int64_t compiled_frames = 0;
  bool torchscript = false;     // TorchScript graphs (torch.jit.script/trace: DifferentiableGraph, torch::jit::)
  bool xla = false;             // XLA clusters or jit-compiled programs
  // TensorFlow ran the step as a graph: a TF1 session (its timeline is a graph run's StepStats)
  // or tf.function graphs (__inference_ functions). Graph mode is done; XLA may not be.
  bool tf_graph = false;
  // Operators autocast re-dispatched in reduced precision: a matrix operator (its lower-precision
  // list) that casts its inputs (aten::to / aten::_to_copy) and then calls itself, the shape
  // torch.autocast gives them on any device, in Kineto and autograd-profiler traces alike.
  int64_t autocast_ops = 0;
  bool grad_scaler = false;     // GradScaler's unscale/update ops ran: fp16 mixed precision with loss scaling
  bool loader_workers = false;  // a multi-process DataLoader
  bool ddp = false;             // the model runs wrapped in DistributedDataParallel (its forward range)
  bool prefetch = false;        // tf.data prefetch in the input pipeline
  // Batches reach the device from page-locked memory: pin_memory ops (the DataLoader's pin
  // thread, tensor.pin_memory()), or most host-to-device copies named "Pinned -> Device".
  bool pinned_memory = false;
  // Most device-to-host copies write page-locked memory ("Memcpy DtoH (Device -> Pinned)"):
  // results already land in pinned buffers.
  bool pinned_results = false;
  // A tf.data iterator made inside the window (OneShotIterator, MakeIterator, AnonymousIterator):
  // the first batch it hands over includes the pipeline's start-up (opening files, filling buffers).
  bool pipeline_created = false;
  // PyTorch operators recorded and neither a backward pass nor an optimizer step, or a TF1
  // session's ops without gradients or optimizer updates: the window runs the model forward only
  // (inference, evaluation).
  bool forward_only = false;
  // Kernels Inductor generated (triton_*): how many ran, and of how many names. Each name run
  // once: the window holds the compiled code's first call.
  int64_t triton_kernels = 0;
  int64_t triton_names = 0;
  // A backward pass or an optimizer step recorded (autograd nodes, Optimizer.step#, a TF1 run's
  // gradients or updates): the window trains. Neither this nor forward_only: the operators, if
  // any, do not say what the job runs.
  bool trains = false;
  // forward_only, and dropout drew random masks (aten::bernoulli_, aten::native_dropout): the
  // model runs in training mode (no model.eval()), so dropout and batch norm act as in training.
  int64_t dropout_ops = 0;
  // forward_only, and batch norm ran in training mode (cuDNN's bn_fw_tr_ kernels, MIOpen's
  // BatchNormFwdTrain, ATen's batch_norm_collect_statistics): the same sign of no model.eval().
  int64_t bn_training_kernels = 0;

  bool graphs() const { return graph_launches > 0; }
  // Compilation that fuses operators or replays launches; TensorFlow's graph mode alone does neither.
  bool any_compilation() const { return graphs() || compiled || torchscript || xla; }
  bool mixed_precision() const { return autocast_ops > 0 || grad_scaler; }
  // Human labels, in a fixed order: "CUDA/HIP graph replay (1 launch)", "torch.compile", ...
  // (pinned memory is not among them: the coverage line names it, the input advice reads it).
  std::vector<std::string> Labels() const;
};

AppliedOptimizations TraceToAppliedOptimizations(const Trace& trace, WorkerId worker);

}  // namespace stepdoctor
