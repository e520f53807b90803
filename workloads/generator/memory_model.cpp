#include "workloads/generator/memory_model.hpp"

#include "workloads/generator/pipeline_schedule.hpp"

#include <algorithm>

namespace echo::workloads {

namespace {

// Bytes one layer keeps for its backward, per micro-batch.
double layer_activation_bytes(const Shapes& s) {
  const double h = s.hidden, e = s.element_bytes, x = s.norm_tokens, t = s.tokens;
  if (s.job->training.recompute == Recompute::selective && s.job->training.selective == SelectiveRecompute::op) {
    // torchtitan's per-op policy keeps the block's input, the attention kernel's output and its
    // softmax statistics, and the matmul outputs it keeps: wq, wv, w1 (and a gated MLP's w2, the
    // seventh); in FP8 none (pass_emitter.cpp, recompute_unkept_ops).
    const double q = t * s.heads_local * s.head_dim * e;
    double kept = x * h * e + q + t * s.heads_local * 4;
    if (s.job->training.dtype != DataType::fp8)
      kept += q + t * s.kv_heads_local * s.head_dim * e + t * s.ffn_local * e + (s.gated ? t * h * e : 0);
    return kept;
  }
  const double sharded = 2 * x * h * e + 2 * x * h + 2 * x * h * e;  // norm inputs, dropout masks, GEMM inputs
  const double attention = t * (s.heads_local + 2 * s.kv_heads_local) * s.head_dim * e + t * s.heads_local * s.head_dim * e;
  double mlp = 0;
  if (s.moe) {
    const double routed = t * s.job->model.top_k;
    mlp = routed * h * e + routed * s.expert_ffn_local * ((s.gated ? 2 : 1) + 1) * e;
  } else {
    mlp = t * s.ffn_local * ((s.gated ? 2 : 1) + 1) * e;
  }
  // Unfused attention keeps the softmax output, the dropout mask and the dropout output:
  // 5 a s^2 b bytes in 16 bits (Korthikanti et al.); selective or full recomputation drops them.
  // PyTorch's softmax, where Megatron's fused kernel does not take the scores, keeps its fp32 output.
  double scores = 0;
  const double b = s.job->training.micro_batch;
  if (s.job->training.attention == AttentionKernel::unfused && s.job->training.recompute == Recompute::none) {
    const double softmax_out = megatron_softmax_fused(b, s.heads_local, s.seq_local, e) ? e : 4.0;
    scores = b * s.heads_local * s.seq_local * s.seq_local * (softmax_out + 1 + e);
  }
  return sharded + attention + mlp + scores;
}

std::uint32_t passes_in_flight(const TrainingJob& job, std::uint32_t stage) {
  const ParallelSpec& p = job.parallel;
  const std::uint32_t m = micro_batches(job);
  const auto order = pipeline_order(p.schedule, p.pp, stage, m, p.virtual_stages);
  std::uint32_t live = 0, peak = 0;
  for (const PipelinePass& pass : order) {
    live = pass.forward ? live + 1 : live - 1;
    peak = std::max(peak, live);
  }
  return peak;
}

} // namespace

double stage_parameters(const Shapes& s, std::uint32_t stage) {
  const TrainingJob& job = *s.job;
  const std::uint32_t pp = job.parallel.pp;
  double params = static_cast<double>(job.model.layers) / pp * s.layer_params();
  const bool first = stage == 0, last = stage + 1 == pp;
  if (first)
    params += s.embedding_params();
  // The LM head: its own matrix, or (tied, pipelined) the last stage's copy of the embedding.
  if (last && (!job.model.tied_embeddings || pp > 1))
    params += s.embedding_params();
  if (last)
    params += s.hidden;
  return params;
}

MemoryBreakdown stage_memory(const Shapes& s, std::uint32_t stage) {
  const TrainingJob& job = *s.job;
  const ParallelSpec& p = job.parallel;
  const double params = stage_parameters(s, stage);
  const double shard = static_cast<double>(p.dp) * p.cp;
  MemoryBreakdown m;
  m.weights = params * s.element_bytes;
  if (p.zero >= 3 && shard > 1)
    m.weights = m.weights / shard + 2 * s.layer_params() * s.element_bytes;
  m.gradients = params * s.grad_bytes / (p.zero >= 2 ? shard : 1.0);
  m.optimizer = params * (s.master_weight_bytes + 2 * s.optimizer_state_bytes) / (p.zero >= 1 ? shard : 1.0);

  const double layers_per_pass = static_cast<double>(job.model.layers) / (p.pp * p.virtual_stages);
  const double passes = passes_in_flight(job, stage);
  const double per_layer = layer_activation_bytes(s);
  if (job.training.recompute == Recompute::full)
    m.activations = passes * layers_per_pass * s.norm_tokens * s.hidden * s.element_bytes + per_layer;
  else
    m.activations = passes * layers_per_pass * per_layer;
  if (stage == 0)
    m.activations += passes * s.norm_tokens * s.hidden * (s.element_bytes + 1);  // embedding output, dropout mask
  if (stage + 1 == p.pp)
    m.activations += s.tokens * s.vocab_local * (4 + s.element_bytes);  // fp32 logits and their gradient
  m.buffers = kRuntimeBufferBytes;
  return m;
}

} // namespace echo::workloads
