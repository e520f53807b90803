#include "workloads/importers/echo_tracer_importer.hpp"

#include "workloads/importers/echo_tracer_reader.hpp"

#include "base/user_error.hpp"

namespace echo::workloads {

Imported EchoTracerImporter::import(const WorkloadSource& source) const {
  if (source.files.size() != 1)
    throw UserError(source.files.front(), 0, "the Echo tracer's output is one folder (or one config log), not " +
                                                 std::to_string(source.files.size()) + " files",
                    "name the tracer's output folder, or the config log of the run");
  Imported out;
  out.trace = read_echo_tracer(source.files.front(), source.option("config") ? *source.option("config") : std::string());
  const std::uint32_t ranks = rank_count(out.trace);
  out.summary = out.trace.name() + ": " + std::to_string(ranks) + " ranks, " + std::to_string(out.trace.templates(0).tasks_size()) +
                " tasks per rank";
  return out;
}

} // namespace echo::workloads
