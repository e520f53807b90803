#include "workloads/importers/cupti_tracer_importer.hpp"

#include "workloads/importers/traced_job.hpp"

#include "base/user_error.hpp"

namespace echo::workloads {

Imported CuptiTracerImporter::import(const WorkloadSource& source) const {
  if (source.files.size() != 1)
    throw UserError(source.files.front(), 0, "the tracer's output is one folder, not " + std::to_string(source.files.size()) + " files",
                    "copy every process's file into one folder and name it");
  Imported out;
  out.trace = read_traced_job(source.files.front());
  const std::uint32_t ranks = rank_count(out.trace);
  out.summary = std::to_string(ranks) + " traced process(es), " + std::to_string(out.trace.communicators_size()) + " communicators" +
                (out.trace.dropped_records() > 0 ? ", " + std::to_string(out.trace.dropped_records()) + " records dropped" : std::string());
  return out;
}

} // namespace echo::workloads
