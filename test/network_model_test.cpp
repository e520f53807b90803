// The network-model seam: a model registered from outside core/ is chosen by name like the
// built-in ones, and its decisions time the steps.
#include "cli/job_file.hpp"
#include "core/network/network_model.hpp"
#include "core/simulation.hpp"
#include "support/child_process.hpp"
#include "support/temp_files.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace echo;

namespace {

// A toy model: every step takes twice as long as it would alone, and it counts what it saw.
struct Counts {
  std::uint64_t opened = 0, closed = 0, admitted = 0;
};
Counts counts;

class SlowLinks final : public core::network::NetworkModel {
public:
  void open(core::network::NetworkCall&) override { ++counts.opened; }
  void close(core::network::NetworkCall&) override { ++counts.closed; }
  std::optional<double> admit(core::network::NetworkCall&, std::uint32_t, double, double serialize_s) override {
    ++counts.admitted;
    return 2 * serialize_s;
  }
};

void register_toy() {
  core::network::NetworkModelRegistry::global().add(
      {"slow-links", "every step twice its time alone", true,
       [](const core::network::NetworkContext&) { return std::make_unique<SlowLinks>(); }});
}

// One 256 MiB AllReduce over 16 GPUs on two nodes, at `fidelity`: iteration time and the toy's counts.
nlohmann::json run_allreduce(const std::string& fidelity) {
  register_toy();
  test::TempDir dir;
  dir.file("trace.pbtxt", R"(
templates { name: "t" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 268435456 } } }
ranks { first: 0 count: 16 template_name: "t" })");
  const std::string yaml = "platform: {preset: dgx-a100, nodes: 2}\nworkload: {trace: trace.pbtxt}\ncommunication: {fidelity: " +
                           fidelity + ", algo: ring}\n";
  const auto outcome = test::in_child_process([&] {
    counts = {};
    core::Simulation sim(cli::parse_job(yaml, "job.yaml", dir.path().string(), {}));
    const core::SimulationResult r = sim.run(false);
    return nlohmann::json{{"ns", r.iteration_ns}, {"opened", counts.opened}, {"closed", counts.closed}, {"admitted", counts.admitted}}
        .dump();
  });
  INFO(outcome.text);
  REQUIRE(!outcome.user_error);
  return nlohmann::json::parse(outcome.text);
}

} // namespace

TEST_CASE("a network model registered outside core is chosen by name and times every step") {
  const nlohmann::json steps = run_allreduce("steps"), toy = run_allreduce("slow-links");
  CHECK(steps["admitted"] == 0);
  CHECK(toy["opened"] == 1);
  CHECK(toy["closed"] == 1);
  CHECK(toy["admitted"].get<std::uint64_t>() >= 2 * 15 * 16);  // ring AllReduce: 2(n-1) steps per member per channel
  // A 256 MiB ring AllReduce is bandwidth-bound: twice the serialization is nearly twice the time.
  const double ratio = toy["ns"].get<double>() / steps["ns"].get<double>();
  CHECK(ratio > 1.8);
  CHECK(ratio < 2.0);
}

TEST_CASE("the job file knows the registered network models, and names them all when one is unknown") {
  register_toy();
  const std::string base = "platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\ncommunication: {fidelity: ";
  CHECK(cli::parse_job(base + "slow-links}\n", "job.yaml", "/jobs", {}).communication.fidelity == "slow-links");
  try {
    cli::parse_job(base + "exact}\n", "job.yaml", "/jobs", {});
    FAIL("an unknown fidelity was accepted");
  } catch (const UserError& e) {
    const std::string message = e.what();
    CHECK(message.find("unknown fidelity 'exact'") != std::string::npos);
    CHECK(message.find("`analytic` (one closed-form event per collective)") != std::string::npos);
    CHECK(message.find("`slow-links` (every step twice its time alone)") != std::string::npos);
  }
}
