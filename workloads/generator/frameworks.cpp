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
HostModel eager_pytorch() {
  HostModel h;
  h.forward_op_s = 31e-6;
  h.backward_op_s = 43e-6;
  h.collective_op_s = 31e-6;
  h.optimizer_op_s = 31e-6;
  return h;
}

Framework framework(std::string name, std::string what, std::string source, HostModel host) {
  Framework f;
  f.name = std::move(name);
  f.what = std::move(what);
  f.source = std::move(source);
  f.host = host;
  return f;
}

std::vector<Framework> table() {
  std::vector<Framework> t;
  // Megatron-Core's pipeline exchange: batch_isend_irecv, then torch.cuda.synchronize()
  // (ModelParallelConfig.batch_p2p_sync, true by default); the optimizer: the gradient norm's
  // .item() and, in fp16, the found-inf check; its all-to-all token dispatcher moves the split sizes
  // to the host and synchronizes (megatron/core/transformer/moe/token_dispatcher.py). Its timers
  // synchronize only at log levels above the default (since 2022-08), and its cross entropy is
  // unfused unless cross_entropy_loss_fusion is set (TransformerConfig's default: false).
  Framework megatron = framework("megatron-lm", "Megatron-LM with Megatron-Core (2023 on): Transformer Engine's fused attention, gradients reduced under the backward pass",
                                 "NVIDIA/Megatron-LM: megatron/core/pipeline_parallel/p2p_communication.py, "
                                 "megatron/core/optimizer/clip_grads.py, megatron/core/transformer/transformer_config.py",
                                 eager_pytorch());
  megatron.host.sync_after_p2p = megatron.host.sync_before_step = megatron.host.sync_moe_dispatch = true;
  megatron.attention = AttentionKernel::te;  // its layer specs build Transformer Engine's DotProductAttention
  t.push_back(megatron);

  Framework deepspeed = framework("megatron-deepspeed", "Megatron-DeepSpeed (2022): fp16 with loss scaling, unfused softmax attention, gradients all-reduced after the backward pass",
                                  "microsoft/Megatron-DeepSpeed before its 2023-07 rebase: megatron/global_vars.py (_Timer.start and "
                                  "stop synchronize the device; schedules.py times every forward and backward step), "
                                  "megatron/p2p_communication.py (synchronize after each exchange), megatron/optimizer (found-inf "
                                  "and gradient-norm .item()), no gradient bucketing; DeepSpeed's engine accumulates gradients "
                                  "in .grad (no fused accumulation); mpu/cross_entropy.py (fp32, unfused)",
                                  eager_pytorch());
  deepspeed.host.sync_after_p2p = deepspeed.host.sync_before_step = deepspeed.host.sync_timers = true;
  // Its layers spend more Python per kernel than the traces above (the model-parallel RNG tracker's
  // forks, mpu's autograd functions, views and transposes around every GEMM): 40 us per forward and
  // 55 us per backward launch, in the traces' ratio, fitted on vTrain's hidden-1024 runs; the held-out
  // hidden-2048 runs are then within 5.9% (median) — scripts/fit_host.py, docs/validation.md.
  deepspeed.host.forward_op_s = 40e-6;
  deepspeed.host.backward_op_s = 55e-6;
  deepspeed.attention = AttentionKernel::unfused;
  deepspeed.dp_overlap = false;
  deepspeed.grad_accumulation_fusion = false;
  t.push_back(deepspeed);

  Framework nemo = framework("nemo", "NeMo on Megatron-Core: the distributed optimizer (ZeRO-1), overlapped gradient reduce and parameter gather, fused cross entropy",
                             "NVIDIA/NeMo recipes (megatron_gpt_config: use_distributed_optimizer, overlap_grad_sync, "
                             "overlap_param_sync; nemo/collections/llm/gpt/model/base.py GPTConfig: cross_entropy_loss_fusion)",
                             megatron.host);
  nemo.zero = 1;
  nemo.attention = AttentionKernel::te;
  nemo.fused_cross_entropy = true;
  t.push_back(nemo);

  // FSDP returns the gradient norm as a tensor; Composer and torchtitan read losses only when they log.
  Framework fsdp = framework("fsdp", "PyTorch FSDP FULL_SHARD (llm-foundry / Composer): parameters gathered per layer, gradients reduce-scattered",
                             "pytorch/pytorch torch/distributed/fsdp; mosaicml/llm-foundry; mosaicml/composer FSDPConfig "
                             "(backward_prefetch='BACKWARD_POST', limit_all_gathers=True)",
                             eager_pytorch());
  fsdp.zero = 3;
  fsdp.backward_prefetch = BackwardPrefetch::post;  // Composer's FSDPConfig default; llm-foundry's yamls keep it
  fsdp.flat_parameters = true;                      // FSDP1's FlatParameter (Composer: use_orig_params=True)
  fsdp.pipeline = false;
  t.push_back(fsdp);

  Framework titan = framework("torchtitan", "torchtitan: FSDP2 sharding, eager mode (no torch.compile)", "pytorch/torchtitan", eager_pytorch());
  titan.host.sync_after_p2p = true;
  // PyTorch SDPA tries FlashAttention-2 first (sdp_utils.cpp's priority order: flash, efficient,
  // math, cudnn), so it runs FlashAttention-2 on Hopper too.
  titan.zero = 3;
  // Its selective activation checkpointing (torchtitan/distributed/activation_checkpoint.py, and
  // parallelisms/parallelize_llama.py of Dec 2024: selective_ac_option = 'op', the llama3 configs'
  // default) keeps every other matmul's output and the attention's, and recomputes the rest.
  titan.selective = SelectiveRecompute::op;
  titan.compile = false;  // train_configs: compile = false unless asked
  t.push_back(titan);

  t.push_back(framework("none", "no framework: an infinitely fast host that never waits (the GPU's time alone)", "-", HostModel{}));
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
