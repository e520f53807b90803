#pragma once
// JobSpec: one simulation request, as `cli` parsed it from a job file (and --set overrides).
#include "platforms/platform_loader.hpp"

#include <string>

namespace echo::core {

struct JobSpec {
  std::string job_file;                 // for messages; may be empty
  platforms::PlatformSource platform;
  std::string trace;                    // workload: native trace (.pb or .pbtxt)
  std::string out_dir;                  // where summary.json / timeline.json go; empty: nowhere
  bool timeline = true;                 // write timeline.json into out_dir
};

} // namespace echo::core
