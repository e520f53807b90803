// `echo-des import ncu`: Nsight Compute metrics attached to a trace's kernels by name and launch
// order, from both CSV layouts ncu exports, and every bad report ending with exit code 2.
#include "support/approx.hpp"
#include "support/cli_runner.hpp"
#include "support/temp_files.hpp"

#include "workloads/ncu_report.hpp"
#include "workloads/trace_reader.hpp"

#include <doctest/doctest.h>

using echo::test::run_cli;
using echo::test::TempDir;
using namespace echo;

namespace {

// Two GEMMs and a norm between them; the trace names kernels short, the profile demangled.
const char* kTrace = R"(templates { name: "r0" streams: "s"
  tasks { id: 1 stream: 0 name: "ampere_sgemm_128x64_nn" compute { duration_ns: 1000 } }
  tasks { id: 2 stream: 0 name: "layer_norm_kernel" compute { duration_ns: 100 } }
  tasks { id: 3 stream: 0 name: "ampere_sgemm_128x64_nn" compute { duration_ns: 2000 } }
}
ranks { first: 0 template_name: "r0" }
)";

std::string details_rows(int id, const std::string& name, double compute_pct) {
  std::string rows;
  const std::pair<const char*, std::string> metrics[] = {
      {"Compute (SM) Throughput", std::to_string(compute_pct)}, {"Memory Throughput", "40.5"}, {"DRAM Throughput", "30"},
      {"Achieved Occupancy", "45"}, {"Theoretical Occupancy", "50"}, {"L1/TEX Hit Rate", "12.5"},
      {"L2 Hit Rate", "80"}, {"Grid Size", "1,024"}, {"Block Size", "256"}, {"Duration", "12.3"}};
  for (const auto& [metric, value] : metrics)
    rows += "\"" + std::to_string(id) + "\",\"1\",\"python\",\"" + name + "\",\"Section\",\"" + metric + "\",\"%\",\"" + value + "\"\n";
  return rows;
}

const std::string kDetailsHeader =
    "==PROF== Disconnected from process 1\n\"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\",\"Section Name\",\"Metric Name\","
    "\"Metric Unit\",\"Metric Value\"\n";

} // namespace

TEST_CASE("kernel names compare without template arguments and parameters") {
  CHECK(workloads::kernel_base_name("void at::native::elementwise_kernel<128, 4, float>(int, float*)") ==
        "at::native::elementwise_kernel");
  CHECK(workloads::kernel_base_name("ampere_sgemm_128x64_nn") == "ampere_sgemm_128x64_nn");
  // An anonymous namespace is part of the name, not a parameter list.
  CHECK(workloads::kernel_base_name("void at::native::(anonymous namespace)::layer_norm_kernel<float>(int, float*)") ==
        "at::native::(anonymous namespace)::layer_norm_kernel");
}

