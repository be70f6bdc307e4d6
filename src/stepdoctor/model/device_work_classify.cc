#include "stepdoctor/model/device_work_classify.h"

#include <array>
#include <cctype>
#include <string>

#include "stepdoctor/model/runtime_calls.h"

namespace stepdoctor {
namespace {

// Patterns are matched against the lower-cased name, anywhere in it.
struct Pattern {
  std::string_view text;
  std::string_view library;  // empty where the pattern names no library
};

// Communication kernels. NCCL/RCCL/HCCL name theirs after the library; DeepEP's expert-parallel
// all-to-all runs as `dpsk::ep::` / `deep_ep::` dispatch, combine and notify kernels; NVLS and
// PyTorch symmetric-memory all-reduce use multimem/one-shot/two-shot kernels; vLLM's custom
// all-reduce is `cross_device_reduce` (ROCm's quick all-reduce `quickreduce::`); TensorRT-LLM
// spells its own in camel case (`oneShotAllReduceKernel`); TransformerEngine's comm-GEMM overlap
// runs `userbuffers_*` kernels; MSCCL++ and NVSHMEM name theirs after the library.
constexpr std::array kCollective = {
    Pattern{"nccl", "nccl"},           Pattern{"rccl", "rccl"},
    Pattern{"hccl", "hccl"},           Pattern{"dpsk::ep::", "deepep"},
    Pattern{"deep_ep::", "deepep"},    Pattern{"multimem_", "nvls"},
    Pattern{"one_shot_all_reduce", "symmetric_memory"},
    Pattern{"two_shot_all_reduce", "symmetric_memory"},
    Pattern{"cross_device_reduce", "vllm_custom_allreduce"},
    Pattern{"allreduce_kernel", ""},   Pattern{"all_reduce_kernel", ""},
    Pattern{"allgather_kernel", ""},   Pattern{"all_gather_kernel", ""},
    Pattern{"reducescatter_kernel", ""}, Pattern{"reduce_scatter_kernel", ""},
    Pattern{"alltoall_kernel", ""},    Pattern{"all_to_all_kernel", ""},
    Pattern{"allreducekernel", ""},    Pattern{"allgatherkernel", ""},
    Pattern{"reducescatterkernel", ""}, Pattern{"alltoallkernel", ""},
    Pattern{"quickreduce::", "vllm_quickreduce"}, Pattern{"userbuffers", "userbuffers"},
    Pattern{"mscclpp", "mscclpp"},     Pattern{"nvshmem", "nvshmem"},
};

// Copies and memsets, by the names the runtimes give device-side copies.
constexpr std::array kCopy = {std::string_view{"memcpy"}, std::string_view{"dma_request"},
                              std::string_view{"dma_copy"}};
constexpr std::array kMemset = {std::string_view{"memset"}};

// Precision marks, narrowest first: the first table with a match decides.
constexpr std::array kFp4 = {std::string_view{"mxfp4"}, std::string_view{"nvfp4"}, std::string_view{"fp4"},
                             std::string_view{"e2m1"}};
constexpr std::array kFp8 = {std::string_view{"fp8"},  std::string_view{"e4m3"}, std::string_view{"e5m2"},
                             std::string_view{"float8"}, std::string_view{"f8f8"}, std::string_view{"_f8s_"},
                             std::string_view{"_f8h_"}, std::string_view{"_f8b_"}};
// fp16/bf16: cuBLAS/cuDNN (`h884`, `_fp16_`, `bf16`), ATen templates (`c10::half`,
// `c10::bfloat16`, `__nv_bfloat16`, `__half`), hipBLASLt (`_bbs_`, `_hhs_`, ...), Triton dtypes.
constexpr std::array k16Bit = {std::string_view{"bf16"},   std::string_view{"bfloat16"}, std::string_view{"fp16"},
                               std::string_view{"half"},   std::string_view{"f16"},      std::string_view{"h884"},
                               std::string_view{"h1688"},  std::string_view{"h16816"},   std::string_view{"hmma"},
                               std::string_view{"_bbs_"},  std::string_view{"_hhs_"},    std::string_view{"_hss_"},
                               std::string_view{"_bss_"},  std::string_view{"_bh_"}};
constexpr std::array kTf32 = {std::string_view{"tf32"}};
constexpr std::array kFp32 = {std::string_view{"sgemm"}, std::string_view{"_f32f32_f32"},
                              std::string_view{"<float>"}, std::string_view{"<float,"}, std::string_view{"_sss_"}};

// Matrix-unit kernels (TensorCores, AMD MFMA).
constexpr std::array kTensorCore = {std::string_view{"884"},   std::string_view{"1688"},    std::string_view{"16816"},
                                    std::string_view{"wmma"},  std::string_view{"hmma"},    std::string_view{"xmma"},
                                    std::string_view{"gmma"},  std::string_view{"tensorop"}, std::string_view{"mfma"},
                                    std::string_view{"_mi16x16"}, std::string_view{"_mi32x32"},
                                    std::string_view{"tensor_core"}, std::string_view{"nvjet"}};

// GEMMs and convolutions by name (cuBLAS/cuBLASLt, cuDNN, CUTLASS, hipBLASLt, ATen's own).
constexpr std::array kMatrix = {std::string_view{"gemm"},  std::string_view{"conv"},   std::string_view{"cudnn"},
                                std::string_view{"cutlass"}, std::string_view{"cijk_"}, std::string_view{"nvjet"},
                                std::string_view{"matmul"}, std::string_view{"wgrad"},  std::string_view{"dgrad"}};

// cuDNN's kernels that do no matrix math: batch norm (bn_fw_tr_, bn_bw_), layout conversions
// (nchwToNhwcKernel), softmax, pooling and normalization. A "cudnn" in their names is the library's.
constexpr std::array kNotMatrix = {std::string_view{"bn_fw"},      std::string_view{"bn_bw"},
                                   std::string_view{"batchnorm"},  std::string_view{"batch_norm"},
                                   std::string_view{"nchwtonhwc"}, std::string_view{"nhwctonchw"},
                                   std::string_view{"softmax"},    std::string_view{"pooling"},
                                   std::string_view{"layernorm"},  std::string_view{"layer_norm"}};

constexpr std::array kLibrary = {
    Pattern{"nvjet", "cublaslt"}, Pattern{"cublas", "cublas"}, Pattern{"gemm", "cublas"},
    Pattern{"cudnn", "cudnn"},    Pattern{"cutlass", "cutlass"}, Pattern{"cijk_", "hipblaslt"},
    Pattern{"ck_tile", "composable_kernel"}, Pattern{"triton_", "triton"}, Pattern{"at::native::", "aten"},
};

// Kernel names by shape, matched anywhere in the lower-cased name: what CUDA/HIP kernels are
// called that no host function is (GPU architecture prefixes of cuBLAS/cuDNN kernels, Triton's
// generated names, matrix-unit instruction names).
constexpr std::array kKernelShape = {std::string_view{"kernel"},  std::string_view{"ampere_"}, std::string_view{"volta_"},
                                     std::string_view{"turing_"}, std::string_view{"hopper_"}, std::string_view{"maxwell_"},
                                     std::string_view{"sm80_"},   std::string_view{"sm90_"},   std::string_view{"sm75_"},
                                     std::string_view{"sm70_"},   std::string_view{"sm86_"},   std::string_view{"sm89_"},
                                     std::string_view{"sm100_"},  std::string_view{"triton_"}, std::string_view{"cutlass"},
                                     std::string_view{"xmma"},    std::string_view{"gemm"},    std::string_view{"nvjet"},
                                     std::string_view{"cudnn"},   std::string_view{"cijk_"}};
// Host-side names that may contain the words above: framework operators and their namespaces.
constexpr std::array kHostOperatorPrefix = {std::string_view{"aten::"}, std::string_view{"c10d::"},
                                            std::string_view{"torch::"}, std::string_view{"autograd::"}};

// Host API calls of the device libraries: the library's prefix and an upper-case letter
// (cublasSgemm_v2, cudnnConvolutionForward, ncclAllReduce). Their kernels are spelled otherwise.
constexpr std::array kLibraryApiPrefix = {std::string_view{"cublas"}, std::string_view{"cudnn"},
                                          std::string_view{"cufft"},  std::string_view{"curand"},
                                          std::string_view{"cusparse"}, std::string_view{"nccl"},
                                          std::string_view{"rccl"},   std::string_view{"miopen"},
                                          std::string_view{"rocblas"}, std::string_view{"hipblas"}};

bool IsLibraryApiCall(std::string_view name) {
  for (std::string_view p : kLibraryApiPrefix) {
    if (name.compare(0, p.size(), p) != 0) continue;
    std::string_view rest = name.substr(p.size());
    if (rest.compare(0, 2, "Lt") == 0) rest.remove_prefix(2);  // cublasLtMatmul
    if (!rest.empty() && rest[0] >= 'A' && rest[0] <= 'Z' && rest.compare(0, 6, "Kernel") != 0 &&
        rest.compare(0, 9, "DevKernel") != 0)
      return true;
  }
  return false;
}

template <typename Table>
bool Any(std::string_view lower, const Table& t) {
  for (std::string_view p : t)
    if (lower.find(p) != std::string_view::npos) return true;
  return false;
}

}  // namespace

const char* KernelPrecisionName(KernelPrecision p) {
  switch (p) {
    case KernelPrecision::kFp32: return "fp32";
    case KernelPrecision::kTf32: return "tf32";
    case KernelPrecision::k16Bit: return "16bit";
    case KernelPrecision::kFp8: return "fp8";
    case KernelPrecision::kFp4: return "fp4";
    case KernelPrecision::kUnstated: break;
  }
  return "unstated";
}

DeviceWorkClass ClassifyDeviceWork(std::string_view name) {
  std::string lower(name);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  DeviceWorkClass out;
  for (const Pattern& p : kCollective)
    if (lower.find(p.text) != std::string::npos) {
      out.role = DeviceWorkRole::kCollective;
      out.library = p.library;
      break;
    }
  if (out.role == DeviceWorkRole::kCompute) {
    // A copy or memset kernel is named for it at the start ("Memcpy HtoD", "memset (Device)").
    for (std::string_view p : kCopy)
      if (lower.compare(0, p.size(), p) == 0) out.role = DeviceWorkRole::kCopy;
    for (std::string_view p : kMemset)
      if (lower.compare(0, p.size(), p) == 0) out.role = DeviceWorkRole::kMemset;
  }
  if (Any(lower, kFp4)) out.precision = KernelPrecision::kFp4;
  else if (Any(lower, kFp8)) out.precision = KernelPrecision::kFp8;
  else if (Any(lower, k16Bit)) out.precision = KernelPrecision::k16Bit;
  else if (Any(lower, kTf32)) out.precision = KernelPrecision::kTf32;
  else if (Any(lower, kFp32)) out.precision = KernelPrecision::kFp32;
  out.tensor_core = Any(lower, kTensorCore);
  out.matrix = out.role == DeviceWorkRole::kCompute && (out.tensor_core || Any(lower, kMatrix)) && !Any(lower, kNotMatrix);
  if (out.library.empty())
    for (const Pattern& p : kLibrary)
      if (lower.find(p.text) != std::string::npos) {
        out.library = p.library;
        break;
      }
  return out;
}

bool IsDeviceWorkShapedName(std::string_view name) {
  if (name.empty() || IsAcceleratorApiName(name) || IsLibraryApiCall(name)) return false;
  std::string lower(name);
  for (char& c : lower) c = char(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view p : kHostOperatorPrefix)
    if (lower.compare(0, p.size(), p) == 0) return false;
  // Copies and memsets: the name starts with the operation, maybe after a bracket and the API
  // ("[MEMCPY] HtoD", "[CUDA memcpy Host-to-Device]", "Memset (Device)").
  std::string_view rest = lower;
  if (rest.front() == '[') rest.remove_prefix(1);
  for (std::string_view api : {std::string_view{"cuda "}, std::string_view{"hip "}})
    if (rest.compare(0, api.size(), api) == 0) rest.remove_prefix(api.size());
  for (std::string_view p : kCopy)
    if (rest.compare(0, p.size(), p) == 0) return true;
  for (std::string_view p : kMemset)
    if (rest.compare(0, p.size(), p) == 0) return true;
  // A demangled kernel signature: "void name<...>(...)".
  if (lower.compare(0, 5, "void ") == 0 && lower.find('(') != std::string::npos && lower.back() == ')') return true;
  if (Any(lower, kKernelShape)) return true;
  return ClassifyDeviceWork(name).role == DeviceWorkRole::kCollective;
}

bool IsTfNcclManagerCollective(std::string_view n) {
  return n == "kAllReduce" || n == "kBroadcast" || n == "kReduce" || n == "kAllGather" || n == "kReduceScatter" ||
         n == "kAllToAll";
}

bool IsCommunicationKernelName(std::string_view n) { return ClassifyDeviceWork(n).role == DeviceWorkRole::kCollective; }
KernelPrecision KernelPrecisionOf(std::string_view n) { return ClassifyDeviceWork(n).precision; }

}  // namespace stepdoctor
