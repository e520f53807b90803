#pragma once
// Schedule: one collective expanded into steps. A step is one transfer from `member` to `peer`
// (member indices of the communicator) with a closed-form cost given by the algorithm that built
// it: the sender is busy for `serialize_s`, and the data arrives `latency_s` later. Every member
// first pays the call's base latency (kernel launch and set-up). A step starts when
//   - its member has reached the collective and paid the base latency (and, for a rendezvous
//     step, so has its peer),
//   - every data dependency has *arrived* (the step forwards or reduces what it received),
//   - every order dependency has *left* (the previous transfer on the same connection), and
//   - for a stream dependency, its first pipeline unit has arrived: the step forwards the data
//     unit by unit as it comes (NCCL's protocols pipeline a transfer in units of a few KiB to a
//     chunk), so it also cannot end before the upstream's last unit arrived and went through.
// A member is done when its last outgoing step has left and its last incoming step has arrived.
//
// Steps are added in an order where dependencies come first; core/ times them (ScheduleRun).
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

namespace echo::collectives {

enum class DepKind : std::uint8_t {
  data,    // wait for the data to arrive
  order,   // wait for the connection to be free
  stream,  // forward the data as its units arrive
};

struct StepDep {
  std::uint32_t step;
  DepKind kind;
};

struct Step {
  std::uint32_t member = 0;
  std::uint32_t peer = 0;
  std::uint64_t bytes = 0;
  double serialize_s = 0.0;
  double latency_s = 0.0;
  double unit_s = 0.0;      // time to send one pipeline unit (for stream dependencies)
  bool reduce = false;      // the receiver reduces the data into its buffer
  bool rendezvous = false;  // also waits for the peer to reach the call (send/recv)
  std::uint32_t dep_begin = 0, dep_end = 0;  // range in Schedule::deps()
  // The share of `bytes` its sender's link really carries, where the step stands for more than a
  // plain send: NVLS's per-peer steps stand for the switch reducing (multimem loads) and
  // multicasting (multimem stores), where a GPU's port moves each byte once, not once per peer.
  // For the `flow` fidelity, which puts the steps on the links as SimGrid flows.
  float wire_share = 1.0f;
};
// A schedule of a 1,024-member ring holds two million steps: the share fits the padding.
static_assert(sizeof(Step) <= 56);

class Schedule {
public:
  explicit Schedule(std::uint32_t members) : members_(members) {}

  // Adds a step and returns its index. Every dependency must already exist.
  std::uint32_t add_step(std::uint32_t member, std::uint32_t peer, std::uint64_t bytes, double serialize_s,
                         double latency_s, std::initializer_list<StepDep> deps, bool reduce = false,
                         bool rendezvous = false);
  std::uint32_t add_step(std::uint32_t member, std::uint32_t peer, std::uint64_t bytes, double serialize_s,
                         double latency_s, std::span<const StepDep> deps, bool reduce = false,
                         bool rendezvous = false);

  // The `analytic` form of a call: no steps; every member finishes `duration_s` after the last
  // member arrives.
  static Schedule barrier(std::uint32_t members, double duration_s) {
    Schedule s(members);
    s.barrier_s_ = duration_s;
    s.finalize();
    return s;
  }
  bool is_barrier() const { return barrier_s_ >= 0.0; }
  double barrier_s() const { return barrier_s_; }

  // Room for a schedule whose size the algorithm knows: a 1,024-member ring has two million steps,
  // and growing to them a doubling at a time cost a tenth of `nccl-tests`' time.
  void reserve(std::size_t steps, std::size_t deps) {
    steps_.reserve(steps);
    deps_.reserve(deps);
  }
  void set_unit(std::uint32_t step, double unit_s) { steps_.at(step).unit_s = unit_s; }
  void set_wire_share(std::uint32_t step, float share) { steps_.at(step).wire_share = share; }
  void set_base_latency(double seconds) { base_latency_s_ = seconds; }
  double base_latency_s() const { return base_latency_s_; }

  // Every member's timeline equals the steps' member's (collectives/member_projection.hpp): a
  // step's arrival at its peer also stands for the member's own incoming step.
  void mark_symmetric() { symmetric_ = true; }
  bool symmetric() const { return symmetric_; }

  // Its steps between groups of nodes (pods) are costed with their share of the groups' ways out
  // (StepCosts::split_group_exits): the engine may share those ways with other calls.
  void mark_group_exits_split() { group_exits_split_ = true; }
  bool group_exits_split() const { return group_exits_split_; }

  std::uint32_t members() const { return members_; }
  const std::vector<Step>& steps() const { return steps_; }
  std::span<const StepDep> deps(const Step& s) const {
    return {deps_.data() + s.dep_begin, deps_.data() + s.dep_end};
  }

  // Reverse indices for timing the schedule as members arrive; built once by finalize().
  struct Index {
    std::vector<std::uint32_t> dependents_begin, dependents;        // CSR: steps with a data or order dependency on step i
    std::vector<std::uint32_t> streamed_begin, streamed;            // CSR: steps with a stream dependency on step i
    std::vector<std::uint32_t> streams_in;                          // per step: its stream dependencies
                                                                    // (these three empty where there are none)
    std::vector<std::uint32_t> waiting_begin, waiting;              // CSR: steps waiting for member m to arrive
    std::vector<std::uint32_t> involved;                            // steps where member m sends or receives
    std::vector<std::uint32_t> gates;                               // per step: arrivals + deps it waits for
  };
  void finalize();
  const Index& index() const { return index_; }

  // Sum of bytes each member sends, for reports.
  std::uint64_t bytes_sent_by(std::uint32_t member) const;

private:
  std::uint32_t members_;
  double base_latency_s_ = 0.0;
  double barrier_s_ = -1.0;
  bool symmetric_ = false;
  bool group_exits_split_ = false;
  std::vector<Step> steps_;
  std::vector<StepDep> deps_;
  Index index_;
};

} // namespace echo::collectives
