#include "cli/training_section.hpp"

#include "base/user_error.hpp"
#include "cli/job_schema.hpp"
#include "cli/yaml_fields.hpp"
#include "workloads/model_presets.hpp"

namespace echo::cli {

namespace {

using workloads::Activation;
using workloads::PipelineSchedule;
using workloads::Recompute;

// Sets `field` from m[key] when the key is there.
void read_count(const YAML::Node& m, const char* key, std::uint32_t& field, std::uint32_t minimum, const std::string& file) {
  if (m[key])
    field = whole_number(m[key], key, file, minimum);
}

// Sets `field` from m[key] (true or false) when the key is there.
void read_flag(const YAML::Node& m, const char* key, bool& field, const std::string& fix, const std::string& file) {
  if (m[key])
    field = either(m[key], key, "true", "false", file, fix);
}

workloads::ModelDims read_model(const YAML::Node& m, const std::string& file) {
  check_keys(m, "workload.model", allowed_keys("workload.model"), file);
  workloads::ModelDims dims;
  dims.vocab = 51200;
  dims.seq_len = 2048;
  dims.top_k = 2;
  if (m["name"]) {
    const std::string name = scalar(m["name"], "name", file);
    const auto preset = workloads::model_preset(name);
    if (!preset) {
      std::vector<std::string> names;
      for (const auto& p : workloads::model_presets())
        names.push_back(p.name);
      throw UserError(file, line_of(m["name"]), "unknown model preset '" + name + "'", "use one of: " + join(names));
    }
    dims = *preset;
  } else {
    for (const char* key : {"layers", "hidden", "heads"})
      if (!m[key])
        throw UserError(file, line_of(m), std::string("`workload.model` has no `") + key + "` (and no preset `name`)",
                        "give layers, hidden and heads, or name a preset: `model: {name: gpt3-175b}` (`echo-des models`)");
    dims.name = "custom";
  }
  auto count = [&](const char* key, std::uint32_t& field, std::uint32_t minimum) { read_count(m, key, field, minimum, file); };
  bool ffn_given = m["ffn_hidden"].IsDefined(), kv_given = m["kv_heads"].IsDefined();
  count("layers", dims.layers, 1);
  count("hidden", dims.hidden, 1);
  count("heads", dims.heads, 1);
  count("kv_heads", dims.kv_heads, 1);
  count("ffn_hidden", dims.ffn_hidden, 1);
  count("vocab", dims.vocab, 1);
  count("seq_len", dims.seq_len, 1);
  if (!m["name"]) {  // the documented defaults of a model given by its dimensions
    if (!ffn_given)
      dims.ffn_hidden = 0;
    if (!kv_given)
      dims.kv_heads = 0;
  }
  if (m["activation"])
    dims.activation = *workloads::activation_named(one_of(m["activation"], "activation", workloads::activation_names(), file));
  if (!m["name"]) {  // a model given by its dimensions is GPT-like with GELU, Llama-like otherwise
    dims.tied_embeddings = dims.activation == Activation::gelu;
    dims.rotary = dims.activation != Activation::gelu;
    dims.norm = dims.activation == Activation::gelu ? workloads::Norm::layernorm : workloads::Norm::rmsnorm;
  }
  if (m["norm"])
    dims.norm = one_of(m["norm"], "norm", {"layernorm", "rmsnorm"}, file) == "rmsnorm" ? workloads::Norm::rmsnorm
                                                                                       : workloads::Norm::layernorm;
  read_flag(m, "tied_embeddings", dims.tied_embeddings,
            "true: the LM head shares the input embedding (GPT); false: its own matrix (Llama)", file);
  read_flag(m, "rotary", dims.rotary, "true: rotary position embeddings on Q and K (Llama, Nemotron-4); false: none (GPT)", file);
  if (m["moe"]) {
    const YAML::Node moe = require_map(m, "moe", file, false);
    check_keys(moe, "workload.model.moe", allowed_keys("workload.model.moe"), file);
    if (moe["experts"])
      dims.experts = whole_number(moe["experts"], "experts", file, 0);
    if (moe["top_k"])
      dims.top_k = whole_number(moe["top_k"], "top_k", file, 1);
    if (moe["expert_ffn_hidden"])
      dims.expert_ffn_hidden = whole_number(moe["expert_ffn_hidden"], "expert_ffn_hidden", file, 0);
  }
  if (!m["name"])  // GPT's linears carry biases; Llama's, Nemotron-4's and MoE models' do not
    dims.bias = dims.activation == Activation::gelu && dims.experts == 0;
  read_flag(m, "bias", dims.bias, "true: the linears carry biases (GPT); false: none (Llama, Nemotron-4)", file);
  return dims;
}

workloads::Framework read_framework(const YAML::Node& t, const std::string& file) {
  const std::string name = t["framework"] ? scalar(t["framework"], "framework", file) : workloads::kDefaultFramework;
  const auto framework = workloads::find_framework(name);
  if (!framework)
    throw UserError(file, line_of(t["framework"]), "unknown framework '" + name + "'",
                    "use one of: " + join(workloads::framework_names()) + " (docs/generator.md says what each sets)");
  return *framework;
}

// The framework's host thread with the job's `training.host` overrides.
workloads::HostModel read_host(const YAML::Node& t, workloads::HostModel host, const std::string& file) {
  const YAML::Node h = require_map(t, "host", file, false);
  check_keys(h, "workload.training.host", allowed_keys("workload.training.host"), file);
  auto micros = [&](const char* key, double& field) {
    if (h[key])
      field = number(h[key], key, file) * 1e-6;
  };
  micros("forward_op_us", host.forward_op_s);
  micros("backward_op_us", host.backward_op_s);
  micros("collective_op_us", host.collective_op_s);
  micros("optimizer_op_us", host.optimizer_op_s);
  read_flag(h, "sync_after_p2p", host.sync_after_p2p,
            "true: the host synchronizes the device after each pipeline exchange, as Megatron does", file);
  read_flag(h, "sync_moe_dispatch", host.sync_moe_dispatch,
            "true: the MoE dispatcher reads the tokens per expert on the host before its all-to-all, as Megatron-Core's does", file);
  read_flag(h, "sync_timers", host.sync_timers,
            "true: timers synchronize the device around every forward and backward step, as Megatron's did before 2022-08", file);
  read_flag(h, "sync_before_step", host.sync_before_step,
            "true: the host reads the gradient norm (.item()) before the optimizer step", file);
  return host;
}

workloads::TrainingSpec read_training(const YAML::Node& t, const workloads::Framework& framework, const std::string& file) {
  check_keys(t, "workload.training", allowed_keys("workload.training"), file);
  workloads::TrainingSpec spec;
  spec.attention = framework.attention;
  spec.grad_accumulation_fusion = framework.grad_accumulation_fusion;
  spec.fused_cross_entropy = framework.fused_cross_entropy;
  read_flag(t, "fused_cross_entropy", spec.fused_cross_entropy,
            "true: one fused kernel for the loss and one for its gradient; false: the eager fp32 cross entropy", file);
  spec.compile = framework.compile;
  read_flag(t, "compile", spec.compile,
            "true: norms, rotary embeddings and activations run as fused kernels (torch.compile, or the framework's own); "
            "false: op by op in eager PyTorch",
            file);
  read_flag(t, "grad_accumulation_fusion", spec.grad_accumulation_fusion,
            "true: weight-gradient GEMMs add into the gradient buffer; false: one add kernel per parameter per micro-batch", file);
  read_flag(t, "fp8_params", spec.fp8_params,
            "true: with dtype fp8, the linear weights are FP8 tensors and the distributed optimizer gathers them in FP8", file);
  if (t["persistent_gemms"]) {
    bool persistent = false;
    read_flag(t, "persistent_gemms", persistent,
              "true: large GEMMs hold every SM while they run (cuBLAS on Hopper and Blackwell); false: they share the GPU", file);
    spec.persistent_gemms = persistent;
  }
  if (t["global_batch"])
    spec.global_batch = whole_number(t["global_batch"], "global_batch", file, 1);
  if (t["micro_batch"])
    spec.micro_batch = whole_number(t["micro_batch"], "micro_batch", file, 1);
  if (t["dtype"])
    spec.dtype = *workloads::parse_data_type(one_of(t["dtype"], "dtype", {"bf16", "fp16", "fp8", "tf32", "fp32"}, file));
  if (t["grad_dtype"])
    spec.grad_dtype = *workloads::parse_data_type(one_of(t["grad_dtype"], "grad_dtype", {"fp32", "bf16", "fp16"}, file));
  if (t["optimizer_dtype"])
    spec.optimizer_dtype = *workloads::parse_data_type(one_of(t["optimizer_dtype"], "optimizer_dtype", {"fp32", "bf16", "fp16"}, file));
  if (t["recompute"]) {
    const std::string r = one_of(t["recompute"], "recompute", {"none", "selective", "full"}, file);
    spec.recompute = r == "full" ? Recompute::full : r == "selective" ? Recompute::selective : Recompute::none;
  }
  spec.selective = framework.selective;
  if (t["selective"])
    spec.selective = one_of(t["selective"], "selective", {"attention", "op"}, file) == "op" ? workloads::SelectiveRecompute::op
                                                                                             : workloads::SelectiveRecompute::attention;
  if (t["attention"]) {
    spec.attention = *workloads::parse_attention_kernel(one_of(t["attention"], "attention", workloads::attention_kernel_names(), file));
  }
  return spec;
}

workloads::ParallelSpec read_parallel(const YAML::Node& p, const workloads::Framework& framework, const std::string& file) {
  check_keys(p, "workload.parallel", allowed_keys("workload.parallel"), file);
  workloads::ParallelSpec spec;
  spec.dp_overlap = framework.dp_overlap;
  spec.zero = framework.zero;
  auto count = [&](const char* key, std::uint32_t& field, std::uint32_t minimum) { read_count(p, key, field, minimum, file); };
  count("tp", spec.tp, 1);
  count("pp", spec.pp, 1);
  count("dp", spec.dp, 1);
  count("cp", spec.cp, 1);
  count("ep", spec.ep, 1);
  count("virtual_stages", spec.virtual_stages, 1);
  if (p["zero"])
    spec.zero = static_cast<std::uint32_t>(std::stoi(one_of(p["zero"], "zero", {"0", "1", "2", "3"}, file)));
  // ZeRO-3's own settings: a job that names one without zero: 3 expects something that will not happen.
  auto zero3_only = [&](const char* key, const std::string& what) {
    if (p[key] && spec.zero != 3)
      throw UserError(file, line_of(p[key]), "`" + std::string(key) + "` " + what + ", and this job has zero: " + std::to_string(spec.zero),
                      std::string("set zero: 3 (FSDP), or drop ") + key);
  };
  spec.backward_prefetch = framework.backward_prefetch;
  if (p["backward_prefetch"]) {
    const std::string b = one_of(p["backward_prefetch"], "backward_prefetch", {"pre", "post", "none"}, file);
    spec.backward_prefetch = b == "pre" ? workloads::BackwardPrefetch::pre
                             : b == "post" ? workloads::BackwardPrefetch::post
                                           : workloads::BackwardPrefetch::none;
  }
  zero3_only("backward_prefetch", "orders ZeRO-3's parameter gathers");
  spec.flat_parameters = framework.flat_parameters;
  read_flag(p, "flat_parameters", spec.flat_parameters,
            "true: ZeRO-3 keeps a layer's parameters as one flat tensor and concatenates its gradient (FSDP1)", file);
  zero3_only("flat_parameters", "describes ZeRO-3's parameters");
  read_flag(p, "sequence_parallel", spec.sequence_parallel,
            "true shards norms and dropouts over the TP group (AllGather / ReduceScatter)", file);
  read_flag(p, "dp_overlap", spec.dp_overlap, "true overlaps the gradient buckets with the backward pass", file);
  read_flag(p, "p2p_overlap", spec.p2p_overlap,
            "true lets a pipeline stage go on while its sends wait for the neighbour", file);
  read_flag(p, "tp_overlap", spec.tp_overlap,
            "true overlaps the sequence-parallel AllGathers and ReduceScatters with their GEMMs (userbuffers)", file);
  read_flag(p, "tp_overlap_fp8_buf", spec.tp_overlap_fp8_buf,
            "true: with fp8 and tp_overlap, the pipelined ReduceScatters move FP8 partial sums (TE's ub_cfg fp8_buf)", file);
  if (p["tp_overlap_sms"]) {
    // Transformer Engine's ub_cfg names; the GPU's SM count bounds them (checked with the platform).
    const YAML::Node sms = require_map(p, "tp_overlap_sms", file, false);
    check_keys(sms, "workload.parallel.tp_overlap_sms", allowed_keys("workload.parallel.tp_overlap_sms"), file);
    workloads::TpOverlapSms& s = spec.tp_overlap_sms;
    read_count(sms, "proj_fprop", s.proj_fprop, 0, file);
    read_count(sms, "fc2_fprop", s.fc2_fprop, 0, file);
  }
  if (p["schedule"]) {
    const std::string s = one_of(p["schedule"], "schedule", {"1f1b", "gpipe", "interleaved-1f1b"}, file);
    spec.schedule = s == "gpipe" ? PipelineSchedule::gpipe : s == "1f1b" ? PipelineSchedule::one_f_one_b : PipelineSchedule::interleaved;
  }
  if (p["bucket_mb"]) {
    spec.bucket_mb = number(p["bucket_mb"], "bucket_mb", file);
    if (spec.bucket_mb <= 0)
      throw UserError(file, line_of(p["bucket_mb"]), "`bucket_mb` must be greater than 0", "25 is PyTorch's default");
  }
  if (p["order"])
    spec.order = scalar(p["order"], "order", file);
  return spec;
}

} // namespace

bool has_training_section(const YAML::Node& workload) {
  return workload["model"] || workload["training"] || workload["parallel"] || workload["profile"] || workload["merge_kernels"];
}

workloads::TrainingJob read_training_job(const YAML::Node& workload, const std::string& file, const std::string& base_dir) {
  workloads::TrainingJob job;
  job.origin = file;
  if (!workload["model"])
    throw UserError(file, line_of(workload), "`workload` has training or parallel settings but no `model`",
                    "add e.g. `model: {name: gpt3-1.3b}` (presets: `echo-des models`)");
  job.model = read_model(require_map(workload, "model", file, false), file);
  const YAML::Node training = require_map(workload, "training", file, false);
  const workloads::Framework framework = read_framework(training, file);
  job.framework = framework.name;
  job.host = read_host(training, framework.host, file);
  job.training = read_training(training, framework, file);
  job.parallel = read_parallel(require_map(workload, "parallel", file, false), framework, file);
  if (!framework.pipeline && job.parallel.pp > 1)
    throw UserError(file, line_of(workload["parallel"]["pp"]),
                    "framework '" + framework.name + "' has no pipeline parallelism, but pp is " + std::to_string(job.parallel.pp),
                    "use pp: 1 (shard with zero and dp instead), or a framework with pipelines: megatron-lm, nemo, torchtitan");
  read_flag(workload, "merge_kernels", job.merge_kernels,
            "false keeps every kernel as its own task (more timeline detail, slower runs)", file);
  if (workload["profile"])
    job.profile_db = resolve(scalar(workload["profile"], "profile", file), base_dir);
  return job;
}

} // namespace echo::cli
