#pragma once
// CallMatcher: the rendezvous of communication calls. Collective calls meet by (communicator,
// sequence number): the n-th call a rank makes on a communicator matches the n-th call of every
// other member. Send and recv meet by (source, destination, sequence number of that pair). The
// members of a call must agree on op, size and root; a disagreement is the user's error.
//
// A member that calls await_* blocks (simulated time passes) until its part of the schedule is
// done. Calls that never complete are listed by pending_report() for the deadlock message.
//
// How a call's steps are timed against other calls' is the network model's business
// (core/network/): the matcher opens each call on it, forwards its steps' admissions, and commits
// what the model decides. Plans come from CallPlans; completed collectives go to CollectiveStats.
#include "collectives/collective_model.hpp"
#include "core/call_plans.hpp"
#include "core/collective_stats.hpp"
#include "core/job_spec.hpp"
#include "core/network/network_model.hpp"
#include "core/simulation_result.hpp"
#include "platforms/cluster.hpp"
#include "core/schedule_run.hpp"
#include "workloads/workload.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace echo::core {

class CallMatcher {
public:
  // `network`: the registered network model the job names (communication.fidelity).
  CallMatcher(const workloads::Workload& workload, const collectives::CollectiveModel& model,
              const platforms::Cluster& platform, const network::NetworkModelInfo& network);

  // The slowdown features of the call `task` makes on communicator `comm` (slowdown/features.hpp):
  // op, the NCCL plan's algorithm, protocol and channels, bytes. The vector lives as long as the
  // matcher, so its address names the call's kind.
  const std::vector<float>& collective_features(std::uint32_t comm, const workloads::ProgramTask& task);
  // Blocks until this rank's part of the collective is done; returns its finish time (s).
  double await_collective(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t comm,
                          std::uint64_t seq);
  // Same for one side of a send/recv. `src`/`dst` are global ranks.
  double await_transfer(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t src,
                        std::uint32_t dst, std::uint64_t seq);
  // An eager send (trace.proto PeerTransfer.eager): posts `rank`'s data for `dst` and returns now;
  // the recv's side times the transfer from this moment on.
  double post_transfer(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t dst, std::uint64_t seq);

  // Rank folding (core/rank_folding.hpp): on a folded slot, a representative's arrival is also
  // the arrival of the members that mirror it.
  // The completed calls of a communicator no simulated rank belongs to are tabulated as its
  // image's (the representative's communicator of the slot, of the same size), which they mirror.
  void fold_ranks(FoldedRanks folded);
  // Whether every call simulated rank `rank` makes on `comm` is timed by one member's steps on
  // behalf of all (exact replica folding asks: core/exact_replica_folding.hpp). Plans the calls.
  bool projects_every_call(std::uint32_t rank, std::uint32_t comm);

  // Work the network model runs in a daemon actor for the whole simulation (empty if none).
  std::function<void()> network_daemon() { return network_->daemon(); }

  std::uint64_t steps_timed() const { return steps_timed_; }
  std::uint64_t calls_completed() const { return calls_completed_; }
  // Completed collectives grouped by (communicator, op, bytes), longest summed time first.
  std::vector<CollectiveStat> collective_stats() const;
  // Calls whose schedule was too large to build (kMaxStepsPerCall): they ran as one barrier.
  std::uint64_t calls_too_large() const { return calls_too_large_; }

  // One paragraph per call that some members reached and others never did.
  std::vector<std::string> pending_report(std::size_t max_calls) const;

private:
  FoldedRanks folded_;
  // Timed in closed form: its members all arrive together on links nothing else uses.
  bool folded(std::uint32_t comm) const { return folded_.closed_form(workload_.communicators[comm].slot); }
  // The links calls on `comm` stand on for mirrored ranks' calls too; nullptr where none.
  const network::LinkCopies* copies_of(std::int32_t comm) const {
    return comm >= 0 && static_cast<std::size_t>(comm) < folded_.link_copies.size() && !folded_.link_copies[static_cast<std::size_t>(comm)].empty()
               ? &folded_.link_copies[static_cast<std::size_t>(comm)]
               : nullptr;
  }

