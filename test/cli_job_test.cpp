// The job file: its schema, --set overrides, and the messages for mistakes.
#include "base/user_error.hpp"
#include "cli/job_file.hpp"
#include "cli/progress_line.hpp"

#include <doctest/doctest.h>

using namespace echo;

namespace {

core::JobSpec parse(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  return cli::parse_job(yaml, "job.yaml", "/jobs", sets);
}

std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    parse(yaml, sets);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("a job with a platform file: paths are relative to the job file") {
  const auto job = parse("platform: {file: p.xml}\nworkload: {trace: t.pbtxt}\noutput: {dir: out}\n");
  CHECK(job.platform.file == "/jobs/p.xml");
  CHECK_FALSE(job.platform.spec.has_value());
  REQUIRE(job.source.has_value());
  CHECK(job.source->format == "trace");
  CHECK(job.source->files == std::vector<std::string>{"/jobs/t.pbtxt"});
  CHECK(job.out_dir == "/jobs/out");
  CHECK(job.timeline);
}

TEST_CASE("a job with a preset and what-if figures") {
  const auto job = parse("platform:\n  preset: dgx-h100\n  nodes: 16\n  nic_bw: 200Gbps\n  oversubscription: 2\n"
                         "workload: {trace: /abs/t.pb}\n");
  REQUIRE(job.platform.spec.has_value());
  CHECK(job.platform.spec->preset == "dgx-h100");
  CHECK(job.platform.spec->nodes == 16);
  CHECK(job.platform.spec->nic_bw == "200Gbps");
  CHECK(job.platform.spec->oversubscription == 2.0);
  CHECK(job.source->files == std::vector<std::string>{"/abs/t.pb"});
}

TEST_CASE("--set overrides keys, including ones the file does not have") {
  const auto job = parse("platform: {preset: dgx-a100, nodes: 2}\nworkload: {trace: t.pb}\n",
                         {"platform.nodes=4", "platform.nic_latency=2us", "output.dir=/tmp/x", "output.timeline=false"});
  CHECK(job.platform.spec->nodes == 4);
  CHECK(job.platform.spec->nic_latency == "2us");
  CHECK(job.out_dir == "/tmp/x");
  CHECK_FALSE(job.timeline);
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n", {"nodes"}).find("key=value") != std::string::npos);
}

TEST_CASE("a mistake in a --set is named as the --set, never as a line of the job file") {
  const std::string file = "platform:\n  preset: dgx-a100\n  nodes: 2\nworkload: {trace: t.pb}\n";
  CHECK(error_of(file, {"platform.nodez=3"}).find("--set platform.nodez=3: unknown key 'nodez' in `platform`") == 0);
  CHECK(error_of(file, {"platform.nodes=4", "platform.nodes=abc"}).find("--set platform.nodes=abc: `nodes` must be a positive integer") ==
        0);
  CHECK(error_of(file, {"platform.nic_bw=200"}).find("--set platform.nic_bw=200: `nic_bw` = '200' has no unit") == 0);
  CHECK(error_of(file, {"output.timeline=maybe"}).find("--set output.timeline=maybe: `timeline` must be true or false") == 0);
  CHECK(error_of(file, {"workload.kernel_time_scale=-1"}).find("--set workload.kernel_time_scale=-1:") == 0);
  // The file's own mistakes keep their line, with overrides beside them.
  CHECK(error_of("platform:\n  preset: dgx-a100\n  nodes: x\nworkload: {trace: t.pb}\n", {"output.timeline=false"})
            .find("job.yaml:3: `nodes` must be a positive integer") == 0);
  // And where a setting came from says so too.
  const auto job = parse(file, {"communication.algo=ring"});
  CHECK(job.communication.algo_origin == "--set communication.algo=ring");
}

TEST_CASE("--set replaces a whole group with a value in braces, and names a malformed one") {
  const std::string file = "platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\nslowdown: {model: constant, factor: 1.5}\n";
  CHECK(parse(file).slowdown.factor == 1.5);
  const auto replaced = parse(file, {"slowdown={model: none}"});
  CHECK(replaced.slowdown.model == "none");
  CHECK(replaced.slowdown.factor == 0.0);  // the whole group replaced, not merged
  CHECK(error_of(file, {"slowdown={model: ["}).find("--set slowdown={model: [: malformed YAML value") == 0);
  CHECK(error_of(file, {"slowdown={model: nonsense}"}).find("--set slowdown={model: nonsense}:") == 0);
  CHECK(error_of(file, {"slowdown={? [a]: 1}"}).find("--set slowdown={? [a]: 1}:") == 0);
}

TEST_CASE("unknown keys are named with their line and the allowed keys") {
  const std::string top = error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\nworklaod: {}\n");
  CHECK(top.find("job.yaml:3: unknown key 'worklaod'") == 0);
  CHECK(top.find("allowed keys: platform, workload, communication, slowdown, output") != std::string::npos);
  const std::string inner = error_of("platform:\n  preset: dgx-a100\n  nic_bandwidth: 1Gbps\nworkload: {trace: t.pb}\n");
  CHECK(inner.find("job.yaml:3: unknown key 'nic_bandwidth' in `platform`") == 0);
  CHECK(inner.find("nic_bw") != std::string::npos);
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb, nsys: x}\n").find("unknown key 'nsys' in `workload`") !=
        std::string::npos);
}

