// `echo-des run` end to end: exact times of the hand-computable examples, the JSON and timeline
// outputs, determinism, and every bad input ending with a clear message and exit code 2.
#include "support/approx.hpp"
#include "support/cli_json.hpp"
#include "support/cli_runner.hpp"
#include "support/headless_browser.hpp"
#include "support/temp_files.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <fstream>

using echo::test::run_cli;
using echo::test::slurp;
using echo::test::TempDir;
using nlohmann::json;

namespace {

json run_json(const std::string& args) { return echo::test::run_cli_json("run " + args + " --json -q"); }
// The mean rank's exposed communication of one parallelism (`dp`, `tp`, `ep`, ...) in a run's JSON.
double exposed_comm_s(const json& run, const std::string& kind) { return run["breakdown"]["exposed_comm_s"][kind].get<double>(); }

const std::string kPlatform = ECHO_SOURCE_DIR "/examples/platforms/one_node_8gpu.xml";

std::string job_for(const TempDir& dir, const std::string& trace_text) {
  const std::string trace = dir.file("trace.pbtxt", trace_text);
  return dir.file("job.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: " + trace + "}\n");
}

// Two ranks whose programs are given; each has one stream.
std::string two_ranks(const std::string& rank0_tasks, const std::string& rank1_tasks) {
  return "templates { name: \"r0\" streams: \"s\" " + rank0_tasks + " }\n" + "templates { name: \"r1\" streams: \"s\" " +
         rank1_tasks + " }\n" + "ranks { first: 0 template_name: \"r0\" }\nranks { first: 1 template_name: \"r1\" }\n";
}

// Runs a job that must fail: exit code 2, the message on stderr, nothing on stdout, no outputs.
std::string failure_of(const std::string& job_args) {
  TempDir out;
  const auto r = run_cli("run " + job_args + " --out '" + (out / "results") + "'");
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_FALSE(std::filesystem::exists(out / "results"));
  CHECK(r.err.rfind("echo-des: error: ", 0) == 0);
  CHECK(r.err.find("how to fix: ") != std::string::npos);
  return r.err;
}

// A job that must run to its end under both step-timed fidelities.
void runs_under_steps_and_flow(const std::string& job) {
  for (const std::string fidelity : {"steps", "flow"}) {
    CAPTURE(fidelity);
    const json j = run_json("'" + job + "' --set communication.fidelity=" + fidelity);
    CHECK(j["iteration_time_s"].get<double>() > 0);
  }
}

} // namespace

TEST_CASE("two_ranks example: 513 us, as the README computes by hand") {
  const json j = run_json("examples/two_ranks/job.yaml");
  CHECK(j["iteration_time_ns"] == 513000);
  CHECK(j["iteration_time_s"].get<double>() == echo::test::Approx(513e-6).epsilon(1e-12));
  const auto& r0 = j["ranks"][0];
  CHECK(r0["compute_s"].get<double>() == echo::test::Approx(250e-6).epsilon(1e-9));
  CHECK(r0["exposed_comm_s"].get<double>() == echo::test::Approx(262e-6).epsilon(1e-9));
  CHECK(r0["idle_s"].get<double>() == echo::test::Approx(1e-6).epsilon(1e-6));
  const auto& r1 = j["ranks"][1];
  CHECK(r1["compute_s"].get<double>() == echo::test::Approx(300e-6).epsilon(1e-9));
  // Rank 1's recv waits 100 us for rank 0's send: idle, not communication; the transfer is 13 us.
  CHECK(r1["exposed_comm_s"].get<double>() == echo::test::Approx(113e-6).epsilon(1e-9));
  CHECK(r1["idle_s"].get<double>() == echo::test::Approx(100e-6).epsilon(1e-9));
}

TEST_CASE("eight_ranks example: 2128 us, the first all-reduce hidden behind backward") {
  const json j = run_json("examples/eight_ranks/job.yaml");
  CHECK(j["iteration_time_ns"] == 2128000);
  for (const auto& r : j["ranks"]) {
    CHECK(r["compute_s"].get<double>() == echo::test::Approx(1100e-6).epsilon(1e-9));
    CHECK(r["exposed_comm_s"].get<double>() == echo::test::Approx(1028e-6).epsilon(1e-9));
    CHECK(std::abs(r["idle_s"].get<double>()) < 1e-12);
  }
}

TEST_CASE("the JSON summary has the documented fields") {
  const json j = run_json("examples/two_ranks/job.yaml");
  for (const char* key : {"iteration_time_s", "ranks", "simulation", "workload", "platform"})
    CHECK(j.contains(key));
  for (const char* key : {"rank", "compute_s", "exposed_comm_s", "idle_s"})
    CHECK(j["ranks"][0].contains(key));
  for (const char* key : {"wall_s", "events", "peak_rss_mb"})
    CHECK(j["simulation"].contains(key));
  CHECK(j["simulation"]["events"].get<int>() > 0);
}

TEST_CASE("ring AllReduce in the engine: 2(n-1)/n * B/bw + 2(n-1) * lat") {
  // 8 ranks, 80 MB, every route 1 us and 100 GB/s on the example platform.
  TempDir dir;
  const std::string job = job_for(dir, R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 80000000 } } }
ranks { first: 0 count: 8 template_name: "t" })");
  const double n = 8, bytes = 80e6, bw = 100e9, lat = 1e-6;
  const double expected = 2 * (n - 1) / n * bytes / bw + 2 * (n - 1) * lat;
  const double t = run_json("'" + job + "'")["iteration_time_s"].get<double>();
  CHECK(std::abs(t - expected) <= 1e-9 * expected);
}

TEST_CASE("same inputs, byte-identical summary.json and timeline.json") {
  for (const std::string example : {"two_ranks", "eight_ranks"}) {
    TempDir a, b;
    REQUIRE(run_cli("run examples/" + example + "/job.yaml -q --out '" + (a / "o") + "'").code == 0);
    REQUIRE(run_cli("run examples/" + example + "/job.yaml -q --out '" + (b / "o") + "'").code == 0);
    CHECK(slurp(a / "o/summary.json") == slurp(b / "o/summary.json"));
    CHECK(slurp(a / "o/timeline.json") == slurp(b / "o/timeline.json"));
    CHECK_FALSE(slurp(a / "o/timeline.json").empty());
  }
}

TEST_CASE("a folded run's timeline is the unfolded run's, byte for byte: mirrored ranks draw their representative's") {
  // eight_ranks folds onto rank 0 (its data-parallel ring inside one node is timed by one member's
  // steps); TP 4 with context-parallel pairs and pipeline sends on H100s folds its TP siblings and
  // replicas; TP 4 on Polaris, two GPUs a NIC, too.
  TempDir dir;
  const std::string cp = dir.file("cp.yaml", R"(platform: {preset: dgx-h100, nodes: 4}
workload:
  model: {name: llama3-8b, layers: 2, seq_len: 4096}
  training: {global_batch: 8, micro_batch: 1}
  parallel: {tp: 4, cp: 2, pp: 2, dp: 2, zero: 1, dp_overlap: true, sequence_parallel: true}
)");
  const std::string polaris = dir.file("polaris.yaml", R"(platform: {preset: polaris, nodes: 4}
workload:
  model: {name: gpt3-1.3b, layers: 2}
  training: {global_batch: 8, micro_batch: 1}
  parallel: {tp: 4, pp: 2, dp: 2, zero: 1, dp_overlap: true}
)");
  for (const std::string& job : {std::string(ECHO_SOURCE_DIR "/examples/eight_ranks/job.yaml"), cp, polaris}) {
    CAPTURE(job);
    REQUIRE(run_cli("run '" + job + "' -q --out '" + (dir / "folded") + "' --force").code == 0);
    REQUIRE(run_cli("run '" + job + "' -q --no-folding --out '" + (dir / "every") + "' --force").code == 0);
    const json folded = json::parse(slurp(dir / "folded/summary.json")), every = json::parse(slurp(dir / "every/summary.json"));
    CHECK(folded["simulation"]["events"].get<double>() * 2 < every["simulation"]["events"].get<double>());
    CHECK(slurp(dir / "folded/timeline.json") == slurp(dir / "every/timeline.json"));
  }
}

TEST_CASE("timeline.json: a process per rank, a thread per stream, collectives named by op and bytes") {
  TempDir out;
  REQUIRE(run_cli("run examples/eight_ranks/job.yaml -q --out '" + (out / "o") + "'").code == 0);
  const json t = json::parse(slurp(out / "o/timeline.json"));
  int processes = 0, threads = 0, allreduces = 0, kernels = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["name"] == "process_name")
      ++processes;
    if (e["name"] == "thread_name")
      ++threads;
    if (e["ph"] == "X" && e["name"] == "all_reduce 40000000 B") {
      ++allreduces;
      CHECK(e["args"]["communicator"] == "dp.0");
      CHECK(e["dur"].get<double>() == echo::test::Approx(714.0));
    }
    if (e["ph"] == "X" && e["cat"] == "gemm")
      ++kernels;
  }
  CHECK(processes == 8);
  CHECK(threads == 16);
  CHECK(allreduces == 16);
  CHECK(kernels == 16);
  const json s = json::parse(slurp(out / "o/summary.json"));
  CHECK(s["iteration_time_ns"] == 2128000);
  CHECK_FALSE(s["simulation"].contains("wall_s"));  // wall-clock figures would break byte-identity
}

TEST_CASE("timeline.json: host time that gates launches is in category host") {
  TempDir dir;
  const std::string job = job_for(dir, R"(
templates { name: "r" streams: "host" streams: "gpu"
  tasks { id: 1 stream: 0 name: "host until launch" category: HOST compute { duration_ns: 5000 } }
  tasks { id: 2 stream: 1 name: "kernel" category: GEMM deps: 1 compute { duration_ns: 10000 } } }
ranks { first: 0 template_name: "r" })");
  REQUIRE(run_cli("run '" + job + "' -q --out '" + (dir / "o") + "'").code == 0);
  std::map<std::string, std::string> category;
  const json timeline = json::parse(slurp(dir / "o/timeline.json"));
  for (const auto& e : timeline["traceEvents"])
    if (e["ph"] == "X")
      category[e["name"].get<std::string>()] = e["cat"].get<std::string>();
  CHECK(category["host until launch"] == "host");
  CHECK(category["kernel"] == "gemm");
}

TEST_CASE("a preset platform with --set what-if figures") {
  TempDir dir;
  const std::string trace = dir.file("trace.pbtxt", R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 400000000 } } }
ranks { first: 0 count: 16 template_name: "t" })");
  const std::string job = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 2}\nworkload: {trace: trace.pbtxt}\n");
  const double fast = run_json("'" + job + "'")["iteration_time_s"].get<double>();
  const double slow = run_json("'" + job + "' --set platform.nic_bw=100Gbps")["iteration_time_s"].get<double>();
  // The ring crosses the network twice per round: halving the NIC rate nearly doubles the time.
  CHECK(slow > 1.8 * fast);
  CHECK(slow < 2.0 * fast);
}

TEST_CASE("bad input: files that are missing or malformed") {
  TempDir dir;
  CHECK(failure_of("/nonexistent/job.yaml").find("cannot read the job file") != std::string::npos);
  CHECK(failure_of("'" + dir.file("bad.yaml", "platform: {preset: dgx-a100\n") + "'").find("malformed YAML") != std::string::npos);
  CHECK(failure_of("'" + dir.file("keys.yaml", "platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\nextra: 1\n") + "'")
            .find("unknown key 'extra'") != std::string::npos);
  CHECK(failure_of("'" + dir.file("notrace.yaml", "platform: {preset: dgx-a100}\nworkload: {trace: missing.pbtxt}\n") + "'")
            .find("missing.pbtxt: cannot read the trace file") != std::string::npos);
  const std::string bad_trace = job_for(dir, "templates { name: \"t\" streams: \"s\"\n  tasks { id: 1 stream: 0 compute { duration_ns: -5 } } }\n");
  CHECK(failure_of("'" + bad_trace + "'").find("trace.pbtxt:2: malformed text-format trace") != std::string::npos);
}

TEST_CASE("bad input: platforms") {
  TempDir dir;
  const std::string trace = dir.file("trace.pbtxt", R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "k" compute { duration_ns: 5 } } }
