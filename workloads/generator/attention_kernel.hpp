#pragma once
// Which attention kernels a job runs.
//  flash:   one fused kernel of FlashAttention-2's class (FlashAttention-2, cuDNN's and Transformer
//           Engine's fused attention): no s x s tensor in memory; the compute model's reference.
//  flash1:  a fused kernel of the first generation (FlashAttention v1, and the Triton FlashAttention
//           of 2022-23 that MPT / llm-foundry ran with ALiBi): the same memory, half the speed —
//           FlashAttention-2 is "around 2x faster" and v1 reached 25-40% of A100's peak against
//           FlashAttention-2's 50-73% (Dao, "FlashAttention-2", 2023).
//  unfused: Megatron-LM's pre-FlashAttention path — a batched Q K^T GEMM, a fused
//           scale-mask-softmax, dropout on the probabilities and a batched GEMM with V, the s x s
//           scores going through HBM.
namespace echo::workloads {

enum class AttentionKernel { flash, flash1, unfused };

// Throughput of a fused attention kernel relative to FlashAttention-2's class.
inline double relative_attention_speed(AttentionKernel k) { return k == AttentionKernel::flash1 ? 0.5 : 1.0; }

} // namespace echo::workloads
