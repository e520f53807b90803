// `echo-des nccl-tests`: the table a user diffs against a real all_reduce_perf log.
#include "report/nccl_tests_report.hpp"
#include "support/approx.hpp"
#include "support/cli_runner.hpp"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <sstream>

using echo::test::run_cli;
namespace test = echo::test;

namespace {

const std::string kUniform = "--platform examples/platforms/one_node_8gpu.xml";

std::vector<std::string> data_rows(const std::string& table) {
  std::vector<std::string> rows;
  std::istringstream in(table);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#')
      rows.push_back(line);
  return rows;
}

} // namespace

TEST_CASE("nccl-tests number format: the widest fixed format that fits, as nccl-tests does") {
  using echo::report::nccl_float;
  CHECK(nccl_float(154.0, 7) == " 154.00");
  CHECK(nccl_float(12345.678, 7) == "12345.7");
  CHECK(nccl_float(126496.0, 7) == " 126496");
  CHECK(nccl_float(0.004, 6) == "  0.00");
  CHECK(nccl_float(3787.3, 6) == "3787.3");
  CHECK(nccl_float(12345678.0, 7) == "1.2e+07");
}

TEST_CASE("all_reduce rows: exact ring times, nccl-tests columns and the bus bandwidth factor") {
  // 8 GPUs, every route 1 us and 100 GB/s: 8 MB all-reduce = 14 steps of (10 us + 1 us).
  const auto r = run_cli("nccl-tests " + kUniform + " --algo ring --proto simple --op all_reduce --gpus 8 -b 8000000 -e 16000000 -f 2");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const auto rows = data_rows(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0] == "     8000000       2000000     float     sum      -1   154.00   51.95   90.91    N/A   154.00   51.95   90.91    N/A");
  CHECK(r.out.find("#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong") !=
        std::string::npos);
  CHECK(r.out.find("# Avg bus bandwidth    : ") != std::string::npos);
  // 100 GB/s split into 5 channels of 20 GB/s, as NCCL's search would.
  CHECK(r.out.find("#   Ring/Simple/5:       8000000 .. 16000000 B") != std::string::npos);
  CHECK(r.out.find("# Collective test concluded: all_reduce_perf") != std::string::npos);
}

TEST_CASE("every op runs, with nccl-tests' size, count, redop and root columns") {
  struct Case {
    std::string op, start;
  };
  for (const Case& c : {Case{"all_gather", "     1048576         32768     float    none      -1"},
                        Case{"reduce_scatter", "     1048576         32768     float     sum      -1"},
                        Case{"broadcast", "     1048576        262144     float    none       0"},
                        Case{"reduce", "     1048576        262144     float     sum       0"},
                        Case{"alltoall", "     1048576         32768     float    none      -1"},
                        Case{"sendrecv", "     1048576        262144     float    none      -1"}}) {
    CAPTURE(c.op);
    const auto r = run_cli("nccl-tests " + kUniform + " --op " + c.op + " --gpus 8 -b 1M -e 1M");
    REQUIRE(r.code == 0);
    const auto rows = data_rows(r.out);
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].rfind(c.start, 0) == 0);
  }
}

TEST_CASE("bad input: unknown op or type, too many GPUs, sizes, platform") {
  auto fails = [](const std::string& args, const std::string& message) {
    const auto r = run_cli("nccl-tests " + args);
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find(message) != std::string::npos);
  };
  fails(kUniform + " --op allscatter --gpus 8", "unknown collective 'allscatter'");
  fails(kUniform + " --gpus 8 -d quad", "unknown data type 'quad'");
  fails(kUniform + " --gpus 16", "16 GPUs asked for, but the platform");
  fails(kUniform + " --gpus 8 -b 6 -e 6", "size 6 is not a multiple of the float element size");
  fails(kUniform + " --gpus 8 -b 8X", "not a size");
  fails(kUniform + " --gpus 8 -b 1G -e 1M", "minbytes <= maxbytes");
  fails(kUniform + " --gpus 8 -e 9223372036854775808", "beyond 4 EiB");  // 2^63: the doubling would overflow
  fails(kUniform + " --gpus 8 -e 99999999999999999999", "not a size");
  fails("--platform preset:dgx-a100 --gpus 8", "preset:NAME:NODES");
  fails("--platform preset:dgx-z:2 --gpus 8", "unknown platform preset 'dgx-z'");
  fails(kUniform + " --op broadcast --gpus 8 --root 9", "the root must be one of the 8 ranks");
  fails(kUniform + " --gpus 8 --algo ring,star", "unknown algorithm 'star' in 'ring,star'");
  fails(kUniform + " --gpus 8 --proto LL256", "use: LL, LL128, Simple");
  fails(kUniform + " --gpus 8 --fidelity flowish", "unknown fidelity 'flowish'");
  fails("--platform preset:dgx-a100:1 --gpus 8 --algo nvls", "NVLS needs NVLink SHARP: Hopper or newer GPUs");
  fails("--platform preset:dgx-a100:1 --gpus 8 --algo pat --op all_gather", "PAT needs one GPU per node");
  fails("--platform preset:dgx-a100:1 --gpus 8 --set nic_bw=fast", "is not a valid bandwidth");
  fails("--platform preset:dgx-a100:1 --gpus 8 --set nccl.efficiency.net=2", "a fraction in (0, 1]");
  fails(kUniform + " --gpus 8 --set nic_bw=1Gbps", "--set changes a preset's figures, but the platform is a file");
}

