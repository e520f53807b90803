#include "platforms/platform_report.hpp"

#include "base/user_error.hpp"
#include "platforms/cluster.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/log.h>

#include <chrono>

namespace echo::platforms {

PlatformReport inspect_platform(const PlatformSource& source,
                                const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) {
  const auto started = std::chrono::steady_clock::now();
  int argc = 1;
  char name[] = "echo-des";
  char* argv[] = {name, nullptr};
  simgrid::s4u::Engine engine(&argc, argv);
  xbt_log_control_set("root.thres:critical");
  load_platform(engine, source);
  const Cluster cluster(engine, source.describe());

  PlatformReport report;
  report.description = source.describe();
  report.gpus = cluster.gpu_count();
  for (const Node& n : cluster.nodes())
    report.nodes.push_back({n.name, n.gpus.front(), static_cast<std::uint32_t>(n.gpus.size()),
                            cluster.gpus()[n.gpus.front()].model, n.intra});

  auto wanted = pairs;
  if (wanted.empty()) {
    const auto& nodes = cluster.nodes();
    if (nodes.front().gpus.size() > 1)
      wanted.emplace_back(0, 1);
    if (nodes.size() > 1)
      wanted.emplace_back(0, nodes[1].gpus.front());
    if (nodes.size() > 2)
      wanted.emplace_back(0, nodes.back().gpus.front());
  }
  for (auto [a, b] : wanted) {
    if (a >= report.gpus || b >= report.gpus || a == b)
      throw UserError("", 0,
                      "no route " + std::to_string(a) + " -> " + std::to_string(b) + ": GPUs are numbered 0 to " +
                          std::to_string(report.gpus - 1),
                      "give two different GPU indices below " + std::to_string(report.gpus));
    report.routes.push_back({a, b, cluster.gpus()[a].host->get_name(), cluster.gpus()[b].host->get_name(), cluster.route(a, b)});
  }
  report.load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return report;
}

} // namespace echo::platforms
