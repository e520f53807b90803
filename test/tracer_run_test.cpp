// `echo-des trace` end to end without a GPU: two processes of a real program (against a stand-in
// libnccl) run under the tracer's LD_PRELOAD; their files are merged and the job simulated.
#include "support/cli_runner.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

using namespace echo::test;

TEST_CASE("echo-des trace records NCCL calls of every process, merges them, and the job runs") {
  TempDir dir;
  const std::string program = ECHO_NCCL_PROGRAM;
  const auto traced = run_cli("trace -o " + (dir / "out") + " -- sh -c \"'" + program + "' 0 & '" + program + "' 1; wait\"");
  INFO(traced.err);
  REQUIRE(traced.code == 0);
  CHECK(traced.out.find("traced 2 process(es)") != std::string::npos);
  CHECK(traced.out.find("8 NCCL calls") != std::string::npos);  // per process: AllReduce, send, recv, the split's AllReduce
  CHECK(traced.out.find("3 communicators") != std::string::npos);  // world and one split-off per process
  const std::string job = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {trace: out/trace.pb}\n");
  const auto run = run_cli("run " + job + " --json -q");
  INFO(run.err);
  REQUIRE(run.code == 0);
  const auto summary = nlohmann::json::parse(run.out);
  CHECK(summary["iteration_time_ns"].get<double>() > 0);
  // The folder of per-process files is a workload too.
  const auto folder = run_cli("run " + dir.file("dir.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {trace: out}\n") + " --json -q");
  REQUIRE(folder.code == 0);
  CHECK(nlohmann::json::parse(folder.out)["iteration_time_ns"] == summary["iteration_time_ns"]);
}

TEST_CASE("echo-des trace: a command that fails, cannot start, or traces nothing is a clear error") {
  TempDir dir;
  const auto failed = run_cli("trace -o " + (dir / "a") + " -- sh -c 'exit 3'");
  CHECK(failed.code == 2);
  CHECK(failed.err.find("failed with exit status 3") != std::string::npos);
  const auto missing = run_cli("trace -o " + (dir / "b") + " -- /no/such/program");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("cannot run '/no/such/program'") != std::string::npos);
  const auto nothing = run_cli("trace -o " + (dir / "c") + " -- true");
  CHECK(nothing.code == 2);
  CHECK(nothing.err.find("holds no <host>.<pid>.trace.pb") != std::string::npos);
  // One process of two: the merge names the communicator member that is missing.
  const auto half = run_cli("trace -o " + (dir / "d") + " -- '" + std::string(ECHO_NCCL_PROGRAM) + "' 0");
  CHECK(half.code == 2);
  CHECK(half.err.find("member(s) 1 were not traced") != std::string::npos);
}

TEST_CASE("echo-des trace --max-records bounds what each process keeps and reports the drops") {
  TempDir dir;
  const std::string program = ECHO_NCCL_PROGRAM;
  // Each process makes 6 records (2 communicators, 4 calls); 3 are kept.
  const auto r = run_cli("trace --max-records 3 -o " + (dir / "out") + " -- sh -c \"'" + program + "' 0 & '" + program + "' 1; wait\"");
  INFO(r.out << r.err);
  // With calls dropped, the kept ones may no longer pair up: either the merge names what is
  // missing, or the trace is written with its drops counted. Never a silent success.
  if (r.code == 0)
    CHECK(r.out.find("6 records DROPPED") != std::string::npos);
  else
    CHECK(r.code == 2);
  CHECK(r.err.find("records dropped (buffers full)") != std::string::npos);
}
