// `echo-des slowdown table`: measured overlap slowdown from two Kineto profiles of one program
// and its Nsight Compute report, in the layout `slowdown train` reads.
#include "slowdown/kernel_table.hpp"
#include "support/approx.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_files.hpp"
#include "workloads/overlap_table.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using echo::test::run_cli;
using echo::test::TempDir;
using namespace echo;

namespace {

std::string launch(int correlation, double ts) {
  return R"( {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) +
         R"(, "dur": 2, "args": {"correlation": )" + std::to_string(correlation) + "}},\n";
}

std::string kernel(int correlation, const std::string& name, int stream, double ts, double dur, const std::string& extra = "") {
  return R"( {"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "pid": 0, "tid": )" + std::to_string(stream) +
         R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {"correlation": )" +
         std::to_string(correlation) + R"(, "stream": )" + std::to_string(stream) + extra + "}},\n";
}

std::string kineto_json(const std::string& events) {
  return R"({"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 0, "dur": 1000},
)" + events + R"( {"ph": "i", "name": "end", "pid": 1, "tid": 1, "ts": 1000}
]})";
}

// With communication: a GEMM 100-200 us, an AllReduce (NCCL 2.19 name: RING, LL; 1 M floats) on
// stream 20 from 150 to 300 us, an add 200-260 us, the GEMM again 300-400 us.
const std::string kOverlapped = kineto_json(
    launch(1, 90) + kernel(1, "ampere_gemm(float*)", 7, 100, 100) + launch(2, 140) +
    kernel(2, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", 20, 150, 150,
           R"(, "Collective name": "allreduce", "In msg nelems": 1000000, "Out msg nelems": 1000000, "dtype": "Float")") +
    launch(3, 195) + kernel(3, "add_kernel", 7, 200, 60) + launch(4, 290) + kernel(4, "ampere_gemm(float*)", 7, 300, 100));
// Alone: the GEMM takes 80 us, the add 50 us.
const std::string kIsolated = kineto_json(launch(1, 90) + kernel(1, "ampere_gemm(float*)", 7, 100, 80) + launch(3, 175) +
                                    kernel(3, "add_kernel", 7, 180, 50) + launch(4, 225) +
                                    kernel(4, "ampere_gemm(float*)", 7, 230, 80));

std::string ncu_raw(const std::string& rows) {
  return "\"ID\",\"Kernel Name\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
         "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
         "\"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\",\"sm__warps_active.avg.pct_of_peak_sustained_active\","
         "\"sm__maximum_warps_per_active_cycle_pct\",\"l1tex__t_sector_hit_rate.pct\",\"lts__t_sector_hit_rate.pct\","
         "\"launch__grid_size\",\"launch__block_size\"\n"
         "\"\",\"\",\"%\",\"%\",\"%\",\"%\",\"%\",\"%\",\"%\",\"\",\"\"\n" + rows;
}

} // namespace

TEST_CASE("overlap table: isolated and overlapped durations by name and launch order, the share NCCL covered, the call") {
  const auto run = [](const std::string& events) {
    TempDir dir;
    return workloads::kineto_kernels(dir.file("t.json", events)).kernels;
  };
  const workloads::OverlapTable t = workloads::overlap_table(run(kOverlapped), run(kIsolated));
  REQUIRE(t.rows.size() == 3);
  CHECK(t.unmatched == 0);
  CHECK(t.rows[0].name == "ampere_gemm(float*)");
  CHECK(t.rows[0].isolated_ns == 80000);
  CHECK(t.rows[0].measured_ns == 100000);
  CHECK(t.rows[0].overlap_ratio == test::Approx(0.5));  // 150-200 of 100-200
  CHECK(t.rows[0].op == trace::ALL_REDUCE);
  CHECK(t.rows[0].algorithm == "RING");
  CHECK(t.rows[0].protocol == "LL");
  CHECK(t.rows[0].bytes == 4e6);
  CHECK(t.rows[1].name == "add_kernel");
  CHECK(t.rows[1].overlap_ratio == test::Approx(1.0));
  CHECK(t.rows[2].isolated_ns == 80000);  // the second GEMM meets the second GEMM
  CHECK(t.rows[2].overlap_ratio == 0.0);
  CHECK(t.rows[2].algorithm.empty());
  // A launch the isolated run lacks is left out and counted.
  const auto fewer = workloads::overlap_table(
      run(kOverlapped), run(kineto_json(launch(1, 90) + kernel(1, "ampere_gemm(float*)", 7, 100, 80) + launch(3, 175) +
                                        kernel(3, "add_kernel", 7, 180, 50))));
  CHECK(fewer.rows.size() == 2);
  CHECK(fewer.unmatched == 1);
  // An AllGather counts its output (trace.proto's convention); NCCL < 2.19 spells TREE / LL128 first.
  const auto gathered = run(kineto_json(
      launch(1, 90) + kernel(1, "k", 7, 100, 100) + launch(2, 95) +
      kernel(2, "ncclKernel_AllGather_TREE_LL128_Sum_float(ncclDevComm*)", 20, 100, 100,
             R"(, "Collective name": "allgather", "In msg nelems": 1000, "Out msg nelems": 4000, "dtype": "Float")")));
  const auto g = workloads::overlap_table(gathered, gathered);
  REQUIRE(g.rows.size() == 1);
  CHECK(g.rows[0].op == trace::ALL_GATHER);
  CHECK(g.rows[0].bytes == 16000);
  CHECK(g.rows[0].algorithm == "TREE");
  CHECK(g.rows[0].protocol == "LL128");
}

