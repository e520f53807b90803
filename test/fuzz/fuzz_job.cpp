// A job file and its --set overrides (the part after the separator, one per line), read and
// checked the way `echo-des run` does before it simulates.
#include "cli/job_file.hpp"
#include "fuzz_support.hpp"

#include <sstream>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace echo::fuzz;
  const auto input = parts(std::string_view(reinterpret_cast<const char*>(data), size), 2);
  std::vector<std::string> overrides;
  if (input.size() == 2) {
    std::istringstream lines{std::string(input[1])};
    for (std::string line; std::getline(lines, line);)
      overrides.push_back(line);
  }
  clear_scratch();
  return expect_clean_outcome(
      [&] { echo::cli::parse_job(std::string(input[0]), "job.yaml", scratch().string(), overrides); });
}
