// Reading and checking native traces: every mistake is a UserError naming file, line and fix.
#include "support/approx.hpp"
#include "workloads/importers/json_array_stream.hpp"
#include "base/user_error.hpp"
#include "support/temp_files.hpp"
#include "workloads/model_presets.hpp"
#include "support/user_errors.hpp"
#include "workloads/dependency_cycle.hpp"
#include "workloads/importers/echo_tracer_reader.hpp"
#include "workloads/kernel_category.hpp"
#include "workloads/replicate.hpp"
#include "workloads/trace_reader.hpp"

#include <google/protobuf/text_format.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <map>

using namespace echo;

namespace {

// A valid two-rank trace; tests break one thing at a time.
const std::string kGood = R"(name: "good"
templates {
  name: "t"
  streams: "compute"
  streams: "comm"
  tasks { id: 1 stream: 0 name: "a" compute { duration_ns: 10 } }
  tasks { id: 2 stream: 1 name: "ar" deps: 1 collective { op: ALL_REDUCE comm: "dp" bytes: 64 } }
  tasks { id: 3 stream: 0 name: "b" deps: 2 compute { duration_ns: 5 } }
}
communicators { name: "dp.0" slot: "dp" ranks: [0, 1] }
ranks { first: 0 count: 2 template_name: "t" }
)";

std::string error_of(const std::string& trace_text, const std::string& name = "trace.pbtxt") {
  test::TempDir dir;
  const std::string path = dir.file(name, trace_text);
  try {
    workloads::read_trace(path);
  } catch (const UserError& e) {
    return std::string(e.what()).replace(0, path.size(), name);
  }
  return "no error";
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

} // namespace

TEST_CASE("a valid trace becomes shared programs and indexed communicators") {
  test::TempDir dir;
  const auto w = workloads::read_trace(dir.file("trace.pbtxt", kGood));
  CHECK(w.rank_count() == 2);
  CHECK(w.programs.size() == 1);  // flyweight: both ranks share one program
  CHECK(w.total_tasks() == 6);
  const auto& p = w.program(1);
  CHECK(p.stream_order[0].size() == 2);
  CHECK(p.tasks[0].observed);        // the comm stream waits for it
  CHECK_FALSE(p.tasks[2].observed);
  CHECK(w.communicator(1, 0) == 0);
  CHECK(w.member_index(1, 0) == 1);
}

TEST_CASE("binary and text traces read the same") {
  test::TempDir dir;
  const auto text = workloads::read_trace(dir.file("t.pbtxt", kGood));
  trace::Trace t;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(kGood, &t));
  const auto binary = workloads::read_trace(dir.file("t.pb", t.SerializeAsString()));
  CHECK(binary.total_tasks() == text.total_tasks());
  CHECK(binary.programs[0].tasks[1].bytes == 64);
}

TEST_CASE("missing or unreadable trace file") {
  CHECK_THROWS_WITH_AS(workloads::read_trace("/nonexistent/trace.pbtxt"),
                       doctest::Contains("/nonexistent/trace.pbtxt: cannot read the trace file"), UserError);
}

TEST_CASE("malformed text trace names the line") {
  const std::string e = error_of(replace(kGood, "tasks { id: 3", "tasks { idd: 3"));
  CHECK(e.find("trace.pbtxt:8: malformed text-format trace") == 0);
  CHECK(e.find("idd") != std::string::npos);
}

TEST_CASE("malformed binary trace") {
  CHECK(error_of("\xff\xff\xff garbage", "trace.pb").find("not a valid binary echo-des trace") != std::string::npos);
}

TEST_CASE("a dependency on a task that does not exist") {
  const std::string e = error_of(replace(kGood, "deps: 2 compute", "deps: 9 compute"));
  CHECK(e.find("trace.pbtxt:8:") == 0);
  CHECK(e.find("task 3 ('b') depends on task 9, which does not exist") != std::string::npos);
}

TEST_CASE("a dependency cycle is reported with its tasks") {
  // a runs before b on the compute stream, and a now also depends on b.
  const std::string e = error_of(replace(kGood, R"(name: "a" compute)", R"(name: "a" deps: 3 compute)"));
  CHECK(e.find("dependency cycle: ") != std::string::npos);
  CHECK(e.find("task 1 ('a')") != std::string::npos);
  CHECK(e.find("task 3 ('b')") != std::string::npos);
  CHECK(e.find("how to fix: ") != std::string::npos);
}

