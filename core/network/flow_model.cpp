#include "core/network/flow_model.hpp"

#include "core/network/step_links.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mailbox.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace echo::core::network {

namespace sg4 = simgrid::s4u;

namespace {

class FlowModel final : public NetworkModel {
public:
  explicit FlowModel(const NetworkContext& context)
      : platform_(context.platform), mutex_(context.mutex), efficiency_(context.link_efficiency), links_(context.platform) {}

  void open(NetworkCall& call) override { open_[call.id()] = &links_.of(call.schedule(), call.gpus()); }
  void close(NetworkCall& call) override { open_.erase(call.id()); }

  std::optional<double> admit(NetworkCall& call, std::uint32_t step, double start_s, double serialize_s) override {
    const collectives::Step& st = call.schedule()->steps()[step];
    const auto pairs = rails_of(call, step);
    // Each flow asks for the rate of the wire the step's cost gives it: its share of the step's
    // bytes (of those its link really carries: Step::wire_share) over the step's time, over the
    // payload's share of the link (the calibrated link efficiency: a step at that share fills
    // its link). It carries that rate times the step's
    // time, so alone it takes exactly the step's time. A schedule runs several of its own steps
    // over one link at once (a tree's up and down streams), each costed with the others on the
    // link already: at the route's full rate those flows would contend among themselves a second
    // time (a one-node tree AllReduce took 5x its `steps` time). Capped at their own rates, they
    // slow only when the link's capacity runs out, which is when other traffic shares it.
    const double step_Bps =
        serialize_s > 0.0 ? static_cast<double>(st.bytes) / static_cast<double>(pairs.size()) / serialize_s : 0.0;
    auto running = std::make_shared<Running>(Running{&call, step, start_s, static_cast<std::uint32_t>(pairs.size()), 0.0});
    for (const auto& [g, h] : pairs) {
      const platforms::Route r = platform_.route(g, h);
      running->route_latency_s = std::max(running->route_latency_s, r.latency_s);
      const double wire_Bps = step_Bps * st.wire_share / efficiency_[static_cast<int>(r.kind)];
      const bool capped = wire_Bps > 0.0 && wire_Bps < r.bandwidth_Bps;
      double rate = capped ? wire_Bps : r.bandwidth_Bps;
      // A route narrower than its step's wire is otherwise the calibration's (NVLS steps stand for
      // the switch's work; a step's NICs are counted by payload): carried at the route's rate, the
      // flow takes the step's time alone, as `steps` does. Step costs come from the NICs, so a
      // route out of a pod narrower than a NIC (a fat-tree oversubscribed past one NIC's share)
      // is slower than any step was costed for: there the flow carries what its NIC would, and the
      // way out makes it take longer.
      if (!capped && r.group_exit_Bps > 0.0) {
        const double nic_Bps = platform_.node_network(platform_.node_of(g)).nic_Bps;
        if (r.bandwidth_Bps < nic_Bps)
          rate = std::min(wire_Bps, nic_Bps);
      }
      const auto bytes = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(serialize_s * rate)));
      // A mailbox communication leaves from its sender's host: each flow gets its own actor on
      // the GPU it leaves from.
      sg4::Actor::create("flow", platform_.gpus()[g].host, [this, running, to = h, bytes, capped, rate] {
        run_flow(*running, to, bytes, capped ? rate : -1.0);
      });
    }
    return std::nullopt;
  }

private:
  // A step whose flows are under way; the last one to end commits it.
  struct Running {
    NetworkCall* call;
    std::uint32_t step;
    double start_s;
    std::uint32_t flows_left;
    double route_latency_s;
  };

  // Across nodes, one flow per NIC the step leaves through (step_links: as many of the call's as
  // its time needs), rail k from the sender node's GPU on NIC k to the receiver node's GPU on NIC
  // k. Inside a node, one flow.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> rails_of(NetworkCall& call, std::uint32_t step) const {
    const collectives::Step& st = call.schedule()->steps()[step];
    const std::uint32_t from = call.gpus()[st.member], to = call.gpus()[st.peer];
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
    const std::uint32_t a = platform_.node_of(from), b = platform_.node_of(to);
    if (a != b) {
      const StepLinks& links = *open_.at(call.id());
      const auto& here = links.gpu_on_nic.at(a);
      const auto& there = links.gpu_on_nic.at(b);
      for (std::uint32_t i = links.begin[step]; i < links.begin[step + 1]; ++i) {
        if (LinkLoad::is_group_link(links.ids[i]))
          continue;  // SimGrid's own routes cross the pods' up-links
        const std::uint32_t nic = LinkLoad::nic_index(links.ids[i]);
        if (auto it = there.find(nic); it != there.end())
          pairs.emplace_back(here.at(nic), it->second);
      }
    }
    if (pairs.empty())
      pairs.emplace_back(from, to);
    return pairs;
  }

  void run_flow(Running& running, std::uint32_t to, std::uint64_t bytes, double rate) {
    sg4::this_actor::sleep_until(running.start_s);
    sg4::CommPtr flow = inbox(to)->put_init(&payload_, bytes);
    if (rate > 0.0)
      flow->set_rate(rate);
    flow->start()->wait();
    drain(flow);
    if (--running.flows_left > 0)
      return;
    const double took = std::max(0.0, sg4::Engine::get_clock() - running.start_s - running.route_latency_s);
    std::unique_lock lock(*mutex_);
    running.call->commit(running.step, took);
  }

  // A GPU's mailbox for the flows sent to it. A flow with a rate cap has to be a mailbox
  // communication (SimGrid 3.32 leaves host-to-host ones started at creation, and set_rate then
  // refuses); a daemon on the GPU's host is the mailbox's permanent receiver, so a flow moves as
  // soon as it is sent, as a host-to-host one would.
  sg4::Mailbox* inbox(std::uint32_t gpu) {
    if (inboxes_.empty())
      inboxes_.resize(platform_.gpus().size(), nullptr);
    if (inboxes_[gpu] != nullptr)
      return inboxes_[gpu];
    // Creating an actor yields to the engine, and another step may ask for this inbox meanwhile:
    // the box is handed out only once its receiver is set (a flow sent before that would wait
    // for a get that never comes). Two steps may then both make a receiver; the spare sleeps.
    sg4::Mailbox* box = sg4::Mailbox::by_name("flows to gpu " + std::to_string(gpu));
    sg4::ActorPtr receiver = sg4::Actor::create("flows in", platform_.gpus()[gpu].host, [] {
      // Asleep, not suspended: SimGrid suspends the communications of a suspended actor.
      sg4::Actor::self()->daemonize();
      sg4::this_actor::sleep_until(std::numeric_limits<double>::max());
    });
    box->set_receiver(receiver);
    inboxes_[gpu] = box;
    return box;
  }
  // A permanent receiver's mailbox keeps every finished flow until someone takes it: take the
  // one just finished (or one like it) so the queue does not grow with the run.
  void drain(const sg4::CommPtr& flow) {
    if (sg4::Mailbox* box = flow->get_mailbox(); box != nullptr && box->ready())
      box->get<int>();
  }

  const platforms::Cluster& platform_;
  sg4::MutexPtr mutex_;
  std::array<double, 3> efficiency_;  // by platforms::LinkKind
  std::vector<sg4::Mailbox*> inboxes_;
  int payload_ = 0;
  StepLinksCache links_;
  std::unordered_map<std::uint64_t, const StepLinks*> open_;
};

} // namespace

std::unique_ptr<NetworkModel> make_flow_model(const NetworkContext& context) { return std::make_unique<FlowModel>(context); }

} // namespace echo::core::network
