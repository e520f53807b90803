#include "workloads/generator/transformer_generator.hpp"

#include "workloads/generator/host_thread.hpp"
#include "workloads/generator/kernel_merge.hpp"
#include "workloads/generator/memory_model.hpp"
#include "workloads/generator/pass_emitter.hpp"
#include "workloads/generator/pipeline_schedule.hpp"
#include "workloads/generator/rank_layout.hpp"
#include "workloads/generator/resolved_settings.hpp"

#include <map>

namespace echo::workloads {

namespace {

namespace pp_streams {
constexpr const char* send_next = "pp_send_next";
constexpr const char* recv_prev = "pp_recv_prev";
constexpr const char* send_prev = "pp_send_prev";
constexpr const char* recv_next = "pp_recv_next";
} // namespace pp_streams

trace::DataType trace_dtype(DataType t) {
  switch (t) {
  case DataType::fp32:
  case DataType::tf32: return trace::FLOAT32;
  case DataType::fp16: return trace::FLOAT16;
  case DataType::bf16: return trace::BFLOAT16;
  case DataType::fp8: return trace::FLOAT8;
  }
  return trace::BFLOAT16;
}

// A gradient bucket: parameters whose gradients are complete after `ready`. Its parameters are
// first used in the forward pass at `first_use`: 0 the embedding, 1 + l the chunk's layer l, 1 +
// layers the head.
struct Bucket {
  double dense = 0, expert = 0;                            // parameters
  double dense_gather_bytes = 0, expert_gather_bytes = 0;  // what the parameter AllGathers move
  TaskId ready = kNoTask;
  std::uint32_t first_use = 0;
};

class StageBuilder {
public:
  StageBuilder(const TrainingJob& job, const Shapes& shapes, const ComputeModel& model, std::uint32_t stage, std::uint32_t cp_rank,
               trace::RankTemplate& tmpl, const PassFactory& passes)
      : job_(job), p_(job.parallel), s_(shapes), model_(model), stage_(stage), b_(tmpl, trace_dtype(job.training.dtype)),
        owned_(passes ? passes(b_, stage, cp_rank) : std::make_unique<PassEmitter>(b_, shapes, model, cp_rank)),
        emit_(*owned_) {}

  // Point-to-point transfers between two ranks are ordered per communicator. With two interleaved
  // stages, activations and gradients flow both ways between the same two ranks, issued from
  // different streams: gradients get a communicator of their own so the two flows never cross.
  static std::string gradient_slot(const TrainingJob& job) {
    return job.parallel.pp == 2 && job.parallel.schedule == PipelineSchedule::interleaved ? "pp_grad" : "pp";
  }

  // Tied embeddings across the pipeline: the first and last stage add up their gradients.
  static bool tied_across_pipeline(const TrainingJob& job) { return job.model.tied_embeddings && job.parallel.pp > 1; }


