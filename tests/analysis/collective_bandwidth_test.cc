// Achieved collective bandwidth from record_param_comms sizes and the NCCL kernels they launch.
#include <gtest/gtest.h>

#include "stepdoctor/analysis/trace_to_collective_bandwidth.h"
#include "stepdoctor/analysis/trace_to_steps.h"
#include "stepdoctor/importers/chrome/chrome_json_to_trace.h"
#include "stepdoctor/importers/import_paths.h"
#include "test_util.h"

namespace stepdoctor {
namespace {

TEST(CollectiveBandwidth, FromRecordParamCommsAndItsKernel) {
  // 4 MB all-reduce over 4 ranks whose kernel takes 1 ms: algbw 4 GB/s, busbw x 2(n-1)/n = 6.
  const char* json = R"({"traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": 0, "dur": 50,
     "args": {"In msg nelems": 1000000, "dtype": "Float", "Collective name": "allreduce", "Group size": 4}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5,
     "args": {"correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": 20,
     "dur": 1000, "args": {"device": 0, "correlation": 9}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 7, "ts": 2000,
     "dur": 1000, "args": {"device": 0, "correlation": 99}}
  ]})";
  Trace t;
  auto src = MemorySource(json, "comms.json");
  ASSERT_TRUE(ImportChromeJson(*src, t).ok());
  auto bw = TraceToCollectiveBandwidth(t, PrimaryWorker(t));
  ASSERT_EQ(bw.size(), 1u);
  EXPECT_EQ(bw[0].name, "allreduce");
  EXPECT_EQ(bw[0].calls, 1);  // the second kernel has no sized launch
  EXPECT_DOUBLE_EQ(bw[0].bytes, 4e6);
  EXPECT_NEAR(bw[0].algbw_gbps, 4.0, 1e-9);
  EXPECT_NEAR(bw[0].busbw_gbps, 6.0, 1e-9);
}

TEST(CollectiveBandwidth, CorpusNcclTrace) {
  SD_CORPUS_OR_SKIP(path, "hta-testdata/nccl_parser_config/nccl_data.json.gz");
  auto r = ImportPaths({path});
  ASSERT_TRUE(r.ok());
  auto bw = TraceToCollectiveBandwidth(r->trace, PrimaryWorker(r->trace));
  ASSERT_FALSE(bw.empty());
  EXPECT_EQ(bw[0].name, "allreduce");
  EXPECT_EQ(bw[0].group_size, 2);
  EXPECT_EQ(bw[0].calls, 15);
  EXPECT_DOUBLE_EQ(bw[0].bytes, 306684384.0);  // sum of In msg nelems x 4 bytes (Float)
  EXPECT_NEAR(bw[0].algbw_gbps, 6.6, 0.2);
}

}  // namespace
}  // namespace stepdoctor
