// Kineto traces as PyTorch wrote them over the years: the 1.8 / 1.9 schema, traces without
// ProfilerStep, PyTorch <= 2.1 traces whose NCCL kernels carry no process-group fields, unknown
// element types — each a hand-made fixture of that variant.
#include "support/cli_json.hpp"
#include "support/cli_runner.hpp"
#include "support/kineto_events.hpp"
#include "support/temp_files.hpp"

#include "workloads/trace_reader.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

using echo::test::run_cli;
using echo::test::TempDir;
using namespace echo;
namespace k = echo::test::kineto;

namespace {

struct Imported {
  int code = 0;
  std::string out, err;
  trace::Trace trace;
};

Imported import(const TempDir& dir, const std::vector<std::string>& files) {
  std::string args;
  for (const std::string& f : files)
    args += " " + f;
  const auto r = run_cli("import kineto" + args + " -o " + (dir / "t.pbtxt"));
  Imported out{r.code, r.out, r.err, {}};
  if (r.code == 0)
    out.trace = workloads::read_trace_message(dir / "t.pbtxt");
  return out;
}

nlohmann::json run_json(const TempDir& dir, const std::string& workload, const std::string& name = "job.yaml") {
  return echo::test::run_cli_json("run " + dir.file(name, "platform: {preset: dgx-a100, nodes: 1}\nworkload: " + workload + "\n") +
                                  " --json -q");
}

const trace::Task* find_task(const trace::RankTemplate& t, const std::string& prefix) {
  for (const auto& task : t.tasks())
    if (task.name().rfind(prefix, 0) == 0)
      return &task;
  return nullptr;
}

bool waits_on(const trace::Task& task, const trace::Task& on) {
  return std::find(task.deps().begin(), task.deps().end(), on.id()) != task.deps().end();
}

// One data-parallel step as PyTorch 2.1 recorded it: a GEMM, then the gradient AllReduce inside its
// `nccl:all_reduce` annotation (4 Mi floats), on NCCL stream 13 — no process-group fields.
std::string ddp_rank(int rank, int world) {
  return k::trace({k::step(3, 0, 1000), k::call("cudaLaunchKernel", 10, 5, 1),
                   k::gpu("ampere_sgemm_128x64_nn", 10, 100, 1, 7),
                   k::annotation("nccl:all_reduce", 125, 15, "[[1048576]]", R"(["float"])"),
                   k::call("cudaLaunchKernel", 130, 5, 2),
                   k::gpu("ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 130, 100, 2, 13)},
                  R"({"backend": "nccl", "rank": )" + std::to_string(rank) + R"(, "world_size": )" + std::to_string(world) + "}");
}

} // namespace

TEST_CASE("the PyTorch 1.9 schema: capitalised categories, string thread ids, ProfilerStep as an Operator") {
  TempDir dir;
  const std::string t = k::trace({k::step(5, 0, 500, "Operator", "\"100\""), k::step(6, 500, 600, "Operator", "\"100\""),
                                  k::call("cudaLaunchKernel", 10, 5, 1, "Runtime", "\"100\""),
                                  k::gpu("volta_sgemm_128x64_nn", 20, 100, 1, 7, "", "Kernel"),
                                  k::call("cudaLaunchKernel", 510, 5, 2, "Runtime", "\"100\""),
                                  k::gpu("volta_sgemm_128x64_nn", 520, 100, 2, 7, "", "Kernel"),
                                  k::call("cudaMemsetAsync", 530, 5, 3, "Runtime", "\"100\""),
                                  k::gpu("Memset (Device)", 620, 1, 3, 7, "", "Memset")});
  const Imported i = import(dir, {dir.file("worker0.pt.trace.json", t)});
  INFO(i.err);
  REQUIRE(i.code == 0);
  // The first profiled step is not the default: what it inherited from the step before is unknown.
  CHECK(i.out.find("imported ProfilerStep#6") != std::string::npos);
  CHECK(i.trace.measured_iteration_ns() == 600000);
  const trace::RankTemplate& r = i.trace.templates(0);
  CHECK(std::count_if(r.tasks().begin(), r.tasks().end(), [](const trace::Task& x) { return x.has_compute() && x.category() != trace::HOST; }) == 2);
  const auto j = run_json(dir, "{kineto: [worker0.pt.trace.json], comm: measured}");
  CHECK(j["iteration_time_ns"] == 600000);  // the step's host thread ends it
}

TEST_CASE("a trace without ProfilerStep replays its whole window, and says so") {
  TempDir dir;
  const std::string t = k::trace({k::call("cudaLaunchKernel", 1000, 5, 1), k::gpu("my_kernel", 1010, 300, 1, 7),
                                  k::call("cudaDeviceSynchronize", 1020, 295, 2)});
  const Imported i = import(dir, {dir.file("nostep.json", t)});
  INFO(i.err);
  REQUIRE(i.code == 0);
  CHECK(i.out.find("note: nostep.json: the trace has no ProfilerStep annotation; its whole window (0.315 ms) is replayed") !=
        std::string::npos);
  CHECK(i.trace.measured_iteration_ns() == 315000);
  // The device synchronize is a wait on the kernel (no cuda_sync events to say so).
  const trace::RankTemplate& r = i.trace.templates(0);
  const trace::Task* wait = find_task(r, "host synchronize");
  REQUIRE(wait != nullptr);
  CHECK(waits_on(*wait, *find_task(r, "my_kernel")));
  const auto j = run_json(dir, "{kineto: [nostep.json]}");
  // 1000 .. 1315 us as traced; the replay starts the kernel with its launch call (10 us earlier:
  // launch latency is not modelled), and without a step no thread is known to run on after the sync.
  CHECK(j["iteration_time_ns"] == 300000);
  CHECK(j["import_notes"].size() >= 1);
  // Asking for a step the trace cannot have is the user's error.
  const auto bad = run_cli("import kineto " + (dir / "nostep.json") + " --step 3 -o " + (dir / "o.pb"));
  CHECK(bad.code == 2);
  CHECK(bad.err.find("it has no ProfilerStep at all") != std::string::npos);
}

TEST_CASE("the default step is the median one, the first aside, and the reference is its duration") {
  TempDir dir;
  std::vector<std::string> events;
  const double durations[] = {900, 400, 300, 500, 700};  // the first (a warm-up) is not a candidate
  double at = 0;
  for (int s = 0; s < 5; ++s) {
    events.push_back(k::step(s, at, durations[s]));
    events.push_back(k::call("cudaLaunchKernel", at + 10, 5, s + 1));
    events.push_back(k::gpu("kernel", at + 20, 50, s + 1, 7));
    at += durations[s];
  }
  const Imported i = import(dir, {dir.file("steps.json", k::trace(events))});
  INFO(i.err);
  REQUIRE(i.code == 0);
  CHECK(i.out.find("imported ProfilerStep#1") != std::string::npos);  // 300, [400], 500, 700: the lower median
  CHECK(i.trace.measured_iteration_ns() == 400000);
  CHECK(i.out.find("ProfilerStep#1 is replayed, the median of 4 profiled steps with GPU work (0.300 to 0.700 ms)") != std::string::npos);
}

TEST_CASE("PyTorch <= 2.1: collectives and their process group inferred from annotations, kernel names and streams") {
  TempDir dir;
  const Imported i = import(dir, {dir.file("r0.json", ddp_rank(0, 2)), dir.file("r1.json", ddp_rank(1, 2))});
  INFO(i.err);
  REQUIRE(i.code == 0);
  const trace::Task* ar = find_task(i.trace.templates(0), "ncclAllReduce");
  REQUIRE(ar != nullptr);
  CHECK(ar->collective().op() == trace::ALL_REDUCE);
  CHECK(ar->collective().bytes() == 4 * 1048576);
  CHECK(ar->collective().dtype() == trace::FLOAT32);
  CHECK(ar->collective().comm() == "nccl-stream-13");
  REQUIRE(i.trace.communicators_size() == 1);
  CHECK(i.trace.communicators(0).ranks_size() == 2);
  CHECK(i.out.find("2 NCCL kernels") == std::string::npos);
  CHECK(i.out.find("r0.json: 1 NCCL kernels carry no process-group fields (PyTorch <= 2.1)") != std::string::npos);
  // Simulated on the platform, the AllReduce is timed by the collective model; the notes come along.
  dir.file("r0.json", ddp_rank(0, 2));
  dir.file("r1.json", ddp_rank(1, 2));
  const auto j = run_json(dir, "{kineto: [r0.json, r1.json]}");
  CHECK(j["collectives"][0]["op"] == "all_reduce");
  CHECK(j["collectives"][0]["bytes"] == 4 * 1048576);
  bool noted = false;
  for (const auto& n : j["import_notes"])
    noted |= n.get<std::string>().find("no process-group fields") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("PyTorch <= 2.1: one rank's file is a member of its world_size world, and replicate accepts it") {
  TempDir dir;
  dir.file("r1.json", ddp_rank(1, 4));
  const auto whole = run_json(dir, "{kineto: [r1.json], comm: measured}");
  CHECK(whole["ranks"].size() == 4);  // the untraced ranks run rank 1's program
  CHECK(whole["iteration_time_ns"] == 1000000);
  const auto wide = run_cli("run " + dir.file("wide.yaml", "platform: {preset: dgx-a100, nodes: 2}\n"
                                                          "workload: {kineto: [r1.json], replicate: {dp: 16}}\n") + " --json -q");
  INFO(wide.err);
  REQUIRE(wide.code == 0);
  CHECK(nlohmann::json::parse(wide.out)["ranks"].size() == 16);
}

TEST_CASE("PyTorch <= 2.1: a smaller group's size from its c10d op, laid over the untraced ranks, and all-to-all from its annotation") {
  TempDir dir;
  const std::string t = k::trace(
      {k::step(1, 0, 1000),
       // An all-gather of 1024 bf16 per rank into 2048: a group of 2 in a world of 4.
       k::annotation("c10d::_allgather_base_", 5, 40, "[[2048], [1024], []]", R"(["c10::BFloat16", "c10::BFloat16", ""])", "cpu_op"),
       k::annotation("nccl:_all_gather_base", 10, 30, "[[1024]]", R"(["c10::BFloat16"])"),
       k::call("cudaLaunchKernel", 20, 5, 1), k::gpu("ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)", 25, 50, 1, 20),
       // An all-to-all (NCCL runs it as SendRecv) over the world.
       k::annotation("nccl:all_to_all", 100, 30, "[[4096]]", R"(["float"])"),
       k::call("cudaLaunchKernel", 110, 5, 2), k::gpu("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", 115, 50, 2, 30),
       // A SendRecv nobody annotated: neither op nor peer can be told.
       k::call("cudaLaunchKernel", 200, 5, 3), k::gpu("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)", 205, 50, 3, 30)},
      R"({"backend": "nccl", "rank": 0, "world_size": 4})");
  const Imported i = import(dir, {dir.file("r0.json", t)});
  INFO(i.err);
  REQUIRE(i.code == 0);
  const trace::RankTemplate& r = i.trace.templates(0);
  const trace::Task* ag = find_task(r, "ncclAllGather");
  REQUIRE(ag != nullptr);
  CHECK(ag->collective().bytes() == 2048 * 2);  // the gathered output, bf16
  CHECK(ag->collective().dtype() == trace::BFLOAT16);
  const trace::Task* a2a = find_task(r, "ncclAlltoAll");
  REQUIRE(a2a != nullptr);
  CHECK(a2a->collective().bytes() == 4096 * 4);
  CHECK(find_task(r, "ncclKernel_SendRecv") != nullptr);  // stays a kernel with its traced time
  CHECK(i.out.find("1 NCCL kernels name no op that can be told") != std::string::npos);
  std::vector<std::vector<std::uint32_t>> gather_groups;
  for (const auto& c : i.trace.communicators())
    if (c.slot() == "nccl-stream-20")
      gather_groups.emplace_back(c.ranks().begin(), c.ranks().end());
  std::sort(gather_groups.begin(), gather_groups.end());
  CHECK(gather_groups == std::vector<std::vector<std::uint32_t>>{{0, 1}, {2, 3}});
  CHECK(i.out.find("process group nccl-stream-20: 1 more instances") != std::string::npos);
}

TEST_CASE("element types: every PyTorch and NCCL spelling, FP8 included, and an unknown one is named, never silent") {
  TempDir dir;
  auto collective = [&](const std::string& dtype) {
    return k::trace({k::step(1, 0, 1000), k::call("cudaLaunchKernel", 10, 5, 1),
                     k::gpu("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 10, 50, 1, 13,
                            R"("Collective name": "allreduce", "In msg nelems": 1000, "Out msg nelems": 1000, "dtype": ")" + dtype +
                                R"(", "Process Group Name": "0", "Process Group Ranks": "[0]")")},
                    R"({"rank": 0, "world_size": 1})");
  };
  const Imported fp8 = import(dir, {dir.file("fp8.json", collective("Float8_e4m3fn"))});
  REQUIRE(fp8.code == 0);
  CHECK(find_task(fp8.trace.templates(0), "ncclAllReduce")->collective().bytes() == 1000);
  CHECK(find_task(fp8.trace.templates(0), "ncclAllReduce")->collective().dtype() == trace::FLOAT8);
  const Imported shorts = import(dir, {dir.file("short.json", collective("Short"))});
  REQUIRE(shorts.code == 0);
  CHECK(find_task(shorts.trace.templates(0), "ncclAllReduce")->collective().bytes() == 2000);
  // Unknown to echo-des: the kernel name's element type (f32) is used, and that is said.
  const Imported odd = import(dir, {dir.file("odd.json", collective("Float4_e2m1fn_x2"))});
  REQUIRE(odd.code == 0);
  CHECK(find_task(odd.trace.templates(0), "ncclAllReduce")->collective().bytes() == 4000);
  CHECK(odd.out.find("element type 'Float4_e2m1fn_x2'") == std::string::npos);
  // Neither the arg nor the kernel name knows it: 4 bytes assumed, and said.
  std::string unnamed = collective("Float4_e2m1fn_x2");
  unnamed.replace(unnamed.find("Sum_f32_"), 8, "Sum_");
  const Imported unknown = import(dir, {dir.file("unknown.json", unnamed)});
  REQUIRE(unknown.code == 0);
  CHECK(unknown.out.find("element type 'Float4_e2m1fn_x2' of 1 collectives is unknown; 4-byte elements assumed") != std::string::npos);
}

TEST_CASE("a PyTorch Execution Trace linked with its Kineto trace gives the process group, collective and tensors") {
  // PyTorch 2.1 on rank 2 of 8: the AllReduce's kernel has no process-group fields and no
  // nccl:<op> annotation; the Execution Trace's record_param_comms (rf_id 77) names process group
  // "3" of ranks 0, 2, 4, 6 (start 0, stride 2, size 4), and the c10d op around it (rf_id 76) its
  // tensor: 1024 bf16. Kineto links them by `Record function id`.
  TempDir dir;
  const std::string kineto = k::trace(
      {k::step(1, 0, 1000), k::step(2, 1000, 1000),
       k::x("cpu_op", "c10d::allreduce_", 1100, 50, "1", R"("Record function id": 76)"),
       k::x("cpu_op", "record_param_comms", 1105, 40, "1", R"("Record function id": 77)"),
       k::call("cudaLaunchKernel", 1110, 5, 1), k::gpu("ncclKernel_AllReduce_RING_LL_Sum_bfloat16(ncclWorkElem)", 1120, 60, 1, 13)},
      R"({"backend": "nccl", "rank": 2, "world_size": 8})");
  const std::string et = R"JSON({"schema": "1.0.1", "pid": 1, "nodes": [
    {"name": "[pytorch|profiler|execution_trace|thread]", "id": 2, "rf_id": 0, "parent": 1, "inputs": [], "input_shapes": [], "input_types": []},
    {"name": "c10d::allreduce_", "id": 10, "rf_id": 76, "parent": 2, "inputs": [[[40, 41, 0, 1024, 2, "cuda:2"]], 0, false, -1],
     "input_shapes": [[1024], [], [], []], "input_types": ["Tensor(c10::BFloat16)", "Int", "Bool", "Int"]},
    {"name": "record_param_comms", "id": 11, "rf_id": 77, "parent": 10,
     "inputs": [5, ["3", "custom_pg"], 1, "allreduce", [], [], 0, 2, 4],
     "input_shapes": [[], [], [], [], [], [], [], [], []], "input_types": ["Int", "Tuple", "Int", "String", "GenericList", "GenericList", "Int", "Int", "Int"]}]})JSON";
  const auto r = run_cli("import kineto " + dir.file("r2.json", kineto) + " --pytorch_et " + dir.file("r2_et.json", et) + " -o " + (dir / "t.pbtxt"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const trace::Trace t = workloads::read_trace_message(dir / "t.pbtxt");
  const trace::Task* ar = find_task(t.templates(0), "ncclAllReduce");
  REQUIRE(ar != nullptr);
  CHECK(ar->collective().comm() == "pg3");
  CHECK(ar->collective().bytes() == 2048);
  CHECK(ar->collective().dtype() == trace::BFLOAT16);
  std::vector<std::uint32_t> group;
  for (const auto& c : t.communicators())
    if (c.ranks(0) == 0)
      group.assign(c.ranks().begin(), c.ranks().end());
  CHECK(group == std::vector<std::uint32_t>{0, 2, 4, 6});
  CHECK(r.out.find("their process groups came from the PyTorch Execution Trace") != std::string::npos);
  // The same from a job, with the Execution Traces beside the Kineto files.
  const auto j = run_cli("run " + dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\n"
                                                      "workload: {kineto: [r2.json], pytorch_et: [r2_et.json], comm: measured}\n") + " --json -q");
  INFO(j.err);
  REQUIRE(j.code == 0);
  CHECK(nlohmann::json::parse(j.out)["ranks"].size() == 8);
  // Mistakes: an Execution Trace count that does not match, a Kineto file given as one, no file.
  auto error_of = [&](const std::string& args) {
    const auto e = run_cli("import kineto " + args + " -o " + (dir / "o.pb"));
    CHECK(e.code == 2);
    return e.err;
  };
  CHECK(error_of((dir / "r2.json") + " " + (dir / "r2.json") + " --pytorch_et " + (dir / "r2_et.json"))
            .find("1 PyTorch Execution Traces for 2 Kineto files") != std::string::npos);
  CHECK(error_of((dir / "r2.json") + " --pytorch_et " + (dir / "r2.json")).find("this is a Kineto trace, not a PyTorch Execution Trace") !=
        std::string::npos);
  CHECK(error_of((dir / "r2.json") + " --pytorch_et " + (dir / "none.json")).find("cannot read the PyTorch Execution Trace") !=
        std::string::npos);
  CHECK(error_of((dir / "r2.json") + " --pytorch_et " + dir.file("old.json", R"({"schema": "0.9", "nodes": []})"))
            .find("schema '0.9' is not read") != std::string::npos);
  // Fuzz finding: a number past a double's range is not JSON nlohmann reads (out_of_range, not a parse error).
  CHECK(error_of((dir / "r2.json") + " --pytorch_et " + dir.file("huge.json", R"({"schema": "1.1.0", "nodes": [], "x": 8e99999})"))
            .find("not JSON") != std::string::npos);
  // Fuzz finding: a schema or a node name that is not a string was an internal error.
  CHECK(error_of((dir / "r2.json") + " --pytorch_et " + dir.file("number.json", R"({"schema": 0, "nodes": [{"id": 0, "name": 7}]})"))
            .find("schema '0' is not read") != std::string::npos);
  const std::string odd_nodes = R"({"schema": "1.1.0-chakra.0.0.4", "finish_ts": 1, "nodes": [3, {"id": "x", "name": 7,
    "attrs": [{"name": "rf_id", "type": "uint64", "value": 1}, {"name": "tid", "value": 1}],
    "inputs": [[1, 2, 3]], "input_shapes": [[9223372036854775807, 9223372036854775807]], "input_types": [1]}]})";
  const auto odd = run_cli("import kineto " + (dir / "r2.json") + " --pytorch_et " + dir.file("odd.json", odd_nodes) + " -o " + (dir / "p.pb"));
  CHECK((odd.code == 0 || odd.code == 2));
  CHECK(odd.err.find("internal error") == std::string::npos);
}

