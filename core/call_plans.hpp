#pragma once
// CallPlans: the collective model's plan of each kind of call, built once. A collective's plan
// depends only on (communicator, op, bytes, root), a send/recv's on (source, destination, bytes),
// so every call of a kind shares one schedule. Also the call's slowdown features
// (slowdown/features.hpp), which encode the plan.
#include "collectives/collective_model.hpp"
#include "workloads/workload.hpp"

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace echo::core {

struct CallPlan {
  // Null while only `projection` was made (the algorithm built one member's share alone).
  std::shared_ptr<const collectives::Schedule> schedule;
  std::vector<std::uint32_t> gpus;  // member index -> GPU
  bool too_large = false;           // ran as one barrier: too many steps to build
  std::string choice;               // Plan::describe()
  std::vector<float> slowdown_features;
  // One member's share of the schedule when it is rotation-symmetric (member_projection.hpp), for
  // calls whose members all mirror that member's rank; null when it is not. Made on first use.
  std::shared_ptr<const collectives::Schedule> projection;
  std::int64_t projection_member = -1;  // whose share `projection` is (-1: not tried yet)
  bool planned = false;                 // choice, GPUs and features are known
};

class CallPlans {
public:
  // `runs_steps`: whether the network model runs schedules' steps (else a barrier of the
  // closed-form time).
  CallPlans(const workloads::Workload& workload, const collectives::CollectiveModel& model, bool runs_steps)
      : workload_(workload), model_(model), runs_steps_(runs_steps) {}

  // `folded`: the communicator's members all arrive together on links nothing else uses
  // (rank_folding.hpp), so its schedule would play out as the closed form says: a barrier.
  // References live as long as this object.
  const CallPlan& collective(std::uint32_t comm, const workloads::ProgramTask& task, bool folded);
  // The plan of collective() timed for one member on behalf of all (every member mirrors
  // `member`'s rank): `projection` holds that member's share, or is null when the schedule is not
  // symmetric (then `schedule` is the whole). The whole is not built where the algorithm can make
  // the share alone (Algorithm::build_for_member).
  const CallPlan& mirrored(std::uint32_t comm, const workloads::ProgramTask& task, std::uint32_t member);
  // A send/recv on communicator `comm` (-1: none known, the two alone).
  const CallPlan& transfer(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::int32_t comm);
  // Op, algorithm, protocol, channels and bytes of the call `task` makes on `comm`; for a send /
  // recv or a call on one rank, op and bytes only. The vector's address names the call's kind.
  const std::vector<float>& features(std::uint32_t comm, const workloads::ProgramTask& task, bool folded);

private:
  CallPlan& slot_of(std::uint32_t comm, const workloads::ProgramTask& task);
  collectives::CollectiveCall call_of(std::uint32_t comm, const workloads::ProgramTask& task) const;
  // The slot with its schedule (the whole, or the closed form's barrier when `folded`).
  CallPlan& planned(std::uint32_t comm, const workloads::ProgramTask& task, bool folded);
  // The plan's choice and slowdown features, into the slot (everything planned() records but the
  // schedule).
  void record_choice(CallPlan& slot, const collectives::Plan& plan, const workloads::ProgramTask& task);
  // Plans the slot with `member`'s share alone (Algorithm::build_for_member); false, the slot
  // untouched, where the algorithm cannot or the whole would be too large to build.
  bool plan_member_share(CallPlan& slot, std::uint32_t comm, const workloads::ProgramTask& task, std::uint32_t member);
  // Plans `call` into `slot` (schedule, GPUs, choice) and returns the plan. A schedule that an
  // earlier call of the same shape built (collectives/schedule_key.hpp) is shared, not rebuilt.
  collectives::Plan fill(CallPlan& slot, collectives::CollectiveCall call, bool steps);

  const workloads::Workload& workload_;
  const collectives::CollectiveModel& model_;
  bool runs_steps_;
  std::map<std::tuple<std::uint32_t, int, std::uint64_t, std::uint32_t>, CallPlan> collectives_;
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t, std::int32_t>, CallPlan> transfers_;
  std::map<std::uint64_t, std::vector<float>> transfer_features_;
  struct Built {
    std::shared_ptr<const collectives::Schedule> schedule;
    bool too_large = false;
  };
  std::unordered_map<std::string, Built> built_;  // by collectives::shape_schedule_key
  // One member's projection of a schedule (null: not symmetric), by schedule and member.
  std::map<std::pair<const collectives::Schedule*, std::uint32_t>, std::shared_ptr<const collectives::Schedule>> projections_;
  // One member's share built alone, by shape_schedule_key and member: the data-parallel rings of
  // a job's pipeline stages share it as they would share the whole schedule.
  std::map<std::pair<std::string, std::uint32_t>, std::shared_ptr<const collectives::Schedule>> built_for_member_;
};

} // namespace echo::core