  void build() {
    const std::uint32_t chunks = p_.virtual_stages, m = micro_batches(job_);
    // Until the last backward of a chunk, none of its gradients is complete (the parameter gathers
    // read the buckets before any backward is built).
    grads_done_.assign(chunks, std::vector<TaskId>(chunk_spec(stage_).layers, kNoTask));
    embedding_done_.assign(chunks, kNoTask);
    head_done_.assign(chunks, kNoTask);
    b_.set_collective_launch_cost(job_.host.collective_op_s);
    b_.set_launch_cost(job_.host.forward_op_s);
    const std::vector<ParameterGates> gathered = early_parameter_gathers();
    std::vector<bool> started(chunks, false);
    TaskId last_backward = kNoTask;
    const std::vector<PipelinePass> passes = pipeline_order(p_.schedule, p_.pp, stage_, m, chunks);
    // Megatron's interleaved schedule posts the receives of the passes to come with each exchange
    // (send_forward_recv_forward, send_forward_backward_recv_forward_backward), ahead of the host's
    // waits (a synchronizing timer, MoE's dispatch sizes). Posted only as its pass began, behind
    // such a wait, a receive let two neighbouring stages each hold the other's send: deadlock
    // (found by scripts/random_jobs.py). So each pass's receive is posted as the pass before it
    // begins. The other schedules post it as its pass begins, as Megatron does there.
    const bool receive_ahead = p_.schedule == PipelineSchedule::interleaved;
    TaskId received_ahead = kNoTask;
    for (std::size_t i = 0; i < passes.size(); ++i) {
      const PipelinePass& pass = passes[i];
      const std::uint32_t global = pass.chunk * p_.pp + stage_;
      const ChunkSpec chunk = chunk_spec(global);
      b_.set_launch_cost(pass.forward ? job_.host.forward_op_s : job_.host.backward_op_s);
      const TaskId ready = receive_ahead && i > 0 ? received_ahead : receive_input(pass);
      if (receive_ahead && i + 1 < passes.size())
        received_ahead = receive_input(passes[i + 1]);
      host_syncs_for_timer();
      if (pass.forward) {
        if (ready != kNoTask)
          host_syncs_after_exchange();
        const TaskId out = emit_.forward(chunk, ready, started[pass.chunk] ? ParameterGates{} : gathered[pass.chunk]);
        started[pass.chunk] = true;
        unawaited_send_ = kNoTask;  // the pass's first kernel waited for it
        if (global + 1 < p_.pp * chunks)
          hold_until_sent(b_.send(pp_streams::send_next, "activation.send", "pp", next(), activation_bytes(), {out}));
      } else {
        if (ready != kNoTask)
          host_syncs_after_exchange();
        std::vector<TaskId> done;
        TaskId emb = kNoTask, head = kNoTask;
        last_backward = emit_.backward(chunk, ready, done, emb, head);
        unawaited_send_ = kNoTask;
        if (pass.micro_batch + 1 == m) {  // the last micro-batch completes the chunk's gradients
          grads_done_[pass.chunk] = done;
          embedding_done_[pass.chunk] = emb;
          head_done_[pass.chunk] = head;
        }
        if (global > 0)
          hold_until_sent(
              b_.send(pp_streams::send_prev, "gradient.send", gradient_slot(job_), prev(), activation_bytes(), {last_backward}));
      }
    }
    // A send after the last pass (the last stage's final gradient) still holds the stage; it
    // follows the last backward, so waiting for it waits for both.
    const TaskId pipeline_done = unawaited_send_ != kNoTask ? unawaited_send_ : last_backward;
    b_.set_launch_cost(job_.host.optimizer_op_s);
    host_syncs_for_timer();
    reduce_gradients(pipeline_done);
    optimizer_step(pipeline_done);
  }

  // The host thread's launch costs and waits, for host_thread.hpp.
  const ProgramBuilder& program() const { return b_; }

private:
  // The receive a pass's input arrives by: the previous stage's activation for a forward pass, the
  // next stage's gradient for a backward one; kNoTask at the ends of the pipeline.
  TaskId receive_input(const PipelinePass& pass) {
    const std::uint32_t global = pass.chunk * p_.pp + stage_;
    if (pass.forward)
      return global > 0 ? b_.recv(pp_streams::recv_prev, "activation.recv", "pp", prev(), activation_bytes()) : kNoTask;
    return global + 1 < p_.pp * p_.virtual_stages
               ? b_.recv(pp_streams::recv_next, "gradient.recv", gradient_slot(job_), next(), activation_bytes())
               : kNoTask;
  }
  // Without p2p overlap the stage's next kernel waits until the neighbour has the tensor.
  void hold_until_sent(TaskId send) {
    if (p_.p2p_overlap)
      return;
    emit_.wait_for(send);
    unawaited_send_ = send;
    host_syncs_after_exchange();
  }
  // Megatron synchronizes the device after each blocking exchange (its next pass's receive is
  // issued with the send, so the wait before the next kernel covers both). Not with interleaving:
  // there Megatron pairs a forward and a backward per exchange, while this builder posts each
  // receive one pass ahead, so a device-wide wait would wait for a receive whose data the
  // neighbour sends only later.
  void host_syncs_after_exchange() {
    if (!p_.p2p_overlap && job_.host.sync_after_p2p && p_.schedule != PipelineSchedule::interleaved)
      b_.host_waits_before_next_kernel();
  }
  // A timer that synchronizes when it starts and stops (sync_timers): the previous step's stop and
  // the next one's start are one wait for everything issued. With interleaving the wait covers
  // the computation only, for the reason above: waiting for everything issued there also waited
  // for a pending send whose receive the neighbour had not posted, and two neighbouring stages
  // deadlocked (found by a random sweep).
  void host_syncs_for_timer() {
    if (!job_.host.sync_timers)
      return;
    if (p_.schedule == PipelineSchedule::interleaved)
      b_.host_waits_before_next_kernel(b_.last(streams::compute));
    else
      b_.host_waits_before_next_kernel();
  }
  std::uint32_t next() const { return (stage_ + 1) % p_.pp; }
  std::uint32_t prev() const { return (stage_ + p_.pp - 1) % p_.pp; }
  double activation_bytes() const { return s_.norm_tokens * s_.hidden * s_.element_bytes; }
  double shard() const { return static_cast<double>(p_.dp) * p_.cp; }
  double expert_shard() const { return static_cast<double>(p_.dp / p_.ep) * p_.cp; }
  bool data_parallel() const { return shard() > 1; }
  // Expert parameters are reduced over their own group when experts are spread over ranks.
  bool expert_apart() const { return s_.moe && p_.ep > 1; }

