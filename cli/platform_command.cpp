#include "base/user_error.hpp"
#include "cli/commands.hpp"
#include "platforms/cluster_spec.hpp"
#include "platforms/platform_writer.hpp"

#include <fstream>
#include <iostream>
#include <map>
#include <memory>

namespace echo::cli {

namespace {

struct GenerateOptions {
  std::string preset;
  std::uint32_t nodes = 1;
  std::string output;
  std::map<std::string, std::string> figures;  // override key -> value, from the named options
  std::vector<std::string> sets;
};

} // namespace

Action add_platform_command(CLI::App& app) {
  auto opts = std::make_shared<GenerateOptions>();
  CLI::App* platform = app.add_subcommand("platform", "Work with platforms (SimGrid XML cluster descriptions)");
  platform->require_subcommand(1);
  CLI::App* gen = platform->add_subcommand("generate", "Write the SimGrid platform XML of a preset cluster");
  std::string presets;
  for (const auto& n : platforms::preset_names())
    presets += (presets.empty() ? "" : ", ") + n;
  gen->footer("Presets: " + presets +
              "\nExample:\n  echo-des platform generate --preset dgx-h100 --nodes 16 --nic-bw 200Gbps -o h100x16.xml");
  gen->add_option("--preset", opts->preset, "Preset cluster: " + presets)->required();
  gen->add_option("--nodes", opts->nodes, "Number of nodes")->required()->check(CLI::PositiveNumber);
  gen->add_option("-o,--output", opts->output, "Output XML file (default: stdout)");
  // One option per what-if figure, with the same units as the XML (SimGrid's unit strings).
  const std::vector<std::pair<std::string, std::string>> figures = {
      {"gpu", "GPU model written into the hosts' `gpu` property"},
      {"gpus_per_node", "GPUs per node"},
      {"nvlink_bw", "NVLink bandwidth per GPU per direction, e.g. 300GBps"},
      {"nvlink_latency", "GPU to NVSwitch latency, e.g. 350ns"},
      {"nics_per_node", "NICs per node (must divide GPUs per node)"},
      {"nic_bw", "Bandwidth per NIC per direction, e.g. 400Gbps"},
      {"nic_latency", "GPU through NIC to leaf switch latency, e.g. 1us"},
      {"switch_latency", "Latency of one switch traversal, e.g. 130ns"},
      {"oversubscription", "Fat-tree oversubscription (leaf down / up capacity), e.g. 2"},
  };
  for (const auto& [key, help] : figures) {
    std::string flag = "--" + key;
    for (char& c : flag)
      if (c == '_')
        c = '-';
    gen->add_option_function<std::string>(flag, [opts, key = key](const std::string& v) { opts->figures[key] = v; }, help);
  }
  return [gen, opts]() -> int {
    if (!gen->parsed())
      return -1;
    platforms::ClusterSpec spec = platforms::preset(opts->preset, opts->nodes);
    for (const auto& [key, value] : opts->figures)
      platforms::override_figure(spec, key, value, "--" + key);
    platforms::validate(spec, "the command line");
    if (opts->output.empty()) {
      platforms::write_platform_xml(spec, std::cout);
      return 0;
    }
    std::ofstream out(opts->output);
    if (!out)
      throw UserError(opts->output, 0, "cannot write the platform file", "check that the folder exists and is writable");
    platforms::write_platform_xml(spec, out);
    return 0;
  };
}

} // namespace echo::cli
