#include "cli/job_file.hpp"

#include "base/file_text.hpp"
#include "base/user_error.hpp"
#include "cli/communication_options.hpp"
#include "cli/job_schema.hpp"
#include "cli/training_section.hpp"
#include "cli/yaml_fields.hpp"
#include "workloads/importers/importer.hpp"
#include "platforms/cluster_spec.hpp"
#include "slowdown/predictor.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>

namespace echo::cli {

namespace {

namespace fs = std::filesystem;

core::SlowdownSpec read_slowdown(const YAML::Node& section, const std::string& file, const std::string& base_dir) {
  core::SlowdownSpec spec;
  if (!section)
    return spec;
  check_keys(section, "slowdown", allowed_keys("slowdown"), file);
  if (section["model"])
    spec.model = scalar(section["model"], "model", file);
  if (spec.model != "none" && spec.model != "constant" && spec.model != "category" && spec.model != "xgboost")
    throw UserError(file, line_of(section["model"]), "unknown slowdown model '" + spec.model + "'",
                    "use none, constant (with `factor`), category (optional per-category factors) or xgboost "
                    "(with `file`)");
  if (section["file"]) {
    if (spec.model != "xgboost")
      throw UserError(file, line_of(section["file"]), "`file` belongs to the xgboost model", "write `model: xgboost`");
    spec.file = resolve(scalar(section["file"], "file", file), base_dir);
  } else if (spec.model == "xgboost") {
    throw UserError(file, line_of(section), "the xgboost slowdown model needs a `file`",
                    "train one with `echo-des slowdown train` and write `file: model.json`");
  }
  if (section["factor"]) {
    if (spec.model != "constant")
      throw UserError(file, line_of(section["factor"]), "`factor` belongs to the constant model", "write `model: constant`");
    spec.factor = number(section["factor"], "factor", file);
  } else if (spec.model == "constant") {
    throw UserError(file, line_of(section), "the constant slowdown model needs a `factor`", "write e.g. `factor: 0.2`");
  }
  for (const auto& c : slowdown::category_names())
    if (section[c]) {
      if (spec.model != "category")
        throw UserError(file, line_of(section[c]), "per-category factors belong to the category model",
                        "write `model: category`");
      spec.categories[c] = number(section[c], c, file);
    }
  return spec;
}

// Sections inside sections: `--set workload.parallel.tp=4`, `--set workload.model.moe.experts=8`,
// `--set workload.training.host.forward_op_us=20`.
const std::set<std::string> kNestedSections = {"replicate", "model", "training", "parallel", "moe", "host"};

// A value in braces or brackets replaces a whole group (`--set 'slowdown={model: none}'`); any
// other value is one word.
YAML::Node override_value(const std::string& assignment, const std::string& value) {
  if (value.empty() || (value.front() != '{' && value.front() != '['))
    return YAML::Node(value);
  try {
    return YAML::Load(value);
  } catch (const YAML::Exception& e) {
    throw UserError("--set " + assignment, 0, "malformed YAML value: " + e.msg,
                    "write a group as {key: value, ...} and a list as [a, b], quoted for the shell");
  }
}

// Applies override number `index`; every node it makes is marked as its own (line_of).
void apply_override(YAML::Node& root, const std::string& assignment, std::size_t index) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError("--set " + assignment, 0, "an override must look like key=value",
                    "write e.g. --set platform.nic_bw=100Gbps");
  const std::string key = assignment.substr(0, eq);
  const YAML::Node value = override_value(assignment, assignment.substr(eq + 1));
  check_key_shapes(value, "--set " + assignment);
  // The first word is a section; words after it that name nested sections go one level further;
  // the rest is one key, dots included (platform.nccl.efficiency.net is the key
  // `nccl.efficiency.net` of `platform`).
  auto set = [&](YAML::Node parent, const std::string& name, const YAML::Node& node) {
    parent[name] = node;
    for (const auto& kv : parent)
      if (kv.first.IsScalar() && kv.first.Scalar() == name) {
        mark_override(kv.first, index);
        mark_override(kv.second, index);
      }
  };
  const auto dot = key.find('.');
  if (dot == std::string::npos) {
    set(root, key, value);
    return;
  }
  std::vector<YAML::Node> path{root};
  std::string name = key.substr(0, dot), rest = key.substr(dot + 1);
  for (;;) {
    YAML::Node node = path.back()[name];
    if (node && !node.IsNull() && !node.IsMap())
      throw UserError("--set " + assignment, 0, "`" + name + "` is not a section, so it has no key '" + rest + "'",
                      "override a key inside a section, e.g. platform.nodes=4");
    if (!node || node.IsNull())
      set(path.back(), name, YAML::Node(YAML::NodeType::Map));
    path.push_back(path.back()[name]);
    const auto inner = rest.find('.');
    if (inner == std::string::npos || !kNestedSections.contains(rest.substr(0, inner)))
      break;
    name = rest.substr(0, inner);
    rest = rest.substr(inner + 1);
  }
  set(path.back(), rest, value);
}

platforms::PlatformSource read_platform(const YAML::Node& p, const std::string& file, const std::string& base_dir) {
  check_keys(p, "platform", allowed_keys("platform"), file);

  platforms::PlatformSource source;
  const bool has_file = static_cast<bool>(p["file"]);
  const bool has_preset = static_cast<bool>(p["preset"]);
  if (has_file == has_preset)
    throw UserError(file, line_of(p), "`platform` must name exactly one of `file` and `preset`",
                    "write `platform: {file: cluster.xml}` or `platform: {preset: dgx-a100, nodes: 2}`");
  if (has_file) {
    for (const auto& kv : p)
      if (kv.first.as<std::string>() != "file")
        throw UserError(file, line_of(kv.first),
                        "`" + kv.first.as<std::string>() + "` only applies to a preset, not to a platform file",
                        "edit the XML file, or use `preset:` to generate the platform");
    source.file = resolve(scalar(p["file"], "file", file), base_dir);
    return source;
  }
  const YAML::Node preset_node = p["preset"];
  try {
    platforms::ClusterSpec spec = platforms::preset(scalar(preset_node, "preset", file), 1);
    for (const auto& kv : p) {
      const std::string key = kv.first.as<std::string>();
      if (key == "preset")
        continue;
      try {
        platforms::override_figure(spec, key, scalar(kv.second, key, file), file);
      } catch (const UserError& e) {
        throw UserError(file, e.line() != 0 ? e.line() : line_of(kv.second), e.problem(), e.fix());
      }
    }
    platforms::validate(spec, file);
    source.spec = spec;
  } catch (const UserError& e) {
    // Figures are checked by platforms/, which knows no lines: add ours.
    const int line = e.line() != 0 ? e.line() : line_of(preset_node);
    throw UserError(file, line, e.problem(), e.fix());
  }
  return source;
}

} // namespace