  ChunkSpec chunk_spec(std::uint32_t global) const {
    const std::uint32_t per_chunk = job_.model.layers / (p_.pp * p_.virtual_stages);
    return {global * per_chunk, per_chunk, global == 0, global + 1 == p_.pp * p_.virtual_stages};
  }

  // Buckets of one chunk, in the order its gradients complete: head, layers last to first, embedding.
  std::vector<Bucket> buckets_of_chunk(std::uint32_t chunk, TaskId all_done) const {
    const double limit = p_.bucket_mb * 1024 * 1024 / s_.grad_bytes;
    const std::uint32_t global = chunk * p_.pp + stage_;
    const ChunkSpec spec = chunk_spec(global);
    std::vector<Bucket> buckets;
    Bucket open;
    // Gradients complete from the head back to the embedding: the item added last to a bucket is
    // the one the forward uses first.
    // fp8_linear: how many of the dense parameters are linear weights (FP8 with fp8_params).
    auto add = [&](double dense, double expert, double fp8_linear, TaskId ready, std::uint32_t forward_position) {
      open.dense += dense;
      open.expert += expert;
      open.dense_gather_bytes += s_.parameter_gather_bytes(dense, fp8_linear);
      open.expert_gather_bytes += s_.parameter_gather_bytes(expert, expert);
      open.first_use = forward_position;
      if (!p_.dp_overlap)
        open.ready = all_done;
      else if (ready != kNoTask)
        open.ready = ready;
      if (open.dense + open.expert >= limit) {
        buckets.push_back(open);
        open = {};
      }
    };
    if (spec.head && (!job_.model.tied_embeddings || p_.pp > 1))
      add(s_.embedding_params() + s_.hidden, 0, 0, head_done_[chunk], spec.layers + 1);
    const double expert = expert_apart() ? s_.expert_params() : 0;
    for (std::uint32_t l = spec.layers; l-- > 0;)
      add(s_.layer_params() - expert, expert, s_.linear_params() - expert, grads_done_[chunk][l], l + 1);
    if (spec.embedding)
      add(s_.embedding_params(), 0, 0, embedding_done_[chunk], 0);
    if (open.dense + open.expert > 0)
      buckets.push_back(open);
    return buckets;
  }

  std::vector<Bucket> all_buckets(TaskId all_done) const {
    std::vector<Bucket> out;
    for (std::uint32_t c = p_.virtual_stages; c-- > 0;)
      for (const Bucket& b : buckets_of_chunk(c, all_done))
        out.push_back(b);
    return out;
  }

  // ZeRO-1/2 with overlap: the previous step's parameter AllGathers, bucket by bucket in the order
  // the forward uses them, each finishing under the forward of the buckets before it. Megatron-Core
  // (core 0.9 param_and_grad_buffer.py, finish_param_sync) waits for a bucket's gather in the
  // forward pre-hook of its first module and dispatches the next bucket's there; the host runs
  // ahead of the GPU, so the gathers follow one another on their stream.
  std::vector<ParameterGates> early_parameter_gathers() {
    std::vector<ParameterGates> gates(p_.virtual_stages);
    if (p_.zero == 0 || p_.zero == 3 || !p_.dp_overlap || !data_parallel())
      return gates;
    for (std::uint32_t c = 0; c < p_.virtual_stages; ++c) {
      const ChunkSpec spec = chunk_spec(c * p_.pp + stage_);
      std::vector<TaskId> at(spec.layers + 2, kNoTask);  // by forward position, as Bucket::first_use
      std::vector<Bucket> buckets = buckets_of_chunk(c, kNoTask);
      for (auto bucket = buckets.rbegin(); bucket != buckets.rend(); ++bucket) {
        TaskId gathered = kNoTask;
        if (bucket->dense > 0)
          gathered = b_.collective(streams::dp, "params.allgather", trace::ALL_GATHER, "dp", bucket->dense_gather_bytes);
        if (bucket->expert > 0 && expert_shard() > 1)
          gathered = b_.collective(streams::dp, "expert_params.allgather", trace::ALL_GATHER, "edp", bucket->expert_gather_bytes);
        at[bucket->first_use] = gathered;  // one stream: the later gather implies the earlier
      }
      gates[c].embedding = at.front();
      gates[c].layers.assign(at.begin() + 1, at.end() - 1);
      gates[c].head = at.back();
    }
    return gates;
  }

