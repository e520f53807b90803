// `echo-des import kineto`: a hand-made PyTorch profiler trace whose replay with the measured
// collective times gives back the measured iteration exactly, the published DDP trace, and every
// bad input ending with exit code 2.
#include "support/approx.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_files.hpp"

#include "workloads/trace_reader.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

using echo::test::run_cli;
using echo::test::TempDir;
using namespace echo;

namespace {

// One step (0 .. 1000 us on the host). The main thread launches a GEMM at 10 us (it runs
// 10-110), the collective at 130 us on stream 13 (130-230, after the GEMM), and an optimizer
// kernel at 135 us that runs 230-260, right after the collective (it waited for it).
const char* kTrace = R"JSON({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 2},
"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 10, "dur": 100,
  "args": {"correlation": 1, "stream": 7}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 130, "dur": 5, "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
  "pid": 0, "tid": 13, "ts": 130, "dur": 100,
  "args": {"correlation": 2, "stream": 13, "Collective name": "allreduce", "In msg nelems": 1048576,
           "Out msg nelems": 1048576, "Group size": 2, "dtype": "Float", "Process Group Name": "0",
           "Process Group Ranks": "[0, 1]"}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 135, "dur": 5, "args": {"correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "multi_tensor_apply_kernel", "pid": 0, "tid": 7, "ts": 230, "dur": 30,
  "args": {"correlation": 3, "stream": 7}}
]})JSON";

} // namespace

