#pragma once
// What a shape-only algorithm's schedule is built from (Algorithm::builds_from_shape), as one
// key: two calls with equal keys get step-for-step equal schedules, whatever their GPUs. A job
// repeats the same call on communicators of the same shape many times over (the data-parallel
// ring of every pipeline stage, every tensor-parallel group); core builds each schedule once.
#include "collectives/collective_model.hpp"

#include <optional>
#include <string>

namespace echo::collectives {

// The key of `call` planned as `plan`: the algorithm, protocol and channels, the step costs,
// the communicator's shape, the op, bytes, root and member count, and which members share a
// node (nodes numbered in the order their first member appears, all the algorithms look at).
// nullopt when the plan's algorithm reads more than that (routes, GPU indices).
std::optional<std::string> shape_schedule_key(const Plan& plan, const CollectiveCall& call);

} // namespace echo::collectives
