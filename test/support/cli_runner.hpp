#pragma once
// Runs the built echo-des binary as a user would, capturing exit code, stdout and stderr.
#include "support/temp_files.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace echo::test {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// AddressSanitizer's notice when an exception unwinds a SimGrid actor's stack in the sanitizer
// build (scripts/sanitizer_suite.sh): three lines that are the tool's, not echo-des's output.
inline std::string without_sanitizer_notices(const std::string& err) {
  std::istringstream lines(err);
  std::string kept, line;
  while (std::getline(lines, line)) {
    if (line.find("WARNING: ASan is ignoring requested __asan_handle_no_return") != std::string::npos) {
      std::getline(lines, line);  // "False positive error reports may follow"
      std::getline(lines, line);  // "For details see ..."
      continue;
    }
    kept += line;
    if (!lines.eof())
      kept += '\n';
  }
  return kept;
}

// `args` is appended to the binary's path as shell words; run from the source folder so the
// examples' relative paths work. NCCL_ALGO / NCCL_PROTO of the caller's environment are dropped;
// `env` sets variables for this run ("NCCL_ALGO=tree").
inline CliResult run_cli(const std::string& args, const std::string& env = "") {
  TempDir io;
  const std::string command = "cd '" ECHO_SOURCE_DIR "' && env -u NCCL_ALGO -u NCCL_PROTO " + env + " '" ECHO_BINARY "' " +
                              args + " >'" + (io / "out") + "' 2>'" + (io / "err") + "' </dev/null";
  const int status = std::system(command.c_str());
  CliResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(io / "out");
  r.err = without_sanitizer_notices(slurp(io / "err"));
  return r;
}

} // namespace echo::test
