#pragma once
// One member's share of a rotation-symmetric schedule. In a ring whose hops all cost the same
// (a data-parallel ring with one member per node), member m's k-th step mirrors member 0's k-th
// step shifted by m: same bytes, same costs, peer and dependencies shifted alike. When every
// member also reaches the call at the same instant (rank folding: all of them mirror one
// simulated rank), all members' timelines are equal, so timing one member's steps — each
// dependency on another member's step read as the same step of this member — gives every
// member's finish: (steps / members) work instead of steps. Its links are booked as in the full
// run, so the call still meets the simulated rank's other traffic there.
#include "collectives/schedule.hpp"

#include <optional>

namespace echo::collectives {

// `schedule` restricted to `self`'s steps, marked symmetric (every member finishes as `self`;
// ScheduleRun then counts each step's arrival at its peer as `self`'s own incoming step). Empty
// when the schedule is not rotation-symmetric step for step: different step counts per member,
// a step whose peer offset, bytes, costs or dependencies differ from the same step of another
// member, a rendezvous step, or a dependency that would point forward.
std::optional<Schedule> project_onto_member(const Schedule& schedule, std::uint32_t self);

} // namespace echo::collectives
