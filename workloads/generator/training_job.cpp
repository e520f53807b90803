#include "workloads/generator/training_job.hpp"

#include "base/user_error.hpp"

#include <algorithm>
#include <string>

namespace echo::workloads {

namespace {

std::string num(std::uint64_t v) { return std::to_string(v); }

void require(bool ok, const TrainingJob& job, const std::string& problem, const std::string& fix) {
  if (!ok)
    throw UserError(job.origin, 0, problem, fix);
}

} // namespace

std::uint32_t world_size(const TrainingJob& job) {
  const ParallelSpec& p = job.parallel;
  return p.tp * p.cp * p.dp * p.pp;
}

std::uint32_t micro_batches(const TrainingJob& job) {
  return job.training.global_batch / (job.training.micro_batch * job.parallel.dp);
}

void check_training_job(TrainingJob& job, std::uint32_t platform_gpus, const GpuSpec& gpu) {
  ModelDims& m = job.model;
  TrainingSpec& t = job.training;
  ParallelSpec& p = job.parallel;
  require(m.layers > 0 && m.hidden > 0 && m.heads > 0 && m.vocab > 0 && m.seq_len > 0, job,
          "the model needs layers, hidden, heads, vocab and seq_len greater than 0",
          "give them under workload.model, or name a preset with workload.model.name (see `echo-des models`)");
  if (m.kv_heads == 0)
    m.kv_heads = m.heads;
  if (m.ffn_hidden == 0)
    m.ffn_hidden = 4 * m.hidden;
  require(m.hidden % m.heads == 0, job,
          "hidden (" + num(m.hidden) + ") is not divisible by heads (" + num(m.heads) + ")",
          "pick heads that divide hidden: each head has hidden / heads channels");
  require(m.kv_heads <= m.heads && m.heads % m.kv_heads == 0, job,
          "kv_heads (" + num(m.kv_heads) + ") must divide heads (" + num(m.heads) + ")",
          "grouped-query attention shares each KV head among heads / kv_heads query heads");
  if (m.experts > 0) {
    require(m.top_k >= 1 && m.top_k <= m.experts, job,
            "moe.top_k (" + num(m.top_k) + ") must be between 1 and moe.experts (" + num(m.experts) + ")",
            "set moe.top_k to the experts each token is routed to");
    if (m.expert_ffn_hidden == 0)
      m.expert_ffn_hidden = m.ffn_hidden;
  }
  for (auto [value, name] : {std::pair{p.tp, "tp"}, {p.pp, "pp"}, {p.cp, "cp"}, {p.ep, "ep"}, {p.virtual_stages, "virtual_stages"}})
    require(value >= 1, job, std::string("parallel.") + name + " must be at least 1", "use 1 to switch it off");
  require(t.micro_batch >= 1, job, "training.micro_batch must be at least 1", "give the sequences per micro-batch");
  if (t.optimizer_dtype != DataType::fp32) {
    // 16-bit moments live beside the weights with no master copy: the weights' own type.
    const DataType weights = t.dtype == DataType::fp8 ? DataType::bf16 : t.dtype;
    require(t.optimizer_dtype == weights, job,
            std::string("training.optimizer_dtype ") + data_type_name(t.optimizer_dtype) + " is not the weights' type (" +
                data_type_name(weights) + ")",
            std::string("a 16-bit optimizer state is kept in the weights' own type: use ") + data_type_name(weights) +
                ", or fp32");
  }
  require(!t.fp8_params || t.dtype == DataType::fp8, job,
          std::string("training.fp8_params needs training.dtype fp8 (dtype ") + data_type_name(t.dtype) + ")",
          "FP8 weights exist only in an FP8 run: set dtype: fp8, or fp8_params: false");
  require(m.heads % p.tp == 0, job, "tp (" + num(p.tp) + ") does not divide heads (" + num(m.heads) + ")",
          "tensor parallelism splits attention heads: pick tp dividing heads");
  require(m.kv_heads % p.tp == 0 || p.tp % m.kv_heads == 0, job,
          "tp (" + num(p.tp) + ") and kv_heads (" + num(m.kv_heads) + ") do not divide one another",
          "pick tp dividing kv_heads (or a multiple of it, KV heads are then replicated)");
  require(m.hidden % p.tp == 0 && m.ffn_hidden % p.tp == 0, job,
          "tp (" + num(p.tp) + ") does not divide hidden (" + num(m.hidden) + ") and ffn_hidden (" + num(m.ffn_hidden) + ")",
          "tensor parallelism splits the weight matrices: pick tp dividing both");
  const std::uint32_t chunks = p.pp * p.virtual_stages;
  require(m.layers % chunks == 0, job,
          "pp x virtual_stages = " + num(p.pp) + " x " + num(p.virtual_stages) + " does not divide layers (" + num(m.layers) + ")",
          "each pipeline stage (and virtual stage) holds the same number of layers: pick divisors of layers");
  const std::uint32_t model_parallel = p.tp * p.pp * p.cp;
  if (p.dp == 0) {
    require(platform_gpus % model_parallel == 0, job,
            "the platform's " + num(platform_gpus) + " GPUs are not a multiple of tp x pp x cp = " + num(model_parallel),
            "set parallel.dp explicitly, or pick tp, pp and cp whose product divides the GPU count");
    p.dp = platform_gpus / model_parallel;
  }
  require(p.dp >= 1, job, "parallel.dp must be at least 1", "use 1 for no data parallelism");
  if (t.global_batch == 0)  // documented default: one micro-batch per pipeline stage and replica
    t.global_batch = t.micro_batch * p.dp * p.pp;
  require(p.schedule == PipelineSchedule::interleaved || p.virtual_stages == 1, job,
          "parallel.virtual_stages is " + num(p.virtual_stages) + " but the schedule is not interleaved-1f1b",
          "set parallel.schedule: interleaved-1f1b, or virtual_stages: 1");
  require(p.schedule != PipelineSchedule::interleaved || (p.pp > 1 && p.virtual_stages > 1), job,
          "interleaved-1f1b needs pp > 1 and virtual_stages > 1 (pp " + num(p.pp) + ", virtual_stages " + num(p.virtual_stages) + ")",
          "give parallel.virtual_stages (model chunks per stage), or use 1f1b");
  require(t.global_batch % (t.micro_batch * p.dp) == 0, job,
          "global_batch (" + num(t.global_batch) + ") is not divisible by micro_batch x dp = " + num(t.micro_batch) + " x " +
              num(p.dp),
          "every data-parallel replica runs the same whole number of micro-batches: adjust global_batch");
  // A generated program holds every micro-batch's kernels: about 26 KB per micro-batch and layer
  // while simulating (measured: llama3-8b, 1,000 micro-batches x 32 layers, 830 MB peak). Past
  // 16 GB the run would swap or be killed after minutes of silence: refuse, with the estimate.
  const double micro_batch_layers = static_cast<double>(micro_batches(job)) * m.layers * p.cp;
  const double estimated_gb = micro_batch_layers * 26e3 / 1e9;
  require(estimated_gb <= 16, job,
          "this job runs " + num(micro_batches(job)) + " micro-batches per pipeline through " + num(m.layers) +
              " layers: simulating it would take about " + num(static_cast<std::uint64_t>(estimated_gb)) +
              " GB of memory (26 KB per micro-batch and layer)",
          "lower training.global_batch or raise training.micro_batch: past the pipeline's fill, the iteration "
          "time grows in proportion to the micro-batches, so a smaller batch predicts it as well");
  require(p.schedule != PipelineSchedule::interleaved || micro_batches(job) % p.pp == 0, job,
          "interleaved-1f1b needs micro-batches per pipeline (" + num(micro_batches(job)) + ") to be a multiple of pp (" +
              num(p.pp) + ")",
          "adjust global_batch or micro_batch (Megatron-LM's interleaved schedule has the same rule)");
  require(m.seq_len % (2 * p.cp) == 0 || p.cp == 1, job,
          "cp (" + num(p.cp) + ") needs seq_len (" + num(m.seq_len) + ") divisible by 2 x cp",
          "context parallelism splits each sequence into 2 x cp chunks for load balance");
  require(!p.tp_overlap || (p.tp > 1 && p.sequence_parallel), job,
          "parallel.tp_overlap needs tensor parallelism with sequence parallelism (tp " + num(p.tp) + ", sequence_parallel " +
              (p.sequence_parallel ? "true" : "false") + ")",
          "userbuffers overlap the sequence-parallel AllGathers and ReduceScatters: set sequence_parallel: true and tp > 1, "
          "or tp_overlap: false");
  require(!p.tp_overlap_fp8_buf || (p.tp_overlap && job.training.dtype == DataType::fp8), job,
          "parallel.tp_overlap_fp8_buf needs tp_overlap and training.dtype fp8 (tp_overlap " +
              std::string(p.tp_overlap ? "true" : "false") + ", dtype " + data_type_name(job.training.dtype) + ")",
          "FP8 userbuffers carry the ReduceScatters of an FP8 run's userbuffer overlap: set both, or tp_overlap_fp8_buf: false");
  {
    const TpOverlapSms& s = p.tp_overlap_sms;
    const std::uint32_t most = std::max(s.proj_fprop, s.fc2_fprop);
    require(most < gpu.sms, job,
            "parallel.tp_overlap_sms gives a communication kernel " + num(most) + " SMs, but the " + gpu.name + " has " +
                num(gpu.sms),
            "give each fewer SMs than the GPU has (Transformer Engine's recipes use 2 to 24; its default is 16)");
  }
  require(!p.sequence_parallel || m.seq_len / p.cp % p.tp == 0, job,
          "sequence parallelism needs the local sequence (" + num(m.seq_len / p.cp) + ") divisible by tp (" + num(p.tp) + ")",
          "adjust seq_len or tp");
  if (p.ep > 1 || m.experts > 0) {
    require(m.experts > 0, job, "parallel.ep is " + num(p.ep) + " but the model has no experts",
            "set workload.model.moe.experts, or ep: 1");
    require(m.experts % p.ep == 0, job, "ep (" + num(p.ep) + ") does not divide experts (" + num(m.experts) + ")",
            "each expert-parallel rank holds experts / ep experts: pick ep dividing experts");
    require(p.dp % p.ep == 0, job, "ep (" + num(p.ep) + ") does not divide dp (" + num(p.dp) + ")",
            "expert parallelism is carved out of the data-parallel ranks (as in Megatron-LM): pick ep dividing dp");
  }
  require(!(t.recompute == Recompute::selective && t.selective == SelectiveRecompute::op && m.experts > 0), job,
          "training.selective: op (torchtitan's per-op policy) is modelled for dense blocks only, and this model has experts",
          "use selective: attention, or recompute: full");
  require(p.zero <= 3, job, "parallel.zero is " + num(p.zero) + "", "use 0, 1 (distributed optimizer), 2 or 3");
  require(p.bucket_mb > 0, job, "parallel.bucket_mb must be greater than 0", "25 is PyTorch's default");
  require(world_size(job) <= platform_gpus, job,
          "the job needs tp x pp x dp x cp = " + num(p.tp) + " x " + num(p.pp) + " x " + num(p.dp) + " x " + num(p.cp) +
              " = " + num(world_size(job)) + " GPUs but the platform has " + num(platform_gpus),
          "use more nodes (platform.nodes) or a smaller layout");
  require(gpu.peak_flops(t.dtype) > 0, job,
          std::string("dtype ") + data_type_name(t.dtype) + " is not supported by the " + gpu.name + " tensor cores",
          "use bf16 (fp8 needs Hopper or newer)");
}

} // namespace echo::workloads
