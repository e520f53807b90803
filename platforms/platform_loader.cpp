#include "platforms/platform_loader.hpp"

#include "base/user_error.hpp"
#include "platforms/platform_writer.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <unistd.h>

namespace echo::platforms {

namespace {

// SimGrid reports "Parse error at FILE:LINE: what"; keep its words, lift the line out.
[[noreturn]] void rethrow_as_user_error(const std::string& file, const std::string& simgrid_message) {
  static const std::regex parse_error(R"(Parse error at [^:]*:(\d+): (.*))");
  std::smatch m;
  int line = 0;
  std::string what = simgrid_message;
  if (std::regex_search(simgrid_message, m, parse_error)) {
    line = std::stoi(m[1]);
    what = m[2];
  }
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
    load_file(engine, source.file, source.file);
    return;
  }
  // SimGrid reads platforms from files only: write the generated XML to a private temporary file.
  const char* tmpdir = std::getenv("TMPDIR");
  std::string path = std::string(tmpdir != nullptr ? tmpdir : "/tmp") + "/echo-des-platform-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0)
    throw UserError(path, 0, "cannot create a temporary file for the generated platform",
                    "set TMPDIR to a writable folder");
  close(fd);
  struct Remove {
    std::string path;
    ~Remove() { std::remove(path.c_str()); }
  } remove_at_exit{path};
  {
    std::ofstream out(path);
    write_platform_xml(*source.spec, out);
  }
  load_file(engine, path, "preset " + source.spec->preset);
}

} // namespace echo::platforms
