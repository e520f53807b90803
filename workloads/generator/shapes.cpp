#include "workloads/generator/shapes.hpp"

#include <algorithm>
#include <cmath>

namespace echo::workloads {

Shapes::Shapes(const TrainingJob& j) : job(&j) {
  const ModelDims& m = j.model;
  const ParallelSpec& p = j.parallel;
  seq_local = static_cast<double>(m.seq_len) / p.cp;
  tokens = j.training.micro_batch * seq_local;
  tp = p.tp;
  sequence_parallel = p.sequence_parallel && p.tp > 1;
  norm_tokens = sequence_parallel ? tokens / tp : tokens;
  hidden = m.hidden;
  head_dim = static_cast<double>(m.hidden) / m.heads;
  heads_local = static_cast<double>(m.heads) / p.tp;
  kv_heads_local = std::max(1.0, static_cast<double>(m.kv_heads) / p.tp);
  ffn_local = static_cast<double>(m.ffn_hidden) / p.tp;
  moe = m.experts > 0;
  expert_ffn_local = moe ? static_cast<double>(m.expert_ffn_hidden) / p.tp : 0;
  experts_local = moe ? static_cast<double>(m.experts) / p.ep : 0;
  const double multiple = 128.0 * p.tp;
  vocab_local = std::ceil(m.vocab / multiple) * multiple / p.tp;
  activation = m.activation;
  gated = workloads::gated(m.activation);
  biased = m.bias && !moe;
  rotary = m.rotary;
  const bool wide = j.training.dtype == DataType::fp32 || j.training.dtype == DataType::tf32;
  element_bytes = wide ? 4 : 2;
  linear_weight_gather_bytes = j.training.fp8_params ? 1 : element_bytes;
  // Megatron-LM accumulates and reduces bf16 (and fp8) training's gradients in fp32
  // (accumulate_allreduce_grads_in_fp32 is set with --bf16); fp16 training reduces in fp16.
  grad_bytes = j.training.grad_dtype ? (*j.training.grad_dtype == DataType::fp32 ? 4 : 2) : j.training.dtype == DataType::fp16 ? 2 : 4;
  // Megatron's fp16 optimizer copies fp16 gradients into fp32 main gradients before the step; a
  // recipe that names the gradient type (Apex's distributed Adam) steps on it as it is.
  step_grad_bytes = j.training.grad_dtype ? grad_bytes : 4;
  optimizer_state_bytes = j.training.optimizer_dtype == DataType::fp32 ? 4 : 2;
  // An fp32 master copy of 16-bit weights, unless the state is kept in the weights' own type.
  master_weight_bytes = element_bytes < 4 && optimizer_state_bytes == 4 ? 4 : 0;
}

double Shapes::attention_params() const {
  return hidden * (heads_local + 2 * kv_heads_local) * head_dim + heads_local * head_dim * hidden;
}

double Shapes::expert_params() const { return moe ? experts_local * (gated ? 3 : 2) * hidden * expert_ffn_local : 0; }

double Shapes::mlp_params() const {
  if (moe)
    return expert_params() + hidden * job->model.experts;
  return (gated ? 3 : 2) * hidden * ffn_local;
}

double Shapes::layer_params() const { return attention_params() + mlp_params() + 2 * hidden; }

double Shapes::linear_params() const { return attention_params() + (moe ? expert_params() : mlp_params()); }

double Shapes::parameter_gather_bytes(double params, double linear) const {
  return linear * linear_weight_gather_bytes + (params - linear) * element_bytes;
}

double Shapes::embedding_params() const { return vocab_local * hidden; }

} // namespace echo::workloads
