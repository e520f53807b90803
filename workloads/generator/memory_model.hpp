#pragma once
// Memory per rank of a generated job, the way Megatron-LM allocates it:
//  - weights in the training dtype (ZeRO-3: a 1/dp shard plus two gathered layers);
//  - gradients accumulated in fp32 main_grad buffers (fp16 training: fp16), ZeRO-2/3: sharded;
//  - Adam: fp32 master weights, first and second moments, 12 bytes per parameter (8 when the
//    weights already are fp32), sharded from ZeRO-1 (Megatron's distributed optimizer) on;
//  - activations: the tensors a layer keeps for its backward (Korthikanti et al. 2022, with fused
//    FlashAttention so no s^2 term; sequence parallelism shards the norm and dropout part), times
//    the passes a stage keeps in flight (1F1B: pp - stage; interleaved: its warm-up + 1 chunk
//    passes; GPipe: every micro-batch); full recomputation keeps only each layer's input plus one
//    layer's set; the last stage adds its fp32 logits;
//  - buffers: 1.5 GiB for the CUDA context, library workspaces and NCCL buffers.
#include "workloads/generator/shapes.hpp"
#include "workloads/training_facts.hpp"

#include <cstdint>

namespace echo::workloads {

double stage_parameters(const Shapes& s, std::uint32_t stage);  // per rank of that stage
MemoryBreakdown stage_memory(const Shapes& s, std::uint32_t stage);

inline constexpr double kRuntimeBufferBytes = 1.5 * 1024 * 1024 * 1024;

} // namespace echo::workloads
