#include "workloads/importers/native_importer.hpp"

#include "workloads/trace_reader.hpp"

#include "base/user_error.hpp"

namespace echo::workloads {

Imported NativeImporter::import(const WorkloadSource& source) const {
  Imported out;
  out.trace = read_trace_message(source.files.front());
  out.summary = "echo-des trace: " + std::to_string(out.trace.templates_size()) + " templates";
  return out;
}

Workload NativeImporter::load(const WorkloadSource& source, std::uint32_t replicate_dp) const {
  if (source.files.size() != 1)
    throw UserError(source.files.front(), 0, "`trace` names one file (or folder), not " + std::to_string(source.files.size()),
                    "write `trace: FILE`");
  return read_trace(source.files.front(), replicate_dp);
}

} // namespace echo::workloads
