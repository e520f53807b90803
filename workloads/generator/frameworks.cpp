#include "workloads/generator/frameworks.hpp"

namespace echo::workloads {

namespace {

// Host time per kernel launch in eager PyTorch, measured on the public Kineto traces of
// ../shared/data/traces (HTA's trace_diff/control, ns_resolution_trace,
// negative_queue_length_values_check and df_index_resolver; Kineto's PyTorch 1.9 ResNet-50 sample):
// the median gap between consecutive cudaLaunchKernel calls of a thread, per trace. The forward
// (Python) threads: 20, 29, 31, 32, 39 us, median 31 us; the autograd threads: 30, 34, 43, 57,
// 74 us, median 43 us. A communication call and an optimizer kernel are launched from Python like
// a forward op. Eager PyTorch pays this whatever the framework on top; CUDA graphs would not.
HostModel eager_pytorch(bool sync_after_p2p, bool sync_before_step, bool sync_moe_dispatch) {
  HostModel h;
  h.forward_op_s = 31e-6;
  h.backward_op_s = 43e-6;
  h.collective_op_s = 31e-6;
  h.optimizer_op_s = 31e-6;
  h.sync_after_p2p = sync_after_p2p;
  h.sync_before_step = sync_before_step;
  h.sync_moe_dispatch = sync_moe_dispatch;
  return h;
}

std::vector<Framework> table() {
  std::vector<Framework> t;
  // Megatron-Core's pipeline exchange: batch_isend_irecv, then torch.cuda.synchronize()
  // (ModelParallelConfig.batch_p2p_sync, true by default); the optimizer: the gradient norm's
  // .item() and, in fp16, the found-inf check; its all-to-all token dispatcher moves the split sizes
  // to the host and synchronizes (megatron/core/transformer/moe/token_dispatcher.py). DeepSpeed's
  // MoE dispatches fixed-capacity buffers and FSDP-style trainers carry no such dispatcher here.
  t.push_back({"megatron-lm", "Megatron-LM with Megatron-Core (2023 on): FlashAttention, gradients reduced under the backward pass",
               "NVIDIA/Megatron-LM: megatron/core/pipeline_parallel/p2p_communication.py, megatron/core/optimizer/clip_grads.py",
               eager_pytorch(true, true, true), AttentionKernel::flash, true, 0, true});
  t.push_back({"megatron-deepspeed", "Megatron-DeepSpeed (2022): fp16 with loss scaling, unfused softmax attention, gradients all-reduced after the backward pass",
               "microsoft/Megatron-DeepSpeed: megatron/p2p_communication.py (synchronize after each exchange), "
               "megatron/optimizer (found-inf and gradient-norm .item()), no gradient bucketing; DeepSpeed's engine "
               "accumulates gradients in .grad (no fused accumulation)",
               eager_pytorch(true, true, false), AttentionKernel::unfused, false, 0, true, false});
  t.push_back({"nemo", "NeMo on Megatron-Core: the distributed optimizer (ZeRO-1), overlapped gradient reduce and parameter gather",
               "NVIDIA/NeMo recipes (megatron_gpt_config: use_distributed_optimizer, overlap_grad_sync, overlap_param_sync)",
               eager_pytorch(true, true, true), AttentionKernel::flash, true, 1, true});
  // FSDP returns the gradient norm as a tensor; Composer and torchtitan read losses only when they log.
  t.push_back({"fsdp", "PyTorch FSDP FULL_SHARD (llm-foundry / Composer): parameters gathered per layer, gradients reduce-scattered",
               "pytorch/pytorch torch/distributed/fsdp; mosaicml/llm-foundry", eager_pytorch(false, false, false), AttentionKernel::flash, true, 3,
               false});
  t.push_back({"torchtitan", "torchtitan: FSDP2 sharding, eager mode (no torch.compile)", "pytorch/torchtitan",
               eager_pytorch(true, false, false), AttentionKernel::flash, true, 3, true});
  t.push_back({"none", "no framework: an infinitely fast host that never waits (the GPU's time alone)", "-", HostModel{},
               AttentionKernel::flash, true, 0, true});
  return t;
}

} // namespace

const std::vector<Framework>& frameworks() {
  static const std::vector<Framework> t = table();
  return t;
}

std::optional<Framework> find_framework(const std::string& name) {
  for (const Framework& f : frameworks())
    if (f.name == name)
      return f;
  return std::nullopt;
}

std::vector<std::string> framework_names() {
  std::vector<std::string> names;
  for (const Framework& f : frameworks())
    names.push_back(f.name);
  return names;
}

} // namespace echo::workloads
