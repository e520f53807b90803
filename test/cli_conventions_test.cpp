// What every subcommand shares: one output flag (-o / --out), --json wherever results are
// printed, a figure spelled as its job key everywhere, and a --help example of its own.
#include "support/cli_runner.hpp"
#include "support/temp_files.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

using echo::test::run_cli;
using echo::test::slurp;
using echo::test::TempDir;
using nlohmann::json;

namespace {

// The command's output parsed as JSON; fails the check (not the test run) when it is not.
json json_of(const std::string& args) {
  const auto r = run_cli(args);
  INFO(args << "\n" << r.err);
  REQUIRE(r.code == 0);
  json j;
  CHECK_NOTHROW(j = json::parse(r.out));
  return j;
}

} // namespace

TEST_CASE("every subcommand that prints results prints them as JSON with --json") {
  TempDir dir;
  CHECK(json_of("run examples/two_ranks/job.yaml -q --json")["iteration_time_ns"].get<std::uint64_t>() > 0);
  CHECK(json_of("models --json").size() > 5);
  CHECK(json_of("platform list --json").size() >= 7);
  const json info = json_of("platform info --preset dgx-a100 --nodes 2 --route 0,8 --json");
  CHECK(info["gpus"] == 16);
  CHECK(info["routes"][0]["kind"] == "network");
  const json nccl = json_of("nccl-tests --platform preset:dgx-a100:2 --gpus 16 -b 1M -e 4M --json");
  CHECK(nccl["rows"].size() == 3);
  CHECK(nccl["rows"][0]["bytes"] == 1048576);
  CHECK(nccl["rows"][0]["busbw_GBps"].get<double>() > 0);
  CHECK_FALSE(nccl["rows"][0]["algorithm"].get<std::string>().empty());
  REQUIRE(run_cli("run examples/two_ranks/job.yaml -q -o '" + (dir / "a") + "'").code == 0);
  REQUIRE(run_cli("run examples/two_ranks/job.yaml -q --set communication.proto=LL --out '" + (dir / "b") + "'").code == 0);
  const json compared = json_of("compare '" + (dir / "a") + "' '" + (dir / "b") + "' --json");
  CHECK(compared["settings_differ"].size() >= 1);
  CHECK(compared["iteration_time_s"]["change"].get<double>() != 0.0);
  CHECK(compared["collectives"].size() == 1);
  const std::string job = dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload:\n  model: {name: gpt3-125m}\n"
                                               "  training: {global_batch: 8}\n  parallel: {tp: 1}\n");
  const json swept = json_of("sweep " + job + " --space " + dir.file("space.yaml", "parallel.tp: [1, 2]\n") + " -q -o '" +
                             (dir / "s") + "' --json");
  CHECK(swept.size() == 2);
  CHECK(swept[0]["status"] == "ok");
  CHECK(std::filesystem::exists(dir / "s/results.json"));  // -o is --out
}

TEST_CASE("one output flag: -o and --out name what a subcommand writes, --output is gone") {
  TempDir dir;
  CHECK(run_cli("platform generate --preset dgx-a100 --nodes 1 -o '" + (dir / "a.xml") + "'").code == 0);
  CHECK(run_cli("platform generate --preset dgx-a100 --nodes 1 --out '" + (dir / "b.xml") + "'").code == 0);
  CHECK(slurp(dir / "a.xml") == slurp(dir / "b.xml"));
  CHECK(run_cli("import chakra examples/two_ranks/job.yaml --output x.pb").code != 0);
  for (const char* help : {"run", "sweep", "platform generate", "import kineto", "import chakra", "trace", "slowdown train", "slowdown table"}) {
    const std::string text = run_cli(std::string(help) + " --help").out;
    INFO(help);
    CHECK(text.find("-o,--out") != std::string::npos);
    CHECK(text.find("--output") == std::string::npos);
  }
}

TEST_CASE("a platform figure is spelled as its job key on every command") {
  TempDir dir;
  // The job's `platform.nic_bw`, --set platform.nic_bw=..., and `platform generate --nic_bw`.
  CHECK(run_cli("platform generate --preset dgx-a100 --nodes 2 --nic_bw 100Gbps -o '" + (dir / "p.xml") + "'").code == 0);
  CHECK(slurp(dir / "p.xml").find("bandwidth=\"100Gbps\"") != std::string::npos);
  CHECK(run_cli("platform generate --preset dgx-a100 --nodes 2 --gpus_per_node 4 --nics_per_node 4").code == 0);
  CHECK(run_cli("platform generate --preset dgx-a100 --nodes 2 --nic-bw 100Gbps").code != 0);
  // nccl-tests --set takes the job's key as `run --set` does (and the bare figure).
  const std::string args = "nccl-tests --platform preset:dgx-a100:2 --gpus 16 -b 64M -e 64M ";
  const std::string keyed = run_cli(args + "--set platform.nic_bw=100Gbps").out, bare = run_cli(args + "--set nic_bw=100Gbps").out;
  CHECK(keyed == bare);
  CHECK(keyed != run_cli(args).out);
}

TEST_CASE("every subcommand's --help shows an example of itself") {
  for (const char* command : {"run", "compare", "sweep", "nccl-tests", "models", "trace", "platform", "platform list", "platform info",
                              "platform generate", "import", "import kineto", "import ncu", "slowdown", "slowdown train",
                              "slowdown eval", "slowdown table"}) {
    const std::string text = run_cli(std::string(command) + " --help").out;
    INFO(command);
    const std::size_t example = text.find("Example:");
    REQUIRE(example != std::string::npos);
    // The first word after "echo-des" in the example is the subcommand's own.
    const std::string own = std::string("echo-des ") + std::string(command).substr(0, std::string(command).find(' '));
    CHECK(text.find(own, example) != std::string::npos);
  }
}
