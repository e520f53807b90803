#pragma once
// The built echo-des run as a user would, when the test needs its JSON: the command must succeed
// (its stderr is shown when it does not), and its stdout is parsed.
#include "support/cli_runner.hpp"
#include "support/temp_files.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace echo::test {

inline nlohmann::json run_cli_json(const std::string& args) {
  const CliResult r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return nlohmann::json::parse(r.out);
}

// `echo-des run` of a job given as YAML text (written to a temporary file), with --json -q.
inline nlohmann::json run_job_yaml(const std::string& yaml, const std::string& extra = "") {
  TempDir dir;
  return run_cli_json("run " + dir.file("job.yaml", yaml) + " --json -q " + extra);
}

} // namespace echo::test
