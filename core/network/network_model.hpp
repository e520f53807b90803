#pragma once
// NetworkModel: how the steps of running collectives and send/recvs are timed against each other
// on the platform's links — the engine's fidelity (DESIGN.md, "Fidelity levels"). The rendezvous
// (core/call_matcher) decides when a call's members arrive; ScheduleRun resolves its steps; for
// every step whose start is known, the network model decides its serialization time: at once,
// or later (committing it through the call) once it has seen who else uses the links.
//
// Models are chosen by name (`communication.fidelity`) from a registry, the way SimGrid picks its
// network models: `analytic`, `steps` and `flow` are built in; a program that links echo-des may
// register its own (test/network_model_test.cpp registers one).
#include "collectives/schedule.hpp"
#include "platforms/cluster.hpp"

#include <simgrid/s4u/Mutex.hpp>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace echo::core::network {

// The links a call stands on for more than itself, as (link, copies) with copies > 1: under rank
// folding, mirrored ranks whose own call is this one's image on the same link at the same
// instants (two GPUs of a node leaving through one NIC, one of them simulated). Link ids as
// LinkLoad numbers them (core/network/link_load.hpp); core/folded_link_copies.hpp makes them.
using LinkCopies = std::vector<std::pair<std::uint64_t, std::uint32_t>>;

// A running call as a network model sees it. Its schedule and GPUs stay valid until close().
class NetworkCall {
public:
  virtual ~NetworkCall() = default;
  virtual std::uint64_t id() const = 0;  // unique among the calls of one simulation
  virtual const std::shared_ptr<const collectives::Schedule>& schedule() const = 0;
  virtual const std::vector<std::uint32_t>& gpus() const = 0;  // member index -> GPU
  virtual bool all_steps_timed() const = 0;
  // nullptr: the call stands for itself alone on every link.
  virtual const LinkCopies* link_copies() const { return nullptr; }
  // Fixes the serialization time of a step admit() held back, and wakes the members whose finish
  // it settles. The caller holds the engine's mutex.
  virtual void commit(std::uint32_t step, double serialize_s) = 0;
};

// What a model is given when a simulation starts.
struct NetworkContext {
  const platforms::Cluster& platform;
  simgrid::s4u::MutexPtr mutex;  // held by the engine whenever it calls the model
  // By platforms::LinkKind: the fraction of a link's speed a step's payload gets, the rest being
  // what the transfer itself spends on the wire (the collective model's calibrated link
  // efficiency). A step at that fraction of its link's speed fills the link.
  std::array<double, 3> link_efficiency = {1.0, 1.0, 1.0};
};

class NetworkModel {
public:
  virtual ~NetworkModel() = default;
  // A call whose schedule has steps starts and ends (all its members have taken their finish).
  virtual void open(NetworkCall&) {}
  virtual void close(NetworkCall&) {}
  // Step `step` of `call` starts at `start_s` and would take `serialize_s` alone: its
  // serialization time now, or nullopt to call `call.commit()` later.
  virtual std::optional<double> admit(NetworkCall& call, std::uint32_t step, double start_s, double serialize_s) = 0;
  // Work that runs in a daemon actor for the whole simulation, if the model needs one.
  virtual std::function<void()> daemon() { return {}; }
};

struct NetworkModelInfo {
  std::string name;
  std::string description;  // one line, for error messages and --help
  // Whether calls run their algorithm's step schedule; false: one barrier of the closed-form time.
  bool runs_steps = true;
  std::function<std::unique_ptr<NetworkModel>(const NetworkContext&)> make;
  // Whether a step only ever loads links of its sender's GPU or node (its NVLink port, its node's
  // NICs), never a switch's: then the members of a call placed on distinct nodes load disjoint
  // links, and a call every member mirrors may be timed by one member's steps
  // (collectives/member_projection.hpp). False for models that route through shared switches.
  bool sender_links_only = false;
  // Whether the model itself shares the links between groups of nodes (a pod's up-link) among
  // the flows crossing them, as SimGrid's flows do: then a schedule's steps are costed as if
  // alone there (StepCosts::split_group_exits off), lest the sharing count twice.
  bool shares_group_exits = false;
};

// The registry of network models: the built-ins, then whatever a program adds.
class NetworkModelRegistry {
public:
  static NetworkModelRegistry& global();
  // Adds a model, or replaces the one of the same name.
  void add(NetworkModelInfo info);
  // nullptr if unknown.
  const NetworkModelInfo* find(const std::string& name) const;
  // The model, or a UserError naming `origin` (and `line`) that lists the registered ones.
  const NetworkModelInfo& require(const std::string& name, const std::string& origin, int line = 0) const;
  std::vector<std::string> names() const;
  // "`analytic` (...), `steps` (...) or `flow` (...)", for messages.
  std::string describe_all() const;

private:
  NetworkModelRegistry();
  std::vector<NetworkModelInfo> models_;
};

} // namespace echo::core::network
