#include "report/job_record.hpp"

#include "base/version.hpp"

namespace echo::report {

namespace {

using nlohmann::ordered_json;

ordered_json platform_record(const platforms::PlatformSource& p) {
  if (!p.spec)
    return {{"file", p.file}};
  const platforms::ClusterSpec& c = *p.spec;
  ordered_json j = {{"preset", c.preset},
                    {"gpu", c.gpu},
                    {"nodes", c.nodes},
                    {"gpus_per_node", c.gpus_per_node},
                    {"nvlink_bw", c.nvlink_bw},
                    {"nvlink_latency", c.nvlink_latency},
                    {"nics_per_node", c.nics_per_node},
                    {"nic_bw", c.nic_bw},
                    {"nic_latency", c.nic_latency},
                    {"switch_latency", c.switch_latency},
                    {"oversubscription", c.oversubscription},
                    {"pod_nodes", c.pod_nodes},
                    {"cpu", c.cpu},
                    {"gpu_nic_path", c.gpu_nic_path},
                    {"gpu_speed_spread", c.gpu_speed_spread}};
  for (const auto& [key, value] : c.calibration)  // std::map: in key order
    j[key] = value;
  return j;
}

ordered_json workload_record(const core::JobSpec& job) {
  if (!job.source)
    return {{"format", "model"}};  // its settings: workload.settings
  const workloads::WorkloadSource& s = *job.source;
  ordered_json j = {{"format", s.format}, {"files", s.files}};
  for (const auto& [name, values] : s.options)
    j[name] = values.size() == 1 ? ordered_json(values.front()) : ordered_json(values);
  j["replicate_dp"] = job.replicate_dp;
  j["comm"] = job.comm_measured ? "measured" : "simulated";
  j["kernel_time_scale"] = job.kernel_time_scale;
  return j;
}

// A list in NCCL_ALGO / NCCL_PROTO syntax and where it came from; none: NCCL's own choice.
void selection(ordered_json& j, const char* key, const std::string& list, const std::string& origin) {
  j[key] = list.empty() ? "NCCL's choice" : list;
  if (!list.empty())
    j[std::string(key) + "_from"] = origin;
}

ordered_json slowdown_record(const core::SlowdownSpec& s) {
  ordered_json j = {{"model", s.model}};
  if (s.model == "xgboost")
    j["file"] = s.file;
  if (s.model == "constant")
    j["factor"] = s.factor;
  if (s.model == "category" && !s.categories.empty())
    j["categories"] = s.categories;
  return j;
}

void flatten(const nlohmann::json& j, const std::string& prefix, std::map<std::string, std::string>& out) {
  if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      flatten(value, prefix.empty() ? key : prefix + "." + key, out);
    return;
  }
  if (j.is_array()) {
    std::string joined;
    for (const auto& item : j)
      joined += (joined.empty() ? "" : " ") + (item.is_string() ? item.get<std::string>() : item.dump());
    out[prefix] = joined;
    return;
  }
  out[prefix] = j.is_string() ? j.get<std::string>() : j.dump();
}

} // namespace

ordered_json job_record(const core::JobSpec& job) {
  ordered_json j = {{"echo_des_version", kVersion}, {"file", job.job_file}, {"overrides", job.overrides}};
  // The environment counts where it decided something: NCCL_ALGO / NCCL_PROTO when the job did
  // not set the list itself.
  ordered_json env = ordered_json::object();
  const core::CommunicationSpec& c = job.communication;
  if (!c.algo.empty() && c.algo_origin == core::CommunicationSpec::kAlgoFromEnvironment)
    env["NCCL_ALGO"] = c.algo;
  if (!c.proto.empty() && c.proto_origin == core::CommunicationSpec::kProtoFromEnvironment)
    env["NCCL_PROTO"] = c.proto;
  if (c.min_ctas > 0 && c.min_ctas_origin == core::CommunicationSpec::kMinCtasFromEnvironment)
    env["NCCL_MIN_CTAS"] = c.min_ctas;
  if (c.max_ctas > 0 && c.max_ctas_origin == core::CommunicationSpec::kMaxCtasFromEnvironment)
    env["NCCL_MAX_CTAS"] = c.max_ctas;
  j["environment"] = env;
  j["platform"] = platform_record(job.platform);
  j["workload"] = workload_record(job);
  ordered_json comm = {{"fidelity", c.fidelity}};
  selection(comm, "algo", c.algo, c.algo_origin);
  selection(comm, "proto", c.proto, c.proto_origin);
  comm["nccl_version"] = c.nccl_version.str();
  // Recorded only when set, so that records of jobs without them stay as they were.
  if (c.min_ctas > 0)
    comm["min_ctas"] = c.min_ctas;
  if (c.max_ctas > 0)
    comm["max_ctas"] = c.max_ctas;
  j["communication"] = comm;
  j["slowdown"] = slowdown_record(job.slowdown);
  j["output"] = {{"timeline", job.timeline}};
  j["rank_folding"] = core::rank_folding_name(job.rank_folding);
  return j;
}

std::map<std::string, std::string> recorded_settings(const nlohmann::json& summary) {
  std::map<std::string, std::string> out;
  if (summary.contains("job") && summary["job"].is_object())
    flatten(summary["job"], "job", out);
  if (summary.contains("workload") && summary["workload"].is_object() && summary["workload"].contains("settings") &&
      summary["workload"]["settings"].is_object())
    for (const auto& [key, value] : summary["workload"]["settings"].items())
      out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  return out;
}

} // namespace echo::report
