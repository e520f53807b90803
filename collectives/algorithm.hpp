#pragma once
// Algorithm: turns one collective call into a Schedule, costing each step with the StepCosts the
// collective model prepared for it (protocol, channels, calibrated latencies and bandwidth). To
// add an algorithm, derive from Algorithm, give it a name, and add it to the registry the
// simulation uses (Simulation::algorithms()); core/ needs no change. The built-in NCCL algorithms
// are registered under NCCL's names (ring, tree, nvls, nvlstree, pat); a researcher's algorithm is
// used where NCCL_ALGO (or the job's `algo`) names it.
#include "collectives/comm_shape.hpp"
#include "collectives/nccl_vocabulary.hpp"
#include "collectives/op.hpp"
#include "collectives/schedule.hpp"
#include "platforms/route.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace echo::collectives {

struct CollectiveCall {
  Op op = Op::all_reduce;
  // Bytes as NCCL counts them: full buffer for AllReduce / Broadcast / Reduce, gathered output for
  // AllGather, input for ReduceScatter, the whole send buffer for AllToAll, the message for send/recv.
  std::uint64_t bytes = 0;
  std::vector<std::uint32_t> gpus;  // member index -> GPU index (rank order of the platform)
  std::uint32_t root = 0;           // member index (Broadcast, Reduce); for send/recv: 0 sends to 1
  // Send/recv: every GPU of the communicator it runs on, since NCCL sizes a peer's channels by the
  // communicator (p2p_channels.hpp); empty when the two are all there is.
  std::vector<std::uint32_t> comm_gpus;
};

// What one step costs for this call. Latencies in seconds; `algorithm_Bps` is the rate at which
// the call's bytes go through (time = bytes / rate, NCCL's "algorithm bandwidth"), so that a
// schedule of s steps per member each carrying bytes/k costs its share of it.
struct StepCosts {
  Protocol protocol = Protocol::simple;
  std::uint32_t channels = 1;
  double base_s = 0.0;                  // once per call: launch and set-up
  // The rate a ring's channel copies its last received chunk into the output while its links wait
  // (calibration.hpp: nccl.tail_copy_bw.ring); 0: no wait.
  double ring_tail_copy_Bps = 0.0;
  double hop_s[3] = {0.0, 0.0, 0.0};    // per step, by platforms::LinkKind of the hop
  double algorithm_Bps = 0.0;
  double efficiency[3] = {1.0, 1.0, 1.0};  // achieved fraction of a route's bandwidth, by kind
  // What one GPU can push over each kind of hop with the channels in use (inside a node: its
  // share of NVLink or PCIe; across nodes: its share of the node's NICs), efficiency included.
  // For researchers' algorithms, which are not NCCL's and have no tabulated bandwidth.
  double link_Bps[3] = {0.0, 0.0, 0.0};
  // Send/recv and AllToAll: the most a member's connections to its peers over each kind of hop
  // carry together (0: no limit beyond the links), from the channels NCCL gives them.
  double p2p_Bps[3] = {0.0, 0.0, 0.0};
  // Whether the members of a call that leave a group of nodes at once (platforms::Route::
  // group_exit_Bps) split its way out in the schedule; off where the engine's network model shares
  // those links itself.
  bool split_group_exits = true;

  double hop(platforms::LinkKind kind) const { return hop_s[static_cast<int>(kind)]; }
  // A point-to-point transfer's rate on `route` (one path, one connection).
  double route_Bps(const platforms::Route& route) const {
    return route.bandwidth_Bps * efficiency[static_cast<int>(route.kind)];
  }
  // The same, held to what the member's send/recv channels carry.
  double p2p_route_Bps(const platforms::Route& route) const {
    const double cap = p2p_Bps[static_cast<int>(route.kind)];
    return cap > 0 ? std::min(route_Bps(route), cap) : route_Bps(route);
  }
};

// Everything an algorithm needs to build a call's schedule.
struct PlannedCall {
  const CollectiveCall& call;
  const CommShape& shape;
  const std::vector<std::uint32_t>& node_of_member;  // node index per member
  const platforms::RouteOracle& platform;
  StepCosts costs;

  bool same_node(std::uint32_t a, std::uint32_t b) const { return node_of_member[a] == node_of_member[b]; }
  platforms::LinkKind hop_kind(std::uint32_t a, std::uint32_t b) const {
    return same_node(a, b) ? shape.intra : platforms::LinkKind::network;
  }
};

class Algorithm {
public:
  virtual ~Algorithm() = default;
  virtual std::string name() const = 0;
  // Whether this algorithm can run the call on its communicator; empty if so, else why not.
  virtual std::string unsupported(const CollectiveCall& call, const CommShape& shape) const = 0;
  // The returned schedule is finalized.
  virtual Schedule build(const PlannedCall& call) const = 0;
  // Time from the last member's arrival to the slowest member's finish, in closed form, when the
  // schedule runs alone. Used by the `analytic` fidelity and to check `steps`; algorithms that
  // have none return nullopt and are timed by running their schedule once.
  virtual std::optional<double> closed_form_s(const PlannedCall&) const { return std::nullopt; }
  // How many steps build() would make (0: not known without building), so that the engine can
  // refuse schedules too large to hold.
  virtual std::uint64_t step_count(const PlannedCall&) const { return 0; }
  // Member `self`'s share of the schedule build() makes, built without the other members' steps,
  // where that schedule is rotation-symmetric: exactly what project_onto_member(build(call), self)
  // gives (member_projection.hpp), at a members-th of the work. Rank folding times a call whose
  // members all mirror one rank this way. nullopt (the default): core builds the whole schedule
  // and projects it.
  virtual std::optional<Schedule> build_for_member(const PlannedCall&, std::uint32_t /*self*/) const { return std::nullopt; }
  // True when build() reads nothing of the call but its op, bytes, root and member count, the
  // shape, the costs and which members share a node — never the GPUs' indices or the platform's
  // routes. Two calls alike in those then get the same schedule, and core builds it once
  // (schedule_key.hpp): the data-parallel rings of a job's pipeline stages differ only in their
  // GPUs. False (the safe default) for algorithms that ask the platform about routes.
  virtual bool builds_from_shape() const { return false; }
};

class AlgorithmRegistry;
// What a program built on echo-des adds to the registry before a simulation runs (its own
// algorithms); see examples/custom_algorithm.
using AlgorithmSetup = std::function<void(AlgorithmRegistry&)>;

class AlgorithmRegistry {
public:
  // The algorithms shipped with echo-des: NCCL's Ring, Tree, NVLS, NVLSTree and PAT, a
  // Hierarchical AllReduce, point-to-point send/recv (p2p), and AllToAll as grouped sends
  // (pairwise).
  static AlgorithmRegistry with_builtins();

  // A later addition with the same name replaces the earlier one.
  void add(std::unique_ptr<Algorithm> algorithm);
  const Algorithm* find(const std::string& name) const;  // case-insensitive
  std::vector<std::string> names() const;

private:
  std::vector<std::unique_ptr<Algorithm>> algorithms_;
};

} // namespace echo::collectives
