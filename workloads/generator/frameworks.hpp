#pragma once
// Training frameworks: what each does differently from the others, as data. A job names its
// framework (`training.framework`); the framework sets the defaults of the job's settings that
// differ between frameworks (attention kernels, overlapped gradient reduction, sharding) and the
// host thread's costs and synchronisations. Every value is overridable in the job and documented in
// docs/generator.md with where it came from.
#include "workloads/generator/attention_kernel.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace echo::workloads {

// What selective recomputation recomputes. `attention`: the attention core (Korthikanti et al.;
// Megatron-LM, NeMo). `op`: torchtitan's per-op policy (selective_ac_option = 'op'): it keeps the
// outputs of the attention kernel and of every other matmul of a block, in call order, and
// recomputes everything else of the block's forward before its backward.
enum class SelectiveRecompute { attention, op };
inline const char* selective_name(SelectiveRecompute s) { return s == SelectiveRecompute::op ? "op" : "attention"; }

// When ZeRO-3 / FSDP gathers the parameters of the layer whose backward comes next, PyTorch's
// names (torch.distributed.fsdp.BackwardPrefetch). Every collective of the data-parallel group
// runs on one NCCL stream in issue order, so the order against the layer's gradient ReduceScatter
// decides what overlaps:
//   pre:  in the layer's pre-backward hook: the gather runs beside the layer's backward, and the
//         ReduceScatter beside the next layer's (FSDP's BACKWARD_PRE, FSDP2's default, DeepSpeed
//         ZeRO-3's prefetch);
//   post: in its post-backward hook, before the ReduceScatter: the gather waits for the layer's
//         gradients and the next layer for the gather, the ReduceScatter runs beside the next
//         layer's backward (FSDP's BACKWARD_POST, Composer's default);
//   none: in the next layer's own pre-backward hook, after the ReduceScatter: both wait.
enum class BackwardPrefetch { pre, post, none };
inline const char* backward_prefetch_name(BackwardPrefetch b) {
  return b == BackwardPrefetch::pre ? "pre" : b == BackwardPrefetch::post ? "post" : "none";
}

// The host thread of each rank (host_thread.hpp): seconds of host time per launch, by who launches
// it, and where it waits for the GPU.
struct HostModel {
  double forward_op_s = 0;     // a kernel of a forward pass (the Python thread: modules, dispatcher, launch)
  double backward_op_s = 0;    // a kernel of a backward pass (the autograd thread)
  double collective_op_s = 0;  // a communication call (c10d, NCCL enqueue)
  double optimizer_op_s = 0;   // a kernel of the optimizer step
  bool sync_after_p2p = false;     // torch.cuda.synchronize() after each pipeline exchange
  bool sync_before_step = false;   // `.item()` on the gradient norm (and fp16's found-inf) before the step
  // The MoE token dispatcher copies the tokens per expert to the host and synchronizes the stream
  // before its all-to-all (the split sizes are host values): once per MoE layer's forward.
  bool sync_moe_dispatch = false;
  // Megatron's timers before Aug 2022 (Megatron-DeepSpeed until July 2023) synchronize the device
  // when they start and stop: around every micro-batch's forward and backward step and around the
  // gradient reduction. The host cannot run ahead of the GPU across a pass boundary.
  bool sync_timers = false;
  bool enabled() const { return forward_op_s > 0 || backward_op_s > 0 || collective_op_s > 0 || optimizer_op_s > 0; }
};

struct Framework {
  std::string name;
  std::string what;    // one line for `--help` and the docs
  std::string source;  // where its defaults come from
  HostModel host;
  AttentionKernel attention = AttentionKernel::flash;
  bool dp_overlap = true;
  std::uint32_t zero = 0;
  bool pipeline = true;  // can it run pipeline parallelism at all
  bool grad_accumulation_fusion = true;  // TrainingSpec::grad_accumulation_fusion
  bool fused_cross_entropy = false;      // TrainingSpec::fused_cross_entropy
  SelectiveRecompute selective = SelectiveRecompute::attention;  // TrainingSpec::selective
  bool compile = true;                   // TrainingSpec::compile
  BackwardPrefetch backward_prefetch = BackwardPrefetch::pre;  // ParallelSpec::backward_prefetch
  bool flat_parameters = false;                                 // ParallelSpec::flat_parameters
};

const std::vector<Framework>& frameworks();
std::optional<Framework> find_framework(const std::string& name);
std::vector<std::string> framework_names();
// The framework of a job that names none.
inline constexpr const char* kDefaultFramework = "megatron-lm";

} // namespace echo::workloads
