// The one device-work classifier, on kernel names taken from real traces (Kineto on A100, H100,
// H200, H800, MI300X; TensorFlow on V100).
#include "stepdoctor/model/device_work_classify.h"

#include <gtest/gtest.h>

namespace stepdoctor {
namespace {

TEST(DeviceWorkClassify, CollectivesBeyondNcclKernelNames) {
  EXPECT_TRUE(IsCommunicationKernelName("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"));
  EXPECT_TRUE(IsCommunicationKernelName("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"));
  EXPECT_TRUE(IsCommunicationKernelName("void rccl_main_kernel<1, 4, 512>(ncclDevComm*)"));
  // DeepEP's expert-parallel all-to-all (DeepSeek-V3 training on H800).
  EXPECT_TRUE(IsCommunicationKernelName(
      "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 4, 32, 8>(int4*, float*, int const*)"));
  EXPECT_TRUE(IsCommunicationKernelName("void dpsk::ep::internode::cached_notify<false>(int, int, int)"));
  EXPECT_TRUE(IsCommunicationKernelName("void deep_ep::intranode::dispatch<8, 768, 6144>(int4*)"));
  // NVLS / symmetric memory all-reduce, vLLM's custom all-reduce.
  EXPECT_TRUE(IsCommunicationKernelName("void c10d::symmetric_memory::multimem_all_reduce_kernel<__nv_bfloat16, 16>()"));
  EXPECT_TRUE(IsCommunicationKernelName("void c10d::symmetric_memory::two_shot_all_reduce_kernel<float, 8>()"));
  EXPECT_TRUE(IsCommunicationKernelName("void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*)"));
  // TensorRT-LLM's camel-case all-reduce, ROCm quick all-reduce, TransformerEngine userbuffers,
  // MSCCL++ and NVSHMEM kernels.
  EXPECT_TRUE(IsCommunicationKernelName("void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8>(AllReduceParams)"));
  EXPECT_TRUE(IsCommunicationKernelName("void tensorrt_llm::kernels::twoShotAllReduceKernel<half, 4>(AllReduceParams)"));
  EXPECT_TRUE(IsCommunicationKernelName("void quickreduce::allreduce_prototype_twoshot<quickreduce::CodecQ4<half>>()"));
  EXPECT_TRUE(IsCommunicationKernelName("void userbuffers_fp16_sum_inplace_gpu_rr_rs<8>(int, int, int, int, void**)"));
  EXPECT_TRUE(IsCommunicationKernelName("void mscclpp::allreduce6<__half>(__half*, mscclpp::DeviceHandle)"));
  EXPECT_TRUE(IsCommunicationKernelName("void nvshmemi_transfer_rma_p<int>(void*, int, int)"));
  // Compute kernels whose names merely contain a collective-like word are not communication.
  EXPECT_FALSE(IsCommunicationKernelName("void cub::DeviceReduceKernel<cub::DeviceReducePolicy<float>>(float*)"));
  EXPECT_FALSE(IsCommunicationKernelName("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>"));
  EXPECT_FALSE(IsCommunicationKernelName("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>"));
  EXPECT_FALSE(IsCommunicationKernelName("volta_sgemm_128x64_nn"));
}

TEST(DeviceWorkClassify, PrecisionNarrowestFirst) {
  EXPECT_EQ(KernelPrecisionOf("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_gemm_kernel<128>>"),
            KernelPrecision::kFp8);
  EXPECT_EQ(KernelPrecisionOf("sm90_xmma_gemm_e4m3e4m3_bf16f32_f32_tn_n_tilesize128x128x128"), KernelPrecision::kFp8);
  EXPECT_EQ(KernelPrecisionOf("_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1_swiglu"), KernelPrecision::kFp4);
  EXPECT_EQ(KernelPrecisionOf("sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc"), KernelPrecision::k16Bit);
  EXPECT_EQ(KernelPrecisionOf("volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_nn"), KernelPrecision::k16Bit);
  EXPECT_EQ(KernelPrecisionOf("void at::native::batch_norm_backward_kernel<c10::BFloat16, float, float, int>"),
            KernelPrecision::k16Bit);
  // hipBLASLt: BBS = bf16 in and out, HHS = fp16.
  EXPECT_EQ(KernelPrecisionOf("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT32x32x256_MI16x16x1_SN"), KernelPrecision::k16Bit);
  EXPECT_EQ(KernelPrecisionOf("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN"), KernelPrecision::k16Bit);
  EXPECT_EQ(KernelPrecisionOf("sm80_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32"), KernelPrecision::kTf32);
  EXPECT_EQ(KernelPrecisionOf("volta_sgemm_128x64_nn"), KernelPrecision::kFp32);
  EXPECT_EQ(KernelPrecisionOf("triton_poi_fused_constant_pad_nd_moe_forward_0"), KernelPrecision::kUnstated);
  EXPECT_TRUE(IsReducedPrecision(KernelPrecision::kFp8));
  EXPECT_TRUE(IsReducedPrecision(KernelPrecision::kFp4));
  EXPECT_FALSE(IsReducedPrecision(KernelPrecision::kTf32));
  EXPECT_FALSE(IsReducedPrecision(KernelPrecision::kUnstated));
}

TEST(DeviceWorkClassify, TensorCoresCopiesAndLibraries) {
  EXPECT_TRUE(ClassifyDeviceWork("nvjet_sm90_tst_128x128_64x6_1x2_h_bz_NTT").tensor_core);
  EXPECT_EQ(ClassifyDeviceWork("nvjet_sm90_tst_128x128_64x6_1x2_h_bz_NTT").library, "cublaslt");
  EXPECT_TRUE(ClassifyDeviceWork("Cijk_Alik_Bljk_BBS_BH_MT32x32x256_MI16x16x1").tensor_core);
  EXPECT_EQ(ClassifyDeviceWork("Cijk_Alik_Bljk_BBS_BH_MT32x32x256_MI16x16x1").library, "hipblaslt");
  EXPECT_FALSE(ClassifyDeviceWork("void at::native::vectorized_elementwise_kernel<4, float>").tensor_core);
  // cuDNN's kernels that do no matrix math are not matrix work for their library's name.
  EXPECT_TRUE(ClassifyDeviceWork("_5x_cudnn_ampere_scudnn_128x32_relu_small_nn_v1").matrix);
  EXPECT_TRUE(ClassifyDeviceWork("sm90_xmma_wgrad_indexed_implicit_gemm_f32f32_tf32f32_f32_nhwc").matrix);
  EXPECT_FALSE(ClassifyDeviceWork("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512>").matrix);
  EXPECT_FALSE(ClassifyDeviceWork("_ZN5cudnn25bn_fw_tr_1C11_kernel_NCHWIffiLi128ELb1ELi1ELb1EEEv").matrix);
  EXPECT_FALSE(ClassifyDeviceWork("void cudnn::engines_precompiled::nchwToNhwcKernel<float, float>").matrix);
  EXPECT_EQ(ClassifyDeviceWork("Memcpy HtoD (Pageable -> Device)").role, DeviceWorkRole::kCopy);
  EXPECT_EQ(ClassifyDeviceWork("dma_request").role, DeviceWorkRole::kCopy);
  EXPECT_EQ(ClassifyDeviceWork("Memset (Device)").role, DeviceWorkRole::kMemset);
  EXPECT_EQ(ClassifyDeviceWork("ncclDevKernel_AllGather_RING_LL").library, "nccl");
  EXPECT_EQ(ClassifyDeviceWork("void dpsk::ep::internode::dispatch<8>()").library, "deepep");
}

}  // namespace
}  // namespace stepdoctor