TEST_CASE("find_cycle: acyclic, self loop, longer cycle") {
  CHECK(workloads::find_cycle(3, {{0, 1}, {1, 2}}).empty());
  CHECK(workloads::find_cycle(2, {{1, 1}}) == std::vector<std::uint32_t>{1});
  CHECK(workloads::find_cycle(4, {{0, 1}, {1, 2}, {2, 3}, {3, 1}}) == std::vector<std::uint32_t>{1, 2, 3});
}

TEST_CASE("a task on a stream that does not exist") {
  const std::string e = error_of(replace(kGood, "tasks { id: 3 stream: 0", "tasks { id: 3 stream: 4"));
  CHECK(e.find("runs on stream 4 but the template has 2 stream(s)") != std::string::npos);
}

TEST_CASE("duplicate task ids") {
  CHECK(error_of(replace(kGood, "tasks { id: 3", "tasks { id: 1")).find("two tasks have the id 1") != std::string::npos);
}

TEST_CASE("ranks not covered, or mapped twice, or to an unknown template") {
  CHECK(error_of(replace(kGood, "ranks { first: 0 count: 2", "ranks { first: 1 count: 1"))
            .find("ranks 0 to 0 are mapped to no template") != std::string::npos);
  CHECK(error_of(kGood + "ranks { first: 1 count: 1 template_name: \"t\" }\n").find("rank 1 is mapped to a template twice") !=
        std::string::npos);
  CHECK(error_of(replace(kGood, "template_name: \"t\"", "template_name: \"x\"")).find("template 'x', which the trace does not define") !=
        std::string::npos);
}

TEST_CASE("communicator problems") {
  CHECK(error_of(replace(kGood, "ranks: [0, 1]", "ranks: [0, 5]")).find("lists rank 5, but the trace has only 2 ranks") !=
        std::string::npos);
  CHECK(error_of(replace(kGood, "ranks: [0, 1]", "ranks: [0]")).find("rank 1 (template 't') uses communicator slot 'dp'") !=
        std::string::npos);
  CHECK(error_of(kGood + "communicators { name: \"dp.1\" slot: \"dp\" ranks: [1] }\n")
            .find("rank 1 is in two 'dp' communicators") != std::string::npos);
}

TEST_CASE("send/recv peers must be other members") {
  const std::string p2p = R"(templates { name: "t" streams: "s"
  tasks { id: 1 stream: 0 name: "x" send { comm: "world" peer: PEER bytes: 8 } } }
ranks { first: 0 count: 1 template_name: "t" }
ranks { first: 1 count: 1 template_name: "u" }
templates { name: "u" streams: "s" tasks { id: 1 stream: 0 name: "y" recv { comm: "world" peer: 0 bytes: 8 } } }
)";
  CHECK(error_of(replace(p2p, "PEER", "7")).find("names member 7 of communicator 'world', which has 2 members") !=
        std::string::npos);
  CHECK(error_of(replace(p2p, "PEER", "0")).find("sends to or receives from itself") != std::string::npos);
  test::TempDir dir;
  CHECK(workloads::read_trace(dir.file("ok.pbtxt", replace(p2p, "PEER", "1"))).communicators.size() == 1);  // implicit world
}

TEST_CASE("model presets: every preset's dimensions give the parameter count it is named for") {
  for (const auto& m : echo::workloads::model_presets()) {
    CAPTURE(m.name);
    CHECK(echo::workloads::parameter_count(m) / 1e9 == test::Approx(m.nominal_params_b).epsilon(0.05));
    CHECK(m.hidden % m.heads == 0);
    CHECK(m.heads % m.kv_heads == 0);
  }
  REQUIRE(echo::workloads::model_preset("llama3-70b").has_value());
  CHECK(echo::workloads::model_preset("llama3-70b")->kv_heads == 8);
  CHECK_FALSE(echo::workloads::model_preset("llama3-71b").has_value());
}

