#include "workloads/importers/chakra_importer.hpp"

#include "workloads/importers/chakra_reader.hpp"

namespace echo::workloads {

Imported ChakraImporter::import(const WorkloadSource& source) const {
  ChakraImport c = read_chakra(source.files);
  Imported out;
  const std::uint32_t ranks = rank_count(c.trace);
  out.summary = "Chakra " + c.version + ": " + std::to_string(ranks) + " ranks, " + std::to_string(c.compute) + " GPU kernels, " +
                std::to_string(c.host) + " CPU ops, " + std::to_string(c.collectives) + " collectives, " +
                std::to_string(c.transfers) + " sends / recvs, " + std::to_string(c.other) + " other nodes";
  out.trace = std::move(c.trace);
  return out;
}

} // namespace echo::workloads
