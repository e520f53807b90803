#include "workloads/importers/importer.hpp"

#include "workloads/importers/chakra_importer.hpp"
#include "workloads/importers/cupti_tracer_importer.hpp"
#include "workloads/importers/echo_tracer_importer.hpp"
#include "workloads/importers/kineto_importer.hpp"
#include "workloads/importers/native_importer.hpp"
#include "workloads/replicate.hpp"
#include "workloads/trace_reader.hpp"

#include "base/user_error.hpp"

#include <algorithm>

namespace echo::workloads {

Workload Importer::load(const WorkloadSource& source, std::uint32_t replicate_dp) const {
  const Imported imported = import(source);
  const std::string& where = source.files.front();
  if (replicate_dp == 0)
    return build_workload(imported.trace, where);
  const trace::Trace replica =
      imported.traced_ranks.empty() ? imported.trace : as_dp_replica(imported.trace, imported.traced_ranks, where);
  return build_workload(workloads::replicate_dp(replica, replicate_dp, where), where);
}

const ImporterRegistry& ImporterRegistry::builtin() {
  static const ImporterRegistry registry = [] {
    ImporterRegistry r;
    r.add(std::make_unique<NativeImporter>());
    r.add(std::make_unique<KinetoImporter>());
    r.add(std::make_unique<ChakraImporter>());
    r.add(std::make_unique<EchoTracerImporter>());
    r.add(std::make_unique<CuptiTracerImporter>());
    return r;
  }();
  return registry;
}

const Importer* ImporterRegistry::find(const std::string& name) const {
  for (const auto& i : importers_)
    if (i->name() == name)
      return i.get();
  return nullptr;
}

const Importer* ImporterRegistry::find_by_job_key(const std::string& key) const {
  for (const auto& i : importers_)
    if (i->job_key() == key)
      return i.get();
  return nullptr;
}

std::vector<const Importer*> ImporterRegistry::all() const {
  std::vector<const Importer*> out;
  for (const auto& i : importers_)
    out.push_back(i.get());
  return out;
}

std::uint32_t rank_count(const trace::Trace& trace) {
  std::uint32_t ranks = 0;
  for (const auto& r : trace.ranks())
    ranks += std::max(1u, r.count());
  return ranks;
}

Workload load_workload(const WorkloadSource& source, std::uint32_t replicate_dp) {
  const Importer* importer = ImporterRegistry::builtin().find(source.format);
  if (importer == nullptr || source.files.empty())
    throw UserError(source.files.empty() ? std::string() : source.files.front(), 0,
                    importer == nullptr ? "unknown workload format '" + source.format + "'" : "the workload names no file",
                    "name a trace (`trace: FILE`) or the files of a real run (`kineto: [...]`, `chakra: [...]`, ...)");
  return importer->load(source, replicate_dp);
}

} // namespace echo::workloads
