#pragma once
// Shapes: the per-rank sizes every generated kernel and transfer is computed from — tokens of a
// micro-batch on this rank, local heads and widths after tensor parallelism, parameters per layer
// held by one rank — derived once from the training job.
#include "workloads/generator/training_job.hpp"

#include <cstdint>

namespace echo::workloads {

struct Shapes {
  explicit Shapes(const TrainingJob& job);

  const TrainingJob* job;
  double tokens = 0;          // T: tokens of one micro-batch on one rank (micro_batch * seq / cp)
  double norm_tokens = 0;     // tokens the norms / dropouts see: T / tp with sequence parallelism
  double seq_local = 0;       // seq / cp
  double tp = 1;
  double hidden = 0, head_dim = 0;
  double heads_local = 0, kv_heads_local = 0;  // KV heads replicate when tp > kv_heads
  double ffn_local = 0, expert_ffn_local = 0;  // per tensor-parallel rank
  double experts_local = 0;   // experts / ep
  double vocab_local = 0;     // padded to a multiple of 128 * tp, as Megatron-LM pads it, then / tp
  double element_bytes = 2;   // activations and weights
  double linear_weight_gather_bytes = 2;  // a linear weight in a parameter AllGather: 1 with training.fp8_params
  double grad_bytes = 4;      // gradients as kept and reduced across data parallelism (training.grad_dtype)
  double step_grad_bytes = 4;        // the gradient as the optimizer step reads it
  double optimizer_state_bytes = 4;  // each of Adam's two moments (training.optimizer_dtype)
  double master_weight_bytes = 4;    // the optimizer's fp32 copy of 16-bit weights; 0: none
  Activation activation = Activation::gelu;
  bool gated = false;   // SwiGLU: the up projection is two matrices
  bool biased = false;  // the linears carry biases (model.bias; never the experts')
  bool rotary = false;
  bool moe = false, sequence_parallel = false;

  double attention_params() const;    // per layer, per rank
  double mlp_params() const;          // dense MLP, or the local experts plus the router
  double expert_params() const;       // the local experts' share of mlp_params() (0 when dense)
  double layer_params() const;        // attention + MLP + the two norms
  double linear_params() const;       // the linear layers' weights: attention and MLP or experts, no norms or router
  // Bytes a parameter AllGather moves for `params` parameters of which `linear` are linear weights.
  double parameter_gather_bytes(double params, double linear) const;
  double embedding_params() const;    // vocab_local * hidden
};

} // namespace echo::workloads
