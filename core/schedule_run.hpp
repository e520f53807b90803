#pragma once
// ScheduleRun: times one collective's schedule as its members reach the call. Each arrival
// resolves every step whose gates are now all known (its member's arrival, its peer's for a
// rendezvous step, its dependencies' times) and reports the members whose finish time is now
// known. A step's time is only ever computed from events that already happened in simulated
// time, and it never ends before them, so a member is never told a finish time in the past.
//
// A StepGate may hold a step back once its start is known (to time it against other calls
// sharing its link); it then commits the step later, with the serialization time it decided.
//
// A step that streams from another starts once the other has started (its first unit arrives a
// unit and a hop later), not once the other is timed: a gate that times steps as they run (the
// `flow` fidelity's SimGrid flows) sees a chain of forwarding steps run at once, as they do. Its
// end waits for the other's too (it forwards the last unit after it came).
//
// No SimGrid here: the engine calls arrive() at the simulated time of each arrival.
#include "collectives/schedule.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace echo::core {

class StepGate {
public:
  virtual ~StepGate() = default;
  // The serialization time to give `step`, starting at `start_s`, now; or nullopt to decide
  // later through ScheduleRun::commit().
  virtual std::optional<double> admit(std::uint32_t step, double start_s, double serialize_s) = 0;
};

class ScheduleRun {
public:
  explicit ScheduleRun(std::shared_ptr<const collectives::Schedule> schedule, StepGate* gate = nullptr);

  // Fixes a step the gate held back, then resolves what it unblocks. Same reporting as arrive().
  std::uint32_t commit(std::uint32_t step, double serialize_s, std::vector<std::uint32_t>& finished);
  bool all_resolved() const { return resolved_ == schedule_->steps().size(); }

  // Member `member` reached the call at `now_s`. Appends to `finished` the members whose finish
  // time became known (possibly `member` itself). Returns the number of steps resolved.
  std::uint32_t arrive(std::uint32_t member, double now_s, std::vector<std::uint32_t>& finished);

  bool arrived(std::uint32_t member) const { return arrival_s_[member] >= 0.0; }
  bool finish_known(std::uint32_t member) const { return finish_known_[member] != 0; }
  double finish_s(std::uint32_t member) const { return finish_s_[member]; }
  std::uint32_t arrivals() const { return arrivals_; }
  double first_arrival_s() const { return first_arrival_s_; }
  double last_finish_s() const;
  const collectives::Schedule& schedule() const { return *schedule_; }

private:
  void resolve(std::uint32_t step, std::vector<std::uint32_t>& finished);
  void fix(std::uint32_t step, double serialize_s, std::vector<std::uint32_t>& finished);
  void complete(std::uint32_t step, std::vector<std::uint32_t>& finished);
  void drain(std::vector<std::uint32_t>& finished);
  void settle_member(std::uint32_t member, std::vector<std::uint32_t>& finished);

  std::shared_ptr<const collectives::Schedule> schedule_;
  StepGate* gate_ = nullptr;
  std::vector<std::uint32_t> gates_;         // per step: gates still closed
  std::vector<double> start_s_;              // per step, once resolved
  std::vector<double> left_s_;               // per step: when its last byte has left (once fixed,
                                             // before its stream dependencies are: its own end)
  std::vector<std::uint32_t> streams_open_;  // per step: stream dependencies not completed yet (empty: none)
  std::vector<std::uint8_t> fixed_;          // per step: its serialization time is known
  std::vector<std::uint32_t> completable_;   // fixed steps whose last stream dependency completed
  std::vector<double> arrival_s_;            // per member, -1 until it arrives
  std::vector<double> finish_s_;             // per member: latest leave / arrival of its steps
  std::vector<std::uint32_t> involved_left_; // per member: its steps not resolved yet
  std::vector<std::uint8_t> finish_known_;
  std::vector<std::uint32_t> worklist_;
  double last_arrival_s_ = 0.0;
  double first_arrival_s_ = -1.0;
  std::uint32_t arrivals_ = 0;
  std::uint32_t resolved_ = 0;
};

// The call's time when it runs alone and every member arrives at once: the slowest member's
// finish. What nccl-tests measures, and the closed form of algorithms that have none.
double uncontended_time_s(collectives::Schedule schedule);

} // namespace echo::core