TEST_CASE("NCCL_ALGO and NCCL_PROTO from the environment, overridden by the command line") {
  const auto env = run_cli("nccl-tests " + kUniform + " --gpus 8 -b 1M -e 1M", "NCCL_ALGO=tree NCCL_PROTO=LL128");
  REQUIRE(env.code == 0);
  CHECK(env.out.find("#   Tree/LL128/") != std::string::npos);
  const auto cli = run_cli("nccl-tests " + kUniform + " --gpus 8 -b 1M -e 1M --algo ring", "NCCL_ALGO=tree NCCL_PROTO=LL128");
  REQUIRE(cli.code == 0);
  CHECK(cli.out.find("#   Ring/LL128/") != std::string::npos);
  const auto bad = run_cli("nccl-tests " + kUniform + " --gpus 8", "NCCL_PROTO=LL2");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("NCCL_PROTO in the environment") != std::string::npos);
}

TEST_CASE("the header names the algorithm, protocol and channels of each size - analytic gives the same table") {
  const std::string args = " --platform preset:azure-ndv4-a100:2 --gpus 16 -b 8 -e 1G";
  const auto steps = run_cli("nccl-tests" + args);
  const auto analytic = run_cli("nccl-tests" + args + " --fidelity analytic");
  REQUIRE(steps.code == 0);
  REQUIRE(analytic.code == 0);
  CHECK(data_rows(steps.out) == data_rows(analytic.out));
  CHECK(steps.out.find("#   Tree/LL/1:") != std::string::npos);        // small: latency-bound tree
  CHECK(steps.out.find("#   Ring/Simple/8:") != std::string::npos);    // large: the rings, one per NIC
}

TEST_CASE("the largest size ends the sweep even where the next size would overflow") {
  // 2^62 is allowed; doubling past it would wrap to 0 and never end. One row, at once.
  const auto r = run_cli("nccl-tests " + kUniform + " --gpus 8 --fidelity analytic -b 4611686018427387904 -e 4611686018427387904");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("4611686018427387904") != std::string::npos);
}

TEST_CASE("an oversubscribed fat-tree slows AllToAll across pods, not the rings of AllReduce") {
  // 64 DGX H100 nodes: two pods of 32. Every GPU's AllToAll sends half of its bytes to the other
  // pod, through up-links a quarter as wide as the pod's NICs at 4:1; a ring crosses each up-link
  // on a few channels only.
  const auto time_us = [](const std::string& op, const std::string& oversubscription) {
    const auto r = run_cli("nccl-tests --platform preset:dgx-h100:64 --gpus 512 --fidelity analytic -b 1G -e 1G --op " + op +
                           " --set oversubscription=" + oversubscription);
    REQUIRE(r.code == 0);
    const auto rows = data_rows(r.out);
    REQUIRE(rows.size() == 1);
    std::istringstream fields(rows[0]);
    std::string size, count, type, redop, root;
    double us = 0;
    fields >> size >> count >> type >> redop >> root >> us;
    return us;
  };
  const double full = time_us("alltoall", "1"), narrow = time_us("alltoall", "4");
  CHECK(narrow > 1.8 * full);
  CHECK(narrow < 4.0 * full);
  CHECK(time_us("all_reduce", "4") == test::Approx(time_us("all_reduce", "1")));
}