ranks { first: 0 count: 9 template_name: "t" })");
  CHECK(failure_of("'" + dir.file("few.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: trace.pbtxt}\n") + "'")
            .find("the workload has 9 ranks but the platform") != std::string::npos);
  CHECK(failure_of("'" + dir.file("preset.yaml", "platform: {preset: dgx-b900}\nworkload: {trace: trace.pbtxt}\n") + "'")
            .find("unknown platform preset 'dgx-b900'") != std::string::npos);
  const std::string no_gpu = dir.file("nogpu.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                                                   "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\"><host id=\"h\" speed=\"1f\"/></zone></platform>\n");
  CHECK(failure_of("'" + dir.file("nogpu.yaml", "platform: {file: nogpu.xml}\nworkload: {trace: trace.pbtxt}\n") + "'")
            .find("the platform has no GPU") != std::string::npos);
  const std::string broken = dir.file("broken.xml", "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                                                    "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\"><hots/></zone></platform>\n");
  CHECK(failure_of("'" + dir.file("broken.yaml", "platform: {file: broken.xml}\nworkload: {trace: trace.pbtxt}\n") + "'")
            .find("broken.xml:4: not a valid SimGrid platform") != std::string::npos);
}

TEST_CASE("bad input: dependencies") {
  TempDir dir;
  CHECK(failure_of("'" + job_for(dir, two_ranks(R"(tasks { id: 1 stream: 0 name: "a" deps: 7 compute { duration_ns: 5 } })",
                                                  R"(tasks { id: 1 stream: 0 name: "b" compute { duration_ns: 5 } })")) + "'")
            .find("depends on task 7, which does not exist") != std::string::npos);
  CHECK(failure_of("'" + job_for(dir, two_ranks(R"(tasks { id: 1 stream: 0 name: "a" deps: 2 compute { duration_ns: 5 } }
                                                  tasks { id: 2 stream: 0 name: "b" compute { duration_ns: 5 } })",
                                                  R"(tasks { id: 1 stream: 0 name: "c" compute { duration_ns: 5 } })")) + "'")
            .find("dependency cycle: task 1 ('a') -> task 2 ('b') -> task 1 ('a')") != std::string::npos);
}

TEST_CASE("bad input: collective members that disagree") {
  TempDir dir;
  const std::string ar = R"(tasks { id: 1 stream: 0 name: "x" collective { op: OP comm: "world" bytes: BYTES } })";
  auto with = [&](std::string op, std::string bytes) {
    std::string t = ar;
    t.replace(t.find("OP"), 2, op);
    t.replace(t.find("BYTES"), 5, bytes);
    return t;
  };
  const std::string size = failure_of("'" + job_for(dir, two_ranks(with("ALL_REDUCE", "64"), with("ALL_REDUCE", "128"))) + "'");
  CHECK(size.find("members of one collective disagree on communicator 'world', call #0") != std::string::npos);
  CHECK(size.find("all_reduce of 64 bytes") != std::string::npos);
  CHECK(size.find("all_reduce of 128 bytes") != std::string::npos);
  const std::string op = failure_of("'" + job_for(dir, two_ranks(with("ALL_REDUCE", "64"), with("ALL_GATHER", "64"))) + "'");
  CHECK(op.find("all_gather of 64 bytes") != std::string::npos);
}

TEST_CASE("an error that stops the run while other streams were just woken is a clean exit 2, not an abort") {
  // Each rank's recv ends at the same instant on both ranks; rank 1 then reaches an AllReduce no
  // allowed algorithm can run and stops the run while rank 0's first stream is being woken. SimGrid
  // unwinds the killed waiter; core/cooperative_wait.hpp keeps that from aborting the process.
  TempDir dir;
  const std::string rank = R"(streams: "s" streams: "t"
    tasks { id: 2 name: "send" send { comm: "world" peer: PEER bytes: 8192 } }
    tasks { id: 3 stream: 1 name: "recv" recv { comm: "world" peer: PEER bytes: 8192 } }
    tasks { id: 4 deps: 3 name: "joined" compute { duration_ns: 0 } }
    tasks { id: 5 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 64 } })";
  auto of = [&](const char* peer) {
    std::string r = rank;
    for (std::size_t at; (at = r.find("PEER")) != std::string::npos;)
      r.replace(at, 4, peer);
    return r;
  };
  const std::string trace = dir.file("t.pbtxt", "templates { name: \"r0\" " + of("1") + " }\ntemplates { name: \"r1\" " + of("0") +
                                                    " }\nranks { first: 0 template_name: \"r0\" }\nranks { first: 1 template_name: \"r1\" }\n");
  const std::string job = dir.file("job.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: " + trace +
                                                   "}\ncommunication: {algo: nvls}\n");
  CHECK(failure_of("'" + job + "'").find("echo-des: error: " + job + ": no allowed algorithm and protocol can run all_reduce") !=
        std::string::npos);
}

TEST_CASE("a collective on a communicator of one rank takes no time (NCCL copies within the GPU at most)") {
  TempDir dir;
  const std::string trace = dir.file("t.pbtxt", R"(templates { name: "r" streams: "s"
      tasks { id: 1 name: "k" compute { duration_ns: 1000 } }
      tasks { id: 2 name: "ar" collective { op: ALL_REDUCE comm: "solo" bytes: 1048576 } }
      tasks { id: 3 name: "k2" compute { duration_ns: 1000 } } }
    communicators { name: "solo0" slot: "solo" ranks: 0 }
    communicators { name: "solo1" slot: "solo" ranks: 1 }
    ranks { first: 0 count: 2 template_name: "r" })");
  const auto j = run_json("'" + dir.file("job.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: " + trace + "}\n") + "'");
  CHECK(j["iteration_time_ns"] == 2000);
}

TEST_CASE("bad input: a deadlock names the call, who arrived and who never did") {
  TempDir dir;
  const std::string e = failure_of(
      "'" + job_for(dir, two_ranks(R"(tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 64 } })",
                                   R"(tasks { id: 1 stream: 0 name: "r" recv { comm: "world" peer: 0 bytes: 8 } })")) + "'");
  CHECK(e.find("deadlock") != std::string::npos);
  CHECK(e.find("all_reduce of 64 bytes on communicator 'world', call #0: ranks that arrived: 0; ranks that never did: 1") !=
        std::string::npos);
  CHECK(e.find("recv of 8 bytes on send/recv from rank 0 to rank 1, transfer #0: ranks that arrived: 1; ranks that never did: 0") !=
        std::string::npos);
}

TEST_CASE("bad input: a deadlock report says what each blocked stream waits for on another stream") {
  TempDir dir;
  const std::string rank0 = R"(streams: "a" streams: "b"
      tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 64 } }
      tasks { id: 2 stream: 1 deps: 1 name: "after" compute { duration_ns: 10 } })";
  const std::string trace = dir.file("t.pbtxt", "templates { name: \"r0\" " + rank0 +
                                                    " }\ntemplates { name: \"r1\" streams: \"a\" }\n"
                                                    "communicators { name: \"world\" slot: \"world\" ranks: [0, 1] }\n"
                                                    "ranks { first: 0 template_name: \"r0\" }\nranks { first: 1 template_name: \"r1\" }\n");
  const std::string e = failure_of("'" + dir.file("job.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: " + trace + "}\n") + "'");
  CHECK(e.find("blocked: rank 0 stream 'b' at task 'after', which waits for stream 'a' to finish 'ar'") != std::string::npos);
}

TEST_CASE("bad input: a deadlock under `flow` says when the streams stopped, not the end of time") {
  // The `flow` model's receivers sleep until the end of time, and the engine's clock ran on there
  // when every stream was stuck: the message printed a 309-digit time.
  TempDir dir;
  const std::string trace = dir.file("t.pbtxt", two_ranks(R"(tasks { id: 1 stream: 0 name: "k" compute { duration_ns: 5000 } }
      tasks { id: 2 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 64 } })",
                                                          R"(tasks { id: 1 stream: 0 name: "r" recv { comm: "world" peer: 0 bytes: 8 } })"));
  const std::string e = failure_of("'" + dir.file("job.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: " + trace +
                                                  "}\ncommunication: {fidelity: flow}\n") + "'");
  CHECK(e.find("deadlock: the simulation cannot go on after t = 0.000005 s") != std::string::npos);
}

TEST_CASE("a generated job whose framework's timers synchronize the device runs the interleaved schedule") {
  // Megatron-DeepSpeed's timers synchronize at every step; with interleaving a device-wide wait
  // held a send whose receive the neighbour posts only at its next pass: two stages deadlocked.
  TempDir dir;
  const std::string job = dir.file("job.yaml", R"(platform: {preset: dgx-a100, nodes: 1}
workload:
  model: {layers: 4, hidden: 1024, heads: 8, seq_len: 512, vocab: 32000}
  training: {global_batch: 4, micro_batch: 1, framework: megatron-deepspeed}
  parallel: {tp: 1, pp: 2, dp: 1, schedule: interleaved-1f1b, virtual_stages: 2}
)");
  runs_under_steps_and_flow(job);
}

TEST_CASE("a generated MoE job whose host reads the dispatch sizes runs the interleaved schedule with blocking pipeline sends") {
  // The host waits for each MoE layer's routing before the dispatch; with the interleaved schedule
  // the builder posted a pass's receive only as the pass began, behind the previous pass's wait,
  // while the neighbour's next kernel waited for its send to that receive: the stages deadlocked
  // (found by scripts/random_jobs.py). Megatron posts it ahead, with the exchange before.
  TempDir dir;
  const std::string job = dir.file("job.yaml", R"(platform: {preset: dgx-h100, nodes: 1}
workload:
  model: {layers: 6, hidden: 1024, heads: 8, seq_len: 1024, vocab: 32000, moe: {experts: 8, top_k: 2}}
  training: {global_batch: 8, micro_batch: 1, framework: megatron-lm}
  parallel: {pp: 2, ep: 2, dp: 2, schedule: interleaved-1f1b, virtual_stages: 3, p2p_overlap: false}
)");
  runs_under_steps_and_flow(job);
}

TEST_CASE("help: every command says what it does, with an example") {
  for (const std::string cmd :
       {"--help", "run --help", "platform --help", "platform generate --help", "platform info --help", "platform list --help",
        "nccl-tests --help"}) {
    const auto r = run_cli(cmd);
    CHECK(r.code == 0);
    CHECK(r.out.find("Example") != std::string::npos);
  }
  CHECK(run_cli("frobnicate").code == 2);
  CHECK(run_cli("run").code == 2);
}

TEST_CASE("a NIC or switch latency below what the collective model can feel says so") {
  // The default job writes into out/default: each run here writes into its own folder instead,
  // as tests run side by side.
  TempDir out;
  int runs = 0;
  const auto in_own_folder = [&] { return " --out '" + (out / std::to_string(runs++)) + "'"; };
  // Below NCCL's smallest per-hop network latency the route's own latency is never used.
  const json low = run_json("examples/default/job.yaml --set platform.nic_latency=100ns" + in_own_folder());
  REQUIRE(low.contains("notes"));
  CHECK(low["notes"][0].get<std::string>().rfind("nic_latency 100ns: the route between nodes takes 0.33 us one way, below NCCL's "
                                                 "smallest per-hop network latency (2.7 us)", 0) == 0);
  CHECK(low["iteration_time_ns"] == run_json("examples/default/job.yaml" + in_own_folder())["iteration_time_ns"]);
  for (const json& note : run_json("examples/two_ranks/job.yaml" + in_own_folder()).value("notes", json::array()))  // a platform file: its own latencies
    CHECK(note.get<std::string>().find("latency") == std::string::npos);
  const json switch_low = run_json("examples/default/job.yaml --set platform.switch_latency=50ns" + in_own_folder());
  CHECK(switch_low["notes"][0].get<std::string>().find("switch_latency 50ns: the route between nodes takes") == 0);
  TempDir dir;
  const std::string one_node = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1, nic_latency: 3us}\n"
                                                    "workload: {trace: " ECHO_SOURCE_DIR "/examples/eight_ranks/trace.pbtxt}\n");
  CHECK(run_json("'" + one_node + "'")["notes"][0] ==
        "nic_latency 3us: the platform has one node, so no route crosses a NIC or a switch and the change moves nothing");
  CHECK_FALSE(run_json("examples/default/job.yaml" + in_own_folder()).contains("notes"));
  CHECK_FALSE(run_json("examples/default/job.yaml --set platform.nic_latency=5us" + in_own_folder()).contains("notes"));  // above the floor
}

TEST_CASE("a preset far larger than the job is refused before it is built, with the cost and the size that holds the job") {
  const auto r = run_cli("run examples/default/job.yaml -q --set platform.nodes=100000");
  CHECK(r.code == 2);
  CHECK(r.err.find("examples/default/job.yaml: the platform has 100000 nodes, but the job's 16 ranks use only the first 2") !=
        std::string::npos);
  CHECK(r.err.find("building the others would take at least 119 s and 5.6 GB") != std::string::npos);
  CHECK(r.err.find("how to fix: set platform.nodes to 2") != std::string::npos);
  // A generated job whose layout fixes its rank count: the same.
  const auto g = run_cli("run examples/llama3_8b_zero3/job.yaml -q --set platform.nodes=5000");
  CHECK(g.code == 2);
  CHECK(g.err.find("the job's 16 ranks use only the first 2") != std::string::npos);
  // Up to 1,250 nodes (built in well under a second) the idle GPUs are only named.
  TempDir out;
  CHECK(run_cli("run examples/default/job.yaml -q --set platform.nodes=1250 --out '" + (out / "big") + "'").code == 0);
}

