#include "cli/commands.hpp"
#include "report/json_text.hpp"
#include "report/summary_compare.hpp"

#include <iostream>
#include <memory>

namespace echo::cli {

Action add_compare_command(CLI::App& app) {
  auto paths = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("compare", "Set two runs side by side: iteration time, breakdown, the collectives that changed");
  cmd->footer("Example:\n  echo-des run job.yaml --out base && echo-des run job.yaml --set platform.nic_bw=400Gbps --out ndr\n"
              "  echo-des compare base ndr");
  cmd->add_option("runs", *paths, "Two summary.json files, or two folders written by `run --out`")->required()->expected(2);
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the comparison as one JSON object");
  return [cmd, paths, json]() -> int {
    if (!cmd->parsed())
      return -1;
    const auto a = report::read_summary((*paths)[0]);
    const auto b = report::read_summary((*paths)[1]);
    if (*json)
      std::cout << report::json_text(report::compare_json(a, (*paths)[0], b, (*paths)[1]), 2) << "\n";
    else
      std::cout << report::compare_summaries(a, (*paths)[0], b, (*paths)[1]);
    return 0;
  };
}

} // namespace echo::cli
