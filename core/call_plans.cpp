#include "core/call_plans.hpp"

#include "collectives/member_projection.hpp"
#include "collectives/schedule_key.hpp"
#include "core/collective_timing.hpp"
#include "core/trace_names.hpp"

#include <cctype>
#include <cmath>

namespace echo::core {

using workloads::ProgramTask;
using workloads::TaskKind;

namespace {

// slowdown/features.hpp's comm_algorithm codes, from the plan's algorithm name.
float algorithm_code(const std::string& name) {
  std::string n;
  for (char c : name)
    n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "ring")
    return 0;
  if (n == "tree")
    return 1;
  if (n.rfind("collnet", 0) == 0)
    return 2;
  if (n.rfind("nvls", 0) == 0)
    return 3;
  if (n == "pat")
    return 4;
  return 5;
}

float protocol_code(collectives::Protocol p) {
  return p == collectives::Protocol::ll ? 0.0f : p == collectives::Protocol::ll128 ? 1.0f : 2.0f;
}

} // namespace

collectives::Plan CallPlans::fill(CallPlan& slot, collectives::CollectiveCall call, bool steps) {
  collectives::Plan plan = model_.plan(call);
  slot.choice = plan.describe();
  // Barriers cost nothing to make; only step schedules are shared between calls alike.
  std::optional<std::string> key = steps ? collectives::shape_schedule_key(plan, call) : std::nullopt;
  if (key) {
    if (const auto it = built_.find(*key); it != built_.end()) {
      slot.schedule = it->second.schedule;
      slot.too_large = it->second.too_large;
      slot.gpus = std::move(call.gpus);
      return plan;
    }
  }
  TimedCall timed = time_planned_call(model_, std::move(plan), call, steps);
  slot.too_large = timed.too_large_for_steps;
  slot.schedule = std::make_shared<const collectives::Schedule>(std::move(timed.schedule));
  slot.gpus = std::move(call.gpus);
  if (key)
    built_.emplace(std::move(*key), Built{slot.schedule, slot.too_large});
  return std::move(timed.plan);
}

const CallPlan& CallPlans::collective(std::uint32_t comm, const ProgramTask& task, bool folded) {
  return planned(comm, task, folded);
}

CallPlan& CallPlans::slot_of(std::uint32_t comm, const ProgramTask& task) {
  return collectives_[std::make_tuple(comm, static_cast<int>(task.op), task.bytes, task.peer_or_root)];
}

collectives::CollectiveCall CallPlans::call_of(std::uint32_t comm, const ProgramTask& task) const {
  collectives::CollectiveCall call;
  call.op = to_collective_op(task.op);
  call.bytes = task.bytes;
  call.root = task.peer_or_root;
  call.gpus = workload_.communicators[comm].ranks;  // rank r runs on GPU r
  return call;
}

void CallPlans::record_choice(CallPlan& slot, const collectives::Plan& plan, const ProgramTask& task) {
  slot.choice = plan.describe();
  slot.slowdown_features = {static_cast<float>(task.op), algorithm_code(plan.algorithm_name), protocol_code(plan.protocol),
                            static_cast<float>(plan.channels), static_cast<float>(task.bytes)};
  slot.planned = true;
}

CallPlan& CallPlans::planned(std::uint32_t comm, const ProgramTask& task, bool folded) {
  CallPlan& slot = slot_of(comm, task);
  if (!slot.schedule)
    record_choice(slot, fill(slot, call_of(comm, task), runs_steps_ && !folded), task);
  return slot;
}

bool CallPlans::plan_member_share(CallPlan& slot, std::uint32_t comm, const ProgramTask& task, std::uint32_t member) {
  collectives::CollectiveCall call = call_of(comm, task);
  const collectives::Plan plan = model_.plan(call);
  if (model_.step_count(plan, call) > kMaxStepsPerCall)
    return false;  // the whole would run as the closed form's barrier: leave it to planned()
  const std::optional<std::string> key = collectives::shape_schedule_key(plan, call);
  std::shared_ptr<const collectives::Schedule> share;
  if (key)
    if (const auto it = built_for_member_.find({*key, member}); it != built_for_member_.end())
      share = it->second;
  if (!share) {
    std::optional<collectives::Schedule> made = model_.build_for_member(plan, call, member);
    if (!made)
      return false;
    share = std::make_shared<const collectives::Schedule>(std::move(*made));
    if (key)
      built_for_member_.emplace(std::make_pair(*key, member), share);
  }
  slot.gpus = std::move(call.gpus);
  slot.projection = std::move(share);
  slot.projection_member = member;
  record_choice(slot, plan, task);
  return true;
}

const CallPlan& CallPlans::mirrored(std::uint32_t comm, const ProgramTask& task, std::uint32_t member) {
  // The member's share made alone where the algorithm can: the same steps as the whole schedule's
  // projection, for a members-th of the work.
  CallPlan& slot = slot_of(comm, task);
  if (!slot.planned && runs_steps_ && plan_member_share(slot, comm, task, member))
    return slot;
  // Else the whole schedule, projected. A folded slot's calls are planned with steps here (they
  // are not timed in closed form).
  planned(comm, task, false);
  if (slot.projection_member != member) {
    slot.projection_member = member;
    // Slots sharing a schedule share its projections too.
    auto [it, fresh] = projections_.try_emplace({slot.schedule.get(), member});
    if (fresh)
      if (std::optional<collectives::Schedule> own = collectives::project_onto_member(*slot.schedule, member))
        it->second = std::make_shared<const collectives::Schedule>(std::move(*own));
    slot.projection = it->second;
  }
  return slot;
}

const CallPlan& CallPlans::transfer(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::int32_t comm) {
  auto& slot = transfers_[std::make_tuple(src, dst, bytes, comm)];
  if (!slot.schedule) {
    collectives::CollectiveCall call;
    call.op = collectives::Op::send_recv;
    call.bytes = bytes;
    call.gpus = {src, dst};
    if (comm >= 0)
      call.comm_gpus = workload_.communicators[static_cast<std::size_t>(comm)].ranks;
    fill(slot, std::move(call), runs_steps_);
  }
  return slot;
}

const std::vector<float>& CallPlans::features(std::uint32_t comm, const ProgramTask& task, bool folded) {
  if (task.kind != TaskKind::collective || workload_.communicators[comm].ranks.size() == 1) {
    // A send / recv, or a call on one rank (no NCCL plan): op and bytes are all there is.
    const float op = task.kind == TaskKind::collective ? static_cast<float>(task.op) : 7.0f;
    auto& f = transfer_features_[(task.bytes << 3) | static_cast<std::uint64_t>(op)];
    if (f.empty())
      f = {op, std::nanf(""), std::nanf(""), std::nanf(""), static_cast<float>(task.bytes)};
    return f;
  }
  // A mirrored call's plan may hold its member's share alone: its features do not need the whole.
  if (const CallPlan& slot = slot_of(comm, task); slot.planned)
    return slot.slowdown_features;
  return collective(comm, task, folded).slowdown_features;
}

} // namespace echo::core
