// The NVML sampler over a fake NVML (no driver needed), and the no-driver path.
#include "stepdoctor/live/nvml_sampler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>

namespace stepdoctor::live {
namespace {

nvml::Return FakeInit() { return nvml::kSuccess; }
nvml::Return FakeCount(unsigned int* n) { *n = 2; return nvml::kSuccess; }
nvml::Return FakeHandle(unsigned int i, nvml::Device* d) {
  *d = reinterpret_cast<nvml::Device>(uintptr_t(i + 1));
  return nvml::kSuccess;
}
unsigned Idx(nvml::Device d) { return unsigned(reinterpret_cast<uintptr_t>(d)) - 1; }
nvml::Return FakeName(nvml::Device d, char* out, unsigned int n) {
  std::snprintf(out, n, "Fake GPU %u", Idx(d));
  return nvml::kSuccess;
}
nvml::Return FakeUtil(nvml::Device d, nvml::Utilization* u) {
  u->gpu = Idx(d) == 0 ? 20 : 90;
  u->memory = 5;
  return nvml::kSuccess;
}
nvml::Return FakeMem(nvml::Device d, nvml::Memory* m) {
  m->total = 80ull << 30;
  m->used = Idx(d) == 0 ? 10ull << 30 : 79ull << 30;
  m->free = m->total - m->used;
  return nvml::kSuccess;
}
nvml::Return FakePower(nvml::Device, unsigned int* mw) { *mw = 250500; return nvml::kSuccess; }
nvml::Return FakeProcs(nvml::Device d, unsigned int* count, nvml::ProcessInfo* infos) {
  if (*count < 2) { *count = 2; return nvml::kInsufficientSize; }
  *count = 2;
  infos[0] = {unsigned(getpid()), 3ull << 30, 0, 0};
  infos[1] = {999999, 1ull << 30, 0, 0};  // another job's process: not counted
  return nvml::kSuccess;
}

TEST(LiveNvml, SamplesEveryGpuThroughTheApi) {
  NvmlApi api;
  api.init = &FakeInit;
  api.device_count = &FakeCount;
  api.device_by_index = &FakeHandle;
  api.name = &FakeName;
  api.utilization = &FakeUtil;
  api.memory = &FakeMem;
  api.power_mw = &FakePower;
  api.processes = &FakeProcs;  // pcie and clock left null: an older driver
  NvmlSampler s(api);
  ASSERT_EQ(s.gpus().size(), 2u);
  EXPECT_EQ(s.gpus()[1].name, "Fake GPU 1");
  EXPECT_EQ(s.gpus()[0].memory_total_bytes, 80ull << 30);
  Sample smp;
  s.Sample({int64_t(getpid())}, &smp);
  EXPECT_EQ(smp.Get("gpu0_util_pct"), 20);
  EXPECT_EQ(smp.Get("gpu1_util_pct"), 90);
  EXPECT_EQ(smp.Get("gpu1_mem_used_bytes"), double(79ull << 30));
  EXPECT_DOUBLE_EQ(smp.Get("gpu0_power_w"), 250.5);
  EXPECT_EQ(smp.Get("gpu0_proc_mem_bytes"), double(3ull << 30));
  EXPECT_EQ(smp.Get("gpu0_sm_clock_mhz"), -1);  // absent, not zero
}

TEST(LiveNvml, MissingLibraryIsAOneLineReason) {
  auto api = LoadNvml("libnvidia-ml-does-not-exist.so.1");
  ASSERT_FALSE(api.ok());
  EXPECT_EQ(api.message().find('\n'), std::string::npos);
  EXPECT_NE(api.message().find("libnvidia-ml-does-not-exist"), std::string::npos);
}

}  // namespace
}  // namespace stepdoctor::live
