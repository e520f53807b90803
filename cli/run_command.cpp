#include "cli/commands.hpp"

#include "base/user_error.hpp"
#include "cli/job_file.hpp"
#include "cli/progress_line.hpp"
#include "core/engine_setup.hpp"
#include "report/json_text.hpp"
#include "report/run_job.hpp"
#include "report/summary_report.hpp"

#include <iostream>
#include <memory>

namespace echo::cli {

namespace {

struct RunOptions {
  std::string job;
  bool json = false;
  bool quiet = false;
  bool force = false;
  bool no_folding = false;
  std::string fold = "exact";
  std::string out;
  std::vector<std::string> overrides;
  std::vector<std::string> simgrid_options;
};

} // namespace

Action add_run_command(CLI::App& app, const collectives::AlgorithmSetup& setup) {
  auto opts = std::make_shared<RunOptions>();
  CLI::App* run = app.add_subcommand("run", "Simulate one training iteration of a job and print its time and breakdown");
  run->footer("Example:\n  echo-des run examples/default/job.yaml --out out --set platform.nic_bw=100Gbps");
  run->add_option("job", opts->job, "Job file (YAML): platform, workload, communication (optional), output (optional)")->required();
  run->add_flag("--json", opts->json, "Print the summary as one JSON object on stdout");
  run->add_option("-o,--out", opts->out, "Write summary.json, report.html and timeline.json into this folder (overrides output.dir)");
  run->add_option("--set", opts->overrides, "Override a job key, e.g. platform.nodes=4 or platform.nic_bw=100Gbps; a value in braces replaces a group: 'slowdown={model: none}'")
      ->take_all()
      ->allow_extra_args(false);
  run->add_flag("--force", opts->force, "Write into an --out folder even if it holds other files");
  run->add_option("--fold", opts->fold,
                  "Which interchangeable ranks run once: exact (default: TP siblings, and data- and expert-parallel "
                  "replicas where that cannot change the results), tp (TP siblings only, where that cannot change them), "
                  "none (every rank), all (every replica, the other replicas' traffic left out: the sweep's default)")
      ->check(CLI::IsMember({"none", "tp", "exact", "all"}));
  run->add_flag("--no-folding", opts->no_folding,
                "Simulate every rank, also the interchangeable ones that are otherwise simulated once per group "
                "(same results, slower; for checking); the same as --fold none")
      ->excludes(run->get_option("--fold"));
  run->add_option("--cfg", opts->simgrid_options,
                  "A SimGrid setting, KEY:VALUE; only contexts/factory (raw, thread for sanitizer runs, ucontext, boost)");
  run->add_flag("-q,--quiet", opts->quiet,
                "Print nothing on stderr: no progress line (shown on a terminal for runs over a second), no statistics");
  return [run, opts, setup]() -> int {
    if (!run->parsed())
      return -1;
    for (const std::string& option : opts->simgrid_options)
      core::apply_simgrid_option(option);
    core::JobSpec job = load_job(opts->job, opts->overrides);
    if (!opts->out.empty())
      job.out_dir = opts->out;
    job.force_out = opts->force;
    job.rank_folding = opts->no_folding ? core::RankFolding::none : *core::parse_rank_folding(opts->fold);
    core::SimulationResult result;
    {
      ProgressLine progress(opts->quiet);
      try {
        result = report::run_job(job, setup, progress.callback());
      } catch (const UserError& e) {
        // What the simulation finds without a file to name (a collective that the job's NCCL
        // settings leave no algorithm for, say) is this job's: name it, as every other message does.
        if (!e.file().empty())
          throw;
        throw UserError(opts->job, 0, e.problem(), e.fix());
      }
    }
    if (opts->json)
      std::cout << report::json_text(report::summary_json(result, true), 2) << "\n";
    else
      std::cout << report::text_summary(result);
    if (!opts->quiet) {
      std::cerr << report::simulation_stats_line(result) << "\n";
      if (!job.out_dir.empty())
        std::cerr << "outputs: " << job.out_dir << "/summary.json, report.html"
                  << (job.timeline ? ", timeline.json (open it in ui.perfetto.dev)" : "")
                  << "\n";
    }
    return 0;
  };
}

} // namespace echo::cli