  struct Call;
  struct Gate final : StepGate {
    Call* call = nullptr;
    std::optional<double> admit(std::uint32_t step, double start_s, double serialize_s) override;
  };
  struct Call final : network::NetworkCall {
    std::uint64_t call_id = 0;
    CallMatcher* matcher = nullptr;
    std::uint32_t comm = 0;     // collectives: communicator index
    const CallPlan* plan = nullptr;
    std::shared_ptr<const collectives::Schedule> timed;  // plan's schedule, or one member's share of it
    // timed is one member's share: the mirrored members take no steps of their own.
    bool projected() const { return timed != plan->schedule; }
    const std::string* choice = nullptr;  // collectives only (send/recv are not tabulated)
    bool on_network = false;              // opened on the network model
    Gate gate;
    std::unique_ptr<ScheduleRun> run;
    const workloads::ProgramTask* first_task = nullptr;  // what the first member called
    std::uint32_t first_rank = 0;
    std::uint32_t consumed = 0;
    simgrid::s4u::ConditionVariablePtr finished;         // members whose finish is unknown wait here (made by the first)

    std::uint64_t id() const override { return call_id; }
    const std::shared_ptr<const collectives::Schedule>& schedule() const override { return timed; }
    const std::vector<std::uint32_t>& gpus() const override { return plan->gpus; }  // rank r runs on GPU r
    bool all_steps_timed() const override { return run->all_resolved(); }
    void commit(std::uint32_t step, double serialize_s) override;
    const network::LinkCopies* copies = nullptr;  // its communicator's (rank folding), if any
    const network::LinkCopies* link_copies() const override { return copies; }
  };
  using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>;
  // "communicator 'dp.0', call #3" or "send/recv from rank 0 to rank 8, transfer #2".
  std::string describe(const Key& key, bool transfer) const;

  using CallTable = std::map<Key, Call>;
  static simgrid::s4u::ConditionVariable& signal_of(Call& call);
  CallTable::iterator open_collective(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t comm,
                                      std::uint64_t seq);
  CallTable::iterator open_transfer(std::uint32_t rank, const workloads::ProgramTask& task, std::uint32_t src, std::uint32_t dst,
                      std::uint64_t seq);
  double await(CallTable& table, CallTable::iterator it, std::uint32_t member);
  // `member` has arrived: its arrival is timed, members whose finish it settled are woken.
  void arrive(Call& call, std::uint32_t member);
  // `member` has taken its finish; the last one closes the call, or (a folded call whose mirrored
  // members' steps the network model still holds) leaves it to drain().
  void consume(CallTable& table, CallTable::iterator it);
  // Closes the calls every member has left once the network model has timed all their steps.
  void drain();
  void start(Call& call, const CallPlan& plan, std::shared_ptr<const collectives::Schedule> timed);
  // Every member of `comm` mirrors `rank` (rank folding) and loads links of its own (a node of its
  // own, or TP siblings on one node each with its own NIC: members_own_their_links), and the
  // network model loads only senders' links: one member's steps may stand for all.
  bool one_member_times_all(std::uint32_t rank, std::uint32_t comm);

  const workloads::Workload& workload_;
  simgrid::s4u::MutexPtr mutex_;
  std::unique_ptr<network::NetworkModel> network_;
  CallPlans plans_;
  CallTable collectives_;
  CallTable transfers_;
  std::vector<std::pair<CallTable*, CallTable::iterator>> draining_;
  std::uint64_t next_call_id_ = 0;
  const platforms::Cluster& platform_;
  bool sender_links_only_ = false;               // the network model's (NetworkModelInfo)
  std::vector<std::int8_t> one_member_times_all_;  // per communicator: -1 not known yet, else 0 / 1
  std::vector<std::uint32_t> finished_scratch_;  // arrive()'s
  std::vector<std::uint32_t> commit_scratch_;    // Call::commit()'s
  std::uint64_t steps_timed_ = 0;
  std::uint64_t calls_completed_ = 0;
  std::uint64_t calls_too_large_ = 0;
  CollectiveStats stats_;
  std::vector<std::vector<std::uint32_t>> mirror_comms_;  // per simulated communicator, those tabulated as it
};

} // namespace echo::core
