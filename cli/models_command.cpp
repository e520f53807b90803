#include "cli/commands.hpp"
#include "report/json_text.hpp"
#include "workloads/model_presets.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace echo::cli {

Action add_models_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("models", "List the model presets and their dimensions");
  cmd->footer("Example:\n  echo-des models\n  then in a job: workload: {model: {name: llama3-8b}, training: ..., parallel: ...}");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  return [cmd, json]() -> int {
    if (!cmd->parsed())
      return -1;
    if (*json) {
      nlohmann::ordered_json all = nlohmann::ordered_json::array();
      for (const workloads::ModelDims& m : workloads::model_presets())
        all.push_back({{"name", m.name},
                       {"layers", m.layers},
                       {"hidden", m.hidden},
                       {"heads", m.heads},
                       {"kv_heads", m.kv_heads},
                       {"ffn_hidden", m.ffn_hidden},
                       {"activation", workloads::activation_name(m.activation)},
                       {"vocab", m.vocab},
                       {"seq_len", m.seq_len},
                       {"experts", m.experts},
                       {"top_k", m.top_k},
                       {"expert_ffn_hidden", m.expert_ffn_hidden},
                       {"parameters", workloads::parameter_count(m)}});
      std::cout << report::json_text(all, 2) << "\n";
      return 0;
    }
    std::printf("%-15s %7s %7s %6s %5s %7s %12s %8s %6s %8s %9s\n", "model", "layers", "hidden", "heads", "kv", "ffn", "act",
                "vocab", "seq", "experts", "params");
    for (const workloads::ModelDims& m : workloads::model_presets()) {
      const std::string experts = m.experts > 0 ? std::to_string(m.experts) + "/top" + std::to_string(m.top_k) : "-";
      std::printf("%-15s %7u %7u %6u %5u %7u %12s %8u %6u %8s %8.2fB\n", m.name.c_str(), m.layers, m.hidden, m.heads,
                  m.kv_heads, m.experts > 0 ? m.expert_ffn_hidden : m.ffn_hidden,
                  workloads::activation_name(m.activation), m.vocab, m.seq_len, experts.c_str(),
                  workloads::parameter_count(m) / 1e9);
    }
    std::fflush(stdout);
    return 0;
  };
}

} // namespace echo::cli
