#pragma once
// How core times one collective call with the collective model, at a fidelity: `steps` runs the
// algorithm's schedule; `analytic` replaces it by one barrier of the closed-form time (or, for an
// algorithm without one, of its schedule's uncontended time).
#include "collectives/collective_model.hpp"
#include "core/job_spec.hpp"

namespace echo::core {

// The algorithm and protocol lists of a job, checked (UserError names the list's origin).
collectives::NcclSelection selection_for(const CommunicationSpec& spec, const collectives::AlgorithmRegistry& algorithms);

struct TimedCall {
  collectives::Plan plan;
  collectives::Schedule schedule;
};
TimedCall time_call(const collectives::CollectiveModel& model, const collectives::CollectiveCall& call, Fidelity fidelity);

} // namespace echo::core
