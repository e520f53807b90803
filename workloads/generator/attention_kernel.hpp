#pragma once
// Which attention kernels a job runs.
//  flash:   FlashAttention-2 (the flash-attn library, and PyTorch SDPA's default backend): no s x s
//           tensor in memory.
//  cudnn:   cuDNN's fused flash attention (Transformer Engine's FusedAttention, SDPA's cuDNN
//           backend); on Hopper it uses the wgmma / TMA paths FlashAttention-2 does not, and runs
//           1.6-1.7x faster than it.
//  te:      what Transformer Engine picks: cuDNN on Hopper ("FusedAttention preference on Hopper+
//           for performance reasons", TE 1.11 get_attention_backend), FlashAttention-2 before.
//  te_flash: Transformer Engine with its cuDNN backend turned off (NVTE_FUSED_ATTN=0, as NVIDIA's
//           Grok-1 and Nemotron-4 340B NeMo 24.09 recipes run it): FlashAttention-2 on every GPU,
//           fed the way `te` is (Megatron-Core's split of the fused QKV output).
//  flash1:  a fused kernel of the first generation (FlashAttention v1, and the Triton FlashAttention
//           of 2022-23 that MPT / llm-foundry ran with ALiBi): the same memory, half FlashAttention-2's
//           speed — FlashAttention-2 is "around 2x faster" and v1 reached 25-40% of A100's peak against
//           FlashAttention-2's 50-73% (Dao, "FlashAttention-2", 2023).
//  unfused: Megatron-LM's pre-FlashAttention path — a batched Q K^T GEMM, a fused
//           scale-mask-softmax (PyTorch's fp32 ops where Megatron's kernel does not take the
//           shape: pass_emitter.cpp, megatron_softmax_fused), dropout on the probabilities and a
//           batched GEMM with V, the s x s scores going through HBM.
#include <optional>
#include <string>
#include <vector>

namespace echo::workloads {

enum class AttentionKernel { flash, cudnn, te, te_flash, flash1, unfused };

// Transformer Engine's DotProductAttention, whichever backend it runs: Megatron-Core feeds it
// through the split of the fused QKV output.
inline bool through_transformer_engine(AttentionKernel k) { return k == AttentionKernel::te || k == AttentionKernel::te_flash; }

const char* attention_kernel_name(AttentionKernel k);
std::optional<AttentionKernel> parse_attention_kernel(const std::string& word);
std::vector<std::string> attention_kernel_names();

// Whether Megatron's FusedScaleMaskSoftmax runs its one-kernel causal softmax on these scores
// (megatron/model/fused_softmax.py, is_kernel_available, through 2022): 16-bit scores, 16 < keys
// <= 2048, queries (= keys here) a multiple of 4, and the micro-batch x local heads score matrices
// a multiple of a kernel block's batch (4 matrices; 8 for keys <= 128). Elsewhere PyTorch runs it
// op by op in fp32 (query-key layer scaling sets softmax_in_fp32): vTrain's 16 heads at TP 8 and
// micro-batch 1 give 2 matrices.
bool megatron_softmax_fused(double micro_batch, double local_heads, double keys, double element_bytes);

} // namespace echo::workloads
