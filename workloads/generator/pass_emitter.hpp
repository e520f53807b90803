#pragma once
// PassEmitter: the kernels and tensor / context / expert-parallel communication of one forward or
// backward pass of a model chunk on one rank, in the order Megatron-LM launches them:
//  - per layer: norm, (sequence-parallel AllGather), QKV GEMM, (rotary), fused attention (a ring
//    of KV send/recv with context parallelism), output GEMM, TP AllReduce (ReduceScatter with
//    sequence parallelism), dropout + residual, norm, MLP (or router, permutation, AllToAll
//    dispatch, grouped expert GEMMs, AllToAll combine), TP reduction, dropout + residual;
//  - with parallel.tp_overlap (userbuffers), the SP AllGathers before the QKV and MLP-up GEMMs
//    (and before the row-parallel input-gradient GEMMs) pass shard by shard beside the GEMM's
//    chunks, and the ReduceScatters after the output and MLP-down GEMMs are pipelined over splits;
//  - backward: two GEMMs per forward GEMM; the input-gradient reduction of a column-parallel layer
//    runs on the TP stream while its weight-gradient GEMM computes (Megatron's async TP
//    AllReduce); recompute per the job's mode;
//  - embedding on the first chunk of the model, final norm, LM head and vocab-parallel cross
//    entropy (three small TP AllReduces) on the last;
//  - ZeRO-3: each layer gathers its parameters before its forward (prefetched one layer ahead)
//    and its backward (issued where parallel.backward_prefetch says), and reduce-scatters its
//    gradients after its backward.
#include "workloads/generator/compute_model.hpp"
#include "workloads/generator/program_builder.hpp"
#include "workloads/generator/shapes.hpp"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace echo::workloads {

namespace streams {
inline constexpr const char* compute = "compute";
inline constexpr const char* tp = "tp";
inline constexpr const char* cp_send = "cp_send";
inline constexpr const char* cp_recv = "cp_recv";
inline constexpr const char* ep = "ep";
inline constexpr const char* dp = "dp";
} // namespace streams

struct ChunkSpec {
  std::uint32_t first_layer = 0, layers = 0;
  bool embedding = false, head = false;
};

// What a chunk's first forward pass waits for beyond its input: with ZeRO-1/2 and overlap, the
// previous step's parameter AllGathers, bucket by bucket, each where its bucket's parameters are
// first used (Megatron-Core's forward pre-hooks, Apex's DistributedFusedAdam alike). kNoTask where
// nothing is gathered.
struct ParameterGates {
  TaskId embedding = kNoTask;
  std::vector<TaskId> layers;  // one per layer of the chunk, first layer first; empty: none
  TaskId head = kNoTask;
};

// What a pipeline stage's passes are made of. The transformer's kernels (PassEmitter) are one
// answer; tests plug in a uniform toy to check the pipeline schedules against their formulas.
class ChunkPasses {
public:
  virtual ~ChunkPasses() = default;
  // Each returns the last compute task of the pass. `ready` (may be kNoTask): the task the pass's
  // first kernel waits for (the received activation or gradient); `gates`: what each part of the
  // forward also waits for.
  virtual TaskId forward(const ChunkSpec& chunk, TaskId ready, const ParameterGates& gates) = 0;
  // `grads_done` receives, per layer of the chunk (first layer first), the task after which the
  // layer's weight gradients are complete; `embedding_done` / `head_done` likewise (kNoTask if
  // absent).
  virtual TaskId backward(const ChunkSpec& chunk, TaskId ready, std::vector<TaskId>& grads_done, TaskId& embedding_done,
                          TaskId& head_done) = 0;
  // The next kernel also waits for `task` (kNoTask: nothing).
  virtual void wait_for(TaskId task) = 0;
};

class PassEmitter final : public ChunkPasses {
public:
  PassEmitter(ProgramBuilder& builder, const Shapes& shapes, const ComputeModel& model, std::uint32_t cp_rank);