TEST_CASE("a job on fewer ranks than the platform has GPUs says which GPUs sit idle") {
  TempDir dir;
  dir.file("trace.pbtxt", R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 1000000 } } }
ranks { first: 0 count: 12 template_name: "t" })");
  const std::string job = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 2}\nworkload: {trace: trace.pbtxt}\n");
  const auto j = run_json("'" + job + "'");
  REQUIRE(j.contains("notes"));
  CHECK(j["notes"][0] == "the job has 12 ranks on GPUs 0..11; the platform's other 4 GPUs are idle");
  const std::string full = dir.file("full.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {trace: trace8.pbtxt}\n");
  dir.file("trace8.pbtxt", R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 1000000 } } }
ranks { first: 0 count: 8 template_name: "t" })");
  CHECK_FALSE(run_json("'" + full + "'").contains("notes"));
}

TEST_CASE("platform generate writes a platform that run accepts") {
  TempDir dir;
  const auto r = run_cli("platform generate --preset h800 --nodes 2 --nic_bw 200Gbps -o '" + (dir / "p.xml") + "'");
  REQUIRE(r.code == 0);
  const std::string xml = slurp(dir / "p.xml");
  CHECK(xml.find("bandwidth=\"200Gbps\"") != std::string::npos);
  CHECK(xml.find("value=\"H800-SXM5-80GB\"") != std::string::npos);
  const std::string trace = dir.file("trace.pbtxt", R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 1000000 } } }
ranks { first: 0 count: 16 template_name: "t" })");
  const std::string job = dir.file("job.yaml", "platform: {file: p.xml}\nworkload: {trace: trace.pbtxt}\n");
  CHECK(run_json("'" + job + "'")["platform"]["gpus"] == 16);
  const auto bad = run_cli("platform generate --preset h800 --nodes 2 --nic_bw 2furlongs");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("not a valid bandwidth") != std::string::npos);
}

TEST_CASE("platform list shows every preset with its figures, where they come from and what is approximated") {
  const auto r = run_cli("platform list");
  REQUIRE(r.code == 0);
  for (const std::string name : {"dgx-a100", "azure-ndv4-a100", "dgx-h100", "h800", "aws-p5", "gcp-a3-mega", "polaris"})
    CHECK_MESSAGE(("\n" + r.out).find("\n" + name + "\n") != std::string::npos, name);
  CHECK(r.out.find("32 x 100Gbps NICs (4 per GPU)") != std::string::npos);
  CHECK(r.out.find("source: AWS EC2 P5 instance page") != std::string::npos);
  CHECK(r.out.find("collective model: fitted: nccl.coll_channel_bw.net=20.1 nccl.efficiency.all_to_all=0.917 "
                   "nccl.efficiency.all_to_all_nvlink=0.929 nccl.efficiency.nvls=0.821 nccl.efficiency.nvls_tree=0.74") !=
        std::string::npos);  // Hopper
  CHECK(r.out.find("collective model: fitted: nccl.efficiency.all_to_all=0.885 nccl.efficiency.ll=0.507") != std::string::npos);
  CHECK(r.out.find("collective model: fitted: nccl.efficiency.all_to_all=0.517 nccl.efficiency.net=0.764 nccl.extra_hop_us.net=7 nccl.net_overhead_us=8.19 nccl.p2p_peer_us.net=9.22 nccl.tail_copy_bw.ring=55.5\n") != std::string::npos);
  const auto json = nlohmann::json::parse(run_cli("platform list --json").out);
  REQUIRE(json.size() == 7);
  CHECK(json[6]["preset"] == "polaris");
  CHECK(json[6]["gpu_nic_path"] == "phb");  // ALCF's NCCL_NET_GDR_LEVEL=PHB
  CHECK(r.out.find("amd CPU, GPU-NIC path phb, GPU speed spread") != std::string::npos);
  CHECK(json[6]["approximation"].get<std::string>().find("NVLink without NVSwitch") != std::string::npos);
  CHECK(json[0]["collective_parameters"]["nccl.efficiency.net"] == "0.96");  // bare metal (Sophia)
  CHECK(json[1]["collective_parameters"]["nccl.efficiency.net"] == "0.64");  // Azure's virtual machines
}

TEST_CASE("nccl-tests takes the NCCL release, and names the known ones when it does not know it") {
  const auto old_release = run_cli("nccl-tests --platform preset:dgx-h100:2 --gpus 16 -b 1G -e 1G --nccl-version 2.17");
  REQUIRE(old_release.code == 0);
  CHECK(old_release.out.find("; NCCL 2.17\n") != std::string::npos);
  CHECK(old_release.out.find("NVLS") == std::string::npos);  // NVLSTree came with 2.18
  CHECK(run_cli("nccl-tests --platform preset:dgx-h100:2 --gpus 16 -b 1G -e 1G").out.find("NVLSTree/Simple") != std::string::npos);
  const auto unknown = run_cli("nccl-tests --platform preset:dgx-h100:2 --gpus 16 --nccl-version 2.31");
  CHECK(unknown.code == 2);
  CHECK(unknown.err.find("--nccl-version: unknown NCCL version '2.31'") != std::string::npos);
  CHECK(unknown.err.find("2.12 to 2.29") != std::string::npos);
}

TEST_CASE("platform info shows the GPU index and routes as the engine sees them") {
  const auto r = run_cli("platform info examples/platforms/one_node_8gpu.xml --route 0,7");
  REQUIRE(r.code == 0);
  CHECK(r.out.find("GPUs:     8 in 1 nodes") != std::string::npos);
  CHECK(r.out.find("0 -> 7 (gpu0 -> gpu7): nvlink, latency 1.000 us, bottleneck 100.0 GB/s") != std::string::npos);
  const auto preset = run_cli("platform info --preset dgx-a100 --nodes 2 --nic_latency 2us");
  REQUIRE(preset.code == 0);
  CHECK(preset.out.find("0 -> 8 (node0-gpu0 -> node1-gpu0): network, latency 4.130 us, bottleneck 25.0 GB/s\n") != std::string::npos);
  // Across pods (32 nodes each), the pod's up-link: 32 nodes x 8 NICs x 25 GB/s / 4.
  const auto pods = run_cli("platform info --preset dgx-a100 --nodes 34 --oversubscription 4 --route 0,256");
  REQUIRE(pods.code == 0);
  CHECK(pods.out.find("bottleneck 25.0 GB/s, out of its pod through 1600.0 GB/s shared by all that leaves it") != std::string::npos);
  CHECK(run_cli("platform info examples/platforms/one_node_8gpu.xml --route 0,9").err.find("GPUs are numbered 0 to 7") !=
        std::string::npos);
  CHECK(run_cli("platform info examples/platforms/one_node_8gpu.xml --route 0-9").code == 2);
  CHECK(run_cli("platform info").code == 2);
  const auto zero = run_cli("platform info --preset dgx-a100 --nodes 0");
  CHECK(zero.code == 2);
  CHECK(zero.err.find("--nodes: Value 0 not in range 1 to 1000000") != std::string::npos);
}

TEST_CASE("a job's algorithm list: a bad name is the user's error, with the job file's line") {
  TempDir dir;
  const std::string job = job_for(dir, R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 8000000 } } }
ranks { first: 0 count: 8 template_name: "t" })");
  std::ofstream(job, std::ios::app) << "communication:\n  algo: ring,star\n";
  const std::string message = failure_of("'" + job + "'");
  CHECK(message.find("job.yaml:4 (communication.algo)") != std::string::npos);
  CHECK(message.find("unknown algorithm 'star'") != std::string::npos);
  // Each name once, NCCL's and the registry's together.
  CHECK(message.find("use: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT, Hierarchical, p2p, pairwise") != std::string::npos);
}

TEST_CASE("the eight_ranks example takes its hand-computed 2128 us at every fidelity") {
  for (const char* fidelity : {"steps", "analytic", "flow"}) {
    CAPTURE(fidelity);
    CHECK(run_json(std::string("examples/eight_ranks/job.yaml --set communication.fidelity=") + fidelity)["iteration_time_ns"] ==
          2128000);
  }
}

TEST_CASE("a job in `analytic` fidelity gives the uncontended ring time of `steps`") {
  TempDir dir;
  const std::string job = job_for(dir, R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 80000000 } } }
ranks { first: 0 count: 8 template_name: "t" })");
  const double steps = run_json("'" + job + "'")["iteration_time_s"].get<double>();
  const double analytic = run_json("'" + job + "' --set communication.fidelity=analytic")["iteration_time_s"].get<double>();
  CHECK(steps == echo::test::Approx(analytic).epsilon(1e-9));
}

namespace {

// GPU 0 of each of `nodes` DGX A100 nodes all-reduce 256 MB on communicator "a" (ranks 0, 8, 16,
// ...); with `both`, GPU 1 of each node does the same on "b" at the same time. Every byte crosses
// between nodes, so both calls need the nodes' NICs.
std::string cross_node_allreduces(bool both, int nodes = 2) {
  auto ring = [&](int gpu) {
    std::string ranks;
    for (int n = 0; n < nodes; ++n)
      ranks += (n ? ", " : "") + std::to_string(8 * n + gpu);
    return ranks;
  };
  std::string t = R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "x" bytes: 256000000 } } }
templates { name: "idle" streams: "s" }
)";
  t += "communicators { name: \"a\" slot: \"x\" ranks: [" + ring(0) + "] }\n";
  if (both)
    t += "communicators { name: \"b\" slot: \"x\" ranks: [" + ring(1) + "] }\n";
  for (int n = 0; n < nodes; ++n) {
    const std::string first = std::to_string(8 * n);
    t += both ? "ranks { first: " + first + " count: 2 template_name: \"t\" }\n"
              : "ranks { first: " + first + " count: 1 template_name: \"t\" }\nranks { first: " + std::to_string(8 * n + 1) +
                    " count: 1 template_name: \"idle\" }\n";
    t += "ranks { first: " + std::to_string(8 * n + 2) + " count: 6 template_name: \"idle\" }\n";
  }
  return t;
}

double end_of(const json& summary, int rank) { return summary["ranks"][rank]["end_s"].get<double>(); }

// cross_node_allreduces on dgx-a100 with `nics` NICs a node, nccl.tail_copy_bw.ring as given (empty:
// the preset's).
json run_allreduces(TempDir& dir, bool both, const std::string& fidelity, int nics, int nodes, const std::string& tail = "") {
  const std::string name = std::to_string(both) + fidelity + std::to_string(nics) + "-" + std::to_string(nodes) + tail;
  const std::string trace = dir.file("trace" + name + ".pbtxt", cross_node_allreduces(both, nodes));
  const std::string job = dir.file("job" + name + ".yaml",
                                   "platform: {preset: dgx-a100, nodes: " + std::to_string(nodes) + ", nics_per_node: " +
                                       std::to_string(nics) + (tail.empty() ? "" : ", nccl.tail_copy_bw.ring: " + tail) +
                                       "}\nworkload: {trace: " + trace + "}\ncommunication: {fidelity: " + fidelity + "}\n");
  return run_json("'" + job + "'");
}

} // namespace

TEST_CASE("steps: two collectives sharing a NIC at the same time each take twice as long, as SimGrid's flows say") {
  // With 4 NICs per node, GPUs 0 and 1 share NIC 0: calls "a" and "b" meet on it at every step.
  // The ring's wait for its last copies is left out (nccl.tail_copy_bw.ring: 0): under `flow` the
  // other call fills that time with its own bytes (the next test), which `steps` does not.
  TempDir dir;
  auto run = [&](bool both, const std::string& fidelity, int nics, int nodes = 2) {
    return run_allreduces(dir, both, fidelity, nics, nodes, "0");
  };
  const json alone = run(false, "steps", 4), together = run(true, "steps", 4);
  const double t = end_of(alone, 0);
  // The two rings start together and step together: every step of each shares the NIC with the
  // other's, so each call takes twice its time alone, like SimGrid's fair sharing below.
  for (int rank : {0, 1, 8, 9}) {
    CAPTURE(rank);
    CHECK(end_of(together, rank) == echo::test::Approx(2 * t).epsilon(0.02));
  }
  // `analytic` has no links to share: each call takes its time alone.
  const json analytic = run(true, "analytic", 4);
  CHECK(end_of(analytic, 0) == echo::test::Approx(t).epsilon(1e-9));
  CHECK(end_of(analytic, 1) == echo::test::Approx(t).epsilon(1e-9));
  // `flow`: the steps as SimGrid flows. Alone, the same time as `steps` (to SimGrid's timing
  // precision); together, SimGrid shares the NIC fairly for the whole time, so each call takes
  // twice as long, but for the hops' latencies, which are not shared: 1.997 x here.
  CHECK(end_of(run(false, "flow", 4), 0) == echo::test::Approx(t).epsilon(1e-6));
  const json flow = run(true, "flow", 4);
  for (int rank : {0, 1, 8, 9}) {
    CAPTURE(rank);
    CHECK(end_of(flow, rank) == echo::test::Approx(2 * t).epsilon(0.005));
    CHECK(end_of(flow, rank) < 2 * t);
  }
  // With a NIC per GPU (rails), the two calls leave through different NICs and do not meet.
  const json rails_alone = run(false, "steps", 8), rails = run(true, "steps", 8);
  CHECK(end_of(rails, 0) == echo::test::Approx(end_of(rails_alone, 0)).epsilon(1e-9));
  CHECK(end_of(rails, 1) == echo::test::Approx(end_of(rails_alone, 0)).epsilon(1e-9));
}