TEST_CASE("details-page metrics attach to kernels by name and launch order") {
  TempDir dir;
  const std::string trace = dir.file("t.pbtxt", kTrace);
  const std::string report = dir.file("r.csv", kDetailsHeader + details_rows(0, "ampere_sgemm_128x64_nn", 71) +
                                                   details_rows(1, "void layer_norm_kernel<float>(float*, int)", 20) +
                                                   details_rows(2, "ampere_sgemm_128x64_nn", 72) +
                                                   details_rows(3, "unrelated_kernel", 5));
  const auto r = run_cli("import ncu " + report + " --into " + trace + " -o " + (dir / "out.pbtxt"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("attached metrics to 3 kernels; 0 kernels of the trace have none; 1 profiled kernels were not used") !=
        std::string::npos);
  const trace::Trace t = workloads::read_trace_message(dir / "out.pbtxt");
  const auto& tasks = t.templates(0).tasks();
  CHECK(tasks[0].compute().metrics().compute_throughput() == test::Approx(71));
  CHECK(tasks[2].compute().metrics().compute_throughput() == test::Approx(72));  // the second launch
  CHECK(tasks[1].compute().metrics().l2_hit_rate() == test::Approx(80));
  CHECK(tasks[1].compute().metrics().grid_size() == 1024);  // "1,024"
  CHECK(tasks[1].compute().metrics().max_occupancy() == test::Approx(50));
}

TEST_CASE("raw-page metrics attach the same way") {
  TempDir dir;
  const std::string trace = dir.file("t.pbtxt", kTrace);
  std::string csv = "\"ID\",\"Kernel Name\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
                    "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
                    "\"gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed\",\"sm__warps_active.avg.pct_of_peak_sustained_active\","
                    "\"sm__maximum_warps_per_active_cycle_pct\",\"l1tex__t_sector_hit_rate.pct\",\"lts__t_sector_hit_rate.pct\","
                    "\"launch__grid_size\",\"launch__block_size\"\n"
                    "\"\",\"\",\"%\",\"%\",\"%\",\"%\",\"%\",\"%\",\"%\",\"\",\"\"\n";
  for (int i = 0; i < 2; ++i)
    csv += "\"" + std::to_string(i) + "\",\"ampere_sgemm_128x64_nn\",\"6" + std::to_string(i) + "\",\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\"\n";
  const auto r = run_cli("import ncu " + dir.file("raw.csv", csv) + " --into " + trace);
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("attached metrics to 2 kernels; 1 kernels of the trace have none") != std::string::npos);
  const trace::Trace t = workloads::read_trace_message(trace);  // written over --into
  CHECK(t.templates(0).tasks(2).compute().metrics().compute_throughput() == test::Approx(61));
  CHECK(t.templates(0).tasks(2).compute().metrics().block_size() == 8);
}

TEST_CASE("bad Nsight Compute reports: a clear message and exit code 2") {
  TempDir dir;
  const std::string trace = dir.file("t.pbtxt", kTrace);
  auto error = [&](const std::string& csv) {
    const auto r = run_cli("import ncu " + dir.file("bad.csv", csv) + " --into " + trace);
    CHECK(r.code == 2);
    return r.err;
  };
  CHECK(error("a,b,c\n1,2,3\n").find("not an Nsight Compute CSV report") != std::string::npos);
  std::string missing = kDetailsHeader + details_rows(0, "ampere_sgemm_128x64_nn", 70);
  missing = missing.substr(0, missing.find("\"0\",\"1\",\"python\",\"ampere_sgemm_128x64_nn\",\"Section\",\"L2 Hit Rate\""));
  CHECK(error(missing).find("has no L2 Hit Rate") != std::string::npos);
  std::string bad_number = kDetailsHeader + details_rows(0, "ampere_sgemm_128x64_nn", 70);
  bad_number.replace(bad_number.find("\"40.5\""), 6, "\"lots\"");
  CHECK(error(bad_number).find("Memory Throughput is not a number: 'lots'") != std::string::npos);
  // Found by fuzzing: a block size past 32 bits was cast to one (undefined); NaN passed as a number.
  std::string huge = kDetailsHeader + details_rows(0, "ampere_sgemm_128x64_nn", 70);
  huge.replace(huge.find("\"256\""), 5, "\"2565555555555555555555\"");
  CHECK(error(huge).find("Block Size is larger than a kernel launch can be") != std::string::npos);
  std::string nan = kDetailsHeader + details_rows(0, "ampere_sgemm_128x64_nn", 70);
  nan.replace(nan.find("\"40.5\""), 6, "\"nan\"");
  CHECK(error(nan).find("Memory Throughput is not a number: 'nan'") != std::string::npos);
  CHECK(error(kDetailsHeader + details_rows(0, "other_kernel", 70)).find("no kernel of the report matches") != std::string::npos);
  CHECK(error(kDetailsHeader).find("the report has no kernels") != std::string::npos);
}
