#include "workloads/generator/pass_emitter.hpp"

namespace echo::workloads {

namespace {

std::string layer_prefix(std::uint32_t layer) { return "layer" + std::to_string(layer) + "."; }

} // namespace

// ZeRO-3 over one rank (dp x cp = 1) has no shard to gather or scatter: it runs as ZeRO-0.
PassEmitter::PassEmitter(ProgramBuilder& builder, const Shapes& shapes, const ComputeModel& model, std::uint32_t cp_rank)
    : b_(builder), s_(shapes), model_(model), cp_rank_(cp_rank),
      zero3_(shapes.job->parallel.zero == 3 && shapes.job->parallel.dp * shapes.job->parallel.cp > 1),
      tp_overlap_(shapes.job->parallel.tp_overlap && shapes.sequence_parallel && shapes.tp > 1),
      persistent_gemms_(shapes.job->training.persistent_gemms.value_or(false)) {}

TaskId PassEmitter::kernel(const KernelOp& op) {
  const TaskId id = b_.compute(streams::compute, op, model_.time_s(op));
  if (persistent_gemms_ && model_.fills_gpu(op))
    b_.set_fills_gpu(id);
  for (TaskId dep : pending_)
    b_.add_dependency(id, dep);
  pending_.clear();
  if (layer_first_kernel_ == kNoTask)
    layer_first_kernel_ = id;
  return last_kernel_ = id;
}

TaskId PassEmitter::memory(const std::string& name, trace::Category category, double bytes, const char* kind) {
  KernelOp op;
  op.name = name;
  op.category = category;
  op.kind = kind;
  op.shape = KernelShape::memory;
  op.bytes = bytes;
  return kernel(op);
}

TaskId PassEmitter::gemm(const std::string& name, double m, double n, double k, double batch, bool low_precision,
                         double sms_held, double epilogue_bytes) {
  KernelOp op;
  op.name = name;
  op.category = trace::GEMM;
  op.shape = KernelShape::gemm;
  op.m = m;
  op.n = n;
  op.k = k;
  op.batch = batch;
  op.low_precision = low_precision;
  op.fp8_capable = !sixteen_bit_;
  op.sms_held = sms_held;
  op.epilogue_bytes = epilogue_bytes;
  op.side_by_side = side_by_side_;
  return kernel(op);
}

// Megatron's gradient-accumulation fusion (and Transformer Engine's fuse_wgrad_accumulation) runs
// the weight-gradient GEMM as main_grad += input^T x grad: its epilogue reads the gradient buffer
// and writes it back, in the buffer's type. Without it (and under ZeRO-3, whose GEMM makes a fresh
// gradient to reduce-scatter) the GEMM writes a 16-bit gradient.
TaskId PassEmitter::weight_gradient(const std::string& name, double m, double n, double k, double batch) {
  const bool adds_into_buffer = s_.job->training.grad_accumulation_fusion && !zero3_;
  return gemm(name, m, n, k, batch, true, 0, adds_into_buffer ? 2 * s_.grad_bytes : 2);
}

// Transformer Engine's FP8 linears take FP8 operands: the 16-bit input of each forward GEMM and the
// output gradient of each input-gradient GEMM are cast, with a transposed copy kept for the weight
// gradient (cast_transpose: read 2 bytes, write 1 + 1 per element). Weights are cast once per
// step (not modelled), the amax bookkeeping is folded into these kernels.
void PassEmitter::fp8_cast(const std::string& name, double elements) {
  if (s_.job->training.dtype != DataType::fp8 || sixteen_bit_)
    return;
  KernelOp op;
  op.name = name + ".fp8_cast";
  op.category = trace::ELEMENTWISE;
  op.kind = "fp8_cast";
  op.shape = KernelShape::memory;
  op.bytes = elements * 4;
  kernel(op);
}

TaskId PassEmitter::tp_collective(const std::string& name, trace::CollectiveOp op, double bytes, TaskId after) {
  return b_.collective(streams::tp, name, op, "tp", bytes, {last_kernel_, after});
}

void PassEmitter::tp_gather_input(const std::string& name) {
  if (s_.sequence_parallel)
    wait_for(tp_collective(name + ".allgather", trace::ALL_GATHER, s_.tokens * s_.hidden * s_.element_bytes));
}

// Userbuffers' ring exchange (parallel.tp_overlap): the GEMM runs in tp chunks of rows, the first on
// the rank's own shard, each next one on the shard the neighbour has just passed on, the passing
// beside the GEMM. A pass moves one shard of the gathered [tokens x k] input per rank; it is timed
// as an AllGather of tp - 1 shards' output, which moves exactly that. The chunks run side by side
// once their shards are there (TE's split_overlap_ag: chunk i on compute stream i mod 3).
void PassEmitter::ring_exchange_gemm(const std::string& gather, const std::string& name, double n, double k) {
  const double tp = s_.tp, rows = s_.tokens / tp, part = s_.tokens * k * s_.element_bytes / (tp - 1);
  const TaskId input_ready = last_kernel_;
  std::vector<TaskId> passed;
  for (std::uint32_t i = 1; i < s_.tp; ++i) {
    passed.push_back(
        b_.collective(streams::tp, gather + ".ring" + std::to_string(i), trace::ALL_GATHER, "tp", part, {input_ready}));
    b_.set_reserved_sms(passed.back());  // the copy engine and userbuffers' own SM
  }
  const SideBySide chunks(*this, tp);
  gemm(name + ".chunk0", rows, n, k);
  for (std::uint32_t i = 1; i < s_.tp; ++i) {
    wait_for(passed[i - 1]);
    gemm(name + ".chunk" + std::to_string(i), rows, n, k);
  }
}

// Userbuffers' pipelined ReduceScatter (parallel.tp_overlap): the row-parallel GEMM runs in
// Transformer Engine's default 4 splits of rows, each split's partial sums reduce-scattered while
// the next computes; the layer goes on when the last has. The splits share the waves (TE's
// split_overlap_rs launches split i on compute stream i mod 3, none waiting for another).
void PassEmitter::gemm_reduce_scatter(const std::string& name, double n, double k, double sms_held) {
  constexpr std::uint32_t kSplits = 4;
  // a split's [tokens / 4 x n] partial sums, in FP8 where the userbuffers are (tp_overlap_fp8_buf)
  const double element = s_.job->parallel.tp_overlap_fp8_buf ? 1.0 : s_.element_bytes;
  const double bytes = s_.tokens * n * element / kSplits;
  TaskId reduced = kNoTask;
  const SideBySide splits(*this, kSplits);
  for (std::uint32_t i = 0; i < kSplits; ++i) {
    gemm(name + ".chunk" + std::to_string(i), s_.tokens / kSplits, n, k, 1, true, sms_held);
    reduced = tp_collective(name + ".reducescatter" + std::to_string(i), trace::REDUCE_SCATTER, bytes);
    b_.set_reserved_sms(reduced);  // the SMs the chunks' GEMMs leave (sms_held)
  }
  wait_for(reduced);
}

void PassEmitter::column_parallel_forward(const std::string& input, const std::string& name, double out) {
  const double t = s_.tokens, h = s_.hidden;
  if (tp_overlap_) {
    fp8_cast(name + ".input", t * h);
    return ring_exchange_gemm(input + ".allgather", name, out, h);
  }
  tp_gather_input(input);
  fp8_cast(name + ".input", t * h);
  gemm(name, t, out, h);
}

void PassEmitter::row_parallel_forward(const std::string& name, double in, std::uint32_t ub_sms) {
  if (tp_overlap_)  // the ReduceScatter of each chunk holds ub_sms SMs beside the next chunk's GEMM
    return gemm_reduce_scatter(name, s_.hidden, in, ub_sms);
  gemm(name, s_.tokens, s_.hidden, in);
  tp_reduce_output(name);
}

void PassEmitter::tp_reduce_output(const std::string& name) {
  if (s_.tp <= 1)
    return;
  const double bytes = s_.tokens * s_.hidden * s_.element_bytes;
  wait_for(tp_collective(name + (s_.sequence_parallel ? ".reducescatter" : ".allreduce"),
                         s_.sequence_parallel ? trace::REDUCE_SCATTER : trace::ALL_REDUCE, bytes));
}

// Linears of GPT-style models carry a bias (Llama-style ones none): its gradient is a sum of the
// output gradient over the tokens, a kernel of its own in eager PyTorch and Megatron.
void PassEmitter::bias_grad(const std::string& name, double out) {
  if (s_.biased)
    memory(name + ".bias_grad", trace::REDUCTION, s_.tokens * out * s_.element_bytes);
}

// A norm fused (Apex, Transformer Engine, torch.compile; and eager LayerNorm, PyTorch's
// native_layer_norm): one kernel, the input read and the output written. Eager RMSNorm as torchtitan
// writes it, (x.float() * rsqrt(x.float().pow(2).mean(-1) + eps)).type_as(x) * weight: a kernel per
// op, most over fp32 copies of the input.
void PassEmitter::norm_forward(const std::string& name) {
  const double n = s_.norm_tokens * s_.hidden, rows = s_.norm_tokens, e = s_.element_bytes, f = 4;
  if (!eager_rmsnorm()) {
    memory(name, trace::NORMALIZATION, n * e * 2);
    return;
  }
  memory(name + ".float", trace::ELEMENTWISE, n * (e + f));
  memory(name + ".pow", trace::ELEMENTWISE, n * f * 2);
  memory(name + ".mean", trace::REDUCTION, n * f);
  memory(name + ".eps", trace::ELEMENTWISE, rows * f * 2);
  memory(name + ".rsqrt", trace::ELEMENTWISE, rows * f * 2);
  memory(name + ".scale", trace::ELEMENTWISE, n * f * 2);
  memory(name + ".type_as", trace::ELEMENTWISE, n * (f + e));
  memory(name, trace::NORMALIZATION, n * e * 2);  // times the weight
}

// Fused, as Apex / Transformer Engine run it: the input gradient, then the weight (and bias)
// gradients as partial sums over blocks of rows reduced by a second kernel. Eager RMSNorm: autograd
// through each op of norm_forward's chain — the weight's product and its gradient (a product and a
// sum), the casts, the scale's two products (the row sums of one), the mean's expanded gradient,
// pow's backward (grad * (2 * x.pow(1)): a copy and two products) and the sum of the input's two
// gradients.
void PassEmitter::norm_backward(const std::string& name) {
  const double n = s_.norm_tokens * s_.hidden, e = s_.element_bytes, f = 4;
  if (!eager_rmsnorm()) {
    memory(name + ".bwd", trace::NORMALIZATION, n * e * 3);
    memory(name + ".bwd.params", trace::REDUCTION, n * e * 2);
    return;
  }
  memory(name + ".bwd", trace::ELEMENTWISE, n * e * 2);  // the gradient times the weight
  memory(name + ".bwd.params.mul", trace::ELEMENTWISE, n * e * 3);
  memory(name + ".bwd.params", trace::REDUCTION, n * e);
  memory(name + ".bwd.type_as", trace::ELEMENTWISE, n * (e + f));
  memory(name + ".bwd.scale", trace::ELEMENTWISE, n * f * 2);
  memory(name + ".bwd.scale.rows_mul", trace::ELEMENTWISE, n * f * 3);
  memory(name + ".bwd.scale.rows", trace::REDUCTION, n * f);
  memory(name + ".bwd.mean", trace::ELEMENTWISE, n * f);
  memory(name + ".bwd.pow.copy", trace::ELEMENTWISE, n * f * 2);
  memory(name + ".bwd.pow.scale", trace::ELEMENTWISE, n * f * 2);
  memory(name + ".bwd.pow", trace::ELEMENTWISE, n * f * 3);
  memory(name + ".bwd.sum", trace::ELEMENTWISE, n * f * 3);
  memory(name + ".bwd.float", trace::ELEMENTWISE, n * (f + e));
}

// Rotary embeddings on Q and K: one fused kernel each way (Transformer Engine's, Apex's, Inductor's).
// Eager, as torchtitan writes them (apply_rotary_emb): each of Q and K cast to fp32 and viewed as
// complex, multiplied by the frequencies, cast back; the backward the same three ops in reverse.
void PassEmitter::rotary(const std::string& name, bool backward) {
  const double t = s_.tokens, e = s_.element_bytes, f = 4;
  const double q = t * s_.heads_local * s_.head_dim, k = t * s_.kv_heads_local * s_.head_dim;
  const std::string pass = backward ? ".bwd" : "";
  if (!eager_ops()) {
    memory(name + pass, trace::ELEMENTWISE, (q + k) * e * 2);
    return;
  }
  for (const auto& [part, n] : {std::pair<const char*, double>{".q", q}, {".k", k}}) {
    memory(name + part + (backward ? ".bwd.type_as" : ".float"), trace::ELEMENTWISE, n * (e + f));
    memory(name + part + pass, trace::ELEMENTWISE, n * f * 2);
    memory(name + part + (backward ? ".bwd.float" : ".type_as"), trace::ELEMENTWISE, n * (f + e));
  }
}

void PassEmitter::column_parallel_backward(const std::string& name, double in, double out, bool biased, double batch,
                                           bool te_linear) {
  // Sequence parallelism kept only the sharded input: gather it again for the weight gradient,
  // overlapped with the input-gradient GEMM. With userbuffers both exchanges are its bulk
  // overlaps, on SMs Transformer Engine sets aside (ub_cfg's default: 16, with an SM margin).
  const bool bulk_overlap = tp_overlap_ && batch == 1 && te_linear;
  TaskId gathered = kNoTask;
  if (s_.sequence_parallel)
    gathered = tp_collective(name + ".input.allgather", trace::ALL_GATHER, s_.tokens * s_.hidden * s_.element_bytes);
  if (bulk_overlap)
    b_.set_reserved_sms(gathered);
  const double rows = s_.tokens / batch;
  fp8_cast(name + ".grad", rows * out * batch);
  gemm(name + ".dgrad", rows, in, out, batch);
  TaskId reduced = kNoTask;
  if (s_.tp > 1)
    reduced = tp_collective(name + (s_.sequence_parallel ? ".dgrad.reducescatter" : ".dgrad.allreduce"),
                            s_.sequence_parallel ? trace::REDUCE_SCATTER : trace::ALL_REDUCE,
                            s_.tokens * s_.hidden * s_.element_bytes);
  if (bulk_overlap && reduced != kNoTask)
    b_.set_reserved_sms(reduced);
  wait_for(gathered);
  weight_gradient(name + ".wgrad", in, out, rows, batch);
  if (biased)
    bias_grad(name, out);
  wait_for(reduced);
}

void PassEmitter::row_parallel_backward(const std::string& name, double in, double out, bool biased, double batch) {
  // The backward of a ReduceScatter is an AllGather of the output gradient.
  const double rows = s_.tokens / batch;
  if (tp_overlap_ && batch == 1) {
    fp8_cast(name + ".grad", rows * out);
    ring_exchange_gemm(name + ".grad.allgather", name + ".dgrad", in, out);
  } else {
    tp_gather_input(name + ".grad");
    fp8_cast(name + ".grad", rows * out * batch);
    gemm(name + ".dgrad", rows, in, out, batch);
  }
  weight_gradient(name + ".wgrad", in, out, rows, batch);
  if (biased)
    bias_grad(name, out);
}

TaskId PassEmitter::expert_all_to_all(const std::string& name, double routed_tokens, TaskId after) {
  if (s_.job->parallel.ep <= 1)
    return kNoTask;
  const double bytes = routed_tokens * s_.hidden * s_.element_bytes;
  const TaskId exchanged = b_.collective(streams::ep, name, trace::ALL_TO_ALL, "ep", bytes, {last_kernel_, after});
  wait_for(exchanged);
  return exchanged;
}

TaskId PassEmitter::layer_gather(const std::string& prefix, TaskId after) {
  const double bytes = s_.parameter_gather_bytes(s_.layer_params(), s_.linear_params());
  return b_.collective(streams::dp, prefix + "params.allgather", trace::ALL_GATHER, "dp", bytes, {after});
}

void PassEmitter::gather_parameters(const std::string& prefix) {
  if (!zero3_)
    return;
  // Issued already by the layer before (prefetch_parameters), or prefetched one layer ahead here:
  // the gather starts with the previous layer's first kernel.
  const TaskId gathered = prefetched_gather_ != kNoTask ? prefetched_gather_ : layer_gather(prefix, layer_first_kernel_);
  prefetched_gather_ = layer_first_kernel_ = kNoTask;
  wait_for(gathered);
}

// The gather of the layer whose backward comes next, issued now (parallel.backward_prefetch): at a
// layer's start for `pre`, after its gradients for `post`; either way ahead of the layer's gradient
// ReduceScatter on the data-parallel stream. It starts once the kernels before it are done.
void PassEmitter::prefetch_parameters(const std::string& prefix) {
  if (zero3_)
    prefetched_gather_ = layer_gather(prefix, last_kernel_);
}

// The softmax as PyTorch runs it without the fused kernel: the cast to fp32, the scale, the
// causal mask filled in place, the softmax and the cast back (its backward the same in reverse,
// the mask's gradient an out-of-place fill); bytes per score element.
void PassEmitter::eager_softmax(const std::string& p, double scores, bool backward) {
  const double e = s_.element_bytes, f = 4.0;
  const bool casts = e < f;  // 16-bit scores go to fp32 and back; fp32 training has no casts
  const std::string at = p + (backward ? "attention.softmax.bwd." : "attention.softmax.");
  if (casts)
    memory(at + "float", trace::ATTENTION, scores * (e + f));
  if (!backward) {
    memory(at + "scale", trace::ATTENTION, scores * 2 * f);
    memory(at + "mask", trace::ATTENTION, scores * (2 * f + 1));
    memory(at + "softmax", trace::ATTENTION, scores * 2 * f);
  } else {
    memory(at + "softmax", trace::ATTENTION, scores * 3 * f);
    memory(at + "mask", trace::ATTENTION, scores * (2 * f + 1));
    memory(at + "scale", trace::ATTENTION, scores * 2 * f);
  }
  if (casts)
    memory(at + "half", trace::ATTENTION, scores * (f + e));
}

void PassEmitter::unfused_attention(const std::string& p, bool backward) {
  const double b = s_.job->training.micro_batch, heads = s_.heads_local, s = s_.seq_local, d = s_.head_dim;
  const double scores = b * heads * s * s;  // elements of the s x s score / probability tensors
  const double e = s_.element_bytes;
  const SixteenBit sixteen_bit(*this);  // attention's products stay in 16 bits in fp8 recipes
  const bool fused_softmax = megatron_softmax_fused(b, heads, s, e);
  if (!backward) {
    gemm(p + "attention.scores", s, s, d, b * heads);
    if (fused_softmax)
      memory(p + "attention.softmax", trace::ATTENTION, scores * 2 * e);
    else
      eager_softmax(p, scores, false);
    memory(p + "attention.dropout", trace::ELEMENTWISE, scores * (2 * e + 1));
    gemm(p + "attention.values", s, d, s, b * heads);
    // [b, heads, s, d] back to [s, b, heads x d] for the output projection: a copy.
    memory(p + "attention.context.copy", trace::MEMCPY, b * heads * s * d * e * 2);
    return;
  }
  memory(p + "attention.context.copy.bwd", trace::MEMCPY, b * heads * s * d * e * 2);
  gemm(p + "attention.values.dgrad", s, s, d, b * heads);
  gemm(p + "attention.values.wgrad", s, d, s, b * heads);
  memory(p + "attention.dropout.bwd", trace::ELEMENTWISE, scores * (2 * e + 1));
  if (fused_softmax)
    memory(p + "attention.softmax.bwd", trace::ATTENTION, scores * 3 * e);
  else
    eager_softmax(p, scores, true);
  gemm(p + "attention.scores.dgrad", s, d, s, b * heads);
  gemm(p + "attention.scores.wgrad", s, d, s, b * heads);
}

KernelOp PassEmitter::fused_attention(KernelShape shape) const {
  const double d = s_.head_dim, heads = s_.heads_local, kv = s_.kv_heads_local;
  KernelOp op;
  op.category = trace::ATTENTION;
  op.shape = shape;
  op.attention = s_.job->training.attention;
  op.batch = s_.job->training.micro_batch * heads;
  op.m = s_.seq_local;
  op.n = s_.seq_local;
  op.k = d;
  // Q, K, V and O (backward: and their gradients), one CP block's worth per step.
  const double passes = shape == KernelShape::attention_forward ? 1 : 2;
  op.bytes = passes * s_.tokens * (2 * heads + 2 * kv) * d * s_.element_bytes / s_.job->parallel.cp;
  return op;
}

// Context parallelism as Transformer Engine runs it (AttnFuncWithCPAndKVP2P, TE 1.11, causal
// with load-balanced halves: a rank holds chunks r and 2cp-1-r of the sequence). Step 0 is the
// local causal block; a later step i uses the whole local Q with the first half of the block
// received when i <= rank, else the second half of Q with the whole block: the same work either
// way. Each half is copied out (`.contiguous()`) first. The forward merges the steps' outputs by
// their softmax statistics at the end; the backward accumulates dQ and dKV after every step.
double PassEmitter::cp_step_q_share(std::uint32_t step) const { return step == 0 || step <= cp_rank_ ? 1.0 : 0.5; }

void PassEmitter::cp_step_inputs(const std::string& name, std::uint32_t step, bool backward) {
  const double q = q_block_bytes(), kv = kv_block_bytes();
  double bytes = 0;
  if (step > 0)  // a half read and written: its tensor's size; the backward also halves out and dout
    bytes += step <= cp_rank_ ? kv : (backward ? 3 : 1) * q;
  if (backward)
    bytes += cp_step_q_share(step) * q;  // dq_ = zeros_like(q_)
  if (bytes > 0)
    memory(name + ".inputs", trace::MEMCPY, bytes);
}

void PassEmitter::cp_step_accumulate(const std::string& name, std::uint32_t step) {
  // Step 0 copies into dq / dkv (read, write); later steps add (read both, write).
  const double passes = step == 0 ? 2 : 3;
  const double kv_share = step > 0 && step <= cp_rank_ ? 0.5 : 1.0;
  memory(name + ".accumulate", trace::ELEMENTWISE,
         passes * (cp_step_q_share(step) * q_block_bytes() + kv_share * kv_block_bytes()));
}

KernelOp PassEmitter::cp_step_kernel(KernelOp op, const std::string& name, std::uint32_t step) const {
  // The same work as a causal block, but unmasked: the whole Q against half the keys, or half the
  // Q against all of them — the kernel's speed depends on which.
  op.name = name;
  if (step > 0) {
    op.causal = false;
    (step <= cp_rank_ ? op.n : op.m) /= 2;
  }
  return op;
}

void PassEmitter::attention_ring(KernelOp op, const std::string& name, const std::string& block, double block_bytes) {
  // Ring attention: each step computes with the KV block at hand while passing it on; a step
  // needs the block the previous one received.
  const std::uint32_t cp = s_.job->parallel.cp;
  const bool backward = op.shape == KernelShape::attention_backward;
  const std::uint32_t next = (cp_rank_ + 1) % cp, prev = (cp_rank_ + cp - 1) % cp;
  if (cp > 1 && backward)
    memory(name + ".kv_copy", trace::MEMCPY, 2 * kv_block_bytes());  // the ring's first send buffer
  TaskId received = kNoTask;
  double merged_q_share = 0;
  for (std::uint32_t step = 0; step < cp; ++step) {
    TaskId got = kNoTask;
    if (step + 1 < cp) {
      b_.send(streams::cp_send, block + ".send", "cp", next, block_bytes, {step == 0 ? last_kernel_ : received});
      got = b_.recv(streams::cp_recv, block + ".recv", "cp", prev, block_bytes);
    }
    const std::string step_name = name + (cp > 1 ? ".step" + std::to_string(step) : "");
    wait_for(received);
    if (cp > 1)
      cp_step_inputs(step_name, step, backward);
    kernel(cp_step_kernel(op, step_name, step));
    if (cp > 1 && backward)
      cp_step_accumulate(step_name, step);
    merged_q_share += cp_step_q_share(step);  // read only when cp > 1
    received = got;
  }
  // The forward's merge: out = zeros_like(q), then per step out += out_step * exp(lse_step - lse)
  // (the product read and written, out read twice and written): 1 + 5 passes over each step's Q.
  if (cp > 1 && !backward)
    memory(name + ".merge", trace::ELEMENTWISE, (1 + 5 * merged_q_share) * q_block_bytes());
}

void PassEmitter::attention_forward(const std::string& prefix) {
  if (s_.job->training.attention == AttentionKernel::unfused)
    return unfused_attention(prefix, false);
  attention_ring(fused_attention(KernelShape::attention_forward), prefix + "attention", prefix + "kv", kv_block_bytes());
}

void PassEmitter::attention_backward(const std::string& prefix) {
  if (s_.job->training.attention == AttentionKernel::unfused)
    return unfused_attention(prefix, true);
  // Backward rings carry the KV block and its accumulated gradient.
  attention_ring(fused_attention(KernelShape::attention_backward), prefix + "attention.bwd", prefix + "kv_grad",
                 2 * kv_block_bytes());
}

// GELU and SwiGLU: one fused kernel each way (Megatron's bias-GELU and SwiGLU fusions). Squared
// ReLU has no fusion in Megatron-Core (NeMo's squared_relu is torch.pow(relu(x), 2), run eager): a
// ReLU and a square forward; backward PyTorch's pow_backward, grad * (2 * x.pow(1)) (the pow of 1
// a copy, then two multiplications), and the ReLU's threshold_backward.
void PassEmitter::activation_forward(const std::string& base, double elements) {
  const double e = s_.element_bytes;
  switch (s_.activation) {
  case Activation::gelu: memory(base + "gelu", trace::ELEMENTWISE, elements * e * 2); return;
  case Activation::swiglu:
    if (eager_ops()) {  // F.silu(w1(x)) * w3(x): the SiLU, then the product
      memory(base + "silu", trace::ELEMENTWISE, elements * e * 2);
      memory(base + "swiglu", trace::ELEMENTWISE, elements * e * 3);
      return;
    }
    memory(base + "swiglu", trace::ELEMENTWISE, elements * e * 3);
    return;
  case Activation::squared_relu:
    memory(base + "relu", trace::ELEMENTWISE, elements * e * 2);
    memory(base + "square", trace::ELEMENTWISE, elements * e * 2);
    return;
  }
}

void PassEmitter::activation_backward(const std::string& base, const std::string& backward_name, double elements) {
  const double e = s_.element_bytes;
  switch (s_.activation) {
  case Activation::gelu: memory(backward_name, trace::ELEMENTWISE, elements * e * 3); return;
  case Activation::swiglu:
    if (eager_ops()) {  // the product's two gradients, then SiLU's backward
      memory(base + "swiglu.bwd.w3", trace::ELEMENTWISE, elements * e * 3);
      memory(base + "swiglu.bwd.silu", trace::ELEMENTWISE, elements * e * 3);
      memory(backward_name, trace::ELEMENTWISE, elements * e * 3);
      return;
    }
    memory(backward_name, trace::ELEMENTWISE, elements * e * 4);
    return;
  case Activation::squared_relu:
    memory(base + "square.bwd.pow", trace::ELEMENTWISE, elements * e * 2);
    memory(base + "square.bwd.scale", trace::ELEMENTWISE, elements * e * 2);
    memory(base + "square.bwd", trace::ELEMENTWISE, elements * e * 3);
    memory(base + "relu.bwd", trace::ELEMENTWISE, elements * e * 3);
    return;
  }
}

void PassEmitter::mlp_forward(const std::string& p) {
  if (s_.moe)
    return moe_forward(p);
  const double t = s_.tokens;
  column_parallel_forward(p + "mlp.input", p + "mlp.up", s_.ffn_local * (s_.gated ? 2 : 1));
  activation_forward(p + "mlp.", t * s_.ffn_local);
  fp8_cast(p + "mlp.down.input", t * s_.ffn_local);
  row_parallel_forward(p + "mlp.down", s_.ffn_local, s_.job->parallel.tp_overlap_sms.fc2_fprop);
}

void PassEmitter::mlp_backward(const std::string& p) {
  if (s_.moe)
    return moe_backward(p);
  row_parallel_backward(p + "mlp.down", s_.ffn_local, s_.hidden);
  activation_backward(p + "mlp.", p + (s_.gated ? "mlp.swiglu.bwd" : "mlp.gelu.bwd"), s_.tokens * s_.ffn_local);
  column_parallel_backward(p + "mlp.up", s_.hidden, s_.ffn_local * (s_.gated ? 2 : 1));
}

// Megatron-Core's all-to-all token dispatcher (core 0.9, transformer/moe/token_dispatcher.py): the
// router and the permutation see the rank's own tokens (with sequence parallelism its 1/tp share),
// the AllToAll over the EP group carries their top-k copies, and only the received tokens are
// gathered across the TP group for the experts' TP shards (a ReduceScatter on the way back). The
// EP exchange is tp times smaller than the gathered tokens; the TP one k times larger than a dense
// layer's. Without sequence parallelism (Megatron refuses MoE with tp > 1 without it in training)
// every TP rank routes all tokens and the expert outputs are all-reduced.
double PassEmitter::moe_own_tokens() const { return s_.sequence_parallel ? s_.norm_tokens : s_.tokens; }

// Megatron-Core's all-to-all dispatcher receives its tokens grouped by source rank and sorts them
// by local expert (sort_chunks_by_idxs: split, then cat in expert order), and unsorts the experts'
// output the same way; in the backward, autograd's cats copy the gradients back alike.
void PassEmitter::sort_by_local_expert(const std::string& name, double routed_tokens) {
  if (s_.experts_local > 1)
    memory(name, trace::MEMCPY, 2 * routed_tokens * s_.hidden * s_.element_bytes, "moe_permute");
}

void PassEmitter::moe_forward(const std::string& p) {
  const double h = s_.hidden, e = s_.element_bytes, routed = s_.tokens * s_.job->model.top_k;
  const double own = moe_own_tokens(), own_routed = own * s_.job->model.top_k;
  gemm(p + "moe.router", own, s_.job->model.experts, h, 1, false);
  const TaskId routed_map = memory(p + "moe.topk", trace::REDUCTION, own * s_.job->model.experts * 4 * 3, "moe_routing");
  if (s_.job->host.sync_moe_dispatch && s_.job->parallel.ep > 1)
    b_.host_waits_before_next_kernel(routed_map);  // the all-to-all's split sizes are read on the host
  memory(p + "moe.permute", trace::MEMCPY, own_routed * h * e * 2, "moe_permute");
  // The TP gather moves what the EP exchange delivered, and the way back scatters before it
  // exchanges: each pair runs one after the other.
  const TaskId dispatched = expert_all_to_all(p + "moe.dispatch.alltoall", own_routed);
  if (s_.sequence_parallel)
    wait_for(tp_collective(p + "moe.dispatch.allgather", trace::ALL_GATHER, routed * h * e, dispatched));
  sort_by_local_expert(p + "moe.sort_by_expert", routed);
  const double rows = routed / s_.experts_local;
  fp8_cast(p + "moe.expert.up.input", routed * h);
  gemm(p + "moe.expert.up", rows, s_.expert_ffn_local * (s_.gated ? 2 : 1), h, s_.experts_local);
  activation_forward(p + "moe.expert.", routed * s_.expert_ffn_local);
  fp8_cast(p + "moe.expert.down.input", routed * s_.expert_ffn_local);
  gemm(p + "moe.expert.down", rows, h, s_.expert_ffn_local, s_.experts_local);
  sort_by_local_expert(p + "moe.unsort_by_expert", routed);
  TaskId combined = kNoTask;
  if (s_.sequence_parallel)
    wait_for(combined = tp_collective(p + "moe.combine.reducescatter", trace::REDUCE_SCATTER, routed * h * e));
  expert_all_to_all(p + "moe.combine.alltoall", own_routed, combined);
  memory(p + "moe.unpermute", trace::MEMCPY, own_routed * h * e * 2, "moe_permute");
  if (!s_.sequence_parallel)
    tp_reduce_output(p + "moe");
}

void PassEmitter::moe_backward(const std::string& p) {
  const double h = s_.hidden, e = s_.element_bytes, routed = s_.tokens * s_.job->model.top_k;
  const double own = moe_own_tokens(), own_routed = own * s_.job->model.top_k;
  memory(p + "moe.unpermute.bwd", trace::MEMCPY, own_routed * h * e * 2, "moe_permute");
  const TaskId returned = expert_all_to_all(p + "moe.combine.bwd.alltoall", own_routed);
  if (s_.sequence_parallel)
    wait_for(tp_collective(p + "moe.combine.bwd.allgather", trace::ALL_GATHER, routed * h * e, returned));
  sort_by_local_expert(p + "moe.unsort_by_expert.bwd", routed);
  const double rows = routed / s_.experts_local, batch = s_.experts_local;
  fp8_cast(p + "moe.expert.down.grad", routed * h);
  gemm(p + "moe.expert.down.dgrad", rows, s_.expert_ffn_local, h, batch);
  weight_gradient(p + "moe.expert.down.wgrad", s_.expert_ffn_local, h, rows, batch);
  activation_backward(p + "moe.expert.", p + "moe.expert.act.bwd", routed * s_.expert_ffn_local);
  const double up = s_.expert_ffn_local * (s_.gated ? 2 : 1);
  fp8_cast(p + "moe.expert.up.grad", routed * up);
  gemm(p + "moe.expert.up.dgrad", rows, h, up, batch);
  weight_gradient(p + "moe.expert.up.wgrad", h, up, rows, batch);
  sort_by_local_expert(p + "moe.sort_by_expert.bwd", routed);
  TaskId scattered = kNoTask;
  if (s_.sequence_parallel)
    wait_for(scattered = tp_collective(p + "moe.dispatch.bwd.reducescatter", trace::REDUCE_SCATTER, routed * h * e));
  expert_all_to_all(p + "moe.dispatch.bwd.alltoall", own_routed, scattered);
  memory(p + "moe.permute.bwd", trace::MEMCPY, own_routed * h * e * 2, "moe_permute");
  gemm(p + "moe.router.dgrad", own, h, s_.job->model.experts, 1, false);
  gemm(p + "moe.router.wgrad", s_.job->model.experts, h, own, 1, false);
  if (s_.tp > 1 && !s_.sequence_parallel)
    wait_for(tp_collective(p + "moe.dgrad.allreduce", trace::ALL_REDUCE, s_.tokens * h * e));
}

void PassEmitter::layer_forward(const std::string& p, bool gathers) {
  const double h = s_.hidden, e = s_.element_bytes, x = s_.norm_tokens, t = s_.tokens;
  const double qkv = (s_.heads_local + 2 * s_.kv_heads_local) * s_.head_dim;
  if (gathers)
    gather_parameters(p);
  norm_forward(p + "norm1");
  column_parallel_forward(p + "attention.input", p + "qkv", qkv);
  // Megatron-Core's attention into Transformer Engine (`te`, core 0.9 SelfAttention): the fused QKV
  // output is split by KV group, and with grouped-query attention the query's reshape to
  // [tokens, heads, head_dim] cannot be a view of it: a copy. Its backward concatenates the three
  // gradients again (TE's _SplitAlongDim: they are separate tensors by then).
  if (through_transformer_engine(s_.job->training.attention) && s_.kv_heads_local < s_.heads_local)
    memory(p + "attention.query_copy", trace::MEMCPY, t * s_.heads_local * s_.head_dim * e * 2);
  if (s_.rotary)
    rotary(p + "rotary", false);
  attention_forward(p);
  fp8_cast(p + "attention.out.input", t * s_.heads_local * s_.head_dim);
  row_parallel_forward(p + "attention.out", s_.heads_local * s_.head_dim, s_.job->parallel.tp_overlap_sms.proj_fprop);
  memory(p + "dropout_add1", trace::ELEMENTWISE, x * h * (3 * e + 1));
  norm_forward(p + "norm2");
  mlp_forward(p);
  memory(p + "dropout_add2", trace::ELEMENTWISE, x * h * (3 * e + 1));
}

// torchtitan's per-op policy (selective_ac_option 'op'): before a block's backward its forward runs
// again, all but the attention kernel and the matmuls the policy kept. It keeps every other matmul
// in call order: of a Llama block's wq, wk, wv, wo, w1, w3, w2 the even ones (wk, wo, w3) run
// again, with the norms, rotary embeddings, residual add and activation between them. FP8 linears
// are torch._scaled_mm, which the policy does not keep: all of them run again. What the backward
// does not need (a GELU MLP's down projection, the block's last residual add) is not rerun
// (PyTorch's early stop). The sequence-parallel gathers the rerun GEMMs need are not repeated.
void PassEmitter::recompute_unkept_ops(const std::string& p) {
  const double h = s_.hidden, e = s_.element_bytes, x = s_.norm_tokens, t = s_.tokens;
  const bool every_linear = s_.job->training.dtype == DataType::fp8;
  const std::string r = p + "recompute.";
  norm_forward(r + "norm1");
  const double k_width = s_.kv_heads_local * s_.head_dim;
  const double qkv_width = every_linear ? (s_.heads_local + 2 * s_.kv_heads_local) * s_.head_dim : k_width;
  fp8_cast(r + "qkv.input", t * h);
  gemm(r + (every_linear ? "qkv" : "k"), t, qkv_width, h);
  if (s_.rotary)
    rotary(r + "rotary", false);
  fp8_cast(r + "attention.out.input", t * s_.heads_local * s_.head_dim);
  gemm(r + "attention.out", t, h, s_.heads_local * s_.head_dim);
  memory(r + "dropout_add1", trace::ELEMENTWISE, x * h * (3 * e + 1));
  norm_forward(r + "norm2");
  // Gated: w1 kept, w3 again; not gated: the up projection kept (every_linear: again).
  const double up_width = s_.gated ? s_.ffn_local * (every_linear ? 2 : 1) : every_linear ? s_.ffn_local : 0;
  if (up_width > 0) {
    fp8_cast(r + "mlp.up.input", t * h);
    gemm(r + "mlp.up", t, up_width, h);
  }
  activation_forward(r + "mlp.", t * s_.ffn_local);
}

void PassEmitter::layer_backward(const std::string& p, const std::string& next) {
  const double h = s_.hidden, e = s_.element_bytes, x = s_.norm_tokens, t = s_.tokens;
  const double qkv = (s_.heads_local + 2 * s_.kv_heads_local) * s_.head_dim;
  const Recompute recompute = s_.job->training.recompute;
  const bool op_policy = recompute == Recompute::selective && s_.job->training.selective == SelectiveRecompute::op;
  // ZeRO-3 unshards a layer once per backward, before its recomputed forward if it has one; the
  // next layer's gather is issued here or after this layer's gradients (parallel.backward_prefetch).
  const char* gathered_for = recompute == Recompute::full ? "recompute." : "bwd.";
  const BackwardPrefetch prefetch = next.empty() ? BackwardPrefetch::none : s_.job->parallel.backward_prefetch;
  gather_parameters(p + gathered_for);
  if (prefetch == BackwardPrefetch::pre)
    prefetch_parameters(next + gathered_for);
  if (recompute == Recompute::full)
    layer_forward(p + "recompute.", false);
  if (op_policy)
    recompute_unkept_ops(p);
  memory(p + "dropout_add2.bwd", trace::ELEMENTWISE, x * h * (2 * e + 1));
  mlp_backward(p);
  norm_backward(p + "norm2");
  // The residual stream forks at each block: autograd adds the branch's gradient to the skip's.
  memory(p + "residual2.grad_add", trace::ELEMENTWISE, x * h * e * 3);
  memory(p + "dropout_add1.bwd", trace::ELEMENTWISE, x * h * (2 * e + 1));
  row_parallel_backward(p + "attention.out", s_.heads_local * s_.head_dim, h);
  if (recompute == Recompute::selective && s_.job->training.attention == AttentionKernel::unfused) {
    unfused_attention(p + "recompute.", false);  // the core attention Korthikanti et al. recompute
  } else if (recompute == Recompute::selective && !op_policy) {
    // Selective recomputation re-runs the attention core (its KV ring too) before its backward.
    attention_ring(fused_attention(KernelShape::attention_forward), p + "attention.recompute", p + "kv.recompute",
                   kv_block_bytes());
  }
  attention_backward(p);
  if (s_.rotary)
    rotary(p + "rotary", true);
  if (through_transformer_engine(s_.job->training.attention))
    memory(p + "qkv.grad_concat", trace::MEMCPY, t * qkv * e * 2);
  column_parallel_backward(p + "qkv", h, qkv);
  norm_backward(p + "norm1");
  memory(p + "residual1.grad_add", trace::ELEMENTWISE, x * h * e * 3);
  accumulate_gradients(p);
  if (zero3_ && s_.job->parallel.flat_parameters)
    memory(p + "grads.flatten", trace::MEMCPY, s_.layer_params() * s_.element_bytes * 2);
  if (prefetch == BackwardPrefetch::post)
    prefetch_parameters(next + gathered_for);
  if (zero3_)
    b_.collective(streams::dp, p + "grads.reducescatter", trace::REDUCE_SCATTER, "dp", s_.layer_params() * s_.grad_bytes,
                  {last_kernel_});
}

void PassEmitter::embedding_forward() {
  const double h = s_.hidden, e = s_.element_bytes;
  memory("embedding", trace::MEMCPY, s_.tokens * h * e * 2);
  tp_reduce_output("embedding");
  memory("embedding.dropout", trace::ELEMENTWISE, s_.norm_tokens * h * (2 * e + 1));
}

void PassEmitter::head_forward() {
  const double h = s_.hidden, e = s_.element_bytes, t = s_.tokens, v = s_.vocab_local;
  norm_forward("final_norm");
  tp_gather_input("lm_head.input");
  {
    const SixteenBit sixteen_bit(*this);  // Megatron's output layer is not an FP8 linear
    gemm("lm_head", t, v, h);
  }
  // Vocab-parallel cross entropy: the max, the sum of exponentials and the target logit are
  // reduced across the TP group (three small AllReduces). Fused: the max, then one kernel for the
  // rest from the 16-bit logits. Eager (Megatron's mpu/cross_entropy.py, PyTorch's F.cross_entropy
  // under autocast alike): the logits cast to fp32, then a pass each for the max, the subtraction,
  // exp, the sum and the division that leaves the softmax for the backward pass.
  const bool fused = s_.job->training.fused_cross_entropy;
  const double logits = t * v, fp32 = 4;
  if (!fused && e < fp32)
    memory("cross_entropy.cast", trace::ELEMENTWISE, logits * (e + fp32));
  const double element = fused ? e : fp32;
  memory("cross_entropy.max", trace::REDUCTION, logits * element);
  if (s_.tp > 1)
    wait_for(tp_collective("cross_entropy.max.allreduce", trace::ALL_REDUCE, t * 4));
  if (!fused)
    memory("cross_entropy.subtract", trace::ELEMENTWISE, logits * fp32 * 2);
  memory("cross_entropy.target", trace::ELEMENTWISE, t * 4 * 4);
  if (s_.tp > 1)
    wait_for(tp_collective("cross_entropy.target.allreduce", trace::ALL_REDUCE, t * 4));
  if (fused) {
    memory("cross_entropy.exp_sum", trace::REDUCTION, logits * (e + fp32));
  } else {
    memory("cross_entropy.exp", trace::ELEMENTWISE, logits * fp32 * 2);
    memory("cross_entropy.sum", trace::REDUCTION, logits * fp32);
  }
  if (s_.tp > 1)
    wait_for(tp_collective("cross_entropy.sum.allreduce", trace::ALL_REDUCE, t * 4));
  memory("cross_entropy.loss", trace::ELEMENTWISE, t * 4 * 4);
  if (!fused)
    memory("cross_entropy.softmax", trace::ELEMENTWISE, logits * fp32 * 2);
}

void PassEmitter::head_backward() {
  const double h = s_.hidden, e = s_.element_bytes, t = s_.tokens, v = s_.vocab_local;
  // The gradient: softmax minus the one-hot target, times the incoming gradient. Eager: the target's
  // subtraction, the multiplication in place over the fp32 softmax, the cast back to 16 bits.
  const double logits = t * v, fp32 = 4;
  if (s_.job->training.fused_cross_entropy) {
    memory("cross_entropy.bwd", trace::ELEMENTWISE, logits * (fp32 + e));
  } else {
    memory("cross_entropy.bwd.target", trace::ELEMENTWISE, t * 4 * 4);
    memory("cross_entropy.bwd", trace::ELEMENTWISE, logits * fp32 * 2);
    if (e < fp32)
      memory("cross_entropy.bwd.cast", trace::ELEMENTWISE, logits * (fp32 + e));
  }
  {
    const SixteenBit sixteen_bit(*this);
    column_parallel_backward("lm_head", h, v, /*biased=*/false, /*batch=*/1, /*te_linear=*/false);
  }
  norm_backward("final_norm");
}

// Without gradient-accumulation fusion the framework adds each parameter's gradient of a micro-batch
// to what the earlier ones left (AccumulateGrad, or Megatron's main_grad hook): one add per
// parameter tensor, from the second micro-batch of a chunk on.
void PassEmitter::accumulate_gradients(const std::string& p) {
  if (s_.job->training.grad_accumulation_fusion || !accumulating_)
    return;
  const double tensors = s_.biased ? 12 : 7;  // weights (and biases) of 4 linears (3 for SwiGLU's MLP: 1 fused up) and 2 norms
  const double bytes = s_.layer_params() / tensors * 4 * 3;  // fp32 gradient read twice, written once
  for (int i = 0; i < static_cast<int>(tensors); ++i)
    memory(p + "grad_accumulate." + std::to_string(i), trace::ELEMENTWISE, bytes);
}

TaskId PassEmitter::forward(const ChunkSpec& chunk, TaskId ready, const ParameterGates& gates) {
  wait_for(ready);
  if (chunk.embedding) {
    wait_for(gates.embedding);
    embedding_forward();
  }
  for (std::uint32_t l = 0; l < chunk.layers; ++l) {
    if (l < gates.layers.size())
      wait_for(gates.layers[l]);
    layer_forward(layer_prefix(chunk.first_layer + l));
  }
  if (chunk.head) {
    wait_for(gates.head);
    head_forward();
  }
  return last_kernel_;
}

// PyTorch's embedding backward builds a dense gradient of the whole (vocab-parallel) table: zeroed,
// then the tokens' rows summed in; the framework's hook adds it to the gradient buffer (Megatron's
// main_grad: gradient-accumulation fusion covers linears only) at every micro-batch.
void PassEmitter::embedding_backward() {
  const double table = s_.vocab_local * s_.hidden, e = s_.element_bytes;
  memory("embedding.bwd.zero", trace::MEMCPY, table * e);
  memory("embedding.bwd", trace::MEMCPY, s_.tokens * s_.hidden * e * 3);
  memory("embedding.grad_accumulate", trace::ELEMENTWISE, table * (2 * s_.grad_bytes + e));
}

TaskId PassEmitter::backward(const ChunkSpec& chunk, TaskId ready, std::vector<TaskId>& grads_done, TaskId& embedding_done,
                             TaskId& head_done) {
  wait_for(ready);
  accumulating_ = !first_backward_of_.insert(chunk.first_layer).second;
  grads_done.assign(chunk.layers, kNoTask);
  embedding_done = head_done = kNoTask;
  if (chunk.head) {
    head_backward();
    head_done = last_kernel_;
  }
  for (std::uint32_t l = chunk.layers; l-- > 0;) {
    layer_backward(layer_prefix(chunk.first_layer + l), l > 0 ? layer_prefix(chunk.first_layer + l - 1) : std::string());
    grads_done[l] = last_kernel_;
  }
  if (chunk.embedding) {
    embedding_backward();
    embedding_done = last_kernel_;
  }
  return last_kernel_;
}

} // namespace echo::workloads
