// `echo-des sweep`: points from lists and ranges, results that do not depend on the number of
// workers, resuming an interrupted sweep, and every bad space ending with exit code 2.
#include "support/cli_runner.hpp"
#include "support/headless_browser.hpp"
#include "support/temp_files.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>

using echo::test::run_cli;
using echo::test::slurp;
using echo::test::TempDir;

namespace {

const char* kJob = R"(platform: {preset: dgx-a100, nodes: 1}
workload:
  model: {name: gpt3-125m}
  training: {global_batch: 16}
  parallel: {tp: 1}
)";

const char* kSpace = R"(parallel.tp: [1, 2, 5]
parallel: {pp: {from: 1, to: 4, times: 2}}
)";

std::string sweep(const TempDir& dir, const std::string& space, const std::string& args, int expected_code = 0) {
  const auto r = run_cli("sweep " + dir.file("job.yaml", kJob) + " --space " + dir.file("space.yaml", space) + " " + args);
  INFO(r.err);
  CHECK(r.code == expected_code);
  return r.code == 0 ? r.out : r.err;
}

} // namespace

TEST_CASE("a sweep simulates every valid point and ranks them") {
  TempDir dir;
  const std::string out = sweep(dir, kSpace, "-j 2 -q --out " + dir.path().string() + "/a");
  CHECK(out.find("9 points: 6 simulated, 3 invalid") != std::string::npos);
  CHECK(out.find("3 x invalid: tp (N) does not divide heads (N)") != std::string::npos);
  CHECK(out.find("limited by") != std::string::npos);
  const auto results = nlohmann::json::parse(slurp(dir.path() / "a" / "results.json"));
  REQUIRE(results.size() == 9);
  CHECK(results[0]["point"]["workload.parallel.tp"] == "1");
  CHECK(results[0]["point"]["workload.parallel.pp"] == "1");
  CHECK(results[1]["point"]["workload.parallel.pp"] == "2");
  CHECK(results[0]["status"] == "ok");
  CHECK(results[0]["rank_folding"] == "all");  // the sweep's default: one replica per group
  CHECK(results[0]["tokens_per_s"].get<double>() > 0);
  // The page: every simulated point plotted, the Pareto front marked and listed.
  const std::string html = slurp(dir.path() / "a" / "sweep.html");
  std::size_t circles = 0;
  for (std::size_t at = html.find("<circle"); at != std::string::npos; at = html.find("<circle", at + 1))
    ++circles;
  CHECK(circles == 6);
  CHECK(html.find("class=\"front\"") != std::string::npos);
  CHECK(html.find("<table id=\"front\">") != std::string::npos);
  // Labelled axes with round ticks, and the points coloured by the first setting that varies
  // among them (tp: 1 and 2 simulate, 5 does not divide the heads), with its legend.
  CHECK(html.find("class=\"xtick\"") != std::string::npos);
  CHECK(html.find("class=\"ytick\"") != std::string::npos);
  CHECK(html.find(">peak memory per GPU (GiB)</text>") != std::string::npos);
  CHECK(html.find(">tokens/s</text>") != std::string::npos);
  CHECK(html.find("colour: <b>workload.parallel.tp</b><span style=\"background:#4e79a7\"></span>1<span style=\"background:#f28e2b\"></span>2</div>") !=
        std::string::npos);
  CHECK(html.find("fill=\"#f28e2b\"") != std::string::npos);  // a tp 2 point
  const std::string csv = slurp(dir.path() / "a" / "results.csv");
  CHECK(csv.rfind("index,workload.parallel.tp,workload.parallel.pp,status,iteration_time_s", 0) == 0);
}

TEST_CASE("--set changes the job of every point, and a key the space sweeps is refused") {
  TempDir dir;
  const std::string space = "parallel.tp: [1, 2]\n";
  sweep(dir, space, "-q --out " + dir.path().string() + "/base");
  sweep(dir, space, "-q --out " + dir.path().string() + "/set --set workload.training.global_batch=32");
  const auto base = nlohmann::json::parse(slurp(dir.path() / "base" / "results.json"));
  const auto set = nlohmann::json::parse(slurp(dir.path() / "set" / "results.json"));
  REQUIRE(base.size() == 2);
  REQUIRE(set.size() == 2);
  for (std::size_t i = 0; i < 2; ++i) {  // twice the micro-batches: nearly twice the time (the step is paid once)
    const double ratio = set[i]["iteration_time_s"].get<double>() / base[i]["iteration_time_s"].get<double>();
    CHECK(ratio > 1.6);
    CHECK(ratio < 2.0);
  }
  const std::string err = sweep(dir, space, "-q --out " + dir.path().string() + "/bad --set workload.parallel.tp=4", 2);
  CHECK(err.find("`workload.parallel.tp` is swept by the space") != std::string::npos);
  CHECK(sweep(dir, space, "-q --out " + dir.path().string() + "/bad2 --set workload.training.dtype=fp7", 2)
            .find("dtype") != std::string::npos);
  // --fold exact: every point simulated as `run` would; the same settings, the same records but the folding.
  sweep(dir, space, "-q --fold exact --out " + dir.path().string() + "/exact");
  const auto exact = nlohmann::json::parse(slurp(dir.path() / "exact" / "results.json"));
  REQUIRE(exact.size() == 2);
  CHECK(exact[0]["rank_folding"] == "exact");
  CHECK(sweep(dir, space, "-q --fold some --out " + dir.path().string() + "/bad3", 2).find("--fold") != std::string::npos);
}

