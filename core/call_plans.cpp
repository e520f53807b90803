#include "core/call_plans.hpp"

#include "collectives/member_projection.hpp"
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

collectives::Plan CallPlans::fill(CallPlan& slot, collectives::CollectiveCall call, bool steps) const {
  TimedCall timed = time_call(model_, call, steps);
  slot.too_large = timed.too_large_for_steps;
  slot.choice = timed.plan.describe();
  slot.schedule = std::make_shared<const collectives::Schedule>(std::move(timed.schedule));
  slot.gpus = std::move(call.gpus);
  return std::move(timed.plan);
}

const CallPlan& CallPlans::collective(std::uint32_t comm, const ProgramTask& task, bool folded) {
  return planned(comm, task, folded);
}

CallPlan& CallPlans::planned(std::uint32_t comm, const ProgramTask& task, bool folded) {
  auto& slot = collectives_[std::make_tuple(comm, static_cast<int>(task.op), task.bytes, task.peer_or_root)];
  if (!slot.schedule) {
    collectives::CollectiveCall call;
    call.op = to_collective_op(task.op);
    call.bytes = task.bytes;
    call.root = task.peer_or_root;
    call.gpus = workload_.communicators[comm].ranks;  // rank r runs on GPU r
    const collectives::Plan plan = fill(slot, std::move(call), runs_steps_ && !folded);
    slot.slowdown_features = {static_cast<float>(task.op), algorithm_code(plan.algorithm_name), protocol_code(plan.protocol),
                              static_cast<float>(plan.channels), static_cast<float>(task.bytes)};
  }
  return slot;
}

const std::shared_ptr<const collectives::Schedule>& CallPlans::projection(std::uint32_t comm, const ProgramTask& task,
                                                                         std::uint32_t member) {
  // A folded slot's calls are planned with steps here (they are not timed in closed form).
  CallPlan& slot = planned(comm, task, false);
  if (slot.projection_member != member) {
    slot.projection_member = member;
    slot.projection.reset();
    if (std::optional<collectives::Schedule> own = collectives::project_onto_member(*slot.schedule, member))
      slot.projection = std::make_shared<const collectives::Schedule>(std::move(*own));
  }
  return slot.projection;
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
  return collective(comm, task, folded).slowdown_features;
}

} // namespace echo::core
