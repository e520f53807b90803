#pragma once
// CallMatcher: the rendezvous of communication calls. Collective calls meet by (communicator,
// sequence number): the n-th call a rank makes on a communicator matches the n-th call of every
// other member. Send and recv meet by (source, destination, sequence number of that pair). The
// members of a call must agree on op, size and root; a disagreement is the user's error.
//
// A member that calls await_* blocks (simulated time passes) until its part of the schedule is
// done. Calls that never complete are listed by pending_report() for the deadlock message.
#include "collectives/collective_model.hpp"
#include "core/job_spec.hpp"
#include "core/schedule_run.hpp"
#include "workloads/workload.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace echo::core {

class CallMatcher {
public:
  CallMatcher(const workloads::Workload& workload, const collectives::CollectiveModel& model, Fidelity fidelity);

  // Blocks until this rank's part of the collective is done; returns its finish time (s).
  double await_collective(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t comm,
                          std::uint64_t seq);
  // Same for one side of a send/recv. `src`/`dst` are global ranks.
  double await_transfer(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t src,
                        std::uint32_t dst, std::uint64_t seq);

  std::uint64_t steps_timed() const { return steps_timed_; }
  std::uint64_t calls_completed() const { return calls_completed_; }

  // One paragraph per call that some members reached and others never did.
  std::vector<std::string> pending_report(std::size_t max_calls) const;

private:
  struct Call {
    std::unique_ptr<ScheduleRun> run;
    const workloads::ProgramTask* first_task = nullptr;  // what the first member called
    std::uint32_t first_rank = 0;
    std::vector<std::uint32_t> ranks;                    // member index -> global rank
    std::string where;                                   // "communicator 'dp.0', call #3"
    std::uint32_t consumed = 0;
    simgrid::s4u::ConditionVariablePtr finished;         // members whose finish is unknown wait here
  };
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>;

  using CallTable = std::map<Key, Call>;
  CallTable::iterator open_collective(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t comm,
                                      std::uint64_t seq);
  CallTable::iterator open_transfer(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t src, std::uint32_t dst,
                      std::uint64_t seq);
  double await(CallTable& table, CallTable::iterator it, std::uint32_t member);
  std::shared_ptr<const collectives::Schedule> schedule_for(std::uint32_t comm, const workloads::ProgramTask& task);

  const workloads::Workload& workload_;
  const collectives::CollectiveModel& model_;
  Fidelity fidelity_;
  CallTable collectives_;
  CallTable transfers_;
  std::map<std::tuple<std::uint32_t, int, std::uint64_t, std::uint32_t>, std::shared_ptr<const collectives::Schedule>>
      schedule_cache_;
  simgrid::s4u::MutexPtr mutex_;
  std::vector<std::uint32_t> finished_scratch_;
  std::uint64_t steps_timed_ = 0;
  std::uint64_t calls_completed_ = 0;
};

} // namespace echo::core
