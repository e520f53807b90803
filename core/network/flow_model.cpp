#include "core/network/flow_model.hpp"

#include "core/network/step_links.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <unordered_map>

namespace echo::core::network {

namespace sg4 = simgrid::s4u;

namespace {

class FlowModel final : public NetworkModel {
public:
  explicit FlowModel(const NetworkContext& context) : platform_(context.platform), mutex_(context.mutex), links_(context.platform) {}

  void open(NetworkCall& call) override { open_[call.id()] = &links_.of(call.schedule(), call.gpus()); }
  void close(NetworkCall& call) override { open_.erase(call.id()); }

  std::optional<double> admit(NetworkCall& call, std::uint32_t step, double start_s, double serialize_s) override {
    NetworkCall* c = &call;
    const std::uint32_t gpu = call.gpus()[call.schedule()->steps()[step].member];
    sg4::Actor::create("step", platform_.gpus()[gpu].host,
                       [this, c, step, start_s, serialize_s] { run_as_flows(*c, step, start_s, serialize_s); });
    return std::nullopt;
  }

private:
  // The step as SimGrid communications, one per rail across nodes; commits it when done.
  void run_as_flows(NetworkCall& call, std::uint32_t step, double start_s, double serialize_s) {
    sg4::this_actor::sleep_until(start_s);
    const collectives::Step& st = call.schedule()->steps()[step];
    const std::uint32_t from = call.gpus()[st.member], to = call.gpus()[st.peer];
    // Across nodes, one flow per NIC the step leaves through (step_links: as many of the call's
    // as its time needs), rail k from the sender node's GPU on NIC k to the receiver node's GPU on
    // NIC k. Inside a node, one flow.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    const std::uint32_t a = platform_.node_of(from), b = platform_.node_of(to);
    if (a != b) {
      const StepLinks& links = *open_.at(call.id());
      const auto& here = links.gpu_on_nic.at(a);
      const auto& there = links.gpu_on_nic.at(b);
      for (std::uint32_t i = links.begin[step]; i < links.begin[step + 1]; ++i) {
        const std::uint32_t nic = LinkLoad::nic_index(links.ids[i]);
        if (auto it = there.find(nic); it != there.end())
          pairs.emplace_back(here.at(nic), it->second);
      }
    }
    if (pairs.empty())
      pairs.emplace_back(from, to);
    // Each flow is sized to take the step's own time alone on its route; SimGrid's sharing slows
    // it when others use the same links.
    std::vector<sg4::CommPtr> flows;
    double route_latency_s = 0.0;
    for (const auto& [g, h] : pairs) {
      const platforms::Route r = platform_.route(g, h);
      route_latency_s = std::max(route_latency_s, r.latency_s);
      const auto bytes = static_cast<std::uint64_t>(std::ceil(serialize_s * r.bandwidth_Bps));
      flows.push_back(sg4::Comm::sendto_async(platform_.gpus()[g].host, platform_.gpus()[h].host, std::max<std::uint64_t>(1, bytes)));
    }
    for (auto& f : flows)
      f->wait();
    const double took = std::max(0.0, sg4::Engine::get_clock() - start_s - route_latency_s);
    std::unique_lock lock(*mutex_);
    call.commit(step, took);
  }

  const platforms::Cluster& platform_;
  sg4::MutexPtr mutex_;
  StepLinksCache links_;
  std::unordered_map<std::uint64_t, const StepLinks*> open_;
};

} // namespace

std::unique_ptr<NetworkModel> make_flow_model(const NetworkContext& context) { return std::make_unique<FlowModel>(context); }

} // namespace echo::core::network