TEST_CASE("flow: a second ring fills the time a ring's links wait at the end of its chunks, which steps leaves empty") {
  // Two-member rings across nodes: 2 rounds, and the wait for each channel's last copies (the
  // preset's nccl.tail_copy_bw.ring) spread over them.
  TempDir dir;
  const double t = end_of(run_allreduces(dir, false, "steps", 4, 2), 0);
  const double untailed = end_of(run_allreduces(dir, false, "steps", 4, 2, "0"), 0);
  CHECK(t > untailed * 1.05);  // the wait shows alone
  CHECK(end_of(run_allreduces(dir, true, "steps", 4, 2), 0) == echo::test::Approx(2 * t).epsilon(0.02));
  // Under `flow` each call's flows ask for its paced rate, below the NIC's: the two share the NIC
  // by its capacity, each moving its bytes at half of it, as if neither waited.
  const json flow = run_allreduces(dir, true, "flow", 4, 2);
  CHECK(end_of(flow, 0) == echo::test::Approx(2 * untailed).epsilon(0.02));
  CHECK(end_of(flow, 0) < 2 * t * 0.97);
}

TEST_CASE("steps: rings of 16 nodes sharing NICs still share them at every step") {
  // A ring's steps leave gaps of a hop's latency between them on a NIC; a step of the other ring
  // that starts in such a gap overlaps the next one and must share the NIC with it (counting the
  // calls busy at a step's start only, these rings took 1.02x their time alone instead of 2x).
  TempDir dir;
  auto run = [&](bool both, const std::string& fidelity) {
    const std::string name = std::to_string(both) + fidelity;
    const std::string trace = dir.file("trace" + name + ".pbtxt", cross_node_allreduces(both, 16));
    const std::string job = dir.file("job" + name + ".yaml", "platform: {preset: dgx-a100, nodes: 16, nics_per_node: 4}\nworkload: {trace: " +
                                                                   trace + "}\ncommunication: {fidelity: " + fidelity + "}\n");
    return run_json("'" + job + "'");
  };
  const double t = end_of(run(false, "steps"), 0);
  const json steps = run(true, "steps"), flow = run(true, "flow");
  for (int rank : {0, 1, 120, 121}) {
    CAPTURE(rank);
    CHECK(end_of(steps, rank) > 1.8 * t);
    CHECK(end_of(steps, rank) == echo::test::Approx(end_of(flow, rank)).epsilon(0.05));
  }
}

TEST_CASE("flow: an AllToAll across nodes sends each member's part on its own rail, as steps times it") {
  // GPUs 0, 2, 4, 6 of two DGX A100 nodes exchange 512 MB each: every send crosses on the
  // sender's NIC. Laid on every rail of the call (a ring step's channels are), the four members'
  // sends would each take all four of the call's NICs: 4x the time.
  TempDir dir;
  std::string t = R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "a2a" collective { op: ALL_TO_ALL comm: "x" bytes: 512000000 } } }
templates { name: "idle" streams: "s" }
communicators { name: "e" slot: "x" ranks: [0, 2, 4, 6, 8, 10, 12, 14] }
)";
  for (int r = 0; r < 16; ++r)
    t += "ranks { first: " + std::to_string(r) + " count: 1 template_name: \"" + (r % 2 == 0 ? "t" : "idle") + "\" }\n";
  const std::string trace = dir.file("trace.pbtxt", t);
  auto run = [&](const std::string& fidelity) {
    const std::string job = dir.file("job-" + fidelity + ".yaml", "platform: {preset: dgx-a100, nodes: 2}\nworkload: {trace: " + trace +
                                                                      "}\ncommunication: {fidelity: " + fidelity + "}\n");
    return end_of(run_json("'" + job + "'"), 0);
  };
  const double steps = run("steps"), flow = run("flow");
  CHECK(flow == echo::test::Approx(steps).epsilon(0.05));
}

TEST_CASE("flow: a tree or NVLS call's own concurrent steps do not contend with each other a second time") {
  // A tree's up and down streams run over each NVLink port at once, each costed with the other
  // there; NVLS sends to every peer at once. As flows at the route's full rate they shared the
  // port again: a one-node tree AllReduce took 5x its steps time and NVLS 15x; a 16-node data-
  // parallel tree (chains of forwarding steps, each flow started only once the one before it
  // had ended) 14x.
  TempDir dir;
  auto exposed = [&](int nodes, const std::string& algo, const std::string& fidelity, const std::string& group,
                     const std::string& parallel = "") {
    const std::string job = dir.file("job-" + std::to_string(nodes) + algo + fidelity + parallel + ".yaml",
                                     "platform: {preset: dgx-h100, nodes: " + std::to_string(nodes) +
                                         "}\nworkload:\n  model: {layers: 1, hidden: 4096, heads: 32, ffn_hidden: 8192, vocab: 32000, "
                                         "seq_len: 4096}\n  training: {global_batch: " + std::to_string(nodes) +
                                         ", micro_batch: 1, dtype: bf16}\n  parallel: {tp: 8, pp: 1, dp: " + std::to_string(nodes) +
                                         parallel + "}\ncommunication: {fidelity: " + fidelity + ", algo: " + algo + "}\n");
    return exposed_comm_s(run_json("'" + job + "'"), group);
  };
  CHECK(exposed(1, "tree", "flow", "tp") == echo::test::Approx(exposed(1, "tree", "steps", "tp")).epsilon(0.01));
  CHECK(exposed(1, "ring", "flow", "tp") == echo::test::Approx(exposed(1, "ring", "steps", "tp")).epsilon(0.01));
  CHECK(exposed(4, "tree", "flow", "dp") == echo::test::Approx(exposed(4, "tree", "steps", "dp")).epsilon(0.01));
  // NVLS's per-peer steps stand for the switch's reduction and multicast: their flows carry the
  // bytes a port really moves (Step::wire_share), else 1.75x a call's bytes left each GPU and
  // NVLS was 12% slow even after the caps.
  CHECK(exposed(1, "nvls", "flow", "tp") == echo::test::Approx(exposed(1, "nvls", "steps", "tp")).epsilon(0.01));
  // With sequence parallelism: NVLS AllGathers and ReduceScatters.
  const std::string sp = ", sequence_parallel: true";
  CHECK(exposed(1, "nvls", "flow", "tp", sp) == echo::test::Approx(exposed(1, "nvls", "steps", "tp", sp)).epsilon(0.01));
}

TEST_CASE("flow: a step across nodes on several rails sends each rail's share from that rail's GPU") {
  // 16 GPUs of two DGX H100 nodes, one 256 MiB call: a ring step across the nodes needs 7 of the
  // 8 NICs. Mailbox flows leave from the host of the actor that sends them: all sent by the
  // step's own GPU, the 7 rails' flows squeezed through its one NIC (AllGather 5.9x its steps
  // time). And a double binary tree's two trees send across on different rails, as NCCL's
  // channels do (on the same ones the tree was 45% slow).
  TempDir dir;
  auto end = [&](const std::string& op, const std::string& fidelity, const std::string& algo) {
    const std::string trace = dir.file("trace-" + op + ".pbtxt",
                                       "templates { name: \"t\" streams: \"s\" tasks { id: 1 stream: 0 name: \"c\" collective { op: " +
                                           op + " comm: \"x\" bytes: 268435456 } } }\n"
                                                "communicators { name: \"d\" slot: \"x\" ranks: [0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15] }\n"
                                                "ranks { first: 0 count: 16 template_name: \"t\" }\n");
    const std::string job = dir.file("job-" + op + fidelity + algo + ".yaml",
                                     "platform: {preset: dgx-h100, nodes: 2}\nworkload: {trace: " + trace +
                                         "}\ncommunication: {fidelity: " + fidelity + ", algo: " + algo + "}\n");
    return run_json("'" + job + "'")["iteration_time_s"].get<double>();
  };
  CHECK(end("ALL_GATHER", "flow", "ring") == echo::test::Approx(end("ALL_GATHER", "steps", "ring")).epsilon(0.01));
  CHECK(end("REDUCE_SCATTER", "flow", "ring") == echo::test::Approx(end("REDUCE_SCATTER", "steps", "ring")).epsilon(0.01));
  CHECK(end("ALL_REDUCE", "flow", "tree") == echo::test::Approx(end("ALL_REDUCE", "steps", "tree")).epsilon(0.01));
  // NVLS inside the nodes, a tree across them (the default choice here).
  CHECK(end("ALL_REDUCE", "flow", "nvlstree") == echo::test::Approx(end("ALL_REDUCE", "steps", "nvlstree")).epsilon(0.01));
}

TEST_CASE("summary.json records the job as it ran: figures, overrides, the environment that mattered, the version") {
  TempDir dir;
  REQUIRE(run_cli("run examples/default/job.yaml -q --set platform.nic_bw=100Gbps --out '" + (dir / "o") + "'",
                  "NCCL_ALGO=ring NCCL_PROTO=LL128")
              .code == 0);
  const json job = json::parse(slurp(dir / "o/summary.json"))["job"];
  CHECK(job["echo_des_version"] == run_cli("--version").out.substr(std::string("echo-des ").size(), job["echo_des_version"].get<std::string>().size()));
  CHECK(job["file"] == "examples/default/job.yaml");
  CHECK(job["overrides"] == json::array({"platform.nic_bw=100Gbps"}));
  CHECK(job["environment"] == json({{"NCCL_ALGO", "ring"}, {"NCCL_PROTO", "LL128"}}));
  CHECK(job["communication"]["algo"] == "ring");
  CHECK(job["communication"]["algo_from"] == "NCCL_ALGO in the environment");
  CHECK(job["communication"]["fidelity"] == "steps");
  CHECK(job["communication"]["nccl_version"] == "2.29");
  // The preset's figures made explicit, the override among them, the fitted ones too.
  CHECK(job["platform"]["preset"] == "dgx-a100");
  CHECK(job["platform"]["nic_bw"] == "100Gbps");
  CHECK(job["platform"]["nvlink_bw"] == "240GBps");
  CHECK(job["platform"]["nccl.efficiency.net"] == "0.96");
  CHECK(job["workload"]["format"] == "trace");
  CHECK(job["slowdown"]["model"] == "none");
  // A job file's own list is not the environment's, even with the variable set.
  REQUIRE(run_cli("run examples/eight_ranks/job.yaml -q --out '" + (dir / "p") + "'", "NCCL_PROTO=LL").code == 0);
  const json own = json::parse(slurp(dir / "p/summary.json"))["job"];
  CHECK(own["environment"].empty());
  CHECK(own["communication"]["proto"] == "simple");
}

TEST_CASE("NCCL_MIN_CTAS / NCCL_MAX_CTAS from the environment: used, recorded, refused when not a count") {
  TempDir dir;
  REQUIRE(run_cli("run examples/llama3_8b_zero3/job.yaml -q --out '" + (dir / "min") + "'", "NCCL_MIN_CTAS=24").code == 0);
  const json job = json::parse(slurp(dir / "min/summary.json"))["job"];
  CHECK(job["environment"] == json({{"NCCL_MIN_CTAS", 24}}));
  CHECK(job["communication"]["min_ctas"] == 24);
  CHECK_FALSE(job["communication"].contains("max_ctas"));
  // Three CTAs per NIC instead of two: the NICs, not the CTAs, bound the gathers across the nodes.
  REQUIRE(run_cli("run examples/llama3_8b_zero3/job.yaml -q --out '" + (dir / "default") + "'").code == 0);
  const auto iteration = [&](const std::string& run) {
    return json::parse(slurp(dir / (run + "/summary.json")))["iteration_time_s"].get<double>();
  };
  CHECK(iteration("min") < iteration("default"));
  for (const std::string bad : {"0", "65", "many"}) {
    CAPTURE(bad);
    const auto r = run_cli("run examples/default/job.yaml -q --out '" + (dir / "bad") + "'", "NCCL_MAX_CTAS=" + bad);
    CHECK(r.code == 2);
    CHECK(r.err.find("NCCL_MAX_CTAS in the environment: '" + bad + "' is not a CTA (channel) count NCCL accepts") !=
          std::string::npos);
  }
  const auto tests = run_cli("nccl-tests --platform preset:dgx-h100:2 --op all_gather -g 16 -b 1G -e 1G", "NCCL_MIN_CTAS=-1");
  CHECK(tests.code == 2);
  CHECK(tests.err.find("NCCL_MIN_CTAS in the environment") != std::string::npos);
}

