#include "report/run_job.hpp"

#include "report/json_text.hpp"

#include "base/atomic_write.hpp"
#include "base/user_error.hpp"
#include "core/simulation.hpp"
#include "report/html_report.hpp"
#include "report/summary_report.hpp"
#include "report/timeline_writer.hpp"

#include <algorithm>
#include <filesystem>
#include <iterator>

namespace echo::report {

namespace {

namespace fs = std::filesystem;

const char* const kOutputs[] = {"summary.json", "timeline.json", "report.html"};

// An output folder that holds files echo-des did not write is someone else's: refuse it (before
// simulating, so that the mistake costs nothing) unless the user insists.
void check_output_folder(const core::JobSpec& job) {
  if (job.out_dir.empty() || job.force_out || !fs::is_directory(job.out_dir))
    return;
  for (const auto& entry : fs::directory_iterator(job.out_dir)) {
    const std::string name = entry.path().filename().string();
    const bool ours = std::any_of(std::begin(kOutputs), std::end(kOutputs), [&](const char* output) {
      // A run killed while writing leaves its temporary file: the next run overwrites it.
      return name == output || is_atomic_write_leftover(name, output);
    });
    if (!ours)
      throw UserError(job.out_dir, 0, "the output folder already holds other files (" + name + ", ...)",
                      "pick a new or empty --out folder, or add --force to write into it anyway");
  }
}

} // namespace

core::SimulationResult run_job(const core::JobSpec& job, const collectives::AlgorithmSetup& setup, const core::ProgressFn& progress) {
  check_output_folder(job);
  core::Simulation simulation(job);
  simulation.set_rank_folding(job.rank_folding);
  if (setup)
    setup(simulation.algorithms());
  const bool record = !job.out_dir.empty() && job.timeline;
  core::SimulationResult result = simulation.run(record, progress);
  if (job.out_dir.empty())
    return result;

  const fs::path dir(job.out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw UserError(job.out_dir, 0, "cannot create the output folder: " + ec.message(), "pick a writable --out folder");
  write_atomically(dir / "summary.json", [&](std::ostream& out) { out << json_text(summary_json(result, false), 2) << "\n"; },
                   "the output file");
  if (job.timeline)
    write_atomically(dir / "timeline.json", [&](std::ostream& out) { write_timeline(out, result, simulation.workload()); },
                     "the output file");
  write_atomically(dir / "report.html", [&](std::ostream& out) { write_html_report(out, result, simulation.workload()); },
                   "the output file");
  return result;
}

} // namespace echo::report
