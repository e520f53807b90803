#pragma once
// MLCommons Chakra execution traces, one file per rank: `workload: {chakra: [...]}`,
// `echo-des import chakra FILE...` (workloads/importers/chakra_reader.hpp says how).
#include "workloads/importers/importer.hpp"

namespace echo::workloads {

class ChakraImporter final : public Importer {
public:
  std::string name() const override { return "chakra"; }
  std::string job_key() const override { return "chakra"; }
  std::string description() const override { return "Import MLCommons Chakra execution traces (schema 0.0.4 / 1.0), one file per rank"; }
  std::string files_help() const override { return "Chakra .et files, one per rank (rank from NAME.<rank>.et, else list order)"; }
  std::string example() const override {
    return "echo-des import chakra llama.0.et llama.1.et -o trace.pb\n"
           "  then run it: workload: {trace: trace.pb}   (or comm: measured to keep the traced collective times)";
  }
  bool replicable() const override { return false; }
  Imported import(const WorkloadSource& source) const override;
};

} // namespace echo::workloads
