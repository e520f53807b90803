#pragma once
// The Echo workload tracer's output: `workload: {echo_tracer: [DIR or config log]}`,
// `echo-des import echo-tracer PATH [--config LOG]` (workloads/importers/echo_tracer_reader.hpp).
#include "workloads/importers/importer.hpp"

namespace echo::workloads {

class EchoTracerImporter final : public Importer {
public:
  std::string name() const override { return "echo-tracer"; }
  std::string job_key() const override { return "echo_tracer"; }
  std::string description() const override { return "Import the output of the Echo workload tracer"; }
  std::string files_help() const override {
    return "The tracer's output tree (output/, with logs/ and <framework>/pytorch_*_profiling/), one of its config logs, or one "
           "folder holding a run's global graph and ops profiles";
  }
  std::string example() const override {
    return "echo-des import echo-tracer output/logs/PyTorch/config_gpt2_bs1_seq512_pytorch_ddp.json -o gpt2.pb\n"
           "  echo-des import echo-tracer ../shared/data/echo-tracer -o gpt2.pb   (its files copied into one folder)\n"
           "  then run it: workload: {trace: gpt2.pb}";
  }
  std::vector<ImporterOption> options() const override {
    return {{"config", "The run's config log, when the folder holds several runs", false, true}};
  }
  Imported import(const WorkloadSource& source) const override;
};

} // namespace echo::workloads
