#include "core/collective_timing.hpp"

#include "core/schedule_run.hpp"

namespace echo::core {

collectives::NcclSelection selection_for(const CommunicationSpec& spec, const collectives::AlgorithmRegistry& algorithms) {
  collectives::NcclSelection selection;
  if (!spec.algo.empty())
    selection.restrict_algorithms(spec.algo, spec.algo_origin, algorithms.names());
  if (!spec.proto.empty())
    selection.restrict_protocols(spec.proto, spec.proto_origin);
  selection.set_nccl_version(spec.nccl_version);
  selection.set_cta_limits(spec.cta_limits());
  return selection;
}

TimedCall time_call(const collectives::CollectiveModel& model, const collectives::CollectiveCall& call, bool steps,
                    std::uint64_t max_steps) {
  return time_planned_call(model, model.plan(call), call, steps, max_steps);
}

TimedCall time_planned_call(const collectives::CollectiveModel& model, collectives::Plan plan,
                            const collectives::CollectiveCall& call, bool steps, std::uint64_t max_steps) {
  const auto members = static_cast<std::uint32_t>(call.gpus.size());
  const bool too_large = steps && model.step_count(plan, call) > max_steps &&
                         model.closed_form_s(plan, call).has_value();
  if (!steps || too_large) {
    std::optional<double> t = model.closed_form_s(plan, call);
    if (!t)
      t = uncontended_time_s(model.build(plan, call));
    return {std::move(plan), collectives::Schedule::barrier(members, *t), too_large};
  }
  collectives::Schedule schedule = model.build(plan, call);
  return {std::move(plan), std::move(schedule)};
}

} // namespace echo::core