TEST_CASE("a preset's per-channel network rate is a bandwidth: negative or not a number is refused") {
  for (const std::string bad : {"-1", "fast"}) {
    CAPTURE(bad);
    const auto r = run_cli("nccl-tests --platform preset:dgx-h100:2 --op all_gather -g 16 -b 1M -e 1M --set nccl.coll_channel_bw.net=" + bad);
    CHECK(r.code == 2);
    CHECK(r.err.find("`nccl.coll_channel_bw.net` must be a bandwidth in GB/s, 0 or more, got '" + bad + "'") != std::string::npos);
  }
  CHECK(run_cli("nccl-tests --platform preset:dgx-h100:2 --op all_gather -g 16 -b 1M -e 1M --set nccl.coll_channel_bw.net=0").code == 0);
}

TEST_CASE("the NICs' all-to-all share is a fraction: 0, above 1 or not a number is refused") {
  for (const std::string bad : {"0", "1.5", "-0.2", "most"}) {
    CAPTURE(bad);
    const auto r = run_cli("nccl-tests --platform preset:dgx-h100:2 --op alltoall -g 16 -b 1M -e 1M --set nccl.efficiency.all_to_all=" + bad);
    CHECK(r.code == 2);
    CHECK(r.err.find("`nccl.efficiency.all_to_all` must be a fraction in (0, 1], got '" + bad + "'") != std::string::npos);
  }
  CHECK(run_cli("nccl-tests --platform preset:dgx-h100:2 --op alltoall -g 16 -b 1M -e 1M --set nccl.efficiency.all_to_all=1").code == 0);
}

TEST_CASE("compare: two runs side by side, the collectives that changed, and what is not a summary") {
  TempDir dir;
  REQUIRE(run_cli("run examples/eight_ranks/job.yaml -q --out '" + (dir / "a") + "'").code == 0);
  REQUIRE(run_cli("run examples/eight_ranks/job.yaml -q --set communication.proto=LL --out '" + (dir / "b") + "'").code == 0);
  const auto r = run_cli("compare '" + (dir / "a") + "' '" + (dir / "b") + "/summary.json'");
  INFO(r.err);
  REQUIRE(r.code == 0);
  // Golden: the settings that differ (with where each came from), the figures, the collectives.
  std::string shown = r.out;
  for (std::size_t at; (at = shown.find(dir.path().string())) != std::string::npos;)
    shown.replace(at, dir.path().string().size(), "DIR");
  CHECK(shown == R"(settings that differ:
  job.communication.proto       simple                                                 LL
  job.communication.proto_from  examples/eight_ranks/job.yaml:5 (communication.proto)  --set communication.proto=LL
  job.overrides                 -                                                      communication.proto=LL

                                        A                  B     change
iteration time                2.128000 ms        3.513200 ms     +65.1%
compute (rank mean)           1.100000 ms        1.100000 ms      +0.0%
exposed comm (mean)           1.028000 ms        2.413200 ms    +134.7%
idle (rank mean)              0.000000 ms        0.000000 ms      +0.0%

A: DIR/a
   eight-ranks-ddp on examples/platforms/one_node_8gpu.xml
B: DIR/b/summary.json
   eight-ranks-ddp on examples/platforms/one_node_8gpu.xml

largest collective differences (summed over their calls):
  dp.0         all_reduce           40000000 B      1.428000 ms Ring/Simple/5    ->     2.813200 ms Ring/LL/5            +97.0%
)");
  // The environment that decided something is a setting too.
  REQUIRE(run_cli("run examples/default/job.yaml -q --out '" + (dir / "plain") + "'").code == 0);
  REQUIRE(run_cli("run examples/default/job.yaml -q --out '" + (dir / "env") + "'", "NCCL_ALGO=tree").code == 0);
  const auto with_env = run_cli("compare '" + (dir / "plain") + "' '" + (dir / "env") + "'");
  CHECK(with_env.out.find("job.environment.NCCL_ALGO") != std::string::npos);
  CHECK(with_env.out.find("job.communication.algo_from") != std::string::npos);

  REQUIRE(run_cli("run examples/two_ranks/job.yaml -q --out '" + (dir / "c") + "'").code == 0);
  CHECK(run_cli("compare '" + (dir / "a") + "' '" + (dir / "c") + "'").out.find("different workloads") != std::string::npos);
  // A section one side lacks is named, not dropped without a word.
  nlohmann::json without = nlohmann::json::parse(slurp(dir / "a/summary.json"));
  without.erase("collectives");
  without.erase("job");
  const std::string older = dir.file("older.json", without.dump());
  const auto one_sided = run_cli("compare '" + older + "' '" + (dir / "b") + "'");
  CHECK(one_sided.out.find("settings: only B's summary records them") != std::string::npos);
  CHECK(one_sided.out.find("collectives: only B has any") != std::string::npos);

  const std::string not_summary = dir.file("other.json", "{\"hello\": 1}");
  const auto bad = run_cli("compare '" + (dir / "a") + "' '" + not_summary + "'");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("not an echo-des summary") != std::string::npos);
  const std::string garbage = dir.file("garbage.json", "{");
  CHECK(run_cli("compare '" + garbage + "' '" + (dir / "a") + "'").err.find("not JSON") != std::string::npos);
  CHECK(run_cli("compare '" + (dir / "missing") + "' '" + (dir / "a") + "'").code == 2);
}

TEST_CASE("an --out folder holding other files is refused unless --force") {
  TempDir dir;
  dir.file("o/notes.txt", "mine");
  const auto r = run_cli("run examples/two_ranks/job.yaml -q --out '" + (dir / "o") + "'");
  CHECK(r.code == 2);
  CHECK(r.err.find("already holds other files (notes.txt") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "o/summary.json"));
  CHECK(run_cli("run examples/two_ranks/job.yaml -q --force --out '" + (dir / "o") + "'").code == 0);
  CHECK(std::filesystem::exists(dir / "o/summary.json"));
  // A folder with only echo-des's own outputs is rewritten without --force.
  CHECK(run_cli("run examples/two_ranks/job.yaml -q --out '" + (dir / "p") + "'").code == 0);
  CHECK(run_cli("run examples/two_ranks/job.yaml -q --out '" + (dir / "p") + "'").code == 0);
}

TEST_CASE("a run killed at any moment, even mid-write, leaves nothing the next run into its folder trips over") {
  TempDir dir;
  // What a kill while writing the timeline leaves: the summary, and the timeline's temporary file.
  const std::string out = dir / "killed";
  dir.file("killed/summary.json", "{}\n");
  dir.file("killed/timeline.json.tmp", "{\"traceEvents\": [");
  CHECK(run_cli("run examples/default/job.yaml -q --out '" + out + "'").code == 0);
  for (const auto& e : std::filesystem::directory_iterator(out))
    CHECK(e.path().extension() != ".tmp");
  CHECK(std::filesystem::exists(std::filesystem::path(out) / "timeline.json"));
  // And real kills at moments spread over a run (about 0.15 s here): the next run always works.
  for (int ms : {10, 40, 70, 100, 130, 160}) {
    const std::string folder = dir / ("kill" + std::to_string(ms));
    std::system(("cd '" ECHO_SOURCE_DIR "' && timeout -s KILL " + std::to_string(ms / 1000.0) + " '" ECHO_BINARY
                 "' run examples/default/job.yaml -q --out '" + folder + "' > /dev/null 2>&1").c_str());
    INFO(ms);
    CHECK(run_cli("run examples/default/job.yaml -q --out '" + folder + "'").code == 0);
    for (const auto& e : std::filesystem::directory_iterator(folder))
      CHECK(e.path().extension() != ".tmp");
  }
}

TEST_CASE("the critical path of the hand-worked examples, in summary.json") {
  TempDir dir;
  REQUIRE(run_cli("run examples/two_ranks/job.yaml -q --out '" + (dir / "a") + "'").code == 0);
  const json a = json::parse(slurp(dir / "a/summary.json"));
  // Rank 0's forward, the transfer it feeds (ends on rank 1 at 201 us), rank 1's 300 us of compute,
  // then rank 1's part of the all-reduce: 100 + 101 + 300 + 12 = 513 us.
  const std::vector<std::pair<std::string, int>> expected = {
      {"forward", 0}, {"recv-activations", 1}, {"forward-backward", 1}, {"grad-allreduce", 1}};
  REQUIRE(a["critical_path"].size() == expected.size());
  double total = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(a["critical_path"][i]["name"] == expected[i].first);
    CHECK(a["critical_path"][i]["rank"] == expected[i].second);
    total += a["critical_path"][i]["duration_s"].get<double>();
  }
  CHECK(total == echo::test::Approx(513e-6));
  CHECK(a["critical_path_top"][0]["name"] == "forward-backward");

  // eight_ranks: backward part 1, both all-reduces back to back, the optimizer: 2128 us.
  REQUIRE(run_cli("run examples/eight_ranks/job.yaml -q --out '" + (dir / "b") + "'").code == 0);
  const json b = json::parse(slurp(dir / "b/summary.json"));
  std::vector<std::string> names;
  for (const auto& c : b["critical_path"])
    names.push_back(c["name"]);
  CHECK(names == std::vector<std::string>{"backward-part1", "allreduce-bucket1", "allreduce-bucket2", "optimizer"});
}

TEST_CASE("report.html: one self-contained page, the same for the same run, safe with odd names") {
  TempDir a, b;
  REQUIRE(run_cli("run examples/default/job.yaml -q --out '" + (a / "o") + "'").code == 0);
  REQUIRE(run_cli("run examples/default/job.yaml -q --out '" + (b / "o") + "'").code == 0);
  const std::string page = slurp(a / "o/report.html");
  CHECK(page == slurp(b / "o/report.html"));
  CHECK(page.find("<!DOCTYPE html>") == 0);
  CHECK(page.find("gpt-24l-h4096-tp8-dp2") != std::string::npos);
  CHECK(page.find("http://") == std::string::npos);  // nothing fetched from the network
  CHECK(page.find("https://") == std::string::npos);
  CHECK(page.size() < 20'000'000);
  // A task named like a closing script tag cannot end the data early.
  TempDir dir;
  const std::string job = job_for(dir, R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "</script><b>x" compute { duration_ns: 1000 } } }
ranks { first: 0 count: 1 template_name: "t" })");
  REQUIRE(run_cli("run '" + job + "' -q --out '" + (dir / "o") + "'").code == 0);
  const std::string odd = slurp(dir / "o/report.html");
  CHECK(odd.find("<\\/script><b>x") != std::string::npos);
  CHECK(odd.find("</script><b>x") == std::string::npos);
}

