#include "cli/commands.hpp"
#include "workloads/model_presets.hpp"

#include <cstdio>
#include <iostream>

namespace echo::cli {

Action add_models_command(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand("models", "List the model presets and their dimensions");
  return [cmd]() -> int {
    if (!cmd->parsed())
      return -1;
    std::printf("%-15s %7s %7s %6s %5s %7s %7s %8s %6s %8s %9s\n", "model", "layers", "hidden", "heads", "kv", "ffn", "act",
                "vocab", "seq", "experts", "params");
    for (const workloads::ModelDims& m : workloads::model_presets()) {
      const std::string experts = m.experts > 0 ? std::to_string(m.experts) + "/top" + std::to_string(m.top_k) : "-";
      std::printf("%-15s %7u %7u %6u %5u %7u %7s %8u %6u %8s %8.2fB\n", m.name.c_str(), m.layers, m.hidden, m.heads,
                  m.kv_heads, m.experts > 0 ? m.expert_ffn_hidden : m.ffn_hidden,
                  m.activation == workloads::Activation::swiglu ? "swiglu" : "gelu", m.vocab, m.seq_len, experts.c_str(),
                  workloads::parameter_count(m) / 1e9);
    }
    std::fflush(stdout);
    return 0;
  };
}

} // namespace echo::cli
