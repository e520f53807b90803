#pragma once
// The echo-des CUPTI tracer's per-process files (`echo-des trace`): `echo-des import tracer DIR`,
// `workload: {tracer: [DIR]}` (or `trace: DIR`). workloads/importers/traced_job.hpp merges them.
#include "workloads/importers/importer.hpp"

namespace echo::workloads {

class CuptiTracerImporter final : public Importer {
public:
  std::string name() const override { return "tracer"; }
  std::string job_key() const override { return "tracer"; }
  std::string description() const override { return "Merge the per-process files of the echo-des CUPTI tracer into one trace"; }
  std::string files_help() const override {
    return "The folder holding <host>.<pid>.trace.pb files (several nodes' folders may be copied into one)";
  }
  std::string example() const override { return "echo-des import tracer traced/ -o job.pb   (what `echo-des trace` does after the command ends)"; }
  Imported import(const WorkloadSource& source) const override;
};

} // namespace echo::workloads