TEST_CASE("report.html renders in a headless browser without script errors") {
  if (!echo::test::have_browser()) {
    MESSAGE("chromium is not installed: skipping the browser test (CI installs it)");
    return;
  }
  TempDir dir;
  REQUIRE(run_cli("run examples/default/job.yaml -q --out '" + (dir / "o") + "'").code == 0);
  const auto rendered = echo::test::rendered_dom(dir, dir / "o/report.html");
  REQUIRE(rendered);
  const std::string& dom = *rendered;
  CHECK(dom.find("data-rendered=\"ok\"") != std::string::npos);
  CHECK(dom.find("data-error") == std::string::npos);
  CHECK(dom.find("<canvas id=\"gantt\"") != std::string::npos);
  CHECK(dom.find("<rect") != std::string::npos);  // the stacked bars were drawn
  CHECK(dom.find("optimizer_adam") != std::string::npos);  // the critical path table
  // Labelled axes: rank ticks under the bars, time ticks beside them, both axes titled.
  CHECK(dom.find("class=\"xtick\"") != std::string::npos);
  CHECK(dom.find("class=\"ytick\"") != std::string::npos);
  CHECK(dom.find(">rank</text>") != std::string::npos);
  CHECK(dom.find(">time</text>") != std::string::npos);
  CHECK(dom.find(">150 ms</text>") != std::string::npos);  // round ticks up to the tallest bar (150.7 ms)
  // The legend, with each communicator slot in its own colour whatever the job's slot order.
  CHECK(dom.find("<span style=\"background:#e15759\"></span>exposed tp communication") != std::string::npos);
  CHECK(dom.find("<span style=\"background:#f28e2b\"></span>exposed dp communication") != std::string::npos);
  // The header lists the settings the run used.
  CHECK(dom.find("<td>job.platform.nic_bw</td><td>200Gbps</td>") != std::string::npos);
  CHECK(dom.find("one data-parallel replica)") != std::string::npos);  // no pipeline: no "stage"
  // Without a recorded timeline the page says why and how to get one, and draws no empty chart.
  REQUIRE(run_cli("run examples/default/job.yaml -q --set output.timeline=false --out '" + (dir / "n") + "'").code == 0);
  const auto unrecorded_dom = echo::test::rendered_dom(dir, dir / "n/report.html");
  REQUIRE(unrecorded_dom);
  const std::string& unrecorded = *unrecorded_dom;
  CHECK(unrecorded.find("data-rendered=\"ok\"") != std::string::npos);
  CHECK(unrecorded.find("not recorded: the job has output.timeline: false; set it to true") != std::string::npos);
  CHECK(unrecorded.find("<div id=\"tlbox\" style=\"display: none;\">") != std::string::npos);
  CHECK(unrecorded.find("run with --out") == std::string::npos);
  // Keep a screenshot of the page as a test artifact.
  const std::string shot = ECHO_BINARY_DIR "/test/report-screenshot.png";
  echo::test::run_browser(dir, dir / "o/report.html", "--window-size=1300,1400 --screenshot='" + shot + "'");
  CHECK(std::filesystem::exists(shot));
}

namespace {

// Rank 0 computes a 100 us kernel on one stream while its other stream, after 20 us, sends 5 MB
// (50 us at 100 GB/s) to rank 1: the kernel overlaps communication from 20 to 70 us.
std::string overlap_trace() {
  return R"(
templates { name: "r0" streams: "compute" streams: "comm"
  tasks { id: 1 stream: 0 name: "gemm" category: GEMM compute { duration_ns: 100000 } }
  tasks { id: 2 stream: 1 name: "wait" category: OTHER compute { duration_ns: 20000 } }
  tasks { id: 3 stream: 1 name: "send" send { comm: "world" peer: 1 bytes: 5000000 } } }
templates { name: "r1" streams: "s" tasks { id: 1 stream: 0 name: "recv" recv { comm: "world" peer: 0 bytes: 5000000 } } }
ranks { first: 0 template_name: "r0" }
ranks { first: 1 template_name: "r1" })";
}

} // namespace

TEST_CASE("overlap slowdown by hand: a kernel runs at 1/(1+s) exactly while communication runs beside it") {
  TempDir dir;
  const std::string job = job_for(dir, overlap_trace());
  // s = 1: 0-20 us at full speed (20 us of work), 20-70 us at half speed (25 us), the last 55 us
  // at full speed again: the kernel ends at 125 us = (1 - r) T0 + r T0 (1 + s) with r = 0.25.
  const json c = run_json("'" + job + "' --set slowdown.model=constant --set slowdown.factor=1");
  CHECK(c["iteration_time_ns"] == 125000);
  CHECK(c["ranks"][0]["overlap_slowdown_s"].get<double>() == echo::test::Approx(25e-6));
  CHECK(c["overlap_slowdown"]["model"] == "constant");
  // No model: the kernel takes its 100 us.
  CHECK(run_json("'" + job + "'")["iteration_time_ns"] == 100000);
  // The category model uses the kernel's category (gemm here).
  const json g = run_json("'" + job + "' --set slowdown.model=category --set slowdown.gemm=3");
  CHECK(g["iteration_time_ns"] == 20000 + 50000 + (100000 - 20000 - 12500));
  // The text summary says what overlap cost; the timeline marks the stretched kernel.
  const auto text = run_cli("run '" + job + "' -q --set slowdown.model=constant --set slowdown.factor=1 --out '" + (dir / "o") + "'");
  CHECK(text.out.find("overlap slowdown: +0.012500 ms") != std::string::npos);  // mean over the two ranks
  CHECK(slurp(dir / "o/timeline.json").find("\"gemm (stretched)\"") != std::string::npos);
}

TEST_CASE("overlap slowdown: a kernel that starts the instant a collective is launched beside it is slowed from its start") {
  // The AllReduce waits for the first kernel and starts with the second, at 100 us: a collective
  // launched as the previous kernel ends, the usual case in data parallelism. 6 MB over two ranks,
  // ring, Simple: 2 steps of 3 MB / 100 GB/s + 1 us = 62 us. With s = 1 the second kernel does 31
  // us of work in those 62 us and its other 69 us after: 100 + 62 + 69 = 231 us.
  TempDir dir;
  const std::string trace = R"(
templates { name: "r" streams: "compute" streams: "comm"
  tasks { id: 1 stream: 0 name: "first" category: GEMM compute { duration_ns: 100000 } }
  tasks { id: 2 stream: 1 name: "allreduce" deps: 1 collective { op: ALL_REDUCE comm: "world" bytes: 6000000 dtype: FLOAT32 } }
  tasks { id: 3 stream: 0 name: "second" category: GEMM compute { duration_ns: 100000 } } }
ranks { first: 0 count: 2 template_name: "r" })";
  const std::string job = dir.file("job.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: " +
                                                   dir.file("trace.pbtxt", trace) + "}\ncommunication: {algo: ring, proto: simple}\n");
  CHECK(run_json("'" + job + "'")["iteration_time_ns"] == 200000);
  const json c = run_json("'" + job + "' --set slowdown.model=constant --set slowdown.factor=1");
  CHECK(c["iteration_time_ns"] == 231000);
  CHECK(c["ranks"][0]["overlap_slowdown_s"].get<double>() == echo::test::Approx(31e-6));
}

namespace {

// Two ranks; on each, two GEMMs that fill the GPU (`second_us` long the second) on one stream and,
// on the other, a 20 us kernel and then a 6 MB AllReduce (62 us, as above) launched beside the
// first GEMM.
std::string filling_trace(int second_us, bool reserved_sms) {
  return R"(
templates { name: "r" streams: "compute" streams: "comm"
  tasks { id: 1 stream: 0 name: "first" category: GEMM compute { duration_ns: 100000 fills_gpu: true } }
  tasks { id: 2 stream: 0 name: "second" category: GEMM compute { duration_ns: )" +
         std::to_string(second_us * 1000) + R"( fills_gpu: true } }
  tasks { id: 3 stream: 1 name: "wait" category: OTHER compute { duration_ns: 20000 } }
  tasks { id: 4 stream: 1 name: "allreduce" collective { op: ALL_REDUCE comm: "world" bytes: 6000000 dtype: FLOAT32 reserved_sms: )" +
         (reserved_sms ? "true" : "false") + R"( } } }
ranks { first: 0 count: 2 template_name: "r" })";
}

} // namespace

TEST_CASE("a GEMM that fills the GPU and a collective wait for each other's SMs, by hand") {
  TempDir dir;
  auto iteration_ns = [&](int second_us, bool reserved_sms) {
    const std::string job = dir.file("job.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: " +
                                                     dir.file("trace.pbtxt", filling_trace(second_us, reserved_sms)) +
                                                     "}\ncommunication: {algo: ring, proto: simple}\n");
    return run_json("'" + job + "'")["iteration_time_ns"].get<std::int64_t>();
  };
  // Launched at 20 us, the AllReduce finds every SM held until the first GEMM ends at 100 us, and
  // runs 100-162 us. The second GEMM, launched at 100 us too, finds the AllReduce's SMs taken:
  // its blocks without one start at 162 us and take its 100 us again: 262 us.
  CHECK(iteration_ns(100, false) == 262000);
  // A 40 us second GEMM's first blocks end at 140 us, before the AllReduce: the late blocks take
  // their SMs then, 140-180 us, while the AllReduce ends at 162 us.
  CHECK(iteration_ns(40, false) == 180000);
  // On SMs set aside for it (userbuffers), the AllReduce runs 20-82 us beside the GEMMs: 200 us.
  CHECK(iteration_ns(100, true) == 200000);
}

TEST_CASE("a recv waiting for its peer holds no SM: a GEMM that fills the GPU meanwhile runs whole") {
  // Rank 0 posts a recv at 0 and runs a 10 us kernel, then a 100 us GEMM that fills the GPU
  // (10-110 us); rank 1 sends 5 MB (50 us, and 1 us of latency) after 150 us of its own work. The
  // transfer runs 150-201 us; the GEMM, started while the recv had no sender yet, is not held back.
  TempDir dir;
  const std::string trace = R"(
templates { name: "r0" streams: "compute" streams: "comm"
  tasks { id: 1 stream: 0 name: "k" category: OTHER compute { duration_ns: 10000 } }
  tasks { id: 2 stream: 0 name: "gemm" category: GEMM compute { duration_ns: 100000 fills_gpu: true } }
  tasks { id: 3 stream: 1 name: "recv" recv { comm: "world" peer: 1 bytes: 5000000 } } }
templates { name: "r1" streams: "s"
  tasks { id: 1 stream: 0 name: "work" category: OTHER compute { duration_ns: 150000 } }
  tasks { id: 2 stream: 0 name: "send" send { comm: "world" peer: 0 bytes: 5000000 } } }
ranks { first: 0 template_name: "r0" }
ranks { first: 1 template_name: "r1" })";
  const json j = run_json("'" + job_for(dir, trace) + "'");
  CHECK(j["iteration_time_ns"] == 201000);
  CHECK(j["ranks"][0]["overlap_slowdown_s"].get<double>() == 0.0);
}

TEST_CASE("slowdown settings: mistakes are named with their line") {
  TempDir dir;
  const std::string job = job_for(dir, overlap_trace());
  CHECK(failure_of("'" + job + "' --set slowdown.model=magic").find("unknown slowdown model 'magic'") != std::string::npos);
  CHECK(failure_of("'" + job + "' --set slowdown.model=constant").find("needs a `factor`") != std::string::npos);
  CHECK(failure_of("'" + job + "' --set slowdown.model=constant --set slowdown.factor=-1").find("must not be negative") !=
        std::string::npos);
  CHECK(failure_of("'" + job + "' --set slowdown.model=category --set slowdown.gemmm=1").find("unknown key 'gemmm'") !=
        std::string::npos);
}

TEST_CASE("the xgboost slowdown model in a job uses the trace's kernel metrics") {
  TempDir dir;
  // Train on kernels that slow down by 0.5 when memory-bound (memory throughput > 50%).
  std::string csv =
      "kShortName,ground_truth,duration,overlap_ratio,Compute throughput,SM,Memory throughput,DRAM throughput,"
      "Achieved occupancy,Maximum occupancy,L1 hit rate,L2 hit rate\n";
  for (int i = 0; i < 200; ++i) {
    const double mem = (i % 10) * 10.0, t0 = 10000 + 100.0 * i, s = mem > 50 ? 0.5 : 0.0;
    csv += "k," + std::to_string(t0) + "," + std::to_string(0.5 * t0 + 0.5 * t0 * (1 + s)) + ",0.5,30,108," +
           std::to_string(mem) + "," + std::to_string(mem) + ",50,100,10,40\n";
  }
  REQUIRE(run_cli("slowdown train --csv '" + dir.file("k.csv", csv) + "' -o '" + (dir / "m.json") + "' --rounds 200 --depth 3").code ==
          0);
  std::string trace = overlap_trace();
  const std::string plain = "compute { duration_ns: 100000 }";
  trace.replace(trace.find(plain), plain.size(),
                "compute { duration_ns: 100000 metrics { compute_throughput: 30 memory_throughput: 80 dram_throughput: 80 "
                "achieved_occupancy: 50 max_occupancy: 100 l1_hit_rate: 10 l2_hit_rate: 40 } }");
  const std::string job = job_for(dir, trace);
  const json j = run_json("'" + job + "' --set slowdown.model=xgboost --set 'slowdown.file=" + (dir / "m.json") + "'");
  // s = 0.5: 20 us at full speed, 50 us at 2/3 speed (33.3 us of work), then 46.7 us: 116.7 us.
  CHECK(j["iteration_time_s"].get<double>() == echo::test::Approx(116.67e-6).epsilon(0.02));
  CHECK(j["overlap_slowdown"]["model"] == "xgboost");
  CHECK(j["overlap_slowdown"]["kernels_without_metrics"] == 1);  // the comm stream's "wait"
  // Without metrics the model is not asked (it never saw a kernel without them): the gemm gets
  // its category's default, 0.012 — 50 us beside the send do 50 / 1.012 us of work.
  const std::string bare = job_for(dir, overlap_trace());
  const auto text = run_cli("run '" + bare + "' -q --set slowdown.model=xgboost --set 'slowdown.file=" + (dir / "m.json") + "'");
  CHECK(text.out.find("note:           2 of 2 compute kernels have no Nsight Compute metrics: the xgboost model gave them "
                      "their category's default slowdown") != std::string::npos);
  const json b = run_json("'" + bare + "' --set slowdown.model=xgboost --set 'slowdown.file=" + (dir / "m.json") + "'");
  CHECK(b["iteration_time_s"].get<double>() == echo::test::Approx(20e-6 + 50e-6 + (80e-6 - 50e-6 / 1.012)).epsilon(1e-4));
  CHECK(failure_of("'" + job + "' --set slowdown.model=xgboost").find("needs a `file`") != std::string::npos);
  CHECK(failure_of("'" + job + "' --set slowdown.model=xgboost --set 'slowdown.file=" + dir.file("bad.json", "{}") + "'")
            .find("not an XGBoost model") != std::string::npos);
}

TEST_CASE("an xgboost model trained with the collective's features is asked about the call running beside the kernel") {
  TempDir dir;
  // Kernels slow down by 0.5 beside calls of more than 10 MB, by 0.1 beside smaller ones.
  std::string csv =
      "kShortName,ground_truth,duration,overlap_ratio,Compute throughput,SM,Memory throughput,DRAM throughput,"
      "Achieved occupancy,Maximum occupancy,L1 hit rate,L2 hit rate,comm_op,comm_algorithm,comm_protocol,comm_channels,comm_bytes\n";
  for (int i = 0; i < 200; ++i) {
    const double bytes = i % 2 ? 2e7 : 5e6, t0 = 10000 + 100.0 * i, s = bytes > 1e7 ? 0.5 : 0.1;
    csv += "k," + std::to_string(t0) + "," + std::to_string(0.5 * t0 + 0.5 * t0 * (1 + s)) +
           ",0.5,30,108,50,50,50,100,10,40,7,nan,nan,nan," + std::to_string(bytes) + "\n";
  }
  const auto trained = run_cli("slowdown train --csv '" + dir.file("k.csv", csv) + "' -o '" + (dir / "m.json") + "' --rounds 200 --depth 2");
  INFO(trained.err);
  REQUIRE(trained.code == 0);
  CHECK(slurp(dir / "m.json").find("comm_bytes") != std::string::npos);
  const std::string model = " --set slowdown.model=xgboost --set 'slowdown.file=" + (dir / "m.json") + "'";
  // The gemm carries the metrics the model was trained with.
  auto with_metrics = [](std::string trace) {
    const std::string plain = "compute { duration_ns: 100000 }";
    return trace.replace(trace.find(plain), plain.size(),
                         "compute { duration_ns: 100000 metrics { compute_throughput: 30 memory_throughput: 50 "
                         "dram_throughput: 50 achieved_occupancy: 50 max_occupancy: 100 l1_hit_rate: 10 l2_hit_rate: 40 } }");
  };
  // 5 MB beside the kernel (20-70 us): s = 0.1, 50 us at 1/1.1 speed: 4.55 us lost.
  const json small = run_json("'" + job_for(dir, with_metrics(overlap_trace())) + "'" + model);
  CHECK(small["ranks"][0]["overlap_slowdown_s"].get<double>() == echo::test::Approx(50e-6 * 0.1 / 1.1).epsilon(0.03));
  // 20 MB (20-220 us): s = 0.5 from 20 us to the kernel's end: 80 us of work take 120 us.
  std::string big = overlap_trace();
  for (std::size_t at; (at = big.find("bytes: 5000000")) != std::string::npos;)
    big.replace(at, 14, "bytes: 20000000");
  const json large = run_json("'" + job_for(dir, with_metrics(big)) + "'" + model);
  CHECK(large["ranks"][0]["overlap_slowdown_s"].get<double>() == echo::test::Approx(40e-6).epsilon(0.03));
}

TEST_CASE("import echo-tracer on the command line: a trace that runs, or exit 2") {
  CHECK(run_cli("import echo-tracer /nonexistent/folder").code == 2);
  const std::string folder = ECHO_SOURCE_DIR "/../shared/data/echo-tracer";
  if (!std::filesystem::exists(folder)) {
    MESSAGE("../shared/data/echo-tracer is absent: skipping the end-to-end import");
    return;
  }
  TempDir dir;
  const auto r = run_cli("import echo-tracer '" + folder + "' -o '" + (dir / "gpt2.pbtxt") + "'");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("imported gpt2-bs1_seq512_pytorch_ddp: 2 ranks, 2062 tasks per rank") != std::string::npos);
  const std::string job = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {trace: gpt2.pbtxt}\n");
  const json j = run_json("'" + job + "'");
  // 44 ms of profiled kernels, then the last bucket's all-reduce before the optimizer step.
  CHECK(j["iteration_time_s"].get<double>() > 0.04399);
  CHECK(j["ranks"][0]["compute_s"].get<double>() == echo::test::Approx(0.04399).epsilon(0.001));
}

