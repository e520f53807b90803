// The public trace corpus (../shared/data/traces/, read in place): every PyTorch profiler trace
// with GPU work loads, its NCCL kernels become collectives (none replayed as compute unless a note
// says why), and its replay with the traced collective times is within 3% of the ProfilerStep it
// replays. Skipped with a message where ../shared is absent (a user's fresh clone).
#include "support/cli_runner.hpp"
#include "support/temp_files.hpp"

#include "workloads/trace_reader.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <regex>

using echo::test::run_cli;
using echo::test::TempDir;
using namespace echo;
namespace fs = std::filesystem;

namespace {

const std::string kCorpus = ECHO_SOURCE_DIR "/../shared/data/traces";

std::vector<std::string> kineto_files() {
  std::vector<std::string> out;
  for (const char* folder : {"hta-test-data", "kineto-pytorch1.9-samples"})
    for (const auto& e : fs::recursive_directory_iterator(kCorpus + "/" + folder)) {
      const std::string p = e.path().string();
      if (e.is_regular_file() && (p.ends_with(".json") || p.ends_with(".json.gz")))
        out.push_back(p);
    }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("every Kineto trace of the public corpus loads, with its collectives, and replays within 3% of its step") {
  if (!fs::exists(kCorpus)) {
    MESSAGE("skipped: " << kCorpus << " is absent");
    return;
  }
  const std::vector<std::string> files = kineto_files();
  REQUIRE(files.size() >= 30);
  int loaded = 0, stepped = 0, with_collectives = 0;
  for (const std::string& file : files) {
    CAPTURE(file);
    TempDir dir;
    const auto imported = run_cli("import kineto '" + file + "' -o " + (dir / "t.pb"));
    if (imported.code != 0) {
      // What may not load: traces without GPU work (CPU-only, non-GPU ranks, CUPTI range profiles)
      // and a PyTorch Execution Trace on its own — each said as such, exit 2.
      CHECK(imported.code == 2);
      const bool understood = imported.err.find("the trace has no GPU event") != std::string::npos ||
                              imported.err.find("PyTorch Execution Trace") != std::string::npos;
      CHECK_MESSAGE(understood, imported.err);
      continue;
    }
    ++loaded;
    const trace::Trace t = workloads::read_trace_message(dir / "t.pb");
    std::smatch m;
    REQUIRE(std::regex_search(imported.out, m, std::regex("imported (.*?): (\\d+) ranks, \\d+ kernels and (\\d+) collectives")));
    const int ranks = std::stoi(m[2]);
    with_collectives += std::stoi(m[3]) > 0;
    // An NCCL kernel replayed as compute only with a note that says why.
    const bool nccl_as_compute = std::any_of(t.templates().begin(), t.templates().end(), [](const trace::RankTemplate& r) {
      return std::any_of(r.tasks().begin(), r.tasks().end(),
                         [](const trace::Task& x) { return x.has_compute() && x.category() != trace::CARRY_IN && x.name().rfind("nccl", 0) == 0; });
    });
    if (nccl_as_compute)
      CHECK(imported.out.find("replay as kernels") != std::string::npos);
    const auto run = run_cli("run " + dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: " + std::to_string((ranks + 7) / 8) +
                                                               "}\nworkload: {trace: t.pb, comm: measured}\n") + " --json -q");
    REQUIRE(run.code == 0);
    const auto j = nlohmann::json::parse(run.out);
    if (m[1].str().rfind("ProfilerStep#", 0) == 0) {
      ++stepped;
      CHECK(std::abs(j["error_vs_measured"].get<double>()) < 0.03);
    }
  }
  CHECK(loaded >= 25);
  CHECK(stepped >= 15);
  CHECK(with_collectives >= 7);
}

TEST_CASE("every Chakra microbenchmark of astra-sim's examples runs") {
  const std::string root = kCorpus + "/astra-sim-workload/microbenchmarks";
  if (!fs::exists(root)) {
    MESSAGE("skipped: " << root << " is absent");
    return;
  }
  int jobs = 0;
  for (const auto& op : fs::directory_iterator(root))
    for (const auto& size : fs::directory_iterator(op.path())) {
      std::vector<std::string> files;
      for (const auto& f : fs::directory_iterator(size.path()))
        files.push_back(f.path().string());
      std::sort(files.begin(), files.end());
      std::string list;
      for (const std::string& f : files)
        list += (list.empty() ? "" : ", ") + f;
      CAPTURE(size.path().string());
      TempDir dir;
      const auto r = run_cli("run " + dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 2}\nworkload: {chakra: [" + list + "]}\n") +
                             " --json -q");
      REQUIRE(r.code == 0);
      CHECK(nlohmann::json::parse(r.out)["iteration_time_s"].get<double>() > 0);
      ++jobs;
    }
  CHECK(jobs == 12);  // all_gather, all_reduce, all_to_all, reduce_scatter at 4, 8 and 16 ranks
}

TEST_CASE("astra-sim's custom ring AllReduce runs: its sends complete when posted, as ASTRA-sim defines them") {
  const std::string folder = kCorpus + "/astra-sim-system/custom_collectives/custom_ring_allreduce_8npus_1MB";
  if (!fs::exists(folder)) {
    MESSAGE("skipped: " << folder << " is absent");
    return;
  }
  std::string list;
  for (int r = 0; r < 8; ++r)
    list += (r ? ", " : "") + folder + "/custom_allreduce." + std::to_string(r) + ".et";
  TempDir dir;
  const auto run = run_cli("run " + dir.file("job.yaml", "platform: {preset: dgx-a100, nodes: 1}\nworkload: {chakra: [" + list + "]}\n") +
                           " --json -q");
  INFO(run.err);
  REQUIRE(run.code == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j["ranks"].size() == 8);
  CHECK(j["iteration_time_s"].get<double>() > 0);
}

