#pragma once
// PyTorch profiler (Kineto) traces, one file per rank: `workload: {kineto: [...], step: N}`,
// `echo-des import kineto FILE... [--step N]` (workloads/importers/kineto_reader.hpp says how).
#include "workloads/importers/importer.hpp"

namespace echo::workloads {

class KinetoImporter final : public Importer {
public:
  std::string name() const override { return "kineto"; }
  std::string job_key() const override { return "kineto"; }
  std::string description() const override { return "Import PyTorch profiler (Kineto) traces, one file per rank"; }
  std::string files_help() const override { return "Kineto JSON traces (.json or .json.gz), one per rank"; }
  std::string example() const override {
    return "echo-des import kineto rank0.json.gz rank1.json.gz -o trace.pb\n  then run it: workload: {trace: trace.pb, comm: measured}";
  }
  std::vector<ImporterOption> options() const override {
    return {{"step", "The ProfilerStep#N to import (default: the step of median duration; a trace without steps: its whole window)", false,
             false},
            {"pytorch_et", "PyTorch Execution Traces of the same step, one per rank in the Kineto files' order: process groups, "
                           "collective names and tensors where the Kineto trace lacks them", true, true}};
  }
  Imported import(const WorkloadSource& source) const override;
};

} // namespace echo::workloads
