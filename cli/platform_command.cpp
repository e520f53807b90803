#include "base/user_error.hpp"
#include "cli/commands.hpp"
#include "platforms/cluster_spec.hpp"
#include "platforms/platform_report.hpp"
#include "platforms/platform_writer.hpp"
#include "report/json_text.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>

namespace echo::cli {

namespace {

// A preset and its what-if figures, as `generate` and `info` both take them.
struct PresetOptions {
  std::string preset;
  std::uint32_t nodes = 1;
  std::map<std::string, std::string> figures;  // override key -> value
};

std::string preset_list() {
  std::string presets;
  for (const auto& n : platforms::preset_names())
    presets += (presets.empty() ? "" : ", ") + n;
  return presets;
}

void add_preset_options(CLI::App* app, const std::shared_ptr<PresetOptions>& opts, bool required) {
  auto* preset = app->add_option("--preset", opts->preset, "Preset cluster: " + preset_list());
  // A plain range: CLI11's PositiveNumber prints the largest double as its upper bound.
  auto* nodes = app->add_option("--nodes", opts->nodes, "Number of nodes")->check(CLI::Range(1u, 1000000u));
  if (required) {
    preset->required();
    nodes->required();
  }
  // One option per what-if figure, in the XML's units (SimGrid's unit strings); --nodes is above.
  for (const auto& [key, help] : platforms::figures()) {
    if (key == "nodes")
      continue;
    // Spelled as the key is in a job and in --set: one spelling per figure everywhere.
    app->add_option_function<std::string>("--" + key, [opts, key = key](const std::string& v) { opts->figures[key] = v; }, help);
  }
}

platforms::ClusterSpec spec_of(const PresetOptions& opts) {
  platforms::ClusterSpec spec = platforms::preset(opts.preset, opts.nodes);
  for (const auto& [key, value] : opts.figures)
    platforms::override_figure(spec, key, value, "--" + key);
  platforms::validate(spec, "the command line");
  return spec;
}

std::string rate(double bytes_per_s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f GB/s", bytes_per_s / 1e9);
  return buf;
}

void print_report(const platforms::PlatformReport& r) {
  std::printf("platform: %s\n", r.description.c_str());
  std::printf("GPUs:     %u in %zu nodes\n", r.gpus, r.nodes.size());
  constexpr std::size_t kShown = 4;
  for (std::size_t i = 0; i < r.nodes.size(); ++i) {
    if (i == kShown && r.nodes.size() > kShown + 1) {
      std::printf("  ... %zu more nodes\n", r.nodes.size() - kShown - 1);
      i = r.nodes.size() - 1;
    }
    const auto& n = r.nodes[i];
    std::printf("  node %zu '%s': GPUs %u-%u, %s, %s inside\n", i, n.name.c_str(), n.first_gpu, n.first_gpu + n.gpu_count - 1,
                n.model.c_str(), std::string(platforms::to_string(n.intra)).c_str());
  }
  std::printf("routes:\n");
  for (const auto& line : r.routes) {
    std::printf("  %u -> %u (%s -> %s): %s, latency %.3f us, bottleneck %s", line.src, line.dst, line.src_host.c_str(),
                line.dst_host.c_str(), std::string(platforms::to_string(line.route.kind)).c_str(),
                line.route.latency_s * 1e6, rate(line.route.bandwidth_Bps).c_str());
    if (line.route.group_exit_Bps > 0)
      std::printf(", out of its pod through %s shared by all that leaves it", rate(line.route.group_exit_Bps).c_str());
    std::printf("\n");
  }
}

nlohmann::ordered_json report_json(const platforms::PlatformReport& r) {
  nlohmann::ordered_json nodes = nlohmann::ordered_json::array(), routes = nlohmann::ordered_json::array();
  for (const auto& n : r.nodes)
    nodes.push_back({{"name", n.name},
                     {"first_gpu", n.first_gpu},
                     {"gpus", n.gpu_count},
                     {"gpu", n.model},
                     {"inside", std::string(platforms::to_string(n.intra))}});
  for (const auto& line : r.routes)
    routes.push_back({{"src", line.src},
                      {"dst", line.dst},
                      {"src_host", line.src_host},
                      {"dst_host", line.dst_host},
                      {"kind", std::string(platforms::to_string(line.route.kind))},
                      {"latency_s", line.route.latency_s},
                      {"bottleneck_Bps", line.route.bandwidth_Bps},
                      {"group_exit_Bps", line.route.group_exit_Bps}});
  return {{"platform", r.description}, {"gpus", r.gpus}, {"nodes", nodes}, {"routes", routes}};
}

Action add_generate(CLI::App* platform) {
  auto opts = std::make_shared<PresetOptions>();
  auto output = std::make_shared<std::string>();
  CLI::App* gen = platform->add_subcommand("generate", "Write the SimGrid platform XML of a preset cluster");
  gen->footer("Presets: " + preset_list() +
              "\nExample:\n  echo-des platform generate --preset dgx-h100 --nodes 16 --nic_bw 200Gbps -o h100x16.xml");
  add_preset_options(gen, opts, true);
  gen->add_option("-o,--out", *output, "Output XML file (default: stdout)");
  return [gen, opts, output]() -> int {
    if (!gen->parsed())
      return -1;
    const platforms::ClusterSpec spec = spec_of(*opts);
    if (output->empty()) {
      platforms::write_platform_xml(spec, std::cout);
      return 0;
    }
    std::ofstream out(*output);
    if (!out)
      throw UserError(*output, 0, "cannot write the platform file", "check that the folder exists and is writable");
    platforms::write_platform_xml(spec, out);
    return 0;
  };
}

Action add_info(CLI::App* platform) {
  auto opts = std::make_shared<PresetOptions>();
  auto file = std::make_shared<std::string>();
  auto routes = std::make_shared<std::vector<std::string>>();
  CLI::App* info = platform->add_subcommand("info", "Show a platform's GPUs, nodes and routes as echo-des reads them");
  info->footer("Example:\n  echo-des platform info my-cluster.xml --route 0,8 --route 3,4\n"
               "  echo-des platform info --preset dgx-a100 --nodes 4 --oversubscription 2");
  info->add_option("file", *file, "A SimGrid platform XML file (or give --preset and --nodes)");
  add_preset_options(info, opts, false);
  info->add_option("--route", *routes, "A GPU pair SRC,DST to show the route of (repeatable)");
  auto json = std::make_shared<bool>(false);
  info->add_flag("--json", *json, "Print JSON instead of text");
  return [info, opts, file, routes, json]() -> int {
    if (!info->parsed())
      return -1;
    platforms::PlatformSource source;
    if (file->empty() == opts->preset.empty())
      throw UserError("", 0, "`platform info` needs either a platform file or --preset (with --nodes)",
                      "e.g. echo-des platform info cluster.xml, or echo-des platform info --preset dgx-a100 --nodes 2");
    if (!file->empty())
      source.file = *file;
    else
      source.spec = spec_of(*opts);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    for (const std::string& r : *routes) {
      unsigned a = 0, b = 0;
      char end = 0;
      if (std::sscanf(r.c_str(), "%u,%u%c", &a, &b, &end) != 2)
        throw UserError("--route " + r, 0, "a route is two GPU indices separated by a comma", "write e.g. --route 0,8");
      pairs.emplace_back(a, b);
    }
    const platforms::PlatformReport report = platforms::inspect_platform(source, pairs);
    if (*json) {
      std::cout << report::json_text(report_json(report), 2) << "\n";
      return 0;
    }
    print_report(report);
    std::fprintf(stderr, "loaded in %.2f s\n", report.load_s);
    return 0;
  };
}

// The collective-model parameters a preset carries: fitted on measurements, or NCCL's nominal figures.
std::string collective_parameters(const platforms::ClusterSpec& spec) {
  if (spec.calibration.empty())
    return "nominal (NCCL's figures; nothing fitted on this machine)";
  std::string text = "fitted:";
  for (const auto& [key, value] : spec.calibration)
    text += " " + key + "=" + value;
  return text;
}

Action add_list(CLI::App* platform) {
  auto json = std::make_shared<bool>(false);
  CLI::App* list = platform->add_subcommand("list", "List the preset clusters with their figures and sources");
  list->footer("Example:\n  echo-des platform list\n  echo-des platform generate --preset aws-p5 --nodes 4 -o p5x4.xml");
  list->add_flag("--json", *json, "Print JSON instead of text");
  return [list, json]() -> int {
    if (!list->parsed())
      return -1;
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const std::string& name : platforms::preset_names()) {
      const platforms::ClusterSpec s = platforms::preset(name, 1);
      const std::uint32_t nic_links = platforms::preset_figures(s).nic_links;
      nlohmann::ordered_json j = {{"preset", name},
                                  {"gpu", s.gpu},
                                  {"gpus_per_node", s.gpus_per_node},
                                  {"nvlink_bw", s.nvlink_bw},
                                  {"nvlink_latency", s.nvlink_latency},
                                  {"nics_per_node", s.nics_per_node},
                                  {"nic_bw", s.nic_bw},
                                  {"nic_latency", s.nic_latency},
                                  {"switch_latency", s.switch_latency},
                                  {"cpu", s.cpu},
                                  {"gpu_nic_path", s.gpu_nic_path},
                                  {"gpu_speed_spread", s.gpu_speed_spread},
                                  {"collective_parameters", s.calibration},
                                  {"source", s.source},
                                  {"approximation", s.approximation}};
      if (*json) {
        all.push_back(j);
        continue;
      }
      std::printf("%s\n  %u x %s per node, NVLink %s per GPU (%s), %u x %s NICs%s (%s), switch %s, %s CPU, GPU-NIC path %s, GPU speed spread %s\n",
                  name.c_str(), s.gpus_per_node, s.gpu.c_str(), s.nvlink_bw.c_str(), s.nvlink_latency.c_str(),
                  s.nics_per_node, s.nic_bw.c_str(),
                  nic_links < s.nics_per_node ? (" (" + std::to_string(s.nics_per_node / nic_links) + " per GPU)").c_str() : "",
                  s.nic_latency.c_str(), s.switch_latency.c_str(), s.cpu.c_str(), s.gpu_nic_path.c_str(),
                  s.gpu_speed_spread.c_str());
      std::printf("  collective model: %s\n  source: %s\n", collective_parameters(s).c_str(), s.source.c_str());
      if (!s.approximation.empty())
        std::printf("  approximations: %s\n", s.approximation.c_str());
    }
    if (*json)
      std::printf("%s\n", all.dump(2).c_str());
    std::fflush(stdout);
    return 0;
  };
}

} // namespace

Action add_platform_command(CLI::App& app) {
  CLI::App* platform = app.add_subcommand("platform", "Work with platforms (SimGrid XML cluster descriptions)");
  platform->footer("Example:\n  echo-des platform list\n  echo-des platform generate --preset dgx-a100 --nodes 2 -o a100x2.xml\n"
                   "  echo-des platform info a100x2.xml");
  platform->require_subcommand(1);
  auto generate = add_generate(platform);
  auto info = add_info(platform);
  auto list = add_list(platform);
  return [generate, info, list]() -> int {
    if (int code = generate(); code >= 0)
      return code;
    if (int code = list(); code >= 0)
      return code;
    return info();
  };
}

} // namespace echo::cli
