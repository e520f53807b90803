#pragma once
// ScheduleRun: times one collective's schedule as its members reach the call. Each arrival
// resolves every step whose gates are now all known (its member's arrival, its peer's for a
// rendezvous step, its dependencies' times) and reports the members whose finish time is now
// known. A step's time is only ever computed from events that already happened in simulated
// time, and it never ends before them, so a member is never told a finish time in the past.
//
// No SimGrid here: the engine calls arrive() at the simulated time of each arrival.
#include "collectives/schedule.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace echo::core {

class ScheduleRun {
public:
  explicit ScheduleRun(std::shared_ptr<const collectives::Schedule> schedule);

  // Member `member` reached the call at `now_s`. Appends to `finished` the members whose finish
  // time became known (possibly `member` itself). Returns the number of steps resolved.
  std::uint32_t arrive(std::uint32_t member, double now_s, std::vector<std::uint32_t>& finished);

  bool arrived(std::uint32_t member) const { return arrival_s_[member] >= 0.0; }
  bool finish_known(std::uint32_t member) const { return finish_known_[member] != 0; }
  double finish_s(std::uint32_t member) const { return finish_s_[member]; }
  std::uint32_t arrivals() const { return arrivals_; }
  const collectives::Schedule& schedule() const { return *schedule_; }

private:
  void resolve(std::uint32_t step, std::vector<std::uint32_t>& finished);
  void settle_member(std::uint32_t member, std::vector<std::uint32_t>& finished);

  std::shared_ptr<const collectives::Schedule> schedule_;
  std::vector<std::uint32_t> gates_;         // per step: gates still closed
  std::vector<double> start_s_;              // per step, once resolved
  std::vector<double> left_s_;               // per step: when its last byte has left
  std::vector<double> arrival_s_;            // per member, -1 until it arrives
  std::vector<double> finish_s_;             // per member: latest leave / arrival of its steps
  std::vector<std::uint32_t> involved_left_; // per member: its steps not resolved yet
  std::vector<std::uint8_t> finish_known_;
  std::vector<std::uint32_t> worklist_;
  double last_arrival_s_ = 0.0;
  std::uint32_t arrivals_ = 0;
  std::uint32_t resolved_ = 0;
};

// The call's time when it runs alone and every member arrives at once: the slowest member's
// finish. What nccl-tests measures, and the closed form of algorithms that have none.
double uncontended_time_s(collectives::Schedule schedule);

} // namespace echo::core