namespace {

// A tiny Echo tracer folder: x -> linear (addmm) -> two gradient accumulations -> one DDP bucket.
void write_echo_folder(const echo::test::TempDir& dir, const std::string& run, bool cycle = false) {
  dir.file("logs__config_tiny_" + run + ".json",
           R"({"framework_settings": {"num_gpus": 4}, "pytorch_settings": {"ddp": true},
               "model_settings": {"model": "tiny", "batch_size": 2, "sequence_length": 8}})");
  const std::string x_inputs = cycle ? R"(["grad_w"])" : "[]";
  dir.file("pytorch_graph_profiling__tiny__global_graph_profiling_" + run + ".json", R"([
    {"name": "x", "op": "placeholder", "input_nodes": )" + x_inputs + R"(, "output_nodes": ["linear"]},
    {"name": "linear", "op": "torch.addmm", "input_nodes": ["x"], "output_nodes": ["grad_w", "grad_b"]},
    {"name": "grad_w", "op": "AccumulateGrad", "input_nodes": ["linear"], "output_nodes": ["ddp_pre_0"]},
    {"name": "grad_b", "op": "AccumulateGrad", "input_nodes": ["linear"], "output_nodes": ["ddp_pre_0"]},
    {"name": "ddp_pre_0", "op": "ddp_pre", "input_nodes": ["grad_w", "grad_b"], "output_nodes": ["ddp_Allreduce_0"],
     "attrs": {"bucket_size": 1000}},
    {"name": "ddp_Allreduce_0", "op": "ddp_Allreduce", "input_nodes": ["ddp_pre_0"], "output_nodes": [],
     "attrs": {"bucket_size": 1000}}])");
  dir.file("pytorch_ops_profiling__tiny__global_ops_profiling_" + run + ".json",
           R"({"x": 0.001, "linear": 0.5, "grad_w": 0.01, "grad_b": 0.002, "optimizer_step": 0.25})");
}

} // namespace

TEST_CASE("Echo tracer import: kernels with profiled times, DDP buckets as AllReduces after their gradients") {
  echo::test::TempDir dir;
  write_echo_folder(dir, "bs2_seq8_pytorch_ddp");
  const trace::Trace t = workloads::read_echo_tracer(dir / "");
  CHECK(t.name() == "tiny-bs2_seq8_pytorch_ddp");
  REQUIRE(t.templates_size() == 1);
  const auto& tasks = t.templates(0).tasks();
  REQUIRE(tasks.size() == 6);  // x, linear, grad_w, grad_b, the all-reduce, the optimizer step
  CHECK(tasks[1].name() == "linear");
  CHECK(tasks[1].category() == trace::GEMM);
  CHECK(tasks[1].compute().duration_ns() == 500000);
  const auto& ar = tasks[4];
  CHECK(ar.collective().op() == trace::ALL_REDUCE);
  CHECK(ar.collective().bytes() == 4000);  // 1000 float32 gradients
  CHECK(ar.stream() == 1);
  CHECK(std::vector<std::uint64_t>(ar.deps().begin(), ar.deps().end()) == std::vector<std::uint64_t>{3, 4});
  CHECK(tasks[5].name() == "optimizer_step");
  CHECK(std::vector<std::uint64_t>(tasks[5].deps().begin(), tasks[5].deps().end()) == std::vector<std::uint64_t>{5});
  CHECK(t.ranks(0).count() == 4);
  // The trace runs the checks every trace runs.
  CHECK(workloads::build_workload(t, "tiny").rank_count() == 4);
}

