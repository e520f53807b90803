#include "workloads/importers/echo_tracer_reader.hpp"

#include "base/user_error.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <queue>

namespace echo::workloads {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Past these a config log is not a run the tracer made: ranks of one job, and any other count
// (2^40 elements in a DDP bucket is 4 TiB of gradients).
constexpr std::uint64_t kMostRanks = 1u << 20;
constexpr std::uint64_t kMostCount = std::uint64_t{1} << 40;

json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in)
    throw UserError(path.string(), 0, "cannot read the file", "check the Echo tracer output folder");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number past double
    throw UserError(path.string(), 0, std::string("not JSON: ") + e.what(), "give the Echo tracer's own output files");
  }
}

// The one file of the folder whose name contains `kind` (and ends with `run`, when given: bs1_seq512
// must not pick bs1_seq512_pytorch_ddp).
fs::path find_file(const fs::path& folder, const std::string& kind, const std::string& run) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.find(kind) != std::string::npos && name.ends_with((run.empty() ? "" : "_" + run) + ".json"))
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  if (found.empty())
    throw UserError(folder.string(), 0, "no *" + kind + (run.empty() ? "" : "*" + run) + "*.json in the folder",
                    "give the folder the Echo tracer wrote its graph and ops profiles into");
  if (found.size() > 1) {
    std::string names;
    for (const auto& f : found)
      names += "\n  " + f.filename().string();
    throw UserError(folder.string(), 0, "several *" + kind + "*.json files, from different runs:" + names,
                    "name the run's config log with --config (it picks the files of that batch and sequence)");
  }
  return found.front();
}

bool is_config_log(const fs::path& p) {
  const std::string name = p.filename().string();
  return name.ends_with(".json") && (name.starts_with("config_") || name.starts_with("logs__config_"));
}

// The tracer's own output tree: output/logs/<framework>/config_<run>.json beside
// output/<framework>/pytorch_{graph,ops}_profiling/<model>/. The config logs it holds.
std::vector<fs::path> config_logs_under(const fs::path& root) {
  std::vector<fs::path> out;
  if (fs::is_directory(root / "logs"))
    for (const auto& e : fs::recursive_directory_iterator(root / "logs"))
      if (e.is_regular_file() && is_config_log(e.path()))
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Where a config log's profiles are: the folder its `*_profiling_path` names (written relative to
// where the tracer ran, "../output/PyTorch/..."), found again under the output tree the log is in;
// the log's own folder when the files were copied into one. A log that names no ops folder (the
// tracer's DDP runs write `null`) has its ops beside the graphs, in pytorch_ops_profiling.
fs::path profiles_folder(const fs::path& config, const json& c, const char* key, const char* kind) {
  auto written_path = [&](const char* k) {
    const json::json_pointer at(std::string("/pytorch_settings/") + k);
    return c.contains(at) && c.at(at).is_string() ? c.at(at).get<std::string>() : std::string();
  };
  std::string written = written_path(key);
  if (written.empty()) {
    written = written_path("graph_profiling_path");
    const auto g = written.find("graph_profiling");
    if (g != std::string::npos)
      written.replace(g, 15, "ops_profiling");
  }
  const auto at = written.find("output/");
  const bool flat = std::any_of(fs::directory_iterator(config.parent_path()), fs::directory_iterator(), [&](const auto& e) {
    return e.path().filename().string().find(kind) != std::string::npos;
  });
  if (at == std::string::npos || flat)
    return config.parent_path();
  // logs/<framework>/config_x.json: the output folder is two levels above the log's folder.
  const fs::path root = config.parent_path().parent_path().parent_path();
  const fs::path folder = root / written.substr(at + 7);
  if (!fs::is_directory(folder))
    throw UserError(config.string(), 0, "the run's profiles should be in " + written + ", but " + folder.string() + " is not there",
                    "give the whole output tree of the Echo tracer, as it wrote it");
  return folder;
}

// A count the tracer writes (GPUs, batch, sequence, bucket elements): a whole number from 0 to
// `most`, `fallback` when absent. A float, a negative number or one past `most` is the file's fault;
// read as nlohmann would, it would wrap or be undefined.
std::uint64_t read_count(const json& c, const json::json_pointer& at, std::uint64_t fallback, std::uint64_t most,
                         const fs::path& file) {
  if (!c.contains(at))
    return fallback;
  const json& v = c.at(at);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > most)
    throw UserError(file.string(), 0, "`" + at.to_string() + "` is " + v.dump() + ", not a whole number from 0 to " + std::to_string(most),
                    "give the Echo tracer's files as it wrote them");
  return v.get<std::uint64_t>();
}