TEST_CASE("the results do not depend on the number of workers") {
  TempDir dir;
  sweep(dir, kSpace, "-j 1 -q --out " + dir.path().string() + "/one");
  sweep(dir, kSpace, "-j 3 -q --out " + dir.path().string() + "/three");
  CHECK(slurp(dir.path() / "one" / "results.json") == slurp(dir.path() / "three" / "results.json"));
  CHECK(slurp(dir.path() / "one" / "results.csv") == slurp(dir.path() / "three" / "results.csv"));
}

TEST_CASE("an interrupted sweep resumes with only the points it lacks") {
  TempDir dir;
  const std::string full = dir.path().string() + "/full", cut = dir.path().string() + "/cut";
  sweep(dir, kSpace, "-q --out " + full);
  // Keep four results and half of a fifth line, as a killed sweep may leave its log.
  std::ifstream in(std::filesystem::path(full) / "results.jsonl");
  std::string log, line;
  for (int i = 0; i < 4 && std::getline(in, line); ++i)
    log += line + "\n";
  std::getline(in, line);
  log += line.substr(0, line.size() / 2);
  std::filesystem::create_directories(cut);
  std::ofstream(std::filesystem::path(cut) / "results.jsonl") << log;
  const auto r = run_cli("sweep " + dir.file("job.yaml", kJob) + " --space " + dir.file("space.yaml", kSpace) + " --resume --out " + cut);
  CHECK(r.code == 0);
  CHECK(r.err.find("resuming: 4 of 9 points already have a result") != std::string::npos);
  CHECK(slurp(std::filesystem::path(cut) / "results.json") == slurp(std::filesystem::path(full) / "results.json"));
  // Without --resume the folder is refused.
  const auto again = run_cli("sweep " + dir.file("job.yaml", kJob) + " --space " + dir.file("space.yaml", kSpace) + " --out " + cut);
  CHECK(again.code == 2);
  CHECK(again.err.find("add --resume") != std::string::npos);
}

TEST_CASE("bad sweep spaces: a clear message and exit code 2") {
  TempDir dir;
  const std::string out = "-q --out " + dir.path().string() + "/x";
  CHECK(sweep(dir, "parallel.tensor: [1, 2]\n", out, 2).find("'parallel.tensor' is not a key of the job file") != std::string::npos);
  CHECK(sweep(dir, "paralel.tpp: [1, 2]\n", out, 2).find("nearest valid key is 'workload.parallel.tp'") != std::string::npos);
  CHECK(sweep(dir, "training.micro_batches: [1, 2]\n", out, 2).find("nearest valid key is 'workload.training.micro_batch'") !=
        std::string::npos);
  CHECK(sweep(dir, "{}\n", out, 2).find("the sweep space is empty") != std::string::npos);
  CHECK(sweep(dir, "parallel.tp: []\n", out, 2).find("has no values") != std::string::npos);
  CHECK(sweep(dir, "parallel.tp: {from: a, to: 8, times: 2}\n", out, 2).find("range `from` must be a number, got 'a'") !=
        std::string::npos);
  CHECK(sweep(dir, "parallel.tp: {from: 1, to: 8}\n", out, 2).find("exactly one of `step` and `times`") != std::string::npos);
  CHECK(sweep(dir, "parallel.tp: {from: 1, to: 8, times: 1}\n", out, 2).find("would never end") != std::string::npos);
  CHECK(sweep(dir, "parallel.tp: {from: 8, to: 1, step: 1}\n", out, 2).find("is empty") != std::string::npos);
  CHECK(sweep(dir, "parallel:\n  ? [tp]\n  : [1, 2]\n", out, 2).find("space.yaml:2: a key in `parallel` is a list, not a name") !=
        std::string::npos);
  // A job file broken on its own is reported as such, once.
  const auto r = run_cli("sweep " + dir.file("broken.yaml", "platform: {preset: dgx-a100}\nworkload: {tracee: x}\n") +
                         " --space " + dir.file("space.yaml", kSpace) + " " + out);
  CHECK(r.code == 2);
  CHECK(r.err.find("unknown key 'tracee'") != std::string::npos);
}

