// How a Kineto step is replayed: from the state it started in (work carried in from the step
// before), with blocking calls as waits on the GPU, so that a faster GPU shortens a GPU-bound step
// and barely moves a host-bound one.
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

nlohmann::json run_json(const TempDir& dir, const std::string& file, const std::string& extra = "") {
  return echo::test::run_cli_json(
      "run " + dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {kineto: [" + file + "]" + extra + "}\n") + " --json -q");
}

std::int64_t iteration_ns(const TempDir& dir, const std::string& file, const std::string& extra = "") {
  return run_json(dir, file, extra)["iteration_time_ns"].get<std::int64_t>();
}

// Two steps of `kernels` launches each: the host spends `launch_gap_us` between launches, each
// kernel runs `kernel_us`, and the step ends with a cudaDeviceSynchronize (no cuda_sync events).
// The GPU times are the ones a real run would show (a kernel starts when launched and its stream
// is free).
std::string steps(int kernels, double launch_gap_us, double kernel_us) {
  std::vector<std::string> events;
  double host = 0, gpu_free = 0;
  int corr = 0;
  for (int s = 1; s <= 2; ++s) {
    const double step_start = host;
    std::vector<std::string> step_events;
    for (int i = 0; i < kernels; ++i) {
      host += launch_gap_us;
      events.push_back(k::call("cudaLaunchKernel", host, 2, ++corr));
      const double start = std::max(host + 2, gpu_free);
      events.push_back(k::gpu("kernel", start, kernel_us, corr, 7));
      gpu_free = start + kernel_us;
    }
    host += 5;
    const double returns = std::max(host + 1, gpu_free + 1);
    events.push_back(k::call("cudaDeviceSynchronize", host, returns - host, ++corr));
    host = returns + 5;
    events.push_back(k::step(s, step_start, host - step_start));
  }
  return k::trace(events);
}

} // namespace

TEST_CASE("a faster GPU shortens a GPU-bound step by much, a host-bound one by what its waits lose") {
  TempDir dir;
  dir.file("gpu_bound.json", steps(20, 5, 100));
  dir.file("host_bound.json", steps(20, 100, 10));
  const std::int64_t gpu_bound = iteration_ns(dir, "gpu_bound.json");
  const std::int64_t host_bound = iteration_ns(dir, "host_bound.json");
  // Replayed as traced: the step's duration, less the 2 us each kernel waited after its launch
  // call began (launch latency is not modelled: a kernel may start when its launch call does).
  CHECK(gpu_bound == 2011000);   // 5 us to the first launch, 20 x 100 us of kernels, the sync, 5 us
  CHECK(host_bound == 2016000);  // 20 x 100 us of launches, the last kernel, the sync returning after it, 5 us
  // The host-bound one says so: its GPU idled waiting for launches most of the step.
  auto host_bound_share = [&](const std::string& file) {
    const auto j = run_json(dir, file);
    return j["ranks"][0]["host_bound_s"].get<double>() / j["iteration_time_s"].get<double>();
  };
  CHECK(host_bound_share("host_bound.json") > 0.85);
  CHECK(host_bound_share("gpu_bound.json") < 0.01);
  const std::int64_t gpu_bound_fast = iteration_ns(dir, "gpu_bound.json", ", kernel_time_scale: 0.5");
  const std::int64_t host_bound_fast = iteration_ns(dir, "host_bound.json", ", kernel_time_scale: 0.5");
  CHECK(static_cast<double>(gpu_bound_fast) < 0.55 * static_cast<double>(gpu_bound));
  CHECK(static_cast<double>(host_bound_fast) > 0.99 * static_cast<double>(host_bound));
  CHECK(host_bound_fast < host_bound);  // the last kernel's wait is shorter
}

TEST_CASE("work still running from the step before is carried in, and a pageable copy and a stream sync are waits") {
  // Step 1 launches a kernel at 900 us that runs 950-1300, into step 2 (1000-2000). Step 2 copies a
  // scalar to pageable memory (the call returns with the copy, 1300-1302), launches a kernel
  // (1400-1580) and synchronises its stream (the call returns at 1585, when the kernel ended).
  const std::string t = k::trace({k::step(1, 0, 1000), k::call("cudaLaunchKernel", 900, 5, 1), k::gpu("long_kernel", 950, 350, 1, 7),
                                  k::step(2, 1000, 1000), k::call("cudaMemcpyAsync", 1010, 295, 2),
                                  k::gpu("Memcpy DtoH (Device -> Pageable)", 1300, 2, 2, 7, "", "gpu_memcpy"),
                                  k::call("cudaLaunchKernel", 1400, 5, 3), k::gpu("next_kernel", 1400, 180, 3, 7),
                                  k::call("cudaStreamSynchronize", 1450, 135, 4)});
  TempDir dir;
  const auto r = run_cli("import kineto " + dir.file("t.json", t) + " --step 2 -o " + (dir / "t.pbtxt"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const trace::Trace tr = workloads::read_trace_message(dir / "t.pbtxt");
  std::map<std::string, const trace::Task*> task;
  std::vector<const trace::Task*> syncs;
  for (const auto& x : tr.templates(0).tasks()) {
    task[x.name().substr(0, 24)] = &x;
    if (x.name() == "host synchronize")
      syncs.push_back(&x);
  }
  const trace::Task& carried = *task.at("in flight at the window'");
  CHECK(carried.category() == trace::CARRY_IN);
  CHECK(carried.compute().duration_ns() == 300000);  // 1000 .. 1300 us
  REQUIRE(syncs.size() == 2);
  auto waits = [](const trace::Task& a, const trace::Task& b) { return std::find(a.deps().begin(), a.deps().end(), b.id()) != a.deps().end(); };
  CHECK(waits(*syncs[0], *task.at("Memcpy DtoH (Device -> P")));
  CHECK(waits(*syncs[1], *task.at("next_kernel")));
  // The replay: the step's host thread ends it at 2000 us, 1000 us after it began.
  CHECK(iteration_ns(dir, "t.json", ", step: 2") == 1000000);
  // On a GPU twice as fast the host waits less: 150 us less for the carried-in kernel, 1 us for the
  // copy, 90 us for the next kernel; its own time stays.
  CHECK(iteration_ns(dir, "t.json", ", step: 2, kernel_time_scale: 0.5") == 1000000 - 150000 - 1000 - 90000);
}

TEST_CASE("kernel_time_scale: what it takes, and what it refuses") {
  TempDir dir;
  dir.file("t.json", steps(2, 5, 100));
  auto error_of = [&](const std::string& value) {
    const auto r = run_cli("run " + dir.file("bad.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {kineto: [t.json], kernel_time_scale: " +
                                                       value + "}\n") + " -q");
    CHECK(r.code == 2);
    return r.err;
  };
  CHECK(error_of("0").find("`kernel_time_scale` must be a positive finite number") != std::string::npos);
  CHECK(error_of("-1").find("must not be negative") != std::string::npos);
  CHECK(error_of("nan").find("`kernel_time_scale` must be a number, got 'nan'") != std::string::npos);
  CHECK(error_of("fast").find("must be a number") != std::string::npos);
  const auto generated = run_cli("run " + dir.file("gen.yaml", "platform: {preset: dgx-a100, nodes: 1}\n"
                                                               "workload: {model: {name: gpt3-1.3b}, kernel_time_scale: 0.5}\n") + " -q");
  CHECK(generated.code == 2);
  CHECK(generated.err.find("`workload.kernel_time_scale` belongs to a traced workload") != std::string::npos);
}