namespace {
core::JobSpec read_job(const YAML::Node& root, const std::string& shown_name, const std::string& base_dir,
                       const std::vector<std::string>& overrides, bool file_generates);

// Where a setting came from, for messages: the file and line, or the --set that made it.
std::string origin_of(const YAML::Node& node, const std::string& file, const std::vector<std::string>& overrides,
                      const std::string& key) {
  const int line = line_of(node);
  if (line < 0)
    return "--set " + overrides.at(static_cast<std::size_t>(-line - 1));
  return file + ":" + std::to_string(line) + " (" + key + ")";
}
} // namespace

core::JobSpec parse_job(const std::string& yaml_text, const std::string& shown_name, const std::string& base_dir,
                        const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw UserError(shown_name, e.mark.line >= 0 ? e.mark.line + 1 : 0, "malformed YAML: " + e.msg,
                    "fix the syntax (indentation, a missing ':' or an unclosed bracket)");
  }
  if (root.IsNull())
    root = YAML::Node(YAML::NodeType::Map);
  check_key_shapes(root, shown_name);
  if (!root.IsMap())
    throw UserError(shown_name, line_of(root), "a job file must be a mapping with `platform`, `workload` and `output`",
                    "see examples/two_ranks/job.yaml");
  // A --set that turns a traced workload into a generated one is the override's mistake, not the
  // file's: remember which generated-workload keys the file itself has.
  const YAML::Node file_workload = static_cast<const YAML::Node&>(root)["workload"];  // const: reading adds no key
  const bool file_generates = file_workload && file_workload.IsMap() && has_training_section(file_workload);
  // Mistakes in what a --set made are the override's, named as such (line_of, yaml_fields.hpp).
  struct MarksCleared {
    ~MarksCleared() { clear_override_marks(); }
  } cleared;
  for (std::size_t i = 0; i < overrides.size(); ++i)
    apply_override(root, overrides[i], i);
  try {
    return read_job(root, shown_name, base_dir, overrides, file_generates);
  } catch (const UserError& e) {
    if (e.line() >= 0)
      throw;
    throw UserError("--set " + overrides.at(static_cast<std::size_t>(-e.line() - 1)), 0, e.problem(), e.fix());
  }
}

