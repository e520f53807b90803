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
    // Across nodes a step crosses on as many rails as its time needs (its bytes at one rail's
    // rate over its serialization): a ring step carries every channel of the call, spread over
    // every rail its members use (rail k from the sender node's GPU on NIC k to the receiver
    // node's GPU on NIC k); a pairwise send (AllToAll, send/recv) runs at one GPU's share and
    // crosses on the sender's own rail. Inside a node, one flow.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    const std::uint32_t a = platform_.node_of(from), b = platform_.node_of(to);
    if (a != b) {
      const StepLinks& links = *open_.at(call.id());
      const auto& there = links.gpu_on_nic.at(b);
      const std::uint32_t own_nic = platform_.nic_of(from);
      for (const auto& [nic, g] : links.gpu_on_nic.at(a))
        if (auto it = there.find(nic); it != there.end())
          pairs.emplace(nic == own_nic ? pairs.begin() : pairs.end(), g, it->second);
      if (!pairs.empty() && serialize_s > 0) {
        const double rail_Bps = platform_.route(pairs.front().first, pairs.front().second).bandwidth_Bps;
        const double rails = std::ceil(static_cast<double>(st.bytes) / (serialize_s * rail_Bps) - 1e-9);
        pairs.resize(static_cast<std::size_t>(std::clamp(rails, 1.0, static_cast<double>(pairs.size()))));
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
