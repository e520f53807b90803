#include "base/user_error.hpp"
#include "cli/commands.hpp"
#include "cli/trace_file.hpp"
#include "workloads/importers/importer.hpp"
#include "workloads/ncu_report.hpp"
#include "workloads/trace_reader.hpp"

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

namespace echo::cli {

namespace {

// One `import <format>` subcommand per registered importer: its files, its options, -o.
struct ImportSubcommand {
  const workloads::Importer* importer = nullptr;
  CLI::App* app = nullptr;
  std::vector<std::string> files;
  std::map<std::string, std::vector<std::string>> options;
  std::string out = "trace.pb";
};

int run_import(ImportSubcommand& s) {
  workloads::WorkloadSource source{s.importer->name(), s.files, {}};
  for (const auto& [name, values] : s.options)
    if (!values.empty())
      source.options[name] = values;
  const auto started = std::chrono::steady_clock::now();
  const workloads::Imported imported = s.importer->import(source);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The same checks a run makes, so that an import that succeeds gives a trace that runs.
  (void)workloads::build_workload(imported.trace, s.out);
  write_trace(imported.trace, s.out);
  char took[32];
  std::snprintf(took, sizeof took, "%.2f s", seconds);
  std::cout << "imported " << imported.summary << " in " << took << " -> " << s.out << "\n";
  for (const std::string& note : imported.trace.import_notes())
    std::cout << "note: " << note << "\n";
  return 0;
}

} // namespace

Action add_import_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("import", "Turn traces of real runs into echo-des traces");
  cmd->footer("Example:\n  echo-des import kineto rank0.json.gz rank1.json.gz -o trace.pb\n"
              "  then run it: workload: {trace: trace.pb}  (or name the files in the job: workload: {kineto: [...]})");
  cmd->require_subcommand(1);
  auto subcommands = std::make_shared<std::vector<ImportSubcommand>>();
  const auto importers = workloads::ImporterRegistry::builtin().all();
  subcommands->reserve(importers.size());
  for (const workloads::Importer* importer : importers) {
    if (importer->name() == "trace")
      continue;  // already echo-des's own format
    ImportSubcommand& s = subcommands->emplace_back();
    s.importer = importer;
    s.app = cmd->add_subcommand(importer->name(), importer->description());
    s.app->footer("Example:\n  " + importer->example() + "\n  or in a job: workload: {" + importer->job_key() + ": [...]}");
    s.app->add_option("files", s.files, importer->files_help())->required();
    for (const workloads::ImporterOption& o : importer->options()) {
      CLI::Option* option = s.app->add_option("--" + o.name, s.options[o.name], o.help);
      if (!o.list)
        option->expected(1);
    }
    s.app->add_option("-o,--out", s.out, "The trace to write (.pb binary, .pbtxt text; default trace.pb)");
  }
  CLI::App* ncu = cmd->add_subcommand("ncu", "Attach Nsight Compute metrics to a trace's kernels (for the xgboost slowdown model)");
  ncu->footer("Example:\n  ncu --set full -o prof python train.py && ncu --import prof.ncu-rep --csv > prof.csv\n"
              "  echo-des import ncu prof.csv --into trace.pb");
  auto report = std::make_shared<std::string>();
  auto into = std::make_shared<std::string>();
  auto ncu_out = std::make_shared<std::string>();
  ncu->add_option("report", *report, "The report as `ncu --csv` exports it (details or raw page)")->required();
  ncu->add_option("--into", *into, "The trace whose kernels receive the metrics (.pb or .pbtxt)")->required();
  ncu->add_option("-o,--out", *ncu_out, "Where to write the result (default: over --into)");
  return [cmd, subcommands, ncu, report, into, ncu_out]() -> int {
    if (!cmd->parsed())
      return -1;
    for (ImportSubcommand& s : *subcommands)
      if (s.app->parsed())
        return run_import(s);
    trace::Trace t = workloads::read_trace_message(*into);
    const auto a = workloads::attach_ncu_metrics(t, workloads::read_ncu_csv(*report));
    if (a.attached == 0)
      throw UserError(*report, 0, "no kernel of the report matches a kernel of " + *into,
                      "profile the same program the trace was taken from; names are matched without template "
                      "arguments and parameters, in launch order");
    const std::string target = ncu_out->empty() ? *into : *ncu_out;
    (void)workloads::build_workload(t, target);  // the result must still be a valid trace
    write_trace(t, target);
    std::cout << "attached metrics to " << a.attached << " kernels; " << a.tasks_without
              << " kernels of the trace have none; " << a.unmatched_kernels << " profiled kernels were not used -> "
              << target << "\n";
    return 0;
  };
}

} // namespace echo::cli