namespace {
core::JobSpec read_job(const YAML::Node& root_in, const std::string& shown_name, const std::string& base_dir,
                       const std::vector<std::string>& overrides, bool file_generates) {
  YAML::Node root = root_in;
  check_keys(root, "", allowed_keys(""), shown_name);

  core::JobSpec job;
  job.job_file = shown_name;
  job.overrides = overrides;
  job.platform = read_platform(require_map(root, "platform", shown_name, true), shown_name, base_dir);

  const YAML::Node workload = require_map(root, "workload", shown_name, true);
  check_keys(workload, "workload", allowed_keys("workload"), shown_name);
  const auto& importers = workloads::ImporterRegistry::builtin();
  if (has_training_section(workload)) {
    // The file names a trace and a --set made the workload generated: the --set is the mistake.
    const auto generating = std::find_if(overrides.begin(), overrides.end(), [](const std::string& o) {
      return o.rfind("workload.model", 0) == 0 || o.rfind("workload.training", 0) == 0 || o.rfind("workload.parallel", 0) == 0;
    });
    for (const std::string& key : traced_workload_keys()) {
      if (!workload[key])
        continue;
      if (!file_generates && generating != overrides.end())
        throw UserError("--set " + *generating, 0,
                        "it changes a generated workload's model or layout, but this job's workload is a trace (`" + key +
                            "` in " + shown_name + "): a trace's layout is the one it was traced with",
                        "drop this --set; for another data-parallel width of a trace use --set workload.replicate.dp=N, "
                        "for another layout run a generated job (workload: {model: ..., parallel: ...})");
      throw UserError(shown_name, line_of(workload[key]),
                      "`workload." + key + "` belongs to a traced workload, but this one is generated from `model`",
                      "keep either a trace (`trace`, `kineto`, `chakra`, ... with replicate / comm) or `model` / `training` / `parallel`");
    }
    job.training = read_training_job(workload, shown_name, base_dir);
  } else {
  if (workload["kernel_time_scale"]) {
    // A what-if on the GPU of a traced run: its kernels, copies and memsets take this factor of
    // their traced time; host time and measured collective times stay as traced.
    const YAML::Node node = workload["kernel_time_scale"];
    const double scale = number(node, "kernel_time_scale", shown_name);
    if (!std::isfinite(scale) || scale <= 0.0)
      throw UserError(shown_name, line_of(node), "`kernel_time_scale` must be a positive finite number, got '" +
                                                     scalar(node, "kernel_time_scale", shown_name) + "'",
                      "write e.g. `kernel_time_scale: 0.5` for a GPU that runs the traced kernels twice as fast");
    job.kernel_time_scale = scale;
  }
  if (workload["comm"]) {
    job.comm_measured = either(workload["comm"], "comm", "measured", "simulated", shown_name,
                               "measured: keep the traced collective durations; simulated: time them on the platform");
  }
  // The files of a run: exactly one format's key (workloads/importers/importer.hpp).
  std::vector<const workloads::Importer*> named;
  for (const workloads::Importer* importer : importers.all())
    if (workload[importer->job_key()])
      named.push_back(importer);
  if (named.empty())
    throw UserError(shown_name, line_of(workload), "`workload` names no trace and no model",
                    "write `workload: {trace: trace.pbtxt}` (or `kineto: [...]`, `chakra: [...]`, ...), or `workload: {model: {name: gpt3-1.3b}}`");
  if (named.size() > 1)
    throw UserError(shown_name, line_of(workload[named[1]->job_key()]),
                    "`workload` names both `" + named[0]->job_key() + "` and `" + named[1]->job_key() + "` files",
                    "keep one format: `" + named[0]->job_key() + ": ...` or `" + named[1]->job_key() + ": ...`");
  const workloads::Importer& importer = *named.front();
  auto values = [&](const std::string& key) {
    const YAML::Node k = workload[key];
    std::vector<std::string> out;
    if (k.IsSequence()) {
      for (const auto& item : k)
        out.push_back(scalar(item, key, shown_name));
    } else {
      out.push_back(scalar(k, key, shown_name));
    }
    return out;
  };
  workloads::WorkloadSource source{importer.name(), values(importer.job_key()), {}};
  for (std::string& f : source.files)
    f = resolve(f, base_dir);
  if (source.files.empty())
    throw UserError(shown_name, line_of(workload[importer.job_key()]), "`" + importer.job_key() + "` lists no file",
                    "write `" + importer.job_key() + ": [FILE, ...]`");
  // Each format's options (`step` for Kineto, ...); another format's option is a mistake.
  for (const workloads::Importer* other : importers.all())
    for (const workloads::ImporterOption& o : other->options()) {
      if (!workload[o.name] || source.options.count(o.name))
        continue;
      const auto& mine = importer.options();
      if (std::none_of(mine.begin(), mine.end(), [&](const workloads::ImporterOption& x) { return x.name == o.name; }))
        throw UserError(shown_name, line_of(workload[o.name]),
                        "`" + o.name + "` is an option of `" + other->job_key() + "` workloads, but this one names `" +
                            importer.job_key() + "`",
                        "drop `" + o.name + "`, or name the files with `" + other->job_key() + ": [...]`");
      source.options[o.name] = values(o.name);
      if (o.paths)
        for (std::string& f : source.options[o.name])
          f = resolve(f, base_dir);
    }
  if (workload["replicate"] && !importer.replicable())
    throw UserError(shown_name, line_of(workload["replicate"]), "`replicate` does not apply to `" + importer.job_key() + "` workloads",
                    "give every rank's files; replicate applies to traces that describe one replica");
  if (workload["replicate"]) {
    const YAML::Node rep = require_map(workload, "replicate", shown_name, false);
    check_keys(rep, "workload.replicate", allowed_keys("workload.replicate"), shown_name);
    const std::string text = rep["dp"] ? scalar(rep["dp"], "dp", shown_name) : "";
    std::uint32_t dp = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), dp);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || dp == 0)
      throw UserError(shown_name, line_of(rep["dp"] ? rep["dp"] : rep), "`replicate.dp` must be a positive integer, got '" + text + "'",
                      "write e.g. `replicate: {dp: 64}`");
    job.replicate_dp = dp;
  }
  job.source = std::move(source);
  }

  const YAML::Node comm = require_map(root, "communication", shown_name, false);
  check_keys(comm, "communication", allowed_keys("communication"), shown_name);
  if (comm["fidelity"])
    job.communication.fidelity =
        parse_fidelity(scalar(comm["fidelity"], "fidelity", shown_name), shown_name, line_of(comm["fidelity"]));
  if (comm["nccl_version"])
    job.communication.nccl_version = parse_nccl_version(scalar(comm["nccl_version"], "nccl_version", shown_name), shown_name,
                                                        line_of(comm["nccl_version"]));
  if (comm["algo"]) {
    job.communication.algo = scalar(comm["algo"], "algo", shown_name);
    job.communication.algo_origin = origin_of(comm["algo"], shown_name, overrides, "communication.algo");
  }
  if (comm["proto"]) {
    job.communication.proto = scalar(comm["proto"], "proto", shown_name);
    job.communication.proto_origin = origin_of(comm["proto"], shown_name, overrides, "communication.proto");
  }
  struct CtaBound {
    const char* key;
    std::uint32_t& count;
    std::string& origin;
  };
  for (const CtaBound& b : {CtaBound{"min_ctas", job.communication.min_ctas, job.communication.min_ctas_origin},
                            CtaBound{"max_ctas", job.communication.max_ctas, job.communication.max_ctas_origin}}) {
    if (!comm[b.key])
      continue;
    b.origin = origin_of(comm[b.key], shown_name, overrides, std::string("communication.") + b.key);
    b.count = parse_cta_count(scalar(comm[b.key], b.key, shown_name), b.origin);
  }
  apply_nccl_environment(job.communication);

  job.slowdown = read_slowdown(require_map(root, "slowdown", shown_name, false), shown_name, base_dir);

  const YAML::Node output = require_map(root, "output", shown_name, false);
  check_keys(output, "output", allowed_keys("output"), shown_name);
  if (output["dir"])
    job.out_dir = resolve(scalar(output["dir"], "dir", shown_name), base_dir);
  if (output["timeline"]) {
    job.timeline = either(output["timeline"], "timeline", "true", "false", shown_name,
                          "write `timeline: false` to skip timeline.json");
  }
  return job;
}
} // namespace

core::JobSpec load_job(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_job(read_file_text(path, "job file", "check the path; examples/default/job.yaml is a working job"), path,
                   fs::path(path).parent_path().string(), overrides);
}

} // namespace echo::cli