// A profiled time in milliseconds: finite, not negative, under a day (a kernel or op of the
// tracer's profile; past that the nanosecond count would overflow long before it meant anything).
std::uint64_t read_ms_as_ns(const json& v, const std::string& what, const fs::path& file) {
  const double ms = v.get<double>();
  if (!std::isfinite(ms) || ms < 0 || ms > 86.4e6)
    throw UserError(file.string(), 0, what + " has time " + v.dump() + " ms, not from 0 to a day", "fix the ops profile");
  return static_cast<std::uint64_t>(std::llround(ms * 1e6));
}

trace::Category category_of(const std::string& op) {
  std::string o = op;
  std::transform(o.begin(), o.end(), o.begin(), [](unsigned char c) { return std::tolower(c); });
  auto has = [&](const char* s) { return o.find(s) != std::string::npos; };
  if (has("addmm") || has("matmul") || has("linear") || has("bmm") || has("conv") || has("mm"))
    return trace::GEMM;
  if (has("softmax") || has("attention") || has("baddbmm"))
    return trace::ATTENTION;
  if (has("norm"))
    return trace::NORMALIZATION;
  if (has("sum") || has("mean") || has("max") || has("reduce"))
    return trace::REDUCTION;
  if (has("accumulategrad") || has("adam") || has("sgd"))
    return trace::OPTIMIZER;
  if (has("copy") || has("clone") || has("contiguous") || has("cat"))
    return trace::MEMCPY;
  return trace::ELEMENTWISE;
}


// A graph node as the tracer writes it: an object whose name and op are strings, whose inputs are
// a list of node names and whose attributes are an object. Checked before anything reads it.
void check_node(const json& node, std::size_t i, const fs::path& file) {
  const auto wrong = [&](const std::string& what) {
    throw UserError(file.string(), 0, "graph node " + std::to_string(i) + " (" + (node.is_object() && node.contains("name") ? node["name"].dump() : "?") +
                                          "): " + what,
                    "give the Echo tracer's global graph as it wrote it");
  };
  if (!node.is_object())
    wrong("not an object");
  for (const char* key : {"name", "op"})
    if (node.contains(key) && !node[key].is_string())
      wrong(std::string("`") + key + "` is not a string");
  for (const char* key : {"input_nodes", "output_nodes"})
    if (node.contains(key) && (!node[key].is_array() || !std::all_of(node[key].begin(), node[key].end(), [](const json& n) { return n.is_string(); })))
      wrong(std::string("`") + key + "` is not a list of node names");
  if (node.contains("attrs") && !node["attrs"].is_object())
    wrong("`attrs` is not an object");
}

trace::Trace read_files(const std::string& folder_name, const std::string& config_path);

} // namespace

// The checks above cover what the tracer writes; a field of another type that they do not name
// is still the file's fault, and said so, never an internal error.
trace::Trace read_echo_tracer(const std::string& folder_name, const std::string& config_path) {
  try {
    return read_files(folder_name, config_path);
  } catch (const json::exception& e) {
    throw UserError(folder_name, 0, std::string("an Echo tracer file has a field of the wrong type: ") + e.what(),
                    "give the Echo tracer's files as it wrote them");
  }
}