TEST_CASE("a sweep where no point can be simulated ends with exit code 2, its reasons and a page that says so") {
  TempDir dir;
  const std::string err = sweep(dir, "parallel.tp: [5, 7]\n", "-q --out " + dir.path().string() + "/none", 2);
  CHECK(err.find("no point of the space could be simulated (2 points") != std::string::npos);
  CHECK(err.find("how to fix: widen the space") != std::string::npos);
  const auto r = run_cli("sweep " + dir.file("job.yaml", kJob) + " --space " + dir.file("space.yaml", "parallel.tp: [5, 7]\n") +
                         " -q --out " + dir.path().string() + "/none2");
  CHECK(r.out.find("2 x invalid: tp (N) does not divide heads (N)") != std::string::npos);  // the reasons, on stdout
  const std::string html = slurp(dir.path() / "none2" / "sweep.html");
  CHECK(html.find("No point of the space could be simulated") != std::string::npos);
  CHECK(html.find("<svg") == std::string::npos);  // no empty chart
}

TEST_CASE("sweep.html renders in a headless browser with labelled axes") {
  if (!echo::test::have_browser()) {
    MESSAGE("chromium is not installed: skipping the browser test (CI installs it)");
    return;
  }
  TempDir dir;
  sweep(dir, kSpace, "-q --out " + dir.path().string() + "/a");
  const auto rendered = echo::test::rendered_dom(dir, (dir.path() / "a/sweep.html").string());
  REQUIRE(rendered);
  const std::string& dom = *rendered;
  CHECK(dom.find("<svg id=\"plot\"") != std::string::npos);
  CHECK(dom.find("class=\"xtick\"") != std::string::npos);
  CHECK(dom.find("class=\"ytick\"") != std::string::npos);
  CHECK(dom.find("peak memory per GPU (GiB)") != std::string::npos);
  CHECK(dom.find("id=\"key\"") != std::string::npos);
}

namespace {

// A trace whose two ranks never meet: rank 0 all-reduces, rank 1 waits for a message.
const char* kDeadlock = R"(templates { name: "r0" streams: "s" tasks { id: 1 stream: 0 name: "ar" collective { op: ALL_REDUCE comm: "world" bytes: 64 } } }
templates { name: "r1" streams: "s" tasks { id: 1 stream: 0 name: "r" recv { comm: "world" peer: 0 bytes: 8 } } }
communicators { name: "world" slot: "world" ranks: 0 ranks: 1 }
ranks { first: 0 template_name: "r0" }
ranks { first: 1 template_name: "r1" }
)";

// Sweeps a good and a deadlocking trace; returns results.json.
nlohmann::json sweep_with_a_failing_point(const TempDir& dir, const std::string& launcher, const std::string& name) {
  const std::string job = dir.file("trace_job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {trace: " ECHO_SOURCE_DIR
                                                     "/examples/two_ranks/trace.pbtxt}\n");
  const std::string space = dir.file("trace_space.yaml", "workload.trace: [" ECHO_SOURCE_DIR "/examples/two_ranks/trace.pbtxt, " +
                                                             dir.file("deadlock.pbtxt", kDeadlock) + "]\n");
  const std::string out = dir.path().string() + "/" + name;
  const std::string command = "cd '" ECHO_SOURCE_DIR "' && " + launcher + " '" ECHO_BINARY "' sweep " + job + " --space " + space +
                              " -q --out " + out + " > " + out + ".log 2>&1";
  const int status = std::system(command.c_str());
  INFO(slurp(out + ".log"));
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  return nlohmann::json::parse(slurp(std::filesystem::path(out) / "results.json"));
}

} // namespace

TEST_CASE("a point that fails is reported with its error and the sweep goes on") {
  TempDir dir;
  const auto results = sweep_with_a_failing_point(dir, "", "local");
  REQUIRE(results.size() == 2);
  CHECK(results[0]["status"] == "ok");
  CHECK(results[1]["status"] == "failed");
  CHECK(results[1]["reason"].get<std::string>().find("deadlock") != std::string::npos);
}

#ifdef ECHO_HAVE_MPI
TEST_CASE("across two MPI ranks the sweep gives the single-process results") {
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) {
    MESSAGE("skipped: mpirun is not installed");
    return;
  }
  TempDir dir;
  const std::string job = dir.file("job.yaml", kJob), space = dir.file("space.yaml", kSpace);
  sweep(dir, kSpace, "-j 1 -q --out " + dir.path().string() + "/local");
  // Root may run this in CI: OpenMPI then wants to be told that is meant.
  const std::string command = "cd '" ECHO_SOURCE_DIR "' && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                              "mpirun -np 2 --oversubscribe '" ECHO_BINARY "' sweep " + job + " --space " + space +
                              " -q --out " + dir.path().string() + "/mpi > " + dir.path().string() + "/mpi.log 2>&1";
  const int status = std::system(command.c_str());
  INFO(slurp(dir.path() / "mpi.log"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(slurp(dir.path() / "mpi" / "results.json") == slurp(dir.path() / "local" / "results.json"));
  // A point that fails on a simulating rank is reported, and the others are still done.
  const std::string mpirun = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe";
  CHECK(sweep_with_a_failing_point(dir, mpirun, "mpi_failing") == sweep_with_a_failing_point(dir, "", "local_failing"));
}
#endif
