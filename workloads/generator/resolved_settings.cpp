#include "workloads/generator/resolved_settings.hpp"

#include <cstdio>

namespace echo::workloads {

namespace {

std::string word(bool b) { return b ? "true" : "false"; }

// Shortest text that reads back as the same number (17 significant digits at most).
std::string number(double v) {
  char buf[64];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::stod(buf) == v)
      break;
  }
  return buf;
}

const char* schedule_name(PipelineSchedule s) {
  switch (s) {
  case PipelineSchedule::gpipe: return "gpipe";
  case PipelineSchedule::one_f_one_b: return "1f1b";
  case PipelineSchedule::interleaved: return "interleaved-1f1b";
  }
  return "?";
}

const char* recompute_name(Recompute r) {
  switch (r) {
  case Recompute::none: return "none";
  case Recompute::selective: return "selective";
  case Recompute::full: return "full";
  }
  return "?";
}

} // namespace

Settings resolved_settings(const TrainingJob& job) {
  const ModelDims& m = job.model;
  const TrainingSpec& t = job.training;
  const ParallelSpec& p = job.parallel;
  const HostModel& h = job.host;
  Settings s;
  auto add = [&](const std::string& key, const std::string& value) { s.emplace_back(key, value); };
  auto count = [&](const std::string& key, std::uint32_t value) { add(key, std::to_string(value)); };
  if (!m.name.empty())
    add("model.name", m.name);
  count("model.layers", m.layers);
  count("model.hidden", m.hidden);
  count("model.heads", m.heads);
  count("model.kv_heads", m.kv_heads);
  count("model.ffn_hidden", m.ffn_hidden);
  add("model.activation", activation_name(m.activation));
  count("model.vocab", m.vocab);
  count("model.seq_len", m.seq_len);
  add("model.tied_embeddings", word(m.tied_embeddings));
  add("model.bias", word(m.bias));
  add("model.rotary", word(m.rotary));
  add("model.norm", norm_name(m.norm));
  if (m.experts > 0) {
    count("model.moe.experts", m.experts);
    count("model.moe.top_k", m.top_k);
    count("model.moe.expert_ffn_hidden", m.expert_ffn_hidden);
  }
  add("training.framework", job.framework);
  count("training.global_batch", t.global_batch);
  count("training.micro_batch", t.micro_batch);
  add("training.dtype", data_type_name(t.dtype));
  add("training.recompute", recompute_name(t.recompute));
  add("training.selective", selective_name(t.selective));
  add("training.compile", word(t.compile));
  add("training.attention", attention_kernel_name(t.attention));
  add("training.grad_accumulation_fusion", word(t.grad_accumulation_fusion));
  add("training.fused_cross_entropy", word(t.fused_cross_entropy));
  add("training.grad_dtype", t.grad_dtype ? data_type_name(*t.grad_dtype) : t.dtype == DataType::fp16 ? "fp16" : "fp32");
  add("training.optimizer_dtype", data_type_name(t.optimizer_dtype));
  if (t.dtype == DataType::fp8)
    add("training.fp8_params", word(t.fp8_params));
  add("training.persistent_gemms", word(t.persistent_gemms.value_or(false)));
  add("training.host.forward_op_us", number(h.forward_op_s * 1e6));
  add("training.host.backward_op_us", number(h.backward_op_s * 1e6));
  add("training.host.collective_op_us", number(h.collective_op_s * 1e6));
  add("training.host.optimizer_op_us", number(h.optimizer_op_s * 1e6));
  add("training.host.sync_after_p2p", word(h.sync_after_p2p));
  add("training.host.sync_before_step", word(h.sync_before_step));
  add("training.host.sync_moe_dispatch", word(h.sync_moe_dispatch));
  add("training.host.sync_timers", word(h.sync_timers));
  count("parallel.tp", p.tp);
  count("parallel.pp", p.pp);
  count("parallel.dp", p.dp);
  count("parallel.cp", p.cp);
  count("parallel.ep", p.ep);
  add("parallel.sequence_parallel", word(p.sequence_parallel));
  add("parallel.schedule", schedule_name(p.schedule));
  count("parallel.virtual_stages", p.virtual_stages);
  count("parallel.zero", p.zero);
  if (p.zero == 3) {
    add("parallel.backward_prefetch", backward_prefetch_name(p.backward_prefetch));
    add("parallel.flat_parameters", word(p.flat_parameters));
  }
  add("parallel.dp_overlap", word(p.dp_overlap));
  add("parallel.p2p_overlap", word(p.p2p_overlap));
  add("parallel.tp_overlap", word(p.tp_overlap));
  if (p.tp_overlap) {
    const TpOverlapSms& s = p.tp_overlap_sms;
    count("parallel.tp_overlap_sms.proj_fprop", s.proj_fprop);
    count("parallel.tp_overlap_sms.fc2_fprop", s.fc2_fprop);
    add("parallel.tp_overlap_fp8_buf", word(p.tp_overlap_fp8_buf));
  }
  add("parallel.bucket_mb", number(p.bucket_mb));
  add("parallel.order", p.order);
  add("merge_kernels", word(job.merge_kernels));
  if (!job.profile_db.empty())
    add("profile", job.profile_db);
  return s;
}

} // namespace echo::workloads