namespace {

trace::Trace read_files(const std::string& folder_name, const std::string& config_path) {
  // What was given: a config log, the tracer's output tree, or one folder holding the files.
  fs::path folder(folder_name);
  fs::path config = config_path;
  if (fs::is_regular_file(folder) && is_config_log(folder)) {
    config = folder;
    folder = folder.parent_path();
  }
  if (!fs::is_directory(folder))
    throw UserError(folder_name, 0, "not a folder", "give the folder the Echo tracer wrote into (its `output`), or a config log of it");

  // The run: GPUs, batch and sequence (to pick its files), DDP.
  std::uint32_t gpus = 1;
  std::string run, name = "echo-tracer";
  bool ddp = false;
  if (config.empty()) {
    std::vector<fs::path> logs = config_logs_under(folder);
    for (const auto& entry : fs::directory_iterator(folder))
      if (is_config_log(entry.path()))
        logs.push_back(entry.path());
    if (logs.size() == 1)
      config = logs.front();
    else if (logs.size() > 1 && !config_logs_under(folder).empty()) {
      std::string names;
      for (std::size_t i = 0; i < logs.size() && i < 12; ++i)
        names += "\n  " + fs::relative(logs[i], folder).string();
      throw UserError(folder.string(), 0, "the tracer's output holds " + std::to_string(logs.size()) + " runs:" + names,
                      "name one: `echo-des import echo-tracer " + (folder / fs::relative(logs.front(), folder)).string() +
                          "` (or --config FILE)");
    }
  }
  fs::path graph_folder = folder, ops_folder = folder;
  if (!config.empty()) {
    const json c = read_json(config);
    if (!c.is_object())
      throw UserError(config.string(), 0, "not an Echo tracer config log (a JSON object)", "give the tracer's logs/<framework>/config_*.json");
    gpus = static_cast<std::uint32_t>(read_count(c, "/framework_settings/num_gpus"_json_pointer, 1, kMostRanks, config));
    if (gpus == 0)
      throw UserError(config.string(), 0, "`/framework_settings/num_gpus` is 0", "give the Echo tracer's config log as it wrote it");
    ddp = c.value("/pytorch_settings/ddp"_json_pointer, false);
    const auto batch = read_count(c, "/model_settings/batch_size"_json_pointer, 0, kMostCount, config);
    const auto seq = read_count(c, "/model_settings/sequence_length"_json_pointer, 0, kMostCount, config);
    run = "bs" + std::to_string(batch) + "_seq" + std::to_string(seq) + (ddp ? "_pytorch_ddp" : "");
    name = c.value("/model_settings/model"_json_pointer, std::string("model")) + "-" + run;
    graph_folder = profiles_folder(config, c, "graph_profiling_path", "global_graph_profiling");
    ops_folder = profiles_folder(config, c, "ops_profiling_path", "global_ops_profiling");
  }
  const fs::path graph_file = find_file(graph_folder, "global_graph_profiling", run);
  const fs::path ops_file = find_file(ops_folder, "global_ops_profiling", run);
  const json graph = read_json(graph_file), ops = read_json(ops_file);
  if (!graph.is_array() || !ops.is_object())
    throw UserError(graph_file.string(), 0, "not an Echo tracer graph (a list of nodes) with its ops profile (a map)",
                    "give the Echo tracer's global graph and ops profiling files");

  for (std::size_t i = 0; i < graph.size(); ++i)
    check_node(graph[i], i, graph_file);

  // Nodes in an order that respects their inputs (Kahn's algorithm; file order among the ready).
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < graph.size(); ++i)
    index[graph[i].value("name", "")] = i;
  std::vector<std::vector<std::size_t>> inputs(graph.size()), users(graph.size());
  std::vector<std::size_t> waiting(graph.size(), 0);
  for (std::size_t i = 0; i < graph.size(); ++i)
    for (const auto& in : graph[i].value("input_nodes", json::array())) {
      auto it = index.find(in.get<std::string>());
      if (it == index.end())
        throw UserError(graph_file.string(), 0,
                        "node '" + graph[i].value("name", "") + "' takes input from '" + in.get<std::string>() +
                            "', which is not in the graph",
                        "give a complete global graph");
      inputs[i].push_back(it->second);
      users[it->second].push_back(i);
      ++waiting[i];
    }
  std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
  for (std::size_t i = 0; i < graph.size(); ++i)
    if (waiting[i] == 0)
      ready.push(i);
  std::vector<std::size_t> order;
  while (!ready.empty()) {
    const std::size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (std::size_t u : users[i])
      if (--waiting[u] == 0)
        ready.push(u);
  }
  if (order.size() != graph.size())
    throw UserError(graph_file.string(), 0, "the graph has a cycle", "give the Echo tracer's acyclic global graph");

