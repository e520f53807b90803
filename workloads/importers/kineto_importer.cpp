#include "workloads/importers/kineto_importer.hpp"

#include "workloads/importers/kineto_reader.hpp"

#include "base/user_error.hpp"

#include <charconv>
#include <cstdio>

namespace echo::workloads {

Imported KinetoImporter::import(const WorkloadSource& source) const {
  int step = -1;
  if (const std::string* text = source.option("step")) {
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), step);
    if (ec != std::errc() || end != text->data() + text->size() || step < 0)
      throw UserError(source.files.front(), 0, "`step` must be a ProfilerStep number (0 or more), got '" + *text + "'",
                      "write e.g. `step: 6` for ProfilerStep#6, or leave it out for the median step");
  }
  const auto et = source.options.find("pytorch_et");
  KinetoImport k = read_kineto(source.files, step, et != source.options.end() ? et->second : std::vector<std::string>{});
  Imported out;
  out.traced_ranks = k.traced_ranks;
  const std::uint32_t ranks = rank_count(k.trace);
  char measured[48];
  std::snprintf(measured, sizeof measured, "%g", static_cast<double>(k.trace.measured_iteration_ns()) / 1e6);
  out.summary = k.step + ": " + std::to_string(ranks) + " ranks, " + std::to_string(k.kernels) + " kernels and " +
                std::to_string(k.collectives) + " collectives from " + std::to_string(source.files.size()) + " file(s) (" +
                std::to_string(static_cast<long long>(k.bytes_parsed / 1e6)) + " MB of JSON), measured step " + measured + " ms";
  out.trace = std::move(k.trace);
  return out;
}

} // namespace echo::workloads