TEST_CASE("slowdown table on the command line: a table slowdown train reads, every bad input exit 2") {
  TempDir dir;
  const std::string overlapped = dir.file("with.json", kOverlapped), isolated = dir.file("alone.json", kIsolated);
  const std::string ncu = dir.file("ncu.csv", ncu_raw("\"0\",\"ampere_gemm\",\"90\",\"40\",\"10\",\"25\",\"25\",\"1\",\"80\",\"1024\",\"256\"\n"
                                                      "\"1\",\"add_kernel\",\"6\",\"87\",\"87\",\"92\",\"100\",\"0\",\"48\",\"1024\",\"256\"\n"
                                                      "\"2\",\"ampere_gemm\",\"91\",\"41\",\"11\",\"25\",\"25\",\"1\",\"80\",\"1024\",\"256\"\n"));
  const std::string args = "slowdown table --overlapped '" + overlapped + "' --isolated '" + isolated + "' --ncu '" + ncu + "' -o '";
  const auto r = run_cli(args + (dir / "table.csv") + "'");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("3 kernels of ProfilerStep#2 (2 overlapped communication)") != std::string::npos);
  const auto rows = slowdown::read_kernel_table(dir / "table.csv");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].name == "ampere_gemm");
  CHECK(slowdown::measured_slowdown(rows[0]) == test::Approx(0.5));  // 80 -> 100 us over half of it
  CHECK(slowdown::measured_slowdown(rows[1]) == test::Approx(0.2));
  CHECK(rows[0].features[1] == 90);   // Compute throughput
  CHECK(rows[2].features[1] == 91);   // the second launch's metrics
  CHECK(std::isnan(rows[0].features[2]));  // the SM count: not in the report
  REQUIRE(rows[0].features.size() == 14);  // with the collective's columns
  CHECK(rows[0].features[9] == 1);    // comm_op: AllReduce
  CHECK(rows[0].features[10] == 0);   // comm_algorithm: Ring
  CHECK(rows[0].features[11] == 0);   // comm_protocol: LL
  CHECK(std::isnan(rows[0].features[12]));  // comm_channels: unknown
  CHECK(rows[0].features[13] == 4e6);
  CHECK(std::isnan(rows[2].features[9]));  // nothing beside it
  // A model trains on it (with the collective's columns).
  const auto trained = run_cli("slowdown train --csv '" + (dir / "table.csv") + "' -o '" + (dir / "m.json") + "' --folds 2");
  INFO(trained.err);
  CHECK(trained.code == 0);

  CHECK(run_cli(args + (dir / "x.csv") + "' --step 7").err.find("has no ProfilerStep#7") != std::string::npos);
  const std::string other = dir.file("other.json", kineto_json(launch(1, 90) + kernel(1, "unrelated", 7, 100, 10)));
  const auto none = run_cli("slowdown table --overlapped '" + overlapped + "' --isolated '" + other + "' --ncu '" + ncu + "' -o '" +
                            (dir / "y.csv") + "'");
  CHECK(none.code == 2);
  CHECK(none.err.find("has a counterpart here") != std::string::npos);
  CHECK(run_cli("slowdown table --overlapped /nonexistent.json --isolated '" + isolated + "' --ncu '" + ncu + "' -o '" +
                (dir / "z.csv") + "'").code == 2);
  CHECK(run_cli("slowdown table --overlapped '" + overlapped + "' --isolated '" + isolated + "' --ncu '" + overlapped + "' -o '" +
                (dir / "z.csv") + "'").code == 2);
  CHECK(run_cli(args + "/nonexistent/dir/t.csv'").code == 2);
}