TEST_CASE("malformed YAML names the line") {
  const std::string e = error_of("platform: {preset: dgx-a100\nworkload: [\n");
  CHECK(e.find("job.yaml:") == 0);
  CHECK(e.find("malformed YAML") != std::string::npos);
}

TEST_CASE("platform mistakes") {
  CHECK(error_of("platform: {preset: dgx-z900, nodes: 2}\nworkload: {trace: t.pb}\n").find("unknown platform preset 'dgx-z900'") !=
        std::string::npos);
  CHECK(error_of("platform: {preset: dgx-a100, nic_bw: fast}\nworkload: {trace: t.pb}\n")
            .find("job.yaml:1: `nic_bw` = 'fast' is not a valid bandwidth") == 0);
  // Not a number, or a figure without its unit (200 would be 200 bytes / s): named, never taken.
  for (const char* figure : {"nic_bw: nanGbps", "nic_bw: infGbps", "nvlink_latency: nanus", "oversubscription: nan", "oversubscription: inf",
                             "nccl.efficiency.net: nan", "nccl.extra_base_us.ll: nan", "nccl.extra_hop_us.net: inf"})
    CHECK_MESSAGE(error_of(std::string("platform: {preset: dgx-a100, ") + figure + "}\nworkload: {trace: t.pb}\n") != "no error", figure);
  CHECK(error_of("platform: {preset: dgx-a100, nic_bw: 200}\nworkload: {trace: t.pb}\n").find("`nic_bw` = '200' has no unit") !=
        std::string::npos);
  CHECK(error_of("platform: {preset: dgx-a100, nic_latency: 2}\nworkload: {trace: t.pb}\n").find("`nic_latency` = '2' has no unit") !=
        std::string::npos);
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\nslowdown: {model: constant, factor: nan}\n")
            .find("`factor` must be a number, got 'nan'") != std::string::npos);
  CHECK(error_of("platform: {preset: dgx-a100, nics_per_node: 3}\nworkload: {trace: t.pb}\n").find("and gpus_per_node (8) do not divide each other") !=
        std::string::npos);
  for (const char* pods : {"0", "-4", "16.5", "many"})
    CHECK_MESSAGE(error_of(std::string("platform: {preset: dgx-a100, pod_nodes: ") + pods + "}\nworkload: {trace: t.pb}\n")
                          .find("`pod_nodes` must be a positive integer") != std::string::npos,
                  pods);
  CHECK(error_of("platform: {file: a.xml, preset: dgx-a100}\nworkload: {trace: t.pb}\n").find("exactly one of `file` and `preset`") !=
        std::string::npos);
  CHECK(error_of("platform: {file: a.xml, nodes: 2}\nworkload: {trace: t.pb}\n").find("only applies to a preset") != std::string::npos);
  CHECK(error_of("workload: {trace: t.pb}\n").find("the job has no `platform` section") != std::string::npos);
  CHECK(error_of("platform: {preset: dgx-a100}\n").find("the job has no `workload` section") != std::string::npos);
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\noutput: {timeline: maybe}\n")
            .find("`timeline` must be true or false") != std::string::npos);
}

TEST_CASE("a missing job file") {
  CHECK_THROWS_WITH_AS(cli::load_job("/nonexistent/job.yaml", {}), doctest::Contains("cannot read the job file"), UserError);
}

TEST_CASE("a key written twice is an error naming both lines, at any depth") {
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\nplatform: {preset: dgx-h100}\n")
            .find("job.yaml:3: `platform` is written twice (first on line 1)") == 0);
  CHECK(error_of("platform:\n  preset: dgx-a100\n  nodes: 2\n  nodes: 4\nworkload: {trace: t.pb}\n")
            .find("job.yaml:4: `platform.nodes` is written twice (first on line 3)") == 0);
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n").find("written twice") == std::string::npos);
}

TEST_CASE("a key that is a list, a mapping or empty is an error with its line, not an internal error") {
  // Fuzz finding: ` ? -` (a complex key holding a list) failed a string conversion inside yaml-cpp.
  CHECK(error_of(" ? -").find("job.yaml:1: a key is a list, not a name") == 0);
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n? {a: 1}\n: 2\n").find("job.yaml:3: a key is a mapping") == 0);
  CHECK(error_of("platform:\n  preset: dgx-a100\n  ~: 4\nworkload: {trace: t.pb}\n")
            .find("job.yaml:3: a key in `platform` is empty, not a name") == 0);
}

