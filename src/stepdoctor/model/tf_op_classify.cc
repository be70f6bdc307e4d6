#include "stepdoctor/model/tf_op_classify.h"

namespace stepdoctor {
namespace {

struct TfOpEntry {
  std::string_view op;
  TfOpRole role;
};

constexpr TfOpRole kB = TfOpRole::kBookkeeping;

// What each op's kernel does when the executor runs it (TensorFlow's op definitions and kernels).
constexpr TfOpEntry kTfOps[] = {
    // Control-dependency anchors. NoOp "does nothing; only useful as a placeholder for control
    // edges": every partition graph has the executor's _SOURCE and _SINK NoOps (a TF1 timeline
    // names the event NoOp and puts _SOURCE in args.name), and tf.group / the optimizer's train op
    // are NoOps too. The time a timeline gives _SOURCE is the executor starting the run.
    {"NoOp", kB}, {"_SOURCE", kB}, {"_SINK", kB}, {"ControlTrigger", kB},
    // The call frame: _Arg hands a feed (or a function's argument) to the graph and _Retval hands
    // a fetch back; each moves a tensor reference, not its data.
    {"_Arg", kB}, {"_Retval", kB}, {"_DeviceArg", kB}, {"_DeviceRetval", kB},
    // Constants: the kernel builds its tensor once, when it is constructed; each run hands it out.
    {"Const", kB}, {"HostConst", kB},
    // Forwarding: Identity (and StopGradient, the same kernel at run time) passes its input
    // buffer on without a copy; variables hand out a reference or handle to a tensor that lives
    // across runs.
    {"Identity", kB}, {"IdentityN", kB}, {"RefIdentity", kB}, {"StopGradient", kB},
    {"VariableV2", kB}, {"Variable", kB}, {"VarHandleOp", kB},
    // Control flow of tf.cond and tf.while_loop: the executor's frames forward a tensor from one
    // place in the graph to another.
    {"Switch", kB}, {"RefSwitch", kB}, {"Merge", kB}, {"RefMerge", kB}, {"Enter", kB}, {"RefEnter", kB},
    {"Exit", kB}, {"RefExit", kB}, {"NextIteration", kB}, {"RefNextIteration", kB}, {"LoopCond", kB},
    // Rendezvous. Inside one process _Send puts a tensor reference in a table and _Recv takes it
    // (a copy between devices is traced apart, as MEMCPY*); between tasks _Recv waits on the
    // network, and that is communication. Only the importer knows which the trace is.
    {"_Send", TfOpRole::kRendezvous}, {"_Recv", TfOpRole::kRendezvous},
    {"_HostSend", TfOpRole::kRendezvous}, {"_HostRecv", TfOpRole::kRendezvous},
    // The distributed runtime's receive from another task (its gRPC worker service's RecvTensor),
    // as a client-merged timeline of several tasks names it.
    {"RecvTensor", TfOpRole::kRendezvous},
    // Not here: Shape, Reshape, ExpandDims, Snapshot and the like also do no arithmetic, but they
    // are the model's own ops (a Snapshot may copy); a short one already counts as host overhead
    // by its length (kTinyOpNs).
};

}  // namespace

TfOpRole ClassifyTfOp(std::string_view op_type) {
  for (const TfOpEntry& e : kTfOps)
    if (e.op == op_type) return e.role;
  return TfOpRole::kCompute;
}

}  // namespace stepdoctor
