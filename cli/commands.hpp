#pragma once
// The echo-des subcommands. Each registers its options on a CLI11 app and returns the exit code
// of its action; UserError escapes to main(), which prints it and exits with 2.
#include "collectives/algorithm.hpp"

#include <CLI/CLI.hpp>

#include <functional>

namespace echo::cli {

using Action = std::function<int()>;

// `setup` adds the program's own collective algorithms (none for echo-des itself).
Action add_run_command(CLI::App& app, const collectives::AlgorithmSetup& setup);
Action add_platform_command(CLI::App& app);
Action add_nccl_tests_command(CLI::App& app, const collectives::AlgorithmSetup& setup);
Action add_compare_command(CLI::App& app);
Action add_slowdown_command(CLI::App& app);
Action add_models_command(CLI::App& app);
Action add_import_command(CLI::App& app);
Action add_sweep_command(CLI::App& app);
Action add_trace_command(CLI::App& app);

// The whole echo-des command line: parse, run the subcommand, map errors to exit codes (2 for
// the user's mistakes, 1 for internal errors). A program that adds algorithms calls this with
// its setup and is echo-des with those algorithms.
int echo_des_main(int argc, char** argv, const collectives::AlgorithmSetup& setup = {});

} // namespace echo::cli