TEST_CASE("the communication section names an NCCL release the model knows") {
  const std::string base = "platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\ncommunication:\n  nccl_version: ";
  CHECK(parse(base + "2.18.3-1\n").communication.nccl_version == collectives::NcclVersion{2, 18});
  CHECK(parse("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n").communication.nccl_version == collectives::kNewestNccl);
  const std::string message = error_of(base + "2.40\n");
  CHECK(message.find("job.yaml:4: unknown NCCL version '2.40'") == 0);
  CHECK(message.find("give a release from 2.12 to 2.29") != std::string::npos);
  CHECK(error_of(base + "2.21", {"communication.nccl_version=latest"}).find("unknown NCCL version 'latest'") != std::string::npos);
}

TEST_CASE("the communication section bounds NCCL's CTAs the way NCCL_MIN_CTAS / NCCL_MAX_CTAS do") {
  const std::string base = "platform: {preset: dgx-h100}\nworkload: {trace: t.pb}\ncommunication:\n";
  const auto job = parse(base + "  min_ctas: 24\n  max_ctas: 32\n");
  CHECK(job.communication.min_ctas == 24);
  CHECK(job.communication.max_ctas == 32);
  CHECK(job.communication.min_ctas_origin == "job.yaml:4 (communication.min_ctas)");
  CHECK(job.communication.cta_limits().min == 24);
  CHECK(job.communication.cta_limits().max == 32);
  CHECK(parse("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n").communication.cta_limits().is_default());
  for (const std::string bad : {"0", "65", "-2", "twelve", "1.5"}) {
    CAPTURE(bad);
    const std::string message = error_of(base + "  min_ctas: " + bad + "\n");
    CHECK(message.find("job.yaml:4 (communication.min_ctas): '" + bad + "' is not a CTA (channel) count NCCL accepts") == 0);
    CHECK(message.find("give an integer from 1 to 64") != std::string::npos);
  }
  CHECK(error_of(base + "  max_ctas: 8\n", {"communication.max_ctas=100"}).find("--set communication.max_ctas=100: '100'") == 0);
}

TEST_CASE("the communication section: fidelity and NCCL_ALGO / NCCL_PROTO lists, with where they came from") {
  const auto job = parse("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n"
                         "communication:\n  fidelity: analytic\n  algo: ring;allreduce:tree\n  proto: ^LL128\n");
  CHECK(job.communication.fidelity == "analytic");
  CHECK(job.communication.algo == "ring;allreduce:tree");
  CHECK(job.communication.algo_origin == "job.yaml:5 (communication.algo)");
  CHECK(job.communication.proto == "^LL128");
  CHECK(parse("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n").communication.fidelity == "steps");
  CHECK(parse("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\ncommunication: {fidelity: flow}\n")
            .communication.fidelity == "flow");
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\ncommunication: {fidelity: exact}\n")
            .find("job.yaml:3: unknown fidelity 'exact'") == 0);
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\ncommunication: {algorithm: ring}\n")
            .find("allowed keys in `communication`: fidelity, algo, proto, nccl_version") != std::string::npos);
}

TEST_CASE("--set reaches dotted figure keys: platform.nccl.efficiency.net") {
  const auto job = parse("platform: {preset: dgx-a100, nodes: 2}\nworkload: {trace: t.pb}\n", {"platform.nccl.efficiency.net=0.5"});
  REQUIRE(job.platform.spec.has_value());
  CHECK(job.platform.spec->calibration.at("nccl.efficiency.net") == "0.5");
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n", {"platform.nccl.efficiency.net=2"})
            .find("a fraction in (0, 1]") != std::string::npos);
}

TEST_CASE("the progress line: what it says, and silence when stderr is not a terminal") {
  core::Progress p;
  p.simulated_s = 0.0125;
  p.tasks_done = 450;
  p.tasks_total = 1000;
  p.events = 8'000'000;
  p.wall_s = 4.0;
  CHECK(cli::ProgressLine::text(p) == "simulated 12.500 ms, 45% of tasks, 2.0 M events/s, 4.0 s elapsed, about 5 s left");
  // The test's stderr is a file or a pipe, never a terminal.
  cli::ProgressLine line(false);
  CHECK_FALSE(static_cast<bool>(line.callback()));
  cli::ProgressLine quiet(true);
  CHECK_FALSE(static_cast<bool>(quiet.callback()));
}

TEST_CASE("a --set that would make a traced job generated is named as the mistake, not the job file") {
  const std::string e = error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb}\n", {"workload.parallel.tp=4"});
  CHECK(e.rfind("--set workload.parallel.tp=4: it changes a generated workload's model or layout", 0) == 0);
  CHECK(e.find("workload.replicate.dp=N") != std::string::npos);
  // A file that mixes both itself is still the file's mistake, with its line.
  CHECK(error_of("platform: {preset: dgx-a100}\nworkload: {trace: t.pb, model: {name: gpt3-1.3b}}\n")
            .find("`workload.trace` belongs to a traced workload") != std::string::npos);
}
