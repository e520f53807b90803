#include "cli/job_schema.hpp"

#include "platforms/cluster_spec.hpp"
#include "slowdown/predictor.hpp"
#include "workloads/importers/importer.hpp"

#include <algorithm>
#include <map>

namespace echo::cli {

namespace {

const std::map<std::string, std::vector<std::string>>& sections() {
  static const std::map<std::string, std::vector<std::string>> table = [] {
    std::map<std::string, std::vector<std::string>> t;
    t[""] = {"platform", "workload", "communication", "slowdown", "output"};
    t["platform"] = {"file", "preset"};
    for (const auto& k : platforms::override_keys())
      t["platform"].push_back(k);
    t["workload"] = traced_workload_keys();
    for (const char* k : {"model", "training", "parallel", "profile", "merge_kernels"})
      t["workload"].push_back(k);
    t["workload.replicate"] = {"dp"};
    t["workload.model"] = {"name", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "activation", "vocab", "seq_len", "moe",
                           "tied_embeddings", "bias", "rotary", "norm"};
    t["workload.model.moe"] = {"experts", "top_k", "expert_ffn_hidden"};
    t["workload.training"] = {"global_batch", "micro_batch", "dtype", "recompute", "attention", "framework", "host",
                              "grad_accumulation_fusion", "fused_cross_entropy", "grad_dtype", "optimizer_dtype", "selective",
                              "compile", "fp8_params", "persistent_gemms"};
    t["workload.training.host"] = {"forward_op_us", "backward_op_us", "collective_op_us", "optimizer_op_us", "sync_after_p2p",
                                   "sync_before_step", "sync_moe_dispatch", "sync_timers"};
    t["workload.parallel"] = {"tp", "pp", "dp", "cp", "ep", "sequence_parallel", "schedule", "virtual_stages", "zero",
                              "dp_overlap", "p2p_overlap", "tp_overlap", "tp_overlap_sms", "tp_overlap_fp8_buf", "bucket_mb", "order",
                              "backward_prefetch", "flat_parameters"};
    t["workload.parallel.tp_overlap_sms"] = {"proj_fprop", "fc2_fprop"};
    t["communication"] = {"fidelity", "algo", "proto", "nccl_version", "min_ctas", "max_ctas"};
    t["slowdown"] = {"model", "factor", "file"};
    for (const auto& c : slowdown::category_names())
      t["slowdown"].push_back(c);
    t["output"] = {"dir", "timeline"};
    return t;
  }();
  return table;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

} // namespace

const std::vector<std::string>& allowed_keys(const std::string& section) { return sections().at(section); }

std::vector<std::string> traced_workload_keys() {
  std::vector<std::string> keys;
  for (const workloads::Importer* importer : workloads::ImporterRegistry::builtin().all()) {
    keys.push_back(importer->job_key());
    for (const workloads::ImporterOption& o : importer->options())
      if (std::find(keys.begin(), keys.end(), o.name) == keys.end())
        keys.push_back(o.name);
  }
  for (const char* k : {"replicate", "comm", "kernel_time_scale"})
    keys.push_back(k);
  return keys;
}

std::vector<std::string> job_value_keys() {
  std::vector<std::string> out;
  for (const auto& [section, keys] : sections())
    for (const auto& k : keys) {
      const std::string full = section.empty() ? k : section + "." + k;
      if (!sections().count(full))
        out.push_back(full);
    }
  return out;
}

std::string nearest_job_key(const std::string& key) {
  std::string best;
  std::size_t best_distance = ~std::size_t{0};
  for (const std::string& k : job_value_keys()) {
    // Compare with the key as written in full and as a sweep may shorten it (no `workload.`).
    std::size_t d = edit_distance(key, k);
    if (k.rfind("workload.", 0) == 0)
      d = std::min(d, edit_distance(key, k.substr(9)));
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best;
}

} // namespace echo::cli
