// Fused attention's speed: on Hopper the FlashAttention-3 paper's measurements of cuDNN and
// FlashAttention-2 (read against the best measured GEMM), the kernel Transformer Engine picks per
// GPU generation, and context parallelism's unmasked steps running faster than its causal one.
#include "support/approx.hpp"
#include "workloads/generator/attention_efficiency.hpp"
#include "workloads/generator/compute_model.hpp"

#include <doctest/doctest.h>

using namespace echo::workloads;

namespace {

// The paper's sweep shape: batch x length = 16k tokens, 16 heads of 128.
KernelOp sweep_op(double length, bool forward, bool causal, AttentionKernel kernel) {
  KernelOp op;
  op.shape = forward ? KernelShape::attention_forward : KernelShape::attention_backward;
  op.batch = 16 * (16384 / length);
  op.m = op.n = length;
  op.k = 128;
  op.causal = causal;
  op.attention = kernel;
  return op;
}

// TFLOP/s the model gives, scaled to the short benchmark's clocks (the GEMM share against the best
// measured GEMM, 794.5 of 989.4): comparable with the paper's figures.
double benchmark_tflops(const ComputeModel& model, const KernelOp& op) {
  const double s = model.time_s(op) - ComputeModel::kKernelOverheadS;
  const GpuSpec& gpu = model.gpu();
  return kernel_flops(op) / s * 794.5 / (gpu.gemm_share(DataType::bf16) * gpu.peak_bf16);
}

} // namespace

TEST_CASE("attention on Hopper: the FlashAttention-3 paper's cuDNN and FlashAttention-2 speeds, causal masks cost") {
  const ComputeModel h100(*gpu_preset("h100"), DataType::bf16);
  // Figures 5-6 of the paper (H100 SXM5, BF16, head dim 128), at 2k and 8k tokens.
  CHECK(benchmark_tflops(h100, sweep_op(2048, true, false, AttentionKernel::cudnn)) == echo::test::Approx(617).epsilon(0.01));
  CHECK(benchmark_tflops(h100, sweep_op(8192, true, false, AttentionKernel::cudnn)) == echo::test::Approx(600).epsilon(0.01));
  CHECK(benchmark_tflops(h100, sweep_op(2048, true, true, AttentionKernel::cudnn)) == echo::test::Approx(484).epsilon(0.01));
  CHECK(benchmark_tflops(h100, sweep_op(8192, false, false, AttentionKernel::cudnn)) == echo::test::Approx(518).epsilon(0.01));
  CHECK(benchmark_tflops(h100, sweep_op(2048, true, false, AttentionKernel::flash)) == echo::test::Approx(362).epsilon(0.01));
  CHECK(benchmark_tflops(h100, sweep_op(4096, false, false, AttentionKernel::flash)) == echo::test::Approx(310).epsilon(0.01));
  // Between measured lengths: between their figures.
  const double at3k = benchmark_tflops(h100, sweep_op(3072, true, true, AttentionKernel::cudnn));
  CHECK(at3k > 484);
  CHECK(at3k < 518);
  // The causal backward runs at the unmasked one's speed: Transformer Engine's own benchmark of
  // the Llama 3.1 layer's attention (batch 2, 32 heads of 128, sequence 8192, causal) measured
  // 7.49 ms forward and backward with cuDNN on an H100.
  CHECK(benchmark_tflops(h100, sweep_op(4096, false, true, AttentionKernel::cudnn)) == echo::test::Approx(499).epsilon(0.01));
  KernelOp llama = sweep_op(8192, true, true, AttentionKernel::cudnn);
  llama.batch = 2 * 32;
  KernelOp llama_bwd = llama;
  llama_bwd.shape = KernelShape::attention_backward;
  const double benchmark_clock = 794.5e12 / (h100.gpu().gemm_share(DataType::bf16) * h100.gpu().peak_bf16);
  CHECK((h100.time_s(llama) + h100.time_s(llama_bwd)) / benchmark_clock * 1e3 == echo::test::Approx(7.49).epsilon(0.03));
  // Head dim 64 runs slower per FLOP (forward at 16k: 413 against 595).
  KernelOp narrow = sweep_op(16384, true, false, AttentionKernel::cudnn);
  narrow.k = 64;
  narrow.batch *= 2;
  CHECK(benchmark_tflops(h100, narrow) == echo::test::Approx(413).epsilon(0.01));
}

TEST_CASE("Transformer Engine's attention is cuDNN's on Hopper and FlashAttention-2 on Ampere") {
  const GpuSpec h100 = *gpu_preset("h100"), a100 = *gpu_preset("a100");
  CHECK(effective_attention_kernel(AttentionKernel::te, h100) == AttentionKernel::cudnn);
  CHECK(effective_attention_kernel(AttentionKernel::te, a100) == AttentionKernel::flash);
  CHECK(effective_attention_kernel(AttentionKernel::flash, h100) == AttentionKernel::flash);
  CHECK(effective_attention_kernel(AttentionKernel::te_flash, h100) == AttentionKernel::flash);  // NVTE_FUSED_ATTN=0
  const KernelOp te = sweep_op(4096, true, true, AttentionKernel::te);
  KernelOp cudnn = te, flash = te;
  cudnn.attention = AttentionKernel::cudnn;
  flash.attention = AttentionKernel::flash;
  const ComputeModel on_h100(h100, DataType::bf16), on_a100(a100, DataType::bf16);
  CHECK(on_h100.time_s(te) == on_h100.time_s(cudnn));
  CHECK(on_a100.time_s(te) == on_a100.time_s(flash));
  // Ampere keeps FlashAttention-2's published A100 share: 85% of the GEMM share forward on long keys.
  const AttentionShape long_keys{true, true, 16384, 128};
  CHECK(attention_efficiency(a100, AttentionKernel::flash, long_keys) == echo::test::Approx(0.85 * 16384 / (16384 + 256)));
  CHECK(attention_efficiency(a100, AttentionKernel::unfused, long_keys) == 0);
  // An fp8 recipe keeps attention in 16 bits.
  CHECK(ComputeModel(h100, DataType::fp8).time_s(cudnn) == on_h100.time_s(cudnn));
}