TEST_CASE("Echo tracer import: mistakes name the file and what to do") {
  echo::test::TempDir two;
  write_echo_folder(two, "bs2_seq8_pytorch_ddp");
  two.file("pytorch_graph_profiling__tiny__global_graph_profiling_bs16_seq8.json", "[]");
  two.file("logs__config_other.json", "{}");  // two config logs: the run cannot be told
  const std::string several = test::user_error_of([&] { workloads::read_echo_tracer(two / ""); });
  CHECK(several.find("several *global_graph_profiling*.json files") != std::string::npos);
  CHECK(several.find("--config") != std::string::npos);
  // Naming the run's config picks its files.
  CHECK(workloads::read_echo_tracer(two / "", two / "logs__config_tiny_bs2_seq8_pytorch_ddp.json").templates(0).tasks_size() == 6);

  echo::test::TempDir cyclic;
  write_echo_folder(cyclic, "bs2_seq8_pytorch_ddp", true);
  CHECK(test::user_error_of([&] { workloads::read_echo_tracer(cyclic / ""); }).find("the graph has a cycle") != std::string::npos);
  CHECK(test::user_error_of([&] { workloads::read_echo_tracer("/nonexistent/echo"); }).find("not a folder") != std::string::npos);

  // Fuzz finding: fields of the wrong type were an internal error. Each is named.
  const auto damaged = [](const std::string& node, const std::string& config = "", const std::string& ops = R"({"x": 0.5})") {
    echo::test::TempDir d;
    d.file("logs__config_tiny_bs2_seq8.json",
           config.empty() ? R"({"model_settings": {"model": "tiny", "batch_size": 2, "sequence_length": 8}})" : config);
    d.file("pytorch_graph_profiling__tiny__global_graph_profiling_bs2_seq8.json", "[" + node + "]");
    d.file("pytorch_ops_profiling__tiny__global_ops_profiling_bs2_seq8.json", ops);
    return test::user_error_of([&] { workloads::read_echo_tracer(d / ""); });
  };
  CHECK(damaged(R"({"name": "linear", "op": "torch.addmm", "input_nodes": {"bucket_size": 1000}})")
            .find("graph node 0 (\"linear\"): `input_nodes` is not a list of node names") != std::string::npos);
  CHECK(damaged(R"({"name": 7, "op": "x"})").find("graph node 0 (7): `name` is not a string") != std::string::npos);
  CHECK(damaged("3").find("graph node 0 (?): not an object") != std::string::npos);
  CHECK(damaged(R"({"name": "x", "size": 8e99999})").find("not JSON") != std::string::npos);  // past a double
  CHECK(damaged(R"({"name": "x", "attrs": [1]})").find("`attrs` is not an object") != std::string::npos);
  CHECK(damaged(R"({"name": "x", "op": "placeholder"})",
                R"({"model_settings": {"model": 5, "batch_size": 2, "sequence_length": 8}})")
            .find("an Echo tracer file has a field of the wrong type") != std::string::npos);
  // Fuzz finding (CI, UBSan): a count written as a float past the integers was converted as is.
  // Counts are whole numbers in range, times finite and under a day; each is named.
  const std::string placeholder = R"({"name": "x", "op": "placeholder"})";
  CHECK(damaged(placeholder, R"({"framework_settings": {"num_gpus": 1e300}, "model_settings": {"batch_size": 2, "sequence_length": 8}})")
            .find("`/framework_settings/num_gpus` is 1e+300, not a whole number from 0 to 1048576") != std::string::npos);
  CHECK(damaged(placeholder, R"({"framework_settings": {"num_gpus": 0}, "model_settings": {"batch_size": 2, "sequence_length": 8}})")
            .find("`/framework_settings/num_gpus` is 0") != std::string::npos);
  CHECK(damaged(placeholder, R"({"model_settings": {"batch_size": -2, "sequence_length": 8}})")
            .find("`/model_settings/batch_size` is -2, not a whole number") != std::string::npos);
  CHECK(damaged(R"({"name": "ar", "op": "ddp_Allreduce", "attrs": {"bucket_size": 2.5}})")
            .find("`/attrs/bucket_size` is 2.5, not a whole number") != std::string::npos);
  CHECK(damaged(placeholder, "", R"({"x": 1e300})").find("node 'x' has time 1e+300 ms, not from 0 to a day") != std::string::npos);
  CHECK(damaged(placeholder, "", R"({"x": -0.5})").find("node 'x' has time -0.5 ms") != std::string::npos);
  CHECK(damaged(placeholder, "", R"({"x": 0.5, "AccumulateGrad_1": -1})").find("op 'AccumulateGrad_1' has time -1 ms") != std::string::npos);
  CHECK(damaged(placeholder, "", R"({"x": 0.5, "optimizer_step": 1e99})").find("`optimizer_step` has time 1e+99 ms") != std::string::npos);
}