TEST_CASE("a Kineto trace becomes streams, a collective, host launches and the order between them") {
  TempDir dir;
  const auto r = run_cli("import kineto " + dir.file("rank0.json", kTrace) + " -o " + (dir / "t.pbtxt"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("imported ProfilerStep#3: 2 ranks, 2 kernels and 1 collectives") != std::string::npos);
  const trace::Trace t = workloads::read_trace_message(dir / "t.pbtxt");
  REQUIRE(t.templates_size() == 1);
  std::map<std::uint64_t, trace::Task> task;  // by id: GPU tasks 1-3 in start order, host tasks after
  for (const auto& x : t.templates(0).tasks())
    task[x.id()] = x;
  REQUIRE(task.size() == 7);
  CHECK(task[2].collective().op() == trace::ALL_REDUCE);
  CHECK(task[2].collective().bytes() == 4 * 1048576);
  CHECK(task[2].collective().comm() == "pg0");
  CHECK(task[2].collective().measured_duration_ns() == 100000);
  auto waits = [&](std::uint64_t id, std::uint64_t on) {
    return std::find(task[id].deps().begin(), task[id].deps().end(), on) != task[id].deps().end();
  };
  CHECK(waits(2, 1));  // the collective waits for the GEMM launched before it
  CHECK(waits(3, 2));  // the optimizer for the collective
  CHECK_FALSE(waits(1, 2));
  CHECK(task[4].category() == trace::HOST);
  CHECK(task[4].compute().duration_ns() == 10000);  // step start to the first launch
  CHECK(waits(1, 4));
  CHECK(t.communicators(0).ranks_size() == 2);
  // The step's thread is busy until the step ends (the rest of ProfilerStep#3): 135 us to 1000 us.
  CHECK(task[7].category() == trace::HOST);
  CHECK(task[7].compute().duration_ns() == 865000);
  // The reference is the step as users read it.
  CHECK(t.measured_iteration_ns() == 1000000);
  // Replayed with the measured collective time, the iteration is the measured one.
  const std::string job = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {trace: t.pbtxt, comm: measured}\n");
  const auto run = run_cli("run " + job + " --json -q");
  REQUIRE(run.code == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j["iteration_time_ns"] == 1000000);
  CHECK(j["error_vs_measured"].get<double>() == test::Approx(0.0));
  // Host time is neither compute nor communication: rank 0 computes 130 us in all.
  CHECK(j["ranks"][0]["compute_s"].get<double>() == test::Approx(130e-6));
}

TEST_CASE("the published DDP trace (rank 0 of 2), replicated to both ranks, replays within 3% of its measured step") {
  const std::string data = ECHO_SOURCE_DIR "/../shared/data/kineto/ddp-2rank-allreduce.json.gz";
  if (!std::filesystem::exists(data)) {
    MESSAGE("skipped: " << data << " is absent");
    return;
  }
  TempDir dir;
  const std::string job = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {kineto: [" + data +
                                                   "], replicate: {dp: 2}, comm: measured}\n");
  const auto run = run_cli("run " + job + " --json -q");
  INFO(run.err);
  REQUIRE(run.code == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j["ranks"].size() == 2);
  CHECK(std::abs(j["error_vs_measured"].get<double>()) < 0.03);
  // Ex-situ: the same rank's trace describes the job at any data-parallel width.
  const std::string wide = dir.file("wide.yaml", "platform: {preset: dgx-a100, nodes: 8}\nworkload: {kineto: [" + data +
                                                     "], replicate: {dp: 64}}\n");
  const auto run64 = run_cli("run " + wide + " --json -q");
  INFO(run64.err);
  REQUIRE(run64.code == 0);
  CHECK(nlohmann::json::parse(run64.out)["ranks"].size() == 64);
}

TEST_CASE("a job can name Kineto files directly") {
  TempDir dir;
  const std::string job = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {kineto: [rank0.json], comm: measured}\n");
  dir.file("rank0.json", kTrace);
  const auto run = run_cli("run " + job + " --json -q");
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(nlohmann::json::parse(run.out)["iteration_time_ns"] == 1000000);
  // A job whose `workload` section is wrong: exit 2 and the message.
  int jobs = 0;
  auto error_of = [&](const std::string& workload) {
    const auto r = run_cli("run " + dir.file("bad" + std::to_string(++jobs) + ".yaml",
                                             "platform: {preset: dgx-a100, nodes: 1}\nworkload: " + workload + "\n") + " -q");
    CHECK(r.code == 2);
    return r.err;
  };
  CHECK(error_of("{kineto: [rank0.json], trace: t.pb}").find("names both `trace` and `kineto` files") != std::string::npos);
  CHECK(error_of("{kineto: []}").find("`kineto` lists no file") != std::string::npos);
  // replicate: the traced rank is one replica; its process group reaching rank 1 is the
  // data-parallel one, grown to 4 ranks, each running the traced program.
  const auto replicated = run_cli("run " + dir.file("rep.yaml", "platform: {preset: dgx-a100, nodes: 1}\n"
                                                              "workload: {kineto: [rank0.json], replicate: {dp: 4}, comm: measured}\n") +
                                  " --json -q");
  INFO(replicated.err);
  REQUIRE(replicated.code == 0);
  const auto rep = nlohmann::json::parse(replicated.out);
  CHECK(rep["ranks"].size() == 4);
  CHECK(rep["iteration_time_ns"] == 1000000);
  // A trace whose process groups stay within the traced ranks has no data-parallel group to grow.
  std::string alone = kTrace;
  alone.replace(alone.find("\"[0, 1]\""), 8, "\"[0]\"");
  dir.file("alone.json", alone);
  CHECK(error_of("{kineto: [alone.json], replicate: {dp: 4}}").find("nothing tells the data-parallel group") != std::string::npos);
  // `step` picks the ProfilerStep, as `import kineto --step` does.
  const auto stepped = run_cli("run " + dir.file("step.yaml", "platform: {preset: dgx-a100, nodes: 1}\n"
                                                             "workload: {kineto: [rank0.json], step: 3, comm: measured}\n") + " --json -q");
  REQUIRE(stepped.code == 0);
  CHECK(nlohmann::json::parse(stepped.out)["iteration_time_ns"] == 1000000);
  CHECK(error_of("{kineto: [rank0.json], step: 9}").find("has no ProfilerStep#9") != std::string::npos);
  CHECK(error_of("{kineto: [rank0.json], step: last}").find("`step` must be a ProfilerStep number") != std::string::npos);
  CHECK(error_of("{trace: t.pb, step: 3}").find("`step` is an option of `kineto` workloads, but this one names `trace`") != std::string::npos);
}

TEST_CASE("bad Kineto input: a clear message and exit code 2") {
  TempDir dir;
  auto error = [&](const std::string& json, const std::string& extra = "") {
    const auto r = run_cli("import kineto " + dir.file("x.json", json) + " -o " + (dir / "o.pb") + " " + extra);
    CHECK(r.code == 2);
    return r.err;
  };
  CHECK(error("{\"schemaVersion\": 1}").find("no traceEvents") != std::string::npos);
  CHECK(error("{\"traceEvents\": [").find("malformed JSON") != std::string::npos);
  CHECK(error("{\"traceEvents\": []}").find("no GPU event") != std::string::npos);
  CHECK(error(kTrace, "--step 9").find("has no ProfilerStep#9") != std::string::npos);
  const auto missing = run_cli("import kineto " + (dir / "nope.json") + " -o " + (dir / "o.pb"));
  CHECK(missing.code == 2);
}

TEST_CASE("a Kineto id beyond a 64-bit integer is no id, never a cast past the range") {
  // Fuzz finding (UBSan): a launch's correlation of 10^70 was cast from double to int64. The
  // launch then matches no kernel, and the rest of the trace imports.
  TempDir dir;
  const auto r = run_cli("import kineto " + std::string(ECHO_SOURCE_DIR) + "/test/fuzz/seeds/kineto/correlation-past-int64.json -o " +
                         (dir / "o.pb"));
  CHECK(r.code == 0);
  CHECK(r.out.find("0 kernels and 1 collectives") != std::string::npos);
}

TEST_CASE("Kineto cuda_sync events give the exact waits, and send / recv kernels become transfers") {
  // Stream 7 runs gemm_a (launch corr 1) and gemm_b (corr 4, after the event record corr 2);
  // stream 20 waits on the event (corr 3) before copy_c (corr 5): it needs gemm_a, not gemm_b.
  // The host then synchronises stream 20 (corr 6) and launches a send to rank 1 (corr 7).
  const char* trace = R"JSON({"distributedInfo": {"rank": 0}, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "tid": 1, "ts": 0, "dur": 1000},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": 10, "dur": 2, "args": {"correlation": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaEventRecord", "tid": 1, "ts": 13, "dur": 1, "args": {"correlation": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "tid": 1, "ts": 15, "dur": 1, "args": {"correlation": 3}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": 17, "dur": 2, "args": {"correlation": 4}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "tid": 1, "ts": 20, "dur": 2, "args": {"correlation": 5}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "tid": 1, "ts": 23, "dur": 300, "args": {"correlation": 6}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "tid": 1, "ts": 330, "dur": 2, "args": {"correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "gemm_a", "tid": 7, "ts": 12, "dur": 100, "args": {"correlation": 1, "stream": 7}},
 {"ph": "X", "cat": "kernel", "name": "gemm_b", "tid": 7, "ts": 112, "dur": 200, "args": {"correlation": 4, "stream": 7}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD", "tid": 20, "ts": 112, "dur": 10, "args": {"correlation": 5, "stream": 20}},
 {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "tid": 20, "ts": 15, "dur": 0,
  "args": {"correlation": 3, "stream": 20, "wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 2, "wait_on_cuda_event_id": 9}},
 {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "tid": 20, "ts": 23, "dur": 300, "args": {"correlation": 6, "stream": 20}},
 {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "tid": 30, "ts": 335, "dur": 50,
  "args": {"correlation": 7, "stream": 30, "Collective name": "send", "In msg nelems": 1024, "dtype": "BFloat16",
           "Process Group Name": "3", "Process Group Ranks": "[0, 1]", "Dst Rank": "1"}}
]})JSON";
  TempDir dir;
  // Rank 1 runs the same step but receives from rank 0.
  std::string rank1 = trace;
  auto swap = [&](const std::string& from, const std::string& to) { rank1.replace(rank1.find(from), from.size(), to); };
  swap("\"rank\": 0", "\"rank\": 1");
  swap("\"Collective name\": \"send\"", "\"Collective name\": \"recv\"");
  swap("\"Dst Rank\": \"1\"", "\"Src Rank\": \"0\"");
  const auto r = run_cli("import kineto " + dir.file("r0.json", trace) + " " + dir.file("r1.json", rank1) + " -o " + (dir / "t.pbtxt"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const trace::Trace t = workloads::read_trace_message(dir / "t.pbtxt");
  CHECK(t.templates(1).tasks(3).recv().peer() == 0);
  std::map<std::string, const trace::Task*> task;
  for (const auto& x : t.templates(0).tasks())
    task[x.name()] = &x;
  auto waits = [&](const std::string& a, const std::string& b) {
    return std::find(task.at(a)->deps().begin(), task.at(a)->deps().end(), task.at(b)->id()) != task.at(a)->deps().end();
  };
  CHECK(waits("Memcpy DtoD", "gemm_a"));
  CHECK_FALSE(waits("Memcpy DtoD", "gemm_b"));
  CHECK(waits("host synchronize", "Memcpy DtoD"));
  const auto& send = *task.at("ncclSend");
  CHECK(send.send().peer() == 1);
  CHECK(send.send().bytes() == 2048);
  CHECK(send.send().comm() == "pg3");
  // The host waited for the copy (it ended at 122 us); the call returned at 323 us and the send was
  // launched at 330 us: 208 us of host time after the copy, kept as traced.
  CHECK(task.at("host until launch of ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)")->compute().duration_ns() == 208000);
}

TEST_CASE("a Kineto trace profiled without CUDA activities is a clear error") {
  TempDir dir;
  const auto r = run_cli("import kineto " +
                         dir.file("cpu.json", R"({"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 9},
                                                  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 1, "dur": 5}]})") +
                         " -o " + (dir / "o.pb"));
  CHECK(r.code == 2);
  CHECK(r.err.find("no GPU event") != std::string::npos);
  CHECK(r.err.find("ProfilerActivity.CUDA") != std::string::npos);
}

TEST_CASE("Kineto ranks whose collectives do not match: the first mismatch is named, exit 2") {
  TempDir dir;
  std::string rank1 = kTrace;
  rank1.replace(rank1.find("\"rank\": 0"), 9, "\"rank\": 1");
  rank1.replace(rank1.find("\"In msg nelems\": 1048576"), 24, "\"In msg nelems\": 2097152");
  dir.file("r0.json", kTrace);
  dir.file("r1.json", rank1);
  const auto r = run_cli("run " + dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {kineto: [r0.json, r1.json]}\n") + " -q");
  CHECK(r.code == 2);
  CHECK(r.err.find("members of one collective disagree on communicator 'pg0.0', call #0") != std::string::npos);
  CHECK(r.err.find("all_reduce of 8388608 bytes") != std::string::npos);
  CHECK(r.err.find("all_reduce of 4194304 bytes") != std::string::npos);
}

TEST_CASE("Kineto cuda_sync events without their record ids (older Kineto): stream waits are inferred, host waits kept") {
  // kTrace plus a Stream Sync on the host after the optimizer's launch and a Stream Wait Event that
  // does not say which record it waited on: the ProcessGroupNCCL rule still orders the streams.
  std::string older = kTrace;
  const std::string extra =
      R"(, {"ph": "X", "cat": "cuda_sync", "name": "Stream Wait Event", "tid": 13, "ts": 129, "dur": 0, "args": {"correlation": 2, "stream": 13}})"
      R"(, {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 141, "dur": 120, "args": {"correlation": 4}})"
      R"(, {"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "tid": 7, "ts": 141, "dur": 120, "args": {"correlation": 4, "stream": 7}})";
  older.insert(older.rfind(']'), extra);
  TempDir dir;
  const auto r = run_cli("import kineto " + dir.file("r.json", older) + " -o " + (dir / "t.pbtxt"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const trace::Trace t = workloads::read_trace_message(dir / "t.pbtxt");
  std::map<std::string, const trace::Task*> task;
  for (const auto& x : t.templates(0).tasks())
    task[x.name().substr(0, 12)] = &x;
  auto waits = [&](const std::string& a, const std::string& b) {
    return std::find(task.at(a)->deps().begin(), task.at(a)->deps().end(), task.at(b)->id()) != task.at(a)->deps().end();
  };
  CHECK(waits("ncclAllReduc", "ampere_sgemm"));  // inferred: the collective waits for the GEMM
  CHECK(waits("multi_tensor", "ncclAllReduc"));  // and the optimizer for the collective
  CHECK(waits("host synchro", "multi_tensor"));  // the host waited for stream 7
}

TEST_CASE("a communication library's own kernels count as communication, and a step whose GPU outlasts it is the GPU's") {
  // DeepSeek's published training profile (deepseek-ai/profile-data) in miniature: one lone step of
  // 300 us on the host; a GEMM (10-210 us) and, on a side stream, DeepEP's dispatch kernel (20-420
  // us, NVLink and RDMA moved by the kernel itself, no NCCL); the host launches both and leaves
  // the GPU working 120 us past the step's end.
  const char* trace = R"JSON({"schemaVersion": 1, "distributedInfo": {"rank": 0, "world_size": 1},
"traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 300},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 5, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_bf16bf16_bf16f32", "pid": 0, "tid": 7, "ts": 10, "dur": 200,
  "args": {"correlation": 1, "stream": 7}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernelExC", "pid": 1, "tid": 1, "ts": 15, "dur": 5, "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "void deep_ep::internode::dispatch<false, 8, true, 8>(int4*, float*)", "pid": 0, "tid": 27,
  "ts": 20, "dur": 400, "args": {"correlation": 2, "stream": 27}}
]})JSON";
  TempDir dir;
  const auto r = run_cli("import kineto " + dir.file("rank0.json", trace) + " -o " + (dir / "t.pbtxt"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string said = r.out + r.err;
  CHECK(said.find("1 communication kernels that are no call of the trace (0.400 ms in all; e.g. void "
                  "deep_ep::internode::dispatch<false, 8, true, 8>)") != std::string::npos);
  CHECK(said.find("its GPU was busy with ProfilerStep#1's work for 0.410 ms, longer than the step's 0.300 ms") !=
        std::string::npos);
  const trace::Trace t = workloads::read_trace_message(dir / "t.pbtxt");
  CHECK(t.measured_iteration_ns() == 410000);
  bool dispatch_seen = false;
  for (const auto& task : t.templates(0).tasks())
    if (task.name().rfind("void deep_ep", 0) == 0) {
      dispatch_seen = true;
      CHECK(task.category() == trace::COMMUNICATION);
      CHECK(task.compute().duration_ns() == 400000);
    }
  CHECK(dispatch_seen);
  // Replayed: the GEMM is compute, the dispatch communication beside it; what runs alone after the
  // GEMM (about 200 us) is exposed communication, on its own slot.
  const std::string job = dir.file("job.yaml", "platform: {preset: h800, nodes: 1}\nworkload: {trace: t.pbtxt}\n");
  const auto run = run_cli("run " + job + " --json -q");
  INFO(run.err);
  REQUIRE(run.code == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j["iteration_time_ns"].get<double>() == test::Approx(415000).epsilon(0.02));
  CHECK(j["ranks"][0]["compute_s"].get<double>() == test::Approx(200e-6));
  CHECK(j["ranks"][0]["exposed_comm_by_slot_s"]["comm_kernels"].get<double>() == test::Approx(205e-6).epsilon(0.05));
  CHECK(std::abs(j["error_vs_measured"].get<double>()) < 0.03);
  // The critical path says what each stretch is: the dispatch a communication kernel, not compute.
  REQUIRE(run_cli("run " + job + " -q --out " + (dir / "out") + " --force").code == 0);
  std::ifstream summary(std::string(dir / "out") + "/summary.json");
  const auto s = nlohmann::json::parse(summary);
  std::map<std::string, std::string> kind_of;
  for (const auto& c : s["critical_path_top"])
    kind_of[c["name"].get<std::string>().substr(0, 12)] = c["kind"].get<std::string>();
  CHECK(kind_of["void deep_ep"] == "communication kernel");
}
