#pragma once
// Schedule: one collective expanded into steps. A step is one transfer from `member` to `peer`
// (member indices of the communicator) whose cost is closed-form from the route between their
// GPUs: the link is busy for `serialize_s` = bytes / bottleneck bandwidth, and the data arrives
// `latency_s` later. A step starts when
//   - its member has reached the collective (and, for a rendezvous step, so has its peer),
//   - every data dependency has *arrived* (the step forwards or reduces what it received), and
//   - every order dependency has *left* (the previous transfer on the same connection).
// A member is done when its last outgoing step has left and its last incoming step has arrived.
//
// Steps are added in an order where dependencies come first; core/ times them (ScheduleRun).
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "platforms/route.hpp"

namespace echo::collectives {

struct StepDep {
  std::uint32_t step;
  bool data;  // true: wait for the data to arrive; false: wait for the link to be free
};

struct Step {
  std::uint32_t member = 0;
  std::uint32_t peer = 0;
  std::uint64_t bytes = 0;
  double serialize_s = 0.0;
  double latency_s = 0.0;
  bool reduce = false;      // the receiver reduces the data into its buffer
  bool rendezvous = false;  // also waits for the peer to reach the call (send/recv)
  std::uint32_t dep_begin = 0, dep_end = 0;  // range in Schedule::deps()
};

class Schedule {
public:
  explicit Schedule(std::uint32_t members) : members_(members) {}

  // Adds a step and returns its index. Every dependency must already exist.
  std::uint32_t add_step(std::uint32_t member, std::uint32_t peer, std::uint64_t bytes,
                         const platforms::Route& route, std::initializer_list<StepDep> deps,
                         bool reduce = false, bool rendezvous = false);

  std::uint32_t members() const { return members_; }
  const std::vector<Step>& steps() const { return steps_; }
  std::span<const StepDep> deps(const Step& s) const {
    return {deps_.data() + s.dep_begin, deps_.data() + s.dep_end};
  }

  // Reverse indices for timing the schedule as members arrive; built once by finalize().
  struct Index {
    std::vector<std::uint32_t> dependents_begin, dependents;        // CSR: steps that depend on step i
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
  std::vector<Step> steps_;
  std::vector<StepDep> deps_;
  Index index_;
};

} // namespace echo::collectives
