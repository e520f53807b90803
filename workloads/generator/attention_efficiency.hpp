#pragma once
// How fast a fused attention kernel runs: the share of the GPU's large-GEMM throughput
// (GpuSpec::gemm_share) it reaches, by implementation, direction, mask, key length and head size.
//
// Hopper: measured. The FlashAttention-3 paper (Shah et al., 2024, figures 5-6: BF16, H100 SXM5,
// batch x sequence = 16k tokens, 16 heads) timed FlashAttention-2 and cuDNN forward with and without
// a causal mask and backward without one, at 512..16k tokens; each figure is read against the best
// bf16 GEMM measured on an H100 SXM by the same kind of short benchmark (794.5 TFLOP/s,
// ../shared/data/compute). A causal forward pays for its diagonal tiles and unequal rows: 21-37%
// at 2k and below, 9% at 16k. The paper has no causal backward; Transformer Engine's attention
// benchmark (docs/examples/attention/attention.ipynb, H100, cuDNN: 7.49 ms forward + backward for
// batch 2, 32 heads of 128, sequence 8192, causal) leaves the causal backward as fast as the
// unmasked one measured (the masked forward being 529 TFLOP/s there), so the mask costs the
// backward nothing here.
// Elsewhere (Ampere, Blackwell, CDNA): FlashAttention-2's published A100 figures — 85% (forward) and
// 70% (backward) of the GEMM share on long keys, key length / (key length + 256) on short ones — with
// no causal or head-size term (none measured); cuDNN runs 0.82x FlashAttention-2 on A100 (the
// benchmark table of huggingface/transformers#48163).
#include "workloads/generator/attention_kernel.hpp"
#include "workloads/generator/gpu_specs.hpp"

namespace echo::workloads {

struct AttentionShape {
  bool forward = true;
  bool causal = true;
  double key_length = 0;
  double head_dim = 128;
};

// The kernel Transformer Engine (`te`) runs on this GPU; other kernels are themselves.
AttentionKernel effective_attention_kernel(AttentionKernel k, const GpuSpec& gpu);

// Share of gpu.gemm_share(16-bit) the kernel reaches, before wave quantisation. `unfused` is not a
// fused kernel: 0.
double attention_efficiency(const GpuSpec& gpu, AttentionKernel kernel, const AttentionShape& shape);

} // namespace echo::workloads
