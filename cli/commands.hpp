#pragma once
// The echo-des subcommands. Each registers its options on a CLI11 app and returns the exit code
// of its action; UserError escapes to main(), which prints it and exits with 2.
#include <CLI/CLI.hpp>

#include <functional>

namespace echo::cli {

using Action = std::function<int()>;

Action add_run_command(CLI::App& app);
Action add_platform_command(CLI::App& app);
Action add_nccl_tests_command(CLI::App& app);

} // namespace echo::cli