  void reduce_gradients(TaskId all_done) {
    if (p_.zero == 3 || !data_parallel())
      return reduce_embedding(all_done);
    const bool sharded = p_.zero >= 1;
    for (const Bucket& bucket : all_buckets(all_done)) {
      if (bucket.dense > 0)
        b_.collective(streams::dp, sharded ? "grads.reducescatter" : "grads.allreduce",
                      sharded ? trace::REDUCE_SCATTER : trace::ALL_REDUCE, "dp", bucket.dense * s_.grad_bytes, {bucket.ready});
      if (bucket.expert > 0 && expert_shard() > 1)
        b_.collective(streams::dp, sharded ? "expert_grads.reducescatter" : "expert_grads.allreduce",
                      sharded ? trace::REDUCE_SCATTER : trace::ALL_REDUCE, "edp", bucket.expert * s_.grad_bytes,
                      {bucket.ready});
    }
    reduce_embedding(all_done);
  }

  void reduce_embedding(TaskId all_done) {
    if (!tied_across_pipeline(job_) || (stage_ != 0 && stage_ + 1 != p_.pp))
      return;
    b_.collective(streams::dp, "embedding_grads.allreduce", trace::ALL_REDUCE, "embd", s_.embedding_params() * s_.grad_bytes,
                  {all_done});
  }

  void optimizer_step(TaskId pipeline_done) {
    const double params = stage_parameters(s_, stage_) / (p_.zero >= 1 ? shard() : 1.0);
    const TaskId reduced = b_.last(streams::dp);
    KernelOp norm;
    norm.name = "optimizer.grad_norm";
    norm.category = trace::REDUCTION;
    norm.bytes = params * s_.step_grad_bytes;
    const TaskId norm_task = b_.compute(streams::compute, norm, model_.time_s(norm), {reduced, pipeline_done});
    if (job_.host.sync_before_step)
      b_.host_waits_before_next_kernel(norm_task);
    KernelOp adam;
    adam.name = "optimizer.adam";
    adam.category = trace::OPTIMIZER;
    // The weights the update reads (the fp32 master copy, read and written, or the weights
    // themselves), both moments read and written, the gradient, the new weights written.
    const double weights_read = s_.master_weight_bytes > 0 ? 2 * s_.master_weight_bytes : s_.element_bytes;
    adam.bytes = params * (weights_read + 4 * s_.optimizer_state_bytes + s_.step_grad_bytes + s_.element_bytes);
    const TaskId step = b_.compute(streams::compute, adam, model_.time_s(adam));
    if ((p_.zero == 1 || p_.zero == 2) && data_parallel() && !p_.dp_overlap)
      for (const Bucket& bucket : all_buckets(step)) {
        b_.collective(streams::dp, "params.allgather", trace::ALL_GATHER, "dp", bucket.dense_gather_bytes, {step});
        if (bucket.expert > 0 && expert_shard() > 1)
          b_.collective(streams::dp, "expert_params.allgather", trace::ALL_GATHER, "edp", bucket.expert_gather_bytes, {step});
      }
  }