TEST_CASE("Kineto files that disagree on their world, or are the same rank twice, are named") {
  TempDir dir;
  auto error_of = [&](const std::vector<std::string>& files) {
    const Imported i = import(dir, files);
    CHECK(i.code == 2);
    return i.err;
  };
  CHECK(error_of({dir.file("a.json", ddp_rank(0, 2)), dir.file("b.json", ddp_rank(1, 4))}).find("its world_size is 4, but") !=
        std::string::npos);
  CHECK(error_of({dir.file("c.json", ddp_rank(0, 2)), dir.file("d.json", ddp_rank(0, 2))}).find("two files are rank 0") !=
        std::string::npos);
  CHECK(error_of({dir.file("e.json", ddp_rank(5, 2))}).find("rank 5 of a 2-rank world") != std::string::npos);
}


TEST_CASE("an Execution Trace's data dependencies order the host threads: backward launches wait for the forward ones they read") {
  // The main thread (1) runs aten::add (rf_id 12), launching fwd2; the autograd thread (2) runs
  // MulBackward0 (rf_id 11), which reads aten::add's output tensor 100, launching bwd.
  TempDir dir;
  const std::string kineto = k::trace(
      {k::step(1, 0, 1000), k::x("cpu_op", "aten::add", 120, 20, "1", R"("Record function id": 12)"),
       k::call("cudaLaunchKernel", 125, 5, 3), k::gpu("fwd2", 130, 10, 3, 7),
       k::x("cpu_op", "MulBackward0", 150, 20, "2", R"("Record function id": 11)"),
       k::call("cudaLaunchKernel", 150, 5, 4, "cuda_runtime", "2"), k::gpu("bwd", 152, 100, 4, 7)},
      R"({"rank": 0, "world_size": 1})");
  const std::string et = R"JSON({"schema": "1.0.1", "nodes": [
    {"name": "aten::add", "id": 5, "rf_id": 12, "tid": 1, "inputs": [], "input_types": [],
     "outputs": [[100, 1, 0, 4, 4, "cuda:0"]], "output_types": ["Tensor(float)"]},
    {"name": "MulBackward0", "id": 6, "rf_id": 11, "tid": 2, "inputs": [[100, 1, 0, 4, 4, "cuda:0"]],
     "input_types": ["Tensor(float)"], "outputs": [], "output_types": []}]})JSON";
  const auto r = run_cli("import kineto " + dir.file("r0.json", kineto) + " --pytorch_et " + dir.file("et.json", et) + " -o " + (dir / "t.pbtxt"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("1 launches wait for another host thread's launches") != std::string::npos);
  const trace::Trace t = workloads::read_trace_message(dir / "t.pbtxt");
  const trace::Task* join = find_task(t.templates(0), "host waits for another thread");
  const trace::Task* forward_launch = find_task(t.templates(0), "host until launch of fwd2");
  REQUIRE(join != nullptr);
  REQUIRE(forward_launch != nullptr);
  CHECK(waits_on(*join, *forward_launch));
  CHECK(waits_on(*find_task(t.templates(0), "bwd"), *join));
  // Without the Execution Trace, the threads are not ordered.
  const auto plain = run_cli("import kineto " + (dir / "r0.json") + " -o " + (dir / "p.pbtxt"));
  REQUIRE(plain.code == 0);
  CHECK(find_task(workloads::read_trace_message(dir / "p.pbtxt").templates(0), "host waits for another thread") == nullptr);
}
