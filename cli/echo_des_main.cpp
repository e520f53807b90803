#include "base/user_error.hpp"
#include "base/version.hpp"
#include "cli/commands.hpp"
#include "slowdown/xgboost_model.hpp"

#include <google/protobuf/stubs/logging.h>

#include <iostream>

namespace echo::cli {

int echo_des_main(int argc, char** argv, const collectives::AlgorithmSetup& setup) {
  // Libraries keep quiet: a bad input is said once, in our words (protobuf's parse warnings and
  // XGBoost's own log lines would precede it).
  google::protobuf::SetLogHandler(nullptr);
  slowdown::silence_xgboost_logging();
  CLI::App app{"echo-des: predict the time of one training iteration of a distributed deep-learning job on a GPU "
               "cluster you do not have, and show why."};
  app.footer("Example:\n  echo-des run examples/default/job.yaml\n\nRun `echo-des COMMAND --help` for a command's options.");
  app.set_version_flag("--version", std::string("echo-des ") + kVersion);
  app.require_subcommand(1);
  std::vector<Action> actions = {add_run_command(app, setup), add_platform_command(app), add_nccl_tests_command(app, setup),
                                 add_compare_command(app), add_slowdown_command(app),
                                 add_models_command(app), add_import_command(app), add_sweep_command(app),
                                 add_trace_command(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and usage
    return 2;
  }
  try {
    for (const auto& action : actions)
      if (int code = action(); code >= 0)
        return code;
  } catch (const UserError& e) {
    std::cerr << "echo-des: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    // Not the user's fault: say so, and what to send us.
    std::cerr << "echo-des: internal error: " << e.what()
              << "\n  please report it with the job, trace and platform files that caused it\n";
    return 1;
  }
  return 2;
}

} // namespace echo::cli