TEST_CASE("replicate: the eight_ranks replica grown back to 8 ranks is the same job, and to 4 by hand") {
  CHECK(run_json("examples/eight_ranks/job.yaml --set workload.replicate.dp=8")["iteration_time_ns"] == 2128000);
  // 4 ranks: each 40 MB all-reduce is 6 steps of 10 MB (100 us + 1 us): 606 us. The first runs
  // 600 -> 1206 us, the second 1206 -> 1812 us, the optimizer ends at 1912 us.
  const json four = run_json("examples/eight_ranks/job.yaml --set workload.replicate.dp=4");
  CHECK(four["iteration_time_ns"] == 1912000);
  CHECK(four["ranks"].size() == 4);
  CHECK(failure_of("examples/eight_ranks/job.yaml --set workload.replicate.dp=0").find("positive integer") != std::string::npos);
}

TEST_CASE("workload.comm: measured keeps the traced collective durations, simulated re-times them") {
  TempDir dir;
  const std::string job = job_for(dir, R"(
name: "measured"
measured_iteration_ns: 800000
templates { name: "t" streams: "s"
  tasks { id: 1 stream: 0 name: "gemm" compute { duration_ns: 300000 } }
  tasks { id: 2 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 80000000 measured_duration_ns: 500000 } } }
ranks { first: 0 count: 8 template_name: "t" })");
  // Measured: 300 us of compute, then the traced 500 us all-reduce.
  const json measured = run_json("'" + job + "' --set workload.comm=measured");
  CHECK(measured["iteration_time_ns"] == 800000);
  // Simulated on the example platform: 2(n-1) = 14 steps of 10 MB at 100 GB/s + 1 us = 1414 us.
  CHECK(run_json("'" + job + "'")["iteration_time_ns"] == 300000 + 1414000);
  // The summary sets the trace's own measured iteration time next to the prediction.
  const auto text = run_cli("run '" + job + "' -q --set workload.comm=measured");
  CHECK(text.out.find("measured:       0.800000 ms, prediction error 0.00%") != std::string::npos);
  CHECK(failure_of("'" + job + "' --set workload.comm=guessed").find("`comm` must be measured or simulated") != std::string::npos);
  const std::string unmeasured = job_for(dir, R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 8 } } }
ranks { first: 0 count: 2 template_name: "t" })");
  CHECK(failure_of("'" + unmeasured + "' --set workload.comm=measured").find("has no measured_duration_ns") != std::string::npos);
}

TEST_CASE("echo-des trace names a tracer library that is not there, exit 2") {
  TempDir dir;
  const auto r = run_cli("trace -o " + (dir / "out") + " -- true", "ECHO_TRACER_LIBRARY=/no/such/libecho_tracer.so");
  CHECK(r.code == 2);
  CHECK(r.err.find("ECHO_TRACER_LIBRARY names no file") != std::string::npos);
}

TEST_CASE("calls on one communicator from two streams are matched in issue order, not in the order the streams reach them") {
  // Each rank issues the 64-byte AllReduce (stream 0) before the 1 MiB one (stream 1), but rank 0's
  // stream 0 computes first and rank 1's stream 1 does: counted as reached, rank 0's first call
  // was the 1 MiB one and rank 1's the 64-byte one, and the run stopped on a mismatch (a random
  // sweep of valid traces found it). The same for two sends to one peer.
  TempDir dir;
  auto rank = [](bool late_first, const std::string& peer) {
    const std::string wait0 = late_first ? "1000000" : "0", wait1 = late_first ? "0" : "1000000";
    return "streams: \"a\" streams: \"b\"\n"
           "tasks { id: 1 stream: 0 name: \"k0\" compute { duration_ns: " + wait0 + " } }\n"
           "tasks { id: 2 stream: 0 name: \"small\" collective { op: ALL_REDUCE comm: \"world\" bytes: 64 } }\n"
           "tasks { id: 3 stream: 1 name: \"k1\" compute { duration_ns: " + wait1 + " } }\n"
           "tasks { id: 4 stream: 1 name: \"big\" collective { op: ALL_REDUCE comm: \"world\" bytes: 1048576 } }\n"
           "tasks { id: 5 stream: 0 name: \"s8\" send { comm: \"world\" peer: " + peer + " bytes: 8 eager: true } }\n"
           "tasks { id: 6 stream: 1 name: \"s4k\" send { comm: \"world\" peer: " + peer + " bytes: 4096 eager: true } }\n"
           "tasks { id: 7 stream: 0 name: \"r8\" recv { comm: \"world\" peer: " + peer + " bytes: 8 } }\n"
           "tasks { id: 8 stream: 1 name: \"r4k\" recv { comm: \"world\" peer: " + peer + " bytes: 4096 } }\n";
  };
  const std::string trace = "templates { name: \"r0\" " + rank(true, "1") + " }\ntemplates { name: \"r1\" " + rank(false, "0") +
                            " }\ncommunicators { name: \"world\" slot: \"world\" ranks: [0, 1] }\n"
                            "ranks { first: 0 template_name: \"r0\" }\nranks { first: 1 template_name: \"r1\" }\n";
  const json j = run_json("'" + job_for(dir, trace) + "'");
  CHECK(j["iteration_time_s"].get<double>() > 1e-3);
}

TEST_CASE("an eager send is done once posted: a ring whose recvs depend on their own sends runs, a rendezvous one deadlocks") {
  // Each rank sends 1 MB to the next and then receives from the previous, the recv depending on
  // its own send (how Chakra rings are written). With rendezvous sends nobody's recv is ever posted.
  auto ring = [](bool eager) {
    std::string t;
    for (int r = 0; r < 2; ++r)
      t += "templates { name: \"r" + std::to_string(r) + R"(" streams: "s" streams: "t"
  tasks { id: 1 stream: 0 name: "send" send { comm: "world" peer: )" + std::to_string(1 - r) + " bytes: 1000000" +
           (eager ? " eager: true" : "") + R"( } }
  tasks { id: 2 stream: 1 deps: 1 name: "recv" recv { comm: "world" peer: )" + std::to_string(1 - r) + R"( bytes: 1000000 } } }
ranks { first: )" + std::to_string(r) + " template_name: \"r" + std::to_string(r) + "\" }\n";
    return t;
  };
  TempDir dir;
  dir.file("eager.pbtxt", ring(true));
  dir.file("rendezvous.pbtxt", ring(false));
  const json j = run_json("'" + dir.file("eager.yaml", "platform: {file: " ECHO_SOURCE_DIR "/examples/platforms/one_node_8gpu.xml}\n"
                                                       "workload: {trace: eager.pbtxt}\ncommunication: {algo: ring, proto: simple}\n") + "'");
  // The transfers start when the sends are posted (t = 0): the recvs end when their data is there.
  CHECK(j["iteration_time_s"].get<double>() > 0);
  CHECK(j["iteration_time_s"].get<double>() < 100e-6);
  const std::string err = failure_of("'" + dir.file("rendezvous.yaml", "platform: {file: " ECHO_SOURCE_DIR "/examples/platforms/one_node_8gpu.xml}\n"
                                                                        "workload: {trace: rendezvous.pbtxt}\n") + "'");
  CHECK(err.find("deadlock") != std::string::npos);
  CHECK(err.find("mark the sends `eager`") != std::string::npos);
}

TEST_CASE("a task name that is not UTF-8 is written replaced, and no half-written file is left") {
  TempDir dir;
  dir.file("t.pbtxt", "templates { name: \"t\" streams: \"s\" tasks { id: 1 stream: 0 name: \"bad\\377name\" compute { duration_ns: 1000 } } }\n"
                      "ranks { first: 0 count: 1 template_name: \"t\" }\n");
  const std::string job = dir.file("job.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: t.pbtxt}\n");
  const auto r = run_cli("run '" + job + "' -q --json --out '" + (dir / "o") + "'");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(json::parse(r.out)["iteration_time_ns"] == 1000);
  CHECK(std::filesystem::exists(dir / "o/summary.json"));
  CHECK(slurp(dir / "o/timeline.json").find("bad\xEF\xBF\xBDname") != std::string::npos);  // U+FFFD for the byte
  for (const auto& e : std::filesystem::directory_iterator(dir / "o"))
    CHECK(e.path().extension() != ".tmp");
}