  trace::Trace t;
  t.set_name(name);
  trace::RankTemplate* tmpl = t.add_templates();
  tmpl->set_name("rank");
  tmpl->add_streams("compute");
  tmpl->add_streams("ddp-comm");
  // Compute task id per node; a ddp_pre node stands for the compute tasks it gathers.
  std::vector<std::vector<std::uint64_t>> feeds(graph.size());
  std::uint64_t next_id = 1;
  for (std::size_t i : order) {
    const json& node = graph[i];
    const std::string node_name = node.value("name", ""), op = node.value("op", "");
    if (op == "ddp_pre") {
      for (std::size_t in : inputs[i])
        feeds[i].insert(feeds[i].end(), feeds[in].begin(), feeds[in].end());
      continue;
    }
    trace::Task* task = tmpl->add_tasks();
    task->set_id(next_id);
    task->set_name(node_name);
    if (op == "ddp_Allreduce") {
      task->set_stream(1);
      task->set_category(trace::COMMUNICATION);
      for (std::size_t in : inputs[i])
        for (std::uint64_t id : feeds[in])
          task->add_deps(id);
      auto* c = task->mutable_collective();
      c->set_op(trace::ALL_REDUCE);
      c->set_comm("dp");
      c->set_dtype(trace::FLOAT32);  // DDP reduces float32 gradients in buckets of `bucket_size` elements
      c->set_bytes(read_count(node, "/attrs/bucket_size"_json_pointer, 0, kMostCount, graph_file) * 4);
    } else {
      task->set_stream(0);
      task->set_category(category_of(op));
      task->mutable_compute()->set_duration_ns(
          ops.contains(node_name) ? read_ms_as_ns(ops.at(node_name), "node '" + node_name + "'", ops_file) : 0);
      feeds[i] = {next_id};
    }
    ++next_id;
  }
  // Profiled ops that are not graph nodes: autograd's AccumulateGrad (it adds each parameter's
  // gradient into .grad, on the GPU, during backward) and whatever else the profile holds. They
  // ran on the GPU, so they are replayed — after the graph, where the rest of backward is done —
  // and said.
  std::map<std::string, std::pair<std::uint64_t, double>> outside;  // kind -> count, ms
  for (const auto& [op_name, value] : ops.items()) {
    if (index.count(op_name) || op_name == "optimizer_step" || !value.is_number())
      continue;
    const std::uint64_t ns = read_ms_as_ns(value, "op '" + op_name + "'", ops_file);
    const double ms = value.get<double>();
    trace::Task* task = tmpl->add_tasks();
    task->set_id(next_id++);
    task->set_name(op_name);
    task->set_stream(0);
    task->set_category(op_name.starts_with("AccumulateGrad") ? trace::ELEMENTWISE : category_of(op_name));
    task->mutable_compute()->set_duration_ns(ns);
    std::string kind = op_name;
    while (!kind.empty() && (std::isdigit(static_cast<unsigned char>(kind.back())) != 0 || kind.back() == '_'))
      kind.pop_back();
    auto& [count, total] = outside[kind];
    ++count;
    total += ms;
  }
  for (const auto& [kind, figures] : outside) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f", figures.second);
    t.add_import_notes(ops_file.filename().string() + ": " + std::to_string(figures.first) + " profiled " + kind +
                       " ops (" + ms + " ms) are not graph nodes; replayed after the graph, before the optimizer step");
  }
  // The optimizer step is profiled but not in the graph: it runs once every bucket is reduced.
  if (ops.contains("optimizer_step")) {
    trace::Task* step = tmpl->add_tasks();
    step->set_id(next_id++);
    step->set_name("optimizer_step");
    step->set_stream(0);
    step->set_category(trace::OPTIMIZER);
    for (const trace::Task& task : tmpl->tasks())
      if (task.has_collective())
        step->add_deps(task.id());
    step->mutable_compute()->set_duration_ns(read_ms_as_ns(ops.at("optimizer_step"), "`optimizer_step`", ops_file));
  }
  trace::Communicator* dp = t.add_communicators();
  dp->set_name("dp.0");
  dp->set_slot("dp");
  for (std::uint32_t r = 0; r < gpus; ++r)
    dp->add_ranks(r);
  trace::RankRange* ranks = t.add_ranks();
  ranks->set_first(0);
  ranks->set_count(gpus);
  ranks->set_template_name("rank");
  return t;
}

} // namespace

} // namespace echo::workloads
