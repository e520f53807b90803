#pragma once
// How core times one collective call with the collective model: with `steps`, the algorithm's
// schedule (for network models that run steps); without, one barrier of the closed-form time (or,
// for an algorithm without one, of its schedule's uncontended time).
#include "collectives/collective_model.hpp"
#include "core/job_spec.hpp"

namespace echo::core {

// The algorithm and protocol lists of a job, checked (UserError names the list's origin).
collectives::NcclSelection selection_for(const CommunicationSpec& spec, const collectives::AlgorithmRegistry& algorithms);

// Schedules beyond this many steps are not built: the call runs as a barrier instead
// (a world-size ring AllReduce on 8,192 GPUs would be 134 M steps, about 10 GB).
inline constexpr std::uint64_t kMaxStepsPerCall = std::uint64_t{1} << 22;

struct TimedCall {
  collectives::Plan plan;
  collectives::Schedule schedule;
  bool too_large_for_steps = false;  // ran as a barrier although steps were asked for
};
TimedCall time_call(const collectives::CollectiveModel& model, const collectives::CollectiveCall& call, bool steps,
                    std::uint64_t max_steps = kMaxStepsPerCall);
// The same for a call already planned (`plan` is model.plan(call)).
TimedCall time_planned_call(const collectives::CollectiveModel& model, collectives::Plan plan,
                            const collectives::CollectiveCall& call, bool steps, std::uint64_t max_steps = kMaxStepsPerCall);

} // namespace echo::core
