#pragma once
// CallMatcher: the rendezvous of communication calls. Collective calls meet by (communicator,
// sequence number): the n-th call a rank makes on a communicator matches the n-th call of every
// other member. Send and recv meet by (source, destination, sequence number of that pair). The
// members of a call must agree on op, size and root; a disagreement is the user's error.
//
// A member that calls await_* blocks (simulated time passes) until its part of the schedule is
// done. Calls that never complete are listed by pending_report() for the deadlock message.
//
// At `steps` fidelity, calls running at the same time share links (LinkLoad): a step that another
// open call may meet on its link is held until simulated time reaches its start; run_step_clock()
// (one daemon actor) then times it with the sharers of that instant. At `flow` fidelity every
// step runs as SimGrid communications in an actor of its own.
#include "collectives/collective_model.hpp"
#include "core/job_spec.hpp"
#include "core/link_load.hpp"
#include "core/simulation_result.hpp"
#include "platforms/cluster.hpp"
#include "core/schedule_run.hpp"
#include "workloads/workload.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <memory>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

namespace echo::core {

class CallMatcher {
public:
  CallMatcher(const workloads::Workload& workload, const collectives::CollectiveModel& model,
              const platforms::Cluster& platform, Fidelity fidelity);

  // Blocks until this rank's part of the collective is done; returns its finish time (s).
  // The slowdown features of the call `task` makes on communicator `comm` (slowdown/features.hpp):
  // op, the NCCL plan's algorithm, protocol and channels, bytes. The vector lives as long as the
  // matcher, so its address names the call's kind.
  const std::vector<float>& collective_features(std::uint32_t comm, const workloads::ProgramTask& task);
  double await_collective(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t comm,
                          std::uint64_t seq);
  // Same for one side of a send/recv. `src`/`dst` are global ranks.
  double await_transfer(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t src,
                        std::uint32_t dst, std::uint64_t seq);
  // An eager send (trace.proto PeerTransfer.eager): posts `rank`'s data for `dst` and returns now;
  // the recv's side times the transfer from this moment on.
  double post_transfer(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t dst, std::uint64_t seq);

  // Rank folding (core/rank_folding.hpp): on `slot`, a representative's arrival is also the
  // arrival of the members that mirror it.
  void fold_ranks(std::vector<std::uint32_t> representative, std::uint32_t slot) {
    representative_ = std::move(representative);
    folded_slot_ = slot;
  }

  // The step clock: times held-back steps when simulated time reaches their start. Runs in its
  // own (daemon) actor for the whole simulation at `steps` fidelity.
  void run_step_clock();

  std::uint64_t steps_timed() const { return steps_timed_; }
  std::uint64_t calls_completed() const { return calls_completed_; }
  // Completed collectives grouped by (communicator, op, bytes), longest summed time first.
  std::vector<CollectiveStat> collective_stats() const;
  // Calls whose schedule was too large to build (kMaxStepsPerCall): they ran as `analytic`.
  std::uint64_t calls_too_large() const { return calls_too_large_; }

  // One paragraph per call that some members reached and others never did.
  std::vector<std::string> pending_report(std::size_t max_calls) const;

private:
  std::vector<std::uint32_t> representative_;
  std::uint32_t folded_slot_ = ~0u;

  struct Call;
  struct Gate final : StepGate {
    CallMatcher* matcher = nullptr;
    Call* call = nullptr;
    std::optional<double> admit(std::uint32_t step, double start_s, double serialize_s) override {
      return matcher->admit(*call, step, start_s, serialize_s);
    }
  };
  // The links each step of a schedule leaves its GPU through (step i: ids[begin[i]..begin[i+1])),
  // and the distinct links of the whole schedule.
  struct StepLinks {
    std::vector<std::uint32_t> begin;
    std::vector<LinkLoad::LinkId> ids, distinct;
    // `flow`: per node, the call's first GPU on each NIC of that node (NIC index -> GPU), for
    // laying a step across nodes out on the rails.
    std::map<std::uint32_t, std::map<std::uint32_t, std::uint32_t>> gpu_on_nic;
  };
  struct Call {
    LinkLoad::CallId id = 0;
    std::uint32_t comm = 0;     // collectives: communicator index
    const std::string* choice = nullptr;
    Gate gate;
    std::shared_ptr<const StepLinks> links;
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
  static simgrid::s4u::ConditionVariablePtr first_arrival_signal(const CallTable& table, const Key& key);
  CallTable::iterator open_collective(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t comm,
                                      std::uint64_t seq);
  CallTable::iterator open_transfer(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t src, std::uint32_t dst,
                      std::uint64_t seq);
  double await(CallTable& table, CallTable::iterator it, std::uint32_t member);
  // `member` has arrived: its arrival is timed, members whose finish it settled are woken.
  void arrive(Call& call, std::uint32_t member);
  // `member` has taken its finish; the last one closes the call.
  void consume(CallTable& table, CallTable::iterator it);
  struct Planned {
    std::shared_ptr<const collectives::Schedule> schedule;
    std::shared_ptr<const StepLinks> links;
    bool too_large = false;
    std::string choice;  // Plan::describe()
    std::vector<float> slowdown_features;  // slowdown/features.hpp's collective features
  };
  // The cached plan of a call (built on first use); the reference lives as long as the matcher.
  const Planned& schedule_for(std::uint32_t comm, const workloads::ProgramTask& task);
  std::map<std::uint64_t, std::vector<float>> transfer_features_;  // by bytes
  std::shared_ptr<const StepLinks> links_of(const collectives::Schedule& schedule, const std::vector<std::uint32_t>& gpus) const;
  void start(Call& call, const Planned& planned);
  std::optional<double> admit(Call& call, std::uint32_t step, double start_s, double serialize_s);
  // `flow`: the step as SimGrid communications, one per rail across nodes; commits it when done.
  void run_as_flows(Call& call, std::uint32_t step, double start_s, double serialize_s);

  struct Held {
    double start_s;
    std::uint64_t order;  // ties in time go first come, first served
    Call* call;
    std::uint32_t step;
    double serialize_s;
    bool operator>(const Held& o) const { return start_s != o.start_s ? start_s > o.start_s : order > o.order; }
  };

  const workloads::Workload& workload_;
  const collectives::CollectiveModel& model_;
  const platforms::Cluster& platform_;
  Fidelity fidelity_;
  CallTable collectives_;
  CallTable transfers_;
  std::map<std::tuple<std::uint32_t, int, std::uint64_t, std::uint32_t>, Planned> schedule_cache_;
  simgrid::s4u::MutexPtr mutex_;
  LinkLoad load_;
  std::unordered_map<LinkLoad::CallId, const Call*> open_calls_;
  LinkLoad::CallId next_call_id_ = 0;
  std::priority_queue<Held, std::vector<Held>, std::greater<>> held_;
  std::uint64_t held_order_ = 0;
  simgrid::s4u::ConditionVariablePtr clock_wakeup_;
  std::vector<std::uint32_t> finished_scratch_;
  std::uint64_t steps_timed_ = 0;
  std::uint64_t calls_completed_ = 0;
  std::uint64_t calls_too_large_ = 0;
  struct StatKey {
    std::uint32_t comm;
    int op;
    std::uint64_t bytes;
    auto operator<=>(const StatKey&) const = default;
  };
  std::map<StatKey, CollectiveStat> stats_;
};

} // namespace echo::core
