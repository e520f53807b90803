#pragma once
// echo-des's own trace (proto/trace.proto), text (.pbtxt) or binary, or a folder of the CUPTI
// tracer's per-process files: `workload: {trace: FILE}`. Nothing to convert; loading it keeps the
// text format's line numbers for messages (workloads/trace_reader.hpp).
#include "workloads/importers/importer.hpp"

namespace echo::workloads {

class NativeImporter final : public Importer {
public:
  std::string name() const override { return "trace"; }
  std::string job_key() const override { return "trace"; }
  std::string description() const override { return "echo-des traces (proto/trace.proto), text or binary"; }
  std::string files_help() const override { return "The trace (.pb binary, .pbtxt text), or a folder of echo-des tracer files"; }
  std::string example() const override { return "workload: {trace: trace.pbtxt}"; }
  Imported import(const WorkloadSource& source) const override;
  Workload load(const WorkloadSource& source, std::uint32_t replicate_dp) const override;
};

} // namespace echo::workloads