  TaskId forward(const ChunkSpec& chunk, TaskId ready, const ParameterGates& gates) override;
  TaskId backward(const ChunkSpec& chunk, TaskId ready, std::vector<TaskId>& grads_done, TaskId& embedding_done,
                  TaskId& head_done) override;
  void wait_for(TaskId task) override {
    if (task != kNoTask)
      pending_.push_back(task);
  }

private:
  TaskId kernel(const KernelOp& op);
  // `kind`: what the summary's "GPU work" counts it as (empty: its category).
  TaskId memory(const std::string& name, trace::Category category, double bytes, const char* kind = "");
  // epilogue_bytes: KernelOp::epilogue_bytes (2: the GEMM writes its output in 16 bits).
  TaskId gemm(const std::string& name, double m, double n, double k, double batch = 1, bool low_precision = true,
              double sms_held = 0, double epilogue_bytes = 2);
  // A weight's gradient GEMM: with gradient-accumulation fusion it adds into the gradient buffer.
  TaskId weight_gradient(const std::string& name, double m, double n, double k, double batch = 1);
  // `after`: a call whose output this one moves (kNoTask: the last kernel's alone).
  TaskId tp_collective(const std::string& name, trace::CollectiveOp op, double bytes, TaskId after = kNoTask);
  void tp_gather_input(const std::string& name);     // SP AllGather of a layer input (forward)
  void tp_reduce_output(const std::string& name);    // row-parallel output: AllReduce or ReduceScatter
  // A column-parallel linear's forward over hidden-wide input `input` (SP gather, FP8 cast, GEMM);
  // a row-parallel one's (GEMM, TP reduction) back to hidden.
  void column_parallel_forward(const std::string& input, const std::string& name, double out);
  // `ub_sms`: the SMs userbuffers' ReduceScatter holds beside each chunk (parallel.tp_overlap_sms).
  void row_parallel_forward(const std::string& name, double in, std::uint32_t ub_sms);
  // parallel.tp_overlap: the SP AllGather `gather` passed shard by shard beside the GEMM's chunks;
  // a row-parallel GEMM's ReduceScatter pipelined over its splits.
  void ring_exchange_gemm(const std::string& gather, const std::string& name, double n, double k);
  void gemm_reduce_scatter(const std::string& name, double n, double k, double sms_held);
  // Backward of a column-parallel linear: dgrad, its input-gradient reduction async on the TP
  // stream while the wgrad GEMM runs.
  // te_linear: a Transformer Engine linear, whose exchanges userbuffers run with tp_overlap
  // (Megatron's own output layer is not one: its exchanges are NCCL's).
  void column_parallel_backward(const std::string& name, double in, double out, bool biased = true, double batch = 1,
                                bool te_linear = true);
  void row_parallel_backward(const std::string& name, double in, double out, bool biased = true, double batch = 1);
  void bias_grad(const std::string& name, double out);
  // The MLP's activation over `elements` of its output (one gated half for SwiGLU), its kernels
  // named after `base` ("layer3.mlp."); `backward_name`: the fused backward's name.
  void activation_forward(const std::string& base, double elements);
  void activation_backward(const std::string& base, const std::string& backward_name, double elements);
  // torchtitan's per-op selective recomputation, before a layer's backward (SelectiveRecompute::op).
  void recompute_unkept_ops(const std::string& prefix);
  void fp8_cast(const std::string& name, double elements);
  // Sets one of the emitter's settings for as long as a scope lasts.
  template <class T>
  class ScopedValue {
  public:
    ScopedValue(T& slot, T value) : slot_(slot), was_(slot) { slot_ = value; }
    ~ScopedValue() { slot_ = was_; }
    ScopedValue(const ScopedValue&) = delete;
    ScopedValue& operator=(const ScopedValue&) = delete;