TEST_CASE("library errors are said once, in our words: no XGBoost stack trace, no protobuf log line") {
  TempDir dir;
  dir.file("model.json", R"({"learner": {"gradient_booster": 5}})");
  dir.file("garbage.pb", std::string("\x0a\x01\xff", 3));  // Trace.name holding a byte that is not UTF-8
  for (const std::string& job : {dir.file("m.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: " ECHO_SOURCE_DIR
                                                     "/examples/two_ranks/trace.pbtxt}\nslowdown: {model: xgboost, file: model.json}\n"),
                                 dir.file("g.yaml", "platform: {file: " + kPlatform + "}\nworkload: {trace: garbage.pb}\n")}) {
    const auto r = run_cli("run '" + job + "' -q");
    CAPTURE(r.err);
    CHECK(r.code == 2);
    CHECK(r.err.rfind("echo-des: error: ", 0) == 0);  // the first line is ours
    CHECK(r.err.find("Stack trace") == std::string::npos);
    CHECK(r.err.find("[libprotobuf") == std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 2);  // the message and how to fix it
  }
}

TEST_CASE("ECHO_DES_CONTEXT_FACTORY picks SimGrid's contexts (thread for sanitizers): the same answer, or a named mistake") {
  for (const char* factory : {"thread", "ucontext"}) {
    const auto r = run_cli("run examples/two_ranks/job.yaml --json -q", std::string("ECHO_DES_CONTEXT_FACTORY=") + factory);
    INFO(factory << ": " << r.err);
    REQUIRE(r.code == 0);
    CHECK(json::parse(r.out)["iteration_time_ns"] == 513000);
  }
  const auto bad = run_cli("run examples/two_ranks/job.yaml -q", "ECHO_DES_CONTEXT_FACTORY=fibers");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("unknown SimGrid context factory 'fibers'") != std::string::npos);
  // As SimGrid programs take it: --cfg=contexts/factory:thread; other settings are echo-des's own.
  const auto cfg = run_cli("run examples/two_ranks/job.yaml --json -q --cfg=contexts/factory:thread");
  INFO(cfg.err);
  REQUIRE(cfg.code == 0);
  CHECK(json::parse(cfg.out)["iteration_time_ns"] == 513000);
  const auto other = run_cli("run examples/two_ranks/job.yaml -q --cfg=network/model:LV08");
  CHECK(other.code == 2);
  CHECK(other.err.find("takes only SimGrid's context factory") != std::string::npos);
  CHECK(run_cli("run examples/two_ranks/job.yaml -q --cfg=contexts/factory:fibers").err.find("unknown SimGrid context factory") !=
        std::string::npos);
}

TEST_CASE("a GPU-NIC path NCCL does not name is refused, from --set and from a platform file") {
  const auto r = run_cli("nccl-tests --platform preset:dgx-a100:2 --op all_reduce -g 16 -b 1M -e 1M --set gpu_nic_path=nvlink");
  CHECK(r.code == 2);
  CHECK(r.err.find("`gpu_nic_path` = 'nvlink' is not a PCIe path NCCL knows") != std::string::npos);
  CHECK(r.err.find("pix") != std::string::npos);
  // What-if: the same nodes with their NICs behind the host bridge lose LL128 between nodes.
  const auto pxb = run_cli("nccl-tests --platform preset:dgx-a100:2 --op all_reduce -g 16 -b 64M -e 64M");
  const auto phb = run_cli("nccl-tests --platform preset:dgx-a100:2 --op all_reduce -g 16 -b 64M -e 64M --set gpu_nic_path=phb");
  REQUIRE(pxb.code == 0);
  REQUIRE(phb.code == 0);
  CHECK(pxb.out.find("LL128") != std::string::npos);
  CHECK(phb.out.find("LL128") == std::string::npos);

  TempDir dir;
  REQUIRE(run_cli("platform generate --preset dgx-a100 --nodes 2 -o '" + (dir / "p.xml") + "'").code == 0);
  std::string xml = slurp(dir / "p.xml");
  const std::string prop = R"(<prop id="gpu_nic_path" value="pxb"/>)";
  REQUIRE(xml.find(prop) != std::string::npos);
  xml.replace(xml.find(prop), prop.size(), R"(<prop id="gpu_nic_path" value="pcie"/>)");
  const std::string file = dir.file("bad.xml", xml);
  const auto from_file = run_cli("nccl-tests --platform '" + file + "' --op all_reduce -g 16 -b 1M -e 1M");
  CHECK(from_file.code == 2);
  CHECK(from_file.err.find("`gpu_nic_path` = 'pcie'") != std::string::npos);
  CHECK(from_file.err.find("bad.xml") != std::string::npos);
}

TEST_CASE("concurrent AllToAlls across pods share the pods' up-links by their rates under steps") {
  // 8 DGX H100 nodes in two pods of 4, TP 8 inside each node and EP 8 across them: the eight TP
  // siblings' AllToAlls (one GPU a node each, on their own rails) run at once and cross the same
  // up-links. At 1:1 the up-link carries all eight; at 8:1 it carries one, and each AllToAll's
  // crossing steps ask for all of it. Before, each call split the up-link among its own members
  // only and saw it whole: 8:1 changed nothing.
  TempDir dir;
  const std::string job = dir.file("job.yaml",
                                   "platform: {preset: dgx-h100, nodes: 8, pod_nodes: 4}\n"
                                   "workload:\n"
                                   "  model: {layers: 1, hidden: 4096, heads: 32, ffn_hidden: 8192, vocab: 32000, seq_len: 4096,"
                                   " moe: {experts: 8, top_k: 2}}\n"
                                   "  training: {global_batch: 8, micro_batch: 1, dtype: bf16}\n"
                                   "  parallel: {tp: 8, pp: 1, ep: 8, dp: 8, sequence_parallel: true}\n");
  const auto run = [&](const std::string& set) { return run_json(job + " " + set); };
  const auto exposed_ep = [](const json& j) { return exposed_comm_s(j, "ep"); };
  const json full = run("--set platform.oversubscription=1"), narrow = run("--set platform.oversubscription=8");
  CHECK(exposed_ep(narrow) > 1.2 * exposed_ep(full));
  // The 1:1 up-link is wide enough for all eight: nothing slows, as before capacity links.
  const json full_unshared = run("--set platform.oversubscription=1 --set platform.pod_nodes=8");
  CHECK(exposed_ep(full) == echo::test::Approx(exposed_ep(full_unshared)).epsilon(1e-6));
  // Folding would book the siblings' calls as copies of one: `exact` does not fold here, so the
  // default run is the unfolded one, byte for byte.
  CHECK(narrow["iteration_time_s"] == run("--set platform.oversubscription=8 --no-folding")["iteration_time_s"]);
}

TEST_CASE("data-parallel rings across pods share an oversubscribed up-link under steps, as SimGrid's flows do") {
  // 8 DGX H100 nodes in two pods of 4, TP 8 inside each node: eight data-parallel rings (one GPU a
  // node each, each on its own rail) cross between the pods at once, each at about one NIC's rate.
  // A pod's up-link carries 1.6 TB/s at 1:1 and 2:1 is still wider than the eight rings together;
  // at 8:1 (200 GB/s) they ask about twice what it has. Before, `steps` named the up-link for
  // AllToAlls only: every ratio gave the 1:1 time, while `flow` took twice as long.
  TempDir dir;
  const std::string job = dir.file("job.yaml",
                                   "platform: {preset: dgx-h100, nodes: 8, pod_nodes: 4}\n"
                                   "workload:\n"
                                   "  model: {layers: 4, hidden: 4096, heads: 32, ffn_hidden: 16384, vocab: 32000, seq_len: 4096}\n"
                                   "  training: {global_batch: 8, micro_batch: 1, dtype: bf16}\n"
                                   "  parallel: {tp: 8, pp: 1, dp: 8}\n");
  const auto run = [&](const std::string& set) { return run_json(job + " " + set); };
  const auto exposed_dp = [](const json& j) { return exposed_comm_s(j, "dp"); };
  const json full = run("--set platform.oversubscription=1"), half = run("--set platform.oversubscription=2"),
             narrow = run("--set platform.oversubscription=8");
  CHECK(exposed_dp(half) == echo::test::Approx(exposed_dp(full)).epsilon(1e-9));
  CHECK(exposed_dp(narrow) > 1.8 * exposed_dp(full));
  // One pod for all: the same rings, no up-link crossed.
  CHECK(exposed_dp(full) == echo::test::Approx(exposed_dp(run("--set platform.pod_nodes=8"))).epsilon(1e-9));
  const double flows = exposed_dp(run("--set platform.oversubscription=8 --set communication.fidelity=flow"));
  CHECK(exposed_dp(narrow) == echo::test::Approx(flows).epsilon(0.05));
  // Folding would book a folded sibling's rings as copies of one: neither `exact` nor `tp` folds
  // across a narrow up-link, so the default run is the unfolded one, byte for byte.
  CHECK(narrow["iteration_time_s"] == run("--set platform.oversubscription=8 --no-folding")["iteration_time_s"]);
  CHECK(narrow["iteration_time_s"] == run("--set platform.oversubscription=8 --fold tp")["iteration_time_s"]);
}

TEST_CASE("one ring through a pod's up-link narrower than a NIC moves at the up-link's rate, under steps and flow") {
  // 8 nodes of one GPU and one NIC in two pods of 4: one data-parallel ring, crossing between the
  // pods at a NIC's rate. At 4:1 the up-link is as wide as a NIC; at 8:1 half of it. Before, a
  // call alone on an up-link was never slowed under `steps`, and `flow` trimmed the flow's bytes
  // to what the route carried in the step's time, so neither moved.
  TempDir dir;
  const std::string job = dir.file("job.yaml",
                                   "platform: {preset: dgx-h100, nodes: 8, gpus_per_node: 1, nics_per_node: 1, pod_nodes: 4}\n"
                                   "workload:\n"
                                   "  model: {layers: 2, hidden: 2048, heads: 16, ffn_hidden: 8192, vocab: 32000, seq_len: 2048}\n"
                                   "  training: {global_batch: 8, micro_batch: 1, dtype: bf16}\n"
                                   "  parallel: {tp: 1, pp: 1, dp: 8}\n");
  const auto exposed_dp = [&](const std::string& set) {
    return exposed_comm_s(run_json(job + " " + set), "dp");
  };
  const double wide = exposed_dp("--set platform.oversubscription=4"), narrow = exposed_dp("--set platform.oversubscription=8");
  CHECK(wide == echo::test::Approx(exposed_dp("--set platform.oversubscription=1")).epsilon(1e-9));
  CHECK(narrow > 1.8 * wide);
  CHECK(exposed_dp("--set platform.oversubscription=8 --set communication.fidelity=flow") == echo::test::Approx(narrow).epsilon(0.02));
  CHECK(exposed_dp("--set platform.oversubscription=1 --set communication.fidelity=flow") == echo::test::Approx(wide).epsilon(1e-6));
}

TEST_CASE("an expert-parallel job across two pods waits longer for its AllToAlls on an oversubscribed fabric") {
  // 64 nodes of one GPU and one NIC: two pods of 32, every token's experts half in the other pod.
  TempDir dir;
  const std::string job = dir.file("job.yaml",
                                   "platform: {preset: dgx-h100, nodes: 64, gpus_per_node: 1, nics_per_node: 1}\n"
                                   "workload:\n"
                                   "  model: {layers: 1, hidden: 4096, heads: 32, ffn_hidden: 8192, vocab: 32000, seq_len: 4096,"
                                   " moe: {experts: 64, top_k: 2}}\n"
                                   "  training: {global_batch: 64, micro_batch: 1, dtype: bf16}\n"
                                   "  parallel: {tp: 1, pp: 1, ep: 64, dp: 64}\n");
  const auto exposed_ep = [&](const std::string& set) { return exposed_comm_s(run_json(job + " " + set), "ep"); };
  const double full = exposed_ep("--set platform.oversubscription=1");
  const double narrow = exposed_ep("--set platform.oversubscription=8");
  CHECK(narrow > 2 * full);
  // SimGrid's flows share the pods' up-links themselves: the schedule must not split them first.
  const double flows = exposed_ep("--set platform.oversubscription=8 --set communication.fidelity=flow");
  CHECK(flows < 2 * narrow);
}
