#include "base/user_error.hpp"
#include "cli/commands.hpp"
#include "cli/trace_file.hpp"
#include "workloads/chakra_reader.hpp"
#include "workloads/echo_tracer_reader.hpp"
#include "workloads/kineto_reader.hpp"
#include "workloads/ncu_report.hpp"
#include "workloads/trace_reader.hpp"
#include "workloads/traced_job.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

namespace echo::cli {

Action add_import_command(CLI::App& app) {
  auto folder = std::make_shared<std::string>();
  auto config = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>("trace.pb");
  CLI::App* cmd = app.add_subcommand("import", "Turn traces of real runs into echo-des traces");
  cmd->require_subcommand(1);
  CLI::App* echo = cmd->add_subcommand("echo-tracer", "Import the output of the Echo workload tracer");
  echo->footer("Example:\n  echo-des import echo-tracer output/logs/PyTorch/config_gpt2_bs1_seq512_pytorch_ddp.json -o gpt2.pb\n"
               "  echo-des import echo-tracer ../shared/data/echo-tracer -o gpt2.pb   (its files copied into one folder)\n"
               "  then run it: workload: {trace: gpt2.pb}");
  echo->add_option("folder", *folder, "The tracer's output tree (output/, with logs/ and <framework>/pytorch_*_profiling/), one of "
                                      "its config logs, or one folder holding a run's global graph and ops profiles")
      ->required();
  echo->add_option("--config", *config, "The run's config log, when the folder holds several runs");
  echo->add_option("-o,--output", *out, "The trace to write (.pb binary, .pbtxt text; default trace.pb)");
  CLI::App* ncu = cmd->add_subcommand("ncu", "Attach Nsight Compute metrics to a trace's kernels (for the xgboost slowdown model)");
  ncu->footer("Example:\n  ncu --set full -o prof python train.py && ncu --import prof.ncu-rep --csv > prof.csv\n"
              "  echo-des import ncu prof.csv --into trace.pb");
  auto report = std::make_shared<std::string>();
  auto into = std::make_shared<std::string>();
  auto ncu_out = std::make_shared<std::string>();
  ncu->add_option("report", *report, "The report as `ncu --csv` exports it (details or raw page)")->required();
  ncu->add_option("--into", *into, "The trace whose kernels receive the metrics (.pb or .pbtxt)")->required();
  ncu->add_option("-o,--output", *ncu_out, "Where to write the result (default: over --into)");
  CLI::App* kineto = cmd->add_subcommand("kineto", "Import PyTorch profiler (Kineto) traces, one file per rank");
  kineto->footer("Example:\n  echo-des import kineto rank0.json.gz rank1.json.gz -o trace.pb\n"
                 "  then run it: workload: {trace: trace.pb, comm: measured}");
  auto kineto_files = std::make_shared<std::vector<std::string>>();
  auto kineto_out = std::make_shared<std::string>("trace.pb");
  auto kineto_step = std::make_shared<int>(-1);
  kineto->add_option("files", *kineto_files, "Kineto JSON traces (.json or .json.gz), one per rank")->required();
  kineto->add_option("-o,--output", *kineto_out, "The trace to write (.pb binary, .pbtxt text; default trace.pb)");
  kineto->add_option("--step", *kineto_step, "The ProfilerStep#N to import (default: the step of median duration; a trace without steps: its whole window)");
  CLI::App* chakra = cmd->add_subcommand("chakra", "Import MLCommons Chakra execution traces (schema 0.0.4 / 1.0), one file per rank");
  chakra->footer("Example:\n  echo-des import chakra llama.0.et llama.1.et -o trace.pb\n"
                 "  then run it: workload: {trace: trace.pb}   (or comm: measured to keep the traced collective times)");
  auto chakra_files = std::make_shared<std::vector<std::string>>();
  auto chakra_out = std::make_shared<std::string>("trace.pb");
  chakra->add_option("files", *chakra_files, "Chakra .et files, one per rank (rank from NAME.<rank>.et, else list order)")->required();
  chakra->add_option("-o,--output", *chakra_out, "The trace to write (.pb binary, .pbtxt text; default trace.pb)");
  CLI::App* traced = cmd->add_subcommand("tracer", "Merge the per-process files of the echo-des CUPTI tracer into one trace");
  traced->footer("Example:\n  echo-des import tracer traced/ -o job.pb   (what `echo-des trace` does after the command ends)");
  auto traced_dir = std::make_shared<std::string>();
  auto traced_out = std::make_shared<std::string>("trace.pb");
  traced->add_option("folder", *traced_dir, "The folder holding <host>.<pid>.trace.pb files (several nodes' folders may be copied into one)")
      ->required();
  traced->add_option("-o,--output", *traced_out, "The trace to write (.pb binary, .pbtxt text; default trace.pb)");
  return [cmd, echo, ncu, kineto, chakra, chakra_files, chakra_out, traced, traced_dir, traced_out, folder, config, out, report, into, ncu_out, kineto_files, kineto_out, kineto_step]() -> int {
    if (!cmd->parsed())
      return -1;
    if (kineto->parsed()) {
      const auto started = std::chrono::steady_clock::now();
      const workloads::KinetoImport k = workloads::read_kineto(*kineto_files, *kineto_step);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const workloads::Workload w = workloads::build_workload(k.trace, *kineto_out);
      write_trace(k.trace, *kineto_out);
      char speed[64];
      std::snprintf(speed, sizeof speed, "%.0f MB/s", seconds > 0 ? k.bytes_parsed / seconds / 1e6 : 0.0);
      std::cout << "imported " << k.step << ": " << w.rank_count() << " ranks, " << k.kernels << " kernels and "
                << k.collectives << " collectives from " << kineto_files->size() << " file(s) ("
                << static_cast<long long>(k.bytes_parsed / 1e6) << " MB of JSON, " << speed << "), measured step "
                << static_cast<double>(k.trace.measured_iteration_ns()) / 1e6 << " ms -> " << *kineto_out << "\n";
      for (const std::string& note : k.notes)
        std::cout << "note: " << note << "\n";
      return 0;
    }
    if (chakra->parsed()) {
      const workloads::ChakraImport c = workloads::read_chakra(*chakra_files);
      const workloads::Workload w = workloads::build_workload(c.trace, *chakra_out);
      write_trace(c.trace, *chakra_out);
      std::cout << "imported Chakra " << c.version << ": " << w.rank_count() << " ranks, " << c.compute << " GPU kernels, "
                << c.host << " CPU ops, " << c.collectives << " collectives, " << c.transfers << " sends / recvs, " << c.other
                << " other nodes -> " << *chakra_out << "\n";
      return 0;
    }
    if (traced->parsed()) {
      const trace::Trace job = workloads::read_traced_job(*traced_dir);
      const workloads::Workload w = workloads::build_workload(job, *traced_out);
      write_trace(job, *traced_out);
      std::cout << "merged " << w.rank_count() << " traced process(es), " << job.communicators_size() << " communicators"
                << (job.dropped_records() > 0 ? ", " + std::to_string(job.dropped_records()) + " records dropped" : std::string())
                << " -> " << *traced_out << "\n";
      return 0;
    }
    if (ncu->parsed()) {
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
    }
    const trace::Trace t = workloads::read_echo_tracer(*folder, *config);
    // The same checks a run makes, so that an import that succeeds gives a trace that runs.
    const workloads::Workload w = workloads::build_workload(t, *out);
    write_trace(t, *out);
    std::cout << "imported " << t.name() << ": " << w.rank_count() << " ranks, " << t.templates(0).tasks_size()
              << " tasks per rank -> " << *out << "\n";
    for (const std::string& note : t.import_notes())
      std::cout << "note: " << note << "\n";
    (void)echo;
    return 0;
  };
}

} // namespace echo::cli
