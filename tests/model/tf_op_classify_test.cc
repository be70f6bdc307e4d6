// The one table of TensorFlow ops that do no math (model/tf_op_classify.h), on op types taken
// from real TF1 timelines (a CPU softmax-regression step, an MNIST CNN step on a GPU).
#include "stepdoctor/model/tf_op_classify.h"

#include <gtest/gtest.h>

namespace stepdoctor {
namespace {

TEST(TfOpClassify, ExecutorBookkeepingOps) {
  for (const char* op : {"NoOp", "_SOURCE", "_SINK", "_Arg", "_Retval", "Const", "Identity", "VariableV2", "Switch",
                         "Merge", "Enter", "Exit", "NextIteration", "LoopCond"})
    EXPECT_EQ(ClassifyTfOp(op), TfOpRole::kBookkeeping) << op;
}

TEST(TfOpClassify, RendezvousOpsAreTheirOwnRole) {
  for (const char* op : {"_Send", "_Recv", "_HostSend", "_HostRecv", "RecvTensor"}) EXPECT_EQ(ClassifyTfOp(op), TfOpRole::kRendezvous) << op;
}

TEST(TfOpClassify, TheModelsOpsAreCompute) {
  for (const char* op : {"MatMul", "Conv2D", "SparseSoftmaxCrossEntropyWithLogits", "ApplyGradientDescent", "Shape",
                         "Reshape", "Snapshot", "IteratorGetNext", "NcclAllReduce", "RandomStandardNormal", "noop",
                         "NoOpX", ""})
    EXPECT_EQ(ClassifyTfOp(op), TfOpRole::kCompute) << op;
}

}  // namespace
}  // namespace stepdoctor