  private:
    T& slot_;
    T was_;
  };
  // GEMMs emitted while one is alive stay in 16 bits in an fp8 recipe.
  struct SixteenBit : ScopedValue<bool> {
    explicit SixteenBit(PassEmitter& e) : ScopedValue(e.sixteen_bit_, true) {}
  };
  // The chunks of one GEMM that Transformer Engine's userbuffers split (ring exchange, pipelined
  // ReduceScatter) are launched on rotating compute streams, none waiting for the one before: the
  // GPU runs their blocks as one pool (KernelOp::side_by_side).
  struct SideBySide : ScopedValue<double> {
    SideBySide(PassEmitter& e, double chunks) : ScopedValue(e.side_by_side_, chunks) {}
  };
  void norm_forward(const std::string& name);
  void norm_backward(const std::string& name);
  void rotary(const std::string& name, bool backward);  // on Q and K
  // Without torch.compile a block's RMSNorm, rotary embeddings and SwiGLU run op by op (a LayerNorm
  // is one kernel even then).
  bool eager_ops() const { return !s_.job->training.compile; }
  bool eager_rmsnorm() const { return eager_ops() && s_.job->model.norm == Norm::rmsnorm; }
  void accumulate_gradients(const std::string& prefix);
  void embedding_backward();
  void sort_by_local_expert(const std::string& name, double routed_tokens);
  TaskId expert_all_to_all(const std::string& name, double routed_tokens, TaskId after = kNoTask);
  KernelOp fused_attention(KernelShape shape) const;
  double kv_block_bytes() const { return 2 * s_.tokens * s_.kv_heads_local * s_.head_dim * s_.element_bytes; }
  void attention_ring(KernelOp op, const std::string& name, const std::string& block, double block_bytes);
  // Transformer Engine's context-parallel bookkeeping around a ring step (cp > 1): the halves a
  // step works on made contiguous before it, the backward's dQ / dKV accumulation after it.
  void cp_step_inputs(const std::string& name, std::uint32_t step, bool backward);
  void cp_step_accumulate(const std::string& name, std::uint32_t step);
  double cp_step_q_share(std::uint32_t step) const;
  KernelOp cp_step_kernel(KernelOp op, const std::string& name, std::uint32_t step) const;
  double q_block_bytes() const { return s_.tokens * s_.heads_local * s_.head_dim * s_.element_bytes; }
  void attention_forward(const std::string& prefix);
  void unfused_attention(const std::string& prefix, bool backward);
  void eager_softmax(const std::string& prefix, double scores, bool backward);
  void attention_backward(const std::string& prefix);
  // `gathers`: the layer's forward gathers its ZeRO-3 parameters itself (not a recomputation whose
  // backward gathered them).
  void layer_forward(const std::string& prefix, bool gathers = true);
  // `next`: the prefix of the layer whose backward follows in this chunk (empty: none).
  void layer_backward(const std::string& prefix, const std::string& next);
  void mlp_forward(const std::string& prefix);  // with its SP gather and TP reduction
  void mlp_backward(const std::string& prefix);
  double moe_own_tokens() const;                 // tokens this rank routes
  void moe_forward(const std::string& prefix);
  void moe_backward(const std::string& prefix);
  void embedding_forward();
  void head_forward();
  void head_backward();
  TaskId layer_gather(const std::string& prefix, TaskId after);  // ZeRO-3: one layer's AllGather
  void gather_parameters(const std::string& prefix);   // ZeRO-3
  void prefetch_parameters(const std::string& prefix);  // ZeRO-3, backward

  ProgramBuilder& b_;
  const Shapes& s_;
  const ComputeModel& model_;
  std::uint32_t cp_rank_;
  std::vector<TaskId> pending_;  // the next kernel waits for these
  TaskId last_kernel_ = kNoTask;
  TaskId layer_first_kernel_ = kNoTask;  // ZeRO-3 prefetch anchor: first kernel of the previous layer
  TaskId prefetched_gather_ = kNoTask;   // ZeRO-3: the next backward layer's gather, already issued
  bool zero3_ = false;
  bool tp_overlap_ = false;  // userbuffers (parallel.tp_overlap, with sequence parallelism)
  bool persistent_gemms_ = false;  // training.persistent_gemms: large GEMMs fill the GPU
  std::set<std::uint32_t> first_backward_of_;  // chunks (by first layer) whose backward has run once
  bool accumulating_ = false;                  // this backward adds to gradients of earlier micro-batches
  bool sixteen_bit_ = false;                   // GEMMs stay in 16 bits (SixteenBit)
  double side_by_side_ = 1;                    // GEMM chunks that share the waves (SideBySide)
};

} // namespace echo::workloads
