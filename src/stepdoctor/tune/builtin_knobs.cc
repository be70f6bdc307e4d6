#include "stepdoctor/tune/builtin_knobs.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>

namespace stepdoctor::tune {
namespace {

// Value templates resolved per machine: kCores = every usable CPU, kHalf = half of them.
constexpr const char* kCores = "{cores}";
constexpr const char* kHalf = "{half}";
constexpr const char* kFirstHalf = "{first-half}";  // cpu-affinity: CPUs 0..half-1

struct BuiltinDef {
  const char* set;
  const char* name;
  KnobKind kind;
  std::vector<const char*> values;  // tried after the inherited baseline
  bool gpu_only;
  const char* why;
};

const std::vector<BuiltinDef>& Defs() {
  static const std::vector<BuiltinDef> kDefs = {
      {"pytorch", "OMP_NUM_THREADS", KnobKind::kEnv, {"1", kHalf, kCores}, false,
       "threads of torch's CPU operators (each DataLoader worker takes one)"},
      {"pytorch", "PYTORCH_CUDA_ALLOC_CONF", KnobKind::kEnv, {"expandable_segments:True"}, true,
       "the CUDA caching allocator grows segments instead of fragmenting"},
      {"pytorch", "TORCH_CUDNN_V8_API_ENABLED", KnobKind::kEnv, {"1"}, true, "cuDNN's v8 API and its heuristics"},
      {"tensorflow", "TF_XLA_FLAGS", KnobKind::kEnv, {"--tf_xla_auto_jit=2"}, false, "XLA auto-clustering (fusion)"},
      {"tensorflow", "TF_GPU_THREAD_MODE", KnobKind::kEnv, {"gpu_private"}, true,
       "dedicated threads launch the GPU's kernels"},
      {"tensorflow", "TF_NUM_INTEROP_THREADS", KnobKind::kEnv, {"1", kHalf}, false, "threads running independent ops"},
      {"tensorflow", "TF_NUM_INTRAOP_THREADS", KnobKind::kEnv, {kHalf, kCores}, false, "threads within one op"},
      {"tensorflow", "TF_ENABLE_ONEDNN_OPTS", KnobKind::kEnv, {"0", "1"}, false, "oneDNN's CPU kernels"},
      {"process", "MALLOC_ARENA_MAX", KnobKind::kEnv, {"2"}, false,
       "fewer glibc malloc arenas (memory growth with many threads)"},
      {"process", kAffinityKnob, KnobKind::kAffinity, {kFirstHalf}, false, "the job pinned to half the CPUs"},
  };
  return kDefs;
}

std::string Resolve(const std::string& v, int cores) {
  const int half = std::max(1, cores / 2);
  if (v == kCores) return std::to_string(cores);
  if (v == kHalf) return std::to_string(half);
  if (v == kFirstHalf) return half == 1 ? "0" : "0-" + std::to_string(half - 1);
  return v;
}

}  // namespace

std::vector<std::string> BuiltinSetNames() { return {"pytorch", "tensorflow", "process"}; }

Result<BuiltinKnobs> BuiltinKnobSet(const std::string& set, int cores, bool have_gpu) {
  auto names = BuiltinSetNames();
  if (std::find(names.begin(), names.end(), set) == names.end())
    return Result<BuiltinKnobs>(ErrorCode::kInvalidArgument,
                                "--builtin " + set + ": unknown set (pytorch, tensorflow or process)");
  BuiltinKnobs out;
  std::vector<std::string> no_gpu;
  for (const BuiltinDef& d : Defs()) {
    if (set != d.set) continue;
    if (d.gpu_only && !have_gpu) {
      no_gpu.push_back(d.name);
      continue;
    }
    Knob k;
    k.name = d.name;
    k.kind = d.kind;
    k.inherited = true;
    k.why = d.why;
    k.values.push_back("");
    for (const char* v : d.values) {
      std::string r = Resolve(v, cores);
      if (std::find(k.values.begin(), k.values.end(), r) == k.values.end()) k.values.push_back(r);
    }
    // Pinning a 1-CPU job to "half" of one CPU changes nothing.
    if (d.kind == KnobKind::kAffinity && cores < 2) continue;
    out.knobs.push_back(std::move(k));
  }
  if (!no_gpu.empty()) {
    std::string list;
    for (const auto& n : no_gpu) list += (list.empty() ? "" : ", ") + n;
    out.notes.push_back("left out " + list + ": needs an NVIDIA GPU, none visible here");
  }
  return out;
}

int UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return int(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
}

bool HaveNvidiaGpu() { return ::access("/dev/nvidia0", F_OK) == 0; }

}  // namespace stepdoctor::tune