  const TrainingJob& job_;
  const ParallelSpec& p_;
  const Shapes& s_;
  const ComputeModel& model_;
  std::uint32_t stage_;
  ProgramBuilder b_;
  std::unique_ptr<ChunkPasses> owned_;
  ChunkPasses& emit_;
  std::vector<std::vector<TaskId>> grads_done_;
  std::vector<TaskId> embedding_done_, head_done_;
  TaskId unawaited_send_ = kNoTask;  // a held send no kernel has waited for yet
};

void add_groups(trace::Trace& out, const RankLayout& layout, const std::string& slot, const std::vector<Dim>& varying) {
  std::uint32_t index = 0;
  for (const ProcessGroup& g : layout.groups(slot, varying)) {
    trace::Communicator& c = *out.add_communicators();
    c.set_name(slot + "." + std::to_string(index++));
    c.set_slot(slot);
    for (std::uint32_t r : g.ranks)
      c.add_ranks(r);
  }
}

} // namespace

double model_flops_per_iteration(const TrainingJob& job) {
  const ModelDims& m = job.model;
  const double h = m.hidden, d = h / m.heads, s = m.seq_len;
  const double attention_params = h * (m.heads + 2.0 * m.kv_heads) * d + m.heads * d * h;
  const double matrices = gated(m.activation) ? 3.0 : 2.0;
  const double mlp_params = m.experts > 0 ? m.top_k * matrices * h * m.expert_ffn_hidden + h * m.experts
                                          : matrices * h * m.ffn_hidden;
  const double per_token_forward =
      m.layers * (2 * (attention_params + mlp_params) + 4 * s * m.heads * d) + 2 * h * m.vocab;
  return 3 * per_token_forward * static_cast<double>(job.training.global_batch) * s;
}

GeneratedJob generate_training_job(const TrainingJob& job, const ComputeModel& model, const PassFactory& passes) {
  const ParallelSpec& p = job.parallel;
  const Shapes shapes(job);
  const RankLayout layout(p, job.origin);
  GeneratedJob out;
  trace::Trace& t = out.trace;
  t.set_name(job.model.name.empty() ? "transformer" : job.model.name);

  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> template_of;
  for (std::uint32_t stage = 0; stage < p.pp; ++stage)
    for (std::uint32_t c = 0; c < p.cp; ++c) {
      trace::RankTemplate& tmpl = *t.add_templates();
      const std::string name = "stage" + std::to_string(stage) + (p.cp > 1 ? ".cp" + std::to_string(c) : "");
      tmpl.set_name(name);
      template_of[{stage, c}] = name;
      StageBuilder builder(job, shapes, model, stage, c, tmpl, passes);
      builder.build();
      if (job.host.enabled())
        add_host_thread(tmpl, builder.program().launch_costs(), builder.program().host_waits(), job.gate_every_launch);
      if (job.merge_kernels)
        merge_kernel_runs(tmpl, job.merge_same_category_only);
      out.facts.memory_by_program.push_back(stage_memory(shapes, stage));
      out.facts.gpu_seconds_by_kind.push_back(builder.program().seconds_by_kind());
    }

  for (std::uint32_t r = 0; r < layout.world(); ++r) {
    const Coordinates c = layout.coordinates(r);
    const std::string& name = template_of[{c.pp, c.cp}];
    if (t.ranks_size() > 0) {
      trace::RankRange& last = *t.mutable_ranks(t.ranks_size() - 1);
      if (last.template_name() == name && last.first() + last.count() == r) {
        last.set_count(last.count() + 1);
        continue;
      }
    }
    trace::RankRange& range = *t.add_ranks();
    range.set_first(r);
    range.set_count(1);
    range.set_template_name(name);
  }

  if (p.tp > 1)
    add_groups(t, layout, "tp", {Dim::tp});
  if (p.cp > 1)
    add_groups(t, layout, "cp", {Dim::cp});
  if (p.pp > 1)
    add_groups(t, layout, "pp", {Dim::pp});
  if (StageBuilder::gradient_slot(job) != "pp")
    add_groups(t, layout, StageBuilder::gradient_slot(job), {Dim::pp});
  if (p.dp * p.cp > 1)
    add_groups(t, layout, "dp", {Dim::cp, Dim::ep, Dim::dp});
  if (p.ep > 1)
    add_groups(t, layout, "ep", {Dim::ep});
  if (job.model.experts > 0 && p.ep > 1 && p.dp / p.ep * p.cp > 1)
    add_groups(t, layout, "edp", {Dim::cp, Dim::dp});
  if (StageBuilder::tied_across_pipeline(job)) {
    std::uint32_t index = 0;
    for (const ProcessGroup& g : layout.groups("embd", {Dim::pp})) {
      trace::Communicator& c = *t.add_communicators();
      c.set_name("embd." + std::to_string(index++));
      c.set_slot("embd");
      c.add_ranks(g.ranks.front());
      c.add_ranks(g.ranks.back());
    }
  }

  TrainingFacts& f = out.facts;
  f.model = t.name();
  f.gpu = model.gpu().name;
  f.tokens_per_iteration = static_cast<double>(job.training.global_batch) * job.model.seq_len;
  f.model_flops_per_iteration = model_flops_per_iteration(job);
  f.peak_flops_per_gpu = model.gpu().peak_flops(job.training.dtype);
  f.memory_capacity_bytes = model.gpu().memory_bytes;
  f.tp = p.tp;
  f.pp = p.pp;
  f.dp = p.dp;
  f.cp = p.cp;
  f.ep = p.ep;
  f.micro_batches = micro_batches(job);
  f.settings = resolved_settings(job);
  return out;
}

} // namespace echo::workloads
