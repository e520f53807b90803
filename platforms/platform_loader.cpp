#include "platforms/platform_loader.hpp"
#include "platforms/platform_precheck.hpp"

#include "base/user_error.hpp"
#include "platforms/platform_builder.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <fstream>
#include <algorithm>
#include <cctype>

namespace echo::platforms {

namespace {

// SimGrid reports "Parse error at FILE:LINE: what"; keep its words, lift the line out. Read by
// hand: std::regex recurses per character and overflowed the stack on a long attribute value.
[[noreturn]] void rethrow_as_user_error(const std::string& file, const std::string& simgrid_message) {
  int line = 0;
  std::string what = simgrid_message;
  const std::string marker = "Parse error at ";
  if (const auto at = simgrid_message.find(marker); at != std::string::npos) {
    // FILE:LINE: what — the line is the digits after the last ':' that is followed by digits and ": ".
    for (auto colon = simgrid_message.find(':', at + marker.size()); colon != std::string::npos;
         colon = simgrid_message.find(':', colon + 1)) {
      std::size_t end = colon + 1;
      while (end < simgrid_message.size() && std::isdigit(static_cast<unsigned char>(simgrid_message[end])) != 0)
        ++end;
      if (end > colon + 1 && simgrid_message.compare(end, 2, ": ") == 0) {
        line = std::stoi(simgrid_message.substr(colon + 1, std::min<std::size_t>(end - colon - 1, 9)));
        what = simgrid_message.substr(end + 2);
        break;
      }
    }
  }
  if (what.size() > 300)
    what = what.substr(0, 300) + "... (" + std::to_string(what.size()) + " characters)";
  const std::string fix =
      what.find("in prolog") != std::string::npos
          ? "SimGrid needs the DOCTYPE: start the file with <?xml version='1.0'?> and "
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">"
          : "check the file against https://simgrid.org/simgrid.dtd (zones hold either sub-zones or hosts, routes "
            "come last), or generate one with `echo-des platform generate`";
  throw UserError(file, line, "not a valid SimGrid platform: " + what, fix);
}

void load_file(simgrid::s4u::Engine& engine, const std::string& file, const std::string& shown_name) {
  if (std::ifstream probe(file); !probe)
    throw UserError(file, 0, "cannot read the platform file", "check the path (relative paths in a job file are relative to the job file)");
  try {
    engine.load_platform(file);
    // SimGrid seals an XML platform when the simulation starts, but graph zones (Dijkstra, Floyd)
    // answer no route before their seal, and routes are asked for before that.
    engine.get_netzone_root()->seal();
  } catch (const std::exception& e) {
    rethrow_as_user_error(shown_name, e.what());
  }
}

} // namespace

std::string PlatformSource::describe() const {
  if (!spec)
    return file;
  return spec->preset + " x " + std::to_string(spec->nodes) + " nodes (" + std::to_string(spec->gpus_per_node) +
         " " + spec->gpu + " per node, NVLink " + spec->nvlink_bw + ", " + std::to_string(spec->nics_per_node) +
         " x " + spec->nic_bw + " NICs)";
}

void load_platform(simgrid::s4u::Engine& engine, const PlatformSource& source) {
  if (!source.spec) {
    if (std::ifstream probe(source.file); probe)
      precheck_platform_file(source.file);
    load_file(engine, source.file, source.file);
    return;
  }
  // Built in the engine directly: nothing is written to disk, and no route is looked up by name.
  build_platform(engine, *source.spec);
}

} // namespace echo::platforms