TEST_CASE("one node's NVLS and two nodes' NVLSTree each take their own efficiency") {
  // dgx-h100 carries both (fitted apart: 0.821 on one node's NVLS, 0.74 on two nodes' NVLSTree).
  const auto run = [](int nodes, const std::string& sets) {
    const auto r = run_cli("nccl-tests --platform preset:dgx-h100:" + std::to_string(nodes) + " --gpus " +
                           std::to_string(8 * nodes) + " -b 1G -e 1G --json" + sets);
    REQUIRE(r.code == 0);
    const auto row = nlohmann::json::parse(r.out)["rows"][0];
    CHECK(row["algorithm"].get<std::string>().rfind(nodes == 1 ? "NVLS/" : "NVLSTree/", 0) == 0);
    return row["time_us"].get<double>();
  };
  const double one = run(1, ""), two = run(2, "");
  // Inside one node a 1 GiB NVLS AllReduce is bound by what the switch reduces: time ~ 1 / efficiency.
  CHECK(run(1, " --set nccl.efficiency.nvls=0.4105") == test::Approx(2 * one).epsilon(0.02));
  CHECK(run(1, " --set nccl.efficiency.nvls_tree=0.3") == test::Approx(one));
  CHECK(run(2, " --set nccl.efficiency.nvls=0.3") == test::Approx(two));
  CHECK(run(2, " --set nccl.efficiency.nvls_tree=0.2") > 1.5 * two);
  const auto bad = run_cli("nccl-tests --platform preset:dgx-h100:1 --gpus 8 --set nccl.efficiency.nvls_tree=1.5");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("a fraction in (0, 1]") != std::string::npos);
}

TEST_CASE("an AllToAll inside a node sustains nccl.efficiency.all_to_all_nvlink of the NVLinks, other ops do not") {
  const auto time_us = [](const std::string& op, const std::string& sets) {
    const auto r = run_cli("nccl-tests --platform preset:dgx-h100:1 --gpus 8 -b 4G -e 4G --json --op " + op + sets);
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out)["rows"][0]["time_us"].get<double>();
  };
  // dgx-h100 carries 0.929; at 4 GiB the links' rate is nearly all of the time.
  const double preset = time_us("alltoall", ""), full = time_us("alltoall", " --set nccl.efficiency.all_to_all_nvlink=1");
  CHECK(preset / full == test::Approx(1 / 0.929).epsilon(0.005));
  CHECK(time_us("all_gather", " --set nccl.efficiency.all_to_all_nvlink=0.5") == test::Approx(time_us("all_gather", "")));
  const auto bad = run_cli("nccl-tests --platform preset:dgx-h100:1 --gpus 8 --op alltoall --set nccl.efficiency.all_to_all_nvlink=0");
  CHECK(bad.code == 2);
  CHECK(bad.err.find("a fraction in (0, 1]") != std::string::npos);
}

TEST_CASE("a send inside an H100 node runs on the channels NCCL gives its size, each moving nccl.p2p_channel_bw.nvlink") {
  const auto busbw = [](int gpus, const std::string& size) {
    const auto r = run_cli("nccl-tests --platform preset:dgx-h100:1 --op sendrecv --gpus " + std::to_string(gpus) + " -b " +
                           size + " -e " + size + " --json");
    REQUIRE(r.code == 0);
    return nlohmann::json::parse(r.out)["rows"][0]["busbw_GBps"].get<double>();
  };
  // NCCL (enqueue.cc, addP2pToPlan): 32 channels a peer at most, halved until the communicator's
  // ranks fit its 32 p2p channels (4 among 8 GPUs, 8 among 4), doubled while a part exceeds 16 MiB.
  // Measured on DGX H100 (xxrjun/nccl-tests-cluster): 79.6 / 149 GB/s at 32 MiB, 163 at 128 MiB.
  CHECK(busbw(8, "32M") == test::Approx(4 * 20.6).epsilon(0.05));
  CHECK(busbw(4, "32M") == test::Approx(8 * 20.6).epsilon(0.08));  // less the call's latency
  CHECK(busbw(8, "128M") == test::Approx(8 * 20.6).epsilon(0.05));
  CHECK(busbw(8, "4G") > 340);  // enough channels: the NVLinks bind
}