TEST_CASE("Echo tracer import of the tracer's own output tree, with AccumulateGrad ops outside the graph") {
  // As the tracer publishes it: logs/<framework>/config_<run>.json naming
  // ../output/<framework>/pytorch_{graph,ops}_profiling/<model>/, its ops profile holding
  // AccumulateGrad entries that are no graph node.
  echo::test::TempDir dir;
  dir.file("output/logs/PyTorch/config_org_tiny_bs2_seq8.json",
           R"({"framework_settings": {"num_gpus": 1}, "pytorch_settings": {"ddp": false,
               "ops_profiling_path": "../output/PyTorch/pytorch_ops_profiling/org/tiny",
               "graph_profiling_path": "../output/PyTorch/pytorch_graph_profiling/org/tiny"},
               "model_settings": {"model": "org/tiny", "batch_size": 2, "sequence_length": 8}})");
  dir.file("output/logs/PyTorch/config_org_tiny_bs4_seq8.json", R"({"model_settings": {"model": "org/tiny", "batch_size": 4}})");
  dir.file("output/PyTorch/pytorch_graph_profiling/org/tiny/global_graph_profiling_bs2_seq8.json", R"([
    {"name": "x", "op": "placeholder", "input_nodes": [], "output_nodes": ["linear"]},
    {"name": "linear", "op": "torch.addmm", "input_nodes": ["x"], "output_nodes": []}])");
  dir.file("output/PyTorch/pytorch_ops_profiling/org/tiny/global_ops_profiling_bs2_seq8.json",
           R"({"x": 0.001, "linear": 0.5, "AccumulateGrad_0": 0.02, "AccumulateGrad_1": 0.03, "optimizer_step": 0.25})");
  // Two runs in the tree: which one is for the user to say.
  const std::string several = test::user_error_of([&] { workloads::read_echo_tracer(dir / "output"); });
  CHECK(several.find("the tracer's output holds 2 runs") != std::string::npos);
  CHECK(several.find("logs/PyTorch/config_org_tiny_bs2_seq8.json") != std::string::npos);
  const trace::Trace t = workloads::read_echo_tracer(dir / "output/logs/PyTorch/config_org_tiny_bs2_seq8.json");
  CHECK(t.name() == "org/tiny-bs2_seq8");
  std::uint64_t total_ns = 0;
  for (const auto& task : t.templates(0).tasks())
    total_ns += task.compute().duration_ns();
  CHECK(total_ns == 801000);  // every profiled op: x, linear, both AccumulateGrad, the optimizer step
  REQUIRE(t.import_notes_size() == 1);
  CHECK(t.import_notes(0).find("2 profiled AccumulateGrad ops (0.050 ms) are not graph nodes") != std::string::npos);
  // The same through --config, and a run whose profiles are not in the tree is named.
  CHECK(workloads::read_echo_tracer(dir / "output", dir / "output/logs/PyTorch/config_org_tiny_bs2_seq8.json").templates(0).tasks_size() == 5);
  dir.file("output/logs/PyTorch/config_org_gone_bs2_seq8.json",
           R"({"pytorch_settings": {"graph_profiling_path": "../output/PyTorch/pytorch_graph_profiling/org/gone"},
               "model_settings": {"model": "org/gone", "batch_size": 2, "sequence_length": 8}})");
  CHECK(test::user_error_of([&] { workloads::read_echo_tracer(dir / "output/logs/PyTorch/config_org_gone_bs2_seq8.json"); })
            .find("is not there") != std::string::npos);
}

TEST_CASE("Echo tracer import of the published GPT-2 run") {
  const std::string folder = ECHO_SOURCE_DIR "/../shared/data/echo-tracer";
  if (!std::filesystem::exists(folder)) {
    MESSAGE("../shared/data/echo-tracer is absent: skipping");
    return;
  }
  const trace::Trace t = workloads::read_echo_tracer(folder);
  CHECK(t.ranks(0).count() == 2);
  std::uint64_t compute_ns = 0, buckets = 0;
  for (const auto& task : t.templates(0).tasks()) {
    compute_ns += task.has_compute() ? task.compute().duration_ns() : 0;
    buckets += task.has_collective() ? 1 : 0;
  }
  CHECK(buckets == 25);
  CHECK(static_cast<double>(compute_ns) * 1e-6 == test::Approx(43.99).epsilon(0.001));  // the ops profile's sum
}

