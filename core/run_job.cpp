#include "core/run_job.hpp"

#include "core/json_text.hpp"

#include "base/user_error.hpp"
#include "core/simulation.hpp"
#include "core/html_report.hpp"
#include "core/summary_report.hpp"
#include "core/timeline_writer.hpp"

#include <filesystem>
#include <fstream>
#include <functional>

namespace echo::core {

namespace {

namespace fs = std::filesystem;

void write_atomically(const fs::path& path, const std::function<void(std::ostream&)>& write) {
  const fs::path tmp = path.string() + ".tmp";
  try {
    std::ofstream out(tmp, std::ios::binary);
    if (!out)
      throw UserError(path.string(), 0, "cannot write the output file", "check that the --out folder is writable");
    write(out);
    if (!out.flush())
      throw UserError(path.string(), 0, "writing the output file failed", "check the free disk space");
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);  // no half-written file is left behind
    throw;
  }
  fs::rename(tmp, path);
}

// An output folder that holds files echo-des did not write is someone else's: refuse it (before
// simulating, so that the mistake costs nothing) unless the user insists.
void check_output_folder(const JobSpec& job) {
  if (job.out_dir.empty() || job.force_out || !fs::is_directory(job.out_dir))
    return;
  for (const auto& entry : fs::directory_iterator(job.out_dir)) {
    const std::string name = entry.path().filename().string();
    if (name != "summary.json" && name != "timeline.json" && name != "report.html")
      throw UserError(job.out_dir, 0, "the output folder already holds other files (" + name + ", ...)",
                      "pick a new or empty --out folder, or add --force to write into it anyway");
  }
}

} // namespace

SimulationResult run_job(const JobSpec& job, const collectives::AlgorithmSetup& setup, const ProgressFn& progress) {
  check_output_folder(job);
  Simulation simulation(job);
  simulation.set_rank_folding(job.fold_ranks);
  if (setup)
    setup(simulation.algorithms());
  const bool record = !job.out_dir.empty() && job.timeline;
  SimulationResult result = simulation.run(record, progress);
  if (job.out_dir.empty())
    return result;

  const fs::path dir(job.out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw UserError(job.out_dir, 0, "cannot create the output folder: " + ec.message(), "pick a writable --out folder");
  write_atomically(dir / "summary.json", [&](std::ostream& out) { out << json_text(summary_json(result, false), 2) << "\n"; });
  if (job.timeline)
    write_atomically(dir / "timeline.json", [&](std::ostream& out) { write_timeline(out, result, simulation.workload()); });
  write_atomically(dir / "report.html", [&](std::ostream& out) { write_html_report(out, result, simulation.workload()); });
  return result;
}

} // namespace echo::core