TEST_CASE("ex-situ replication: one replica of tp x pp grows to any data-parallel width") {
  // Two ranks of one tensor-parallel group, each in its own dp communicator (one replica).
  trace::Trace t;
  auto* tmpl = t.add_templates();
  tmpl->set_name("t");
  tmpl->add_streams("s");
  auto* task = tmpl->add_tasks();
  task->set_id(1);
  task->set_name("ar");
  task->mutable_collective()->set_op(trace::ALL_REDUCE);
  task->mutable_collective()->set_comm("dp");
  task->mutable_collective()->set_bytes(1000);
  auto* range = t.add_ranks();
  range->set_first(0);
  range->set_count(2);
  range->set_template_name("t");
  auto add_comm = [&](const char* name, const char* slot, std::vector<std::uint32_t> ranks) {
    auto* c = t.add_communicators();
    c->set_name(name);
    c->set_slot(slot);
    for (auto r : ranks)
      c->add_ranks(r);
  };
  add_comm("tp.0", "tp", {0, 1});
  add_comm("dp.0", "dp", {0});
  add_comm("dp.1", "dp", {1});
  const trace::Trace grown = workloads::replicate_dp(t, 3, "t");
  const workloads::Workload w = workloads::build_workload(grown, "t");
  CHECK(w.rank_count() == 6);
  CHECK(w.programs.size() == 1);  // one shared program, not six
  std::map<std::string, std::vector<std::uint32_t>> comms;
  for (const auto& c : w.communicators)
    comms[c.name] = c.ranks;
  CHECK(comms["dp.0"] == std::vector<std::uint32_t>{0, 2, 4});
  CHECK(comms["dp.1"] == std::vector<std::uint32_t>{1, 3, 5});
  CHECK(comms["tp.0"] == std::vector<std::uint32_t>{0, 1});
  CHECK(comms["tp.0@2"] == std::vector<std::uint32_t>{4, 5});

  // A tp group that spans replicas cannot be repeated.
  add_comm("tp.x", "tp", {0, 7});
  CHECK(test::user_error_of([&] { workloads::replicate_dp(t, 3, "t"); }).find("'tp.x' holds rank 7") != std::string::npos);
}

TEST_CASE("stream_json_array: elements in batches, strings with brackets, the rest of the object, and cut text") {
  const std::string json = R"({"a": {"k": "[not]"}, "traceEvents": [{"name": "x\"}]{", "args": {"v": [1, {"w": 2}]}}, )"
                           R"({"name": "y"},{"name":"z"}], "distributedInfo": {"rank": 3}})";
  auto run = [&](std::size_t chunk, std::size_t batch) {
    std::size_t at = 0;
    std::vector<std::string> names;
    std::size_t batches = 0;
    const auto r = echo::workloads::stream_json_array(
        [&](char* buf, std::size_t n) {
          const std::size_t take = std::min({n, chunk, json.size() - at});
          std::copy_n(json.data() + at, take, buf);
          at += take;
          return take;
        },
        "traceEvents", batch,
        [&](const simdjson::padded_string& b) {
          ++batches;
          simdjson::ondemand::parser parser;
          auto doc = parser.iterate(b);
          for (auto e : doc.get_array())
            names.emplace_back(std::string_view(e["name"].get_string().value()));
        });
    CHECK(r.found);
    CHECK(r.bytes == json.size());
    CHECK(r.rest.find("\"distributedInfo\": {\"rank\": 3}") != std::string::npos);
    CHECK(r.rest.find("\"traceEvents\": []") != std::string::npos);
    CHECK(names == std::vector<std::string>{"x\"}]{", "y", "z"});
    return batches;
  };
  CHECK(run(1, 1) == 3);        // a byte at a time, a batch per element
  CHECK(run(1 << 20, 1 << 20) == 1);
  auto cut = [&](const std::string& text) {
    std::size_t at = 0;
    try {
      echo::workloads::stream_json_array(
          [&](char* buf, std::size_t n) {
            const std::size_t take = std::min(n, text.size() - at);
            std::copy_n(text.data() + at, take, buf);
            at += take;
            return take;
          },
          "traceEvents", 64, [](const simdjson::padded_string&) {});
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(cut(json.substr(0, 40)).find("cut short") != std::string::npos);
  CHECK(cut("").find("no JSON object") != std::string::npos);
  CHECK(cut("{\"a\": 1}}").find("unbalanced") != std::string::npos);
}

TEST_CASE("kernels of communication libraries are communication, and others keep their kind") {
  for (const char* name : {"void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(int4*)", "void dpsk::ep::internode::dispatch<false, 8>",
                           "userbuffers_fp16_sum_inplace_gpu_rr_rs", "nvshmemi_transfer_rma_nbi_kernel",
                           "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>", "multimem_all_reduce_kernel",
                           "void allreduce_fusion_kernel_oneshot_lamport<__nv_bfloat16>",
                           "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)"}) {
    CAPTURE(name);
    CHECK(workloads::is_communication_kernel(name));
    CHECK(workloads::kernel_category(name) == trace::COMMUNICATION);
  }
  CHECK(workloads::kernel_category("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn") == trace::GEMM);
  CHECK(workloads::kernel_category("void at::native::reduce_kernel<512, 1>") == trace::REDUCTION);
  CHECK(workloads::kernel_category("flash_fwd_kernel") == trace::ATTENTION);
  CHECK_FALSE(workloads::is_communication_kernel("void at::native::vectorized_elementwise_kernel<4>"));
}
