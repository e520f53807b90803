#include "core/call_matcher.hpp"

#include "core/cooperative_wait.hpp"

#include "base/user_error.hpp"
#include "core/exact_replica_folding.hpp"
#include "core/rank_runtime.hpp"
#include "core/trace_names.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>

namespace echo::core {

namespace sg4 = simgrid::s4u;
using workloads::ProgramTask;
using workloads::TaskKind;

namespace {

std::string call_summary(std::uint32_t rank, const ProgramTask& t) {
  return "rank " + std::to_string(rank) + " calls " + std::string(op_name(t)) + " of " + std::to_string(t.bytes) +
         " bytes" + (t.kind == TaskKind::collective && (t.op == trace::BROADCAST || t.op == trace::REDUCE)
                         ? " with root " + std::to_string(t.peer_or_root)
                         : "") +
         " (task '" + t.name + "')";
}

bool same_call(const ProgramTask& a, const ProgramTask& b) {
  if (a.bytes != b.bytes)
    return false;
  if (a.kind == TaskKind::collective)
    return a.op == b.op && a.peer_or_root == b.peer_or_root;
  return true;
}


std::array<double, 3> link_efficiency(const collectives::Calibration& c) { return {c.efficiency[0], c.efficiency[1], c.efficiency[2]}; }

} // namespace

CallMatcher::CallMatcher(const workloads::Workload& workload, const collectives::CollectiveModel& model,
                         const platforms::Cluster& platform, const network::NetworkModelInfo& network)
    : workload_(workload), mutex_(sg4::Mutex::create()), network_(network.make(network::NetworkContext{platform, mutex_, link_efficiency(model.calibration())})),
      plans_(workload, model, network.runs_steps), platform_(platform), sender_links_only_(network.sender_links_only) {}

void CallMatcher::start(Call& call, const CallPlan& plan, std::shared_ptr<const collectives::Schedule> timed) {
  call.call_id = next_call_id_++;
  call.matcher = this;
  call.plan = &plan;
  call.timed = std::move(timed);
  call.choice = nullptr;
  calls_too_large_ += plan.too_large ? 1 : 0;
  call.gate.call = &call;
  // A barrier (no steps) has nothing to put on the links.
  call.on_network = !call.timed->steps().empty();
  call.run = std::make_unique<ScheduleRun>(call.timed, call.on_network ? &call.gate : nullptr);
  if (call.on_network)
    network_->open(call);
}

std::optional<double> CallMatcher::Gate::admit(std::uint32_t step, double start_s, double serialize_s) {
  return call->matcher->network_->admit(*call, step, start_s, serialize_s);
}

void CallMatcher::Call::commit(std::uint32_t step, double serialize_s) {
  std::vector<std::uint32_t>& finished_now = matcher->commit_scratch_;
  finished_now.clear();
  matcher->steps_timed_ += run->commit(step, serialize_s, finished_now);
  if (!finished_now.empty() && finished)
    finished->notify_all();
}

const std::vector<float>& CallMatcher::collective_features(std::uint32_t comm, const ProgramTask& task) {
  return plans_.features(comm, task, folded(comm));
}

// Made only for messages: an arrival builds no string.
std::string CallMatcher::describe(const Key& key, bool transfer) const {
  const auto& [a, b, seq] = key;
  if (!transfer)
    return "communicator '" + workload_.communicators[a].name + "', call #" + std::to_string(seq);
  return "send/recv from rank " + std::to_string(a) + " to rank " + std::to_string(b) + ", transfer #" +
         std::to_string(RankRuntime::transfer_number(seq));
}

// The signal a call's members wait on, made when the first member has to wait: most calls never
// make one (a folded TP call is timed as its one simulated member arrives). Creating it is a
// simcall, during which other actors run and may make one too; the first made is kept. Nothing
// is lost meanwhile: the waiter checks its finish under the mutex before it waits.
sg4::ConditionVariable& CallMatcher::signal_of(Call& call) {
  if (!call.finished) {
    sg4::ConditionVariablePtr made = sg4::ConditionVariable::create();
    if (!call.finished)
      call.finished = std::move(made);
  }
  return *call.finished;
}

CallMatcher::CallTable::iterator CallMatcher::open_collective(std::uint32_t rank, const ProgramTask& task, std::uint32_t comm,
                                                std::uint64_t seq) {
  const Key key{comm, 0, seq};
  // Planned before the call is made: a call no algorithm can run is never left half made for a
  // member that arrives before the run stops (actors woken at the same instant run on).
  auto it = collectives_.lower_bound(key);
  if (it == collectives_.end() || it->first != key) {
    // A call its members all mirror: one member's steps stand for all, where the schedule is
    // symmetric (its other members' steps would repeat them on links nothing else uses).
    const bool mirrored = !folded(comm) && one_member_times_all(rank, comm);
    const CallPlan& plan = mirrored ? plans_.mirrored(comm, task, workload_.member_index(rank, task.slot))
                                    : plans_.collective(comm, task, folded(comm));
    std::shared_ptr<const collectives::Schedule> timed = mirrored && plan.projection ? plan.projection : plan.schedule;
    it = collectives_.try_emplace(it, key);
    Call& call = it->second;
    call.comm = comm;
    call.copies = copies_of(static_cast<std::int32_t>(comm));
    start(call, plan, std::move(timed));
    call.choice = &plan.choice;
    call.first_task = &task;
    call.first_rank = rank;
  } else if (const Call& call = it->second; !same_call(*call.first_task, task)) {
    throw UserError(workload_.source, 0,
                    "members of one collective disagree on " + describe(key, false) + ": " + call_summary(call.first_rank, *call.first_task) +
                        ", but " + call_summary(rank, task),
                    "every member's n-th call on a communicator must be the same op with the same size (and root)");
  }
  return it;
}

CallMatcher::CallTable::iterator CallMatcher::open_transfer(std::uint32_t rank, const ProgramTask& task, std::uint32_t src,
                                              std::uint32_t dst, std::uint64_t seq) {
  const Key key{src, dst, seq};
  auto it = transfers_.lower_bound(key);
  if (it == transfers_.end() || it->first != key) {  // planned before it is made, as a collective
    const std::int32_t comm = task.slot < workload_.slots.size() ? workload_.communicator(rank, task.slot) : -1;
    const CallPlan& plan = plans_.transfer(src, dst, task.bytes, comm);
    it = transfers_.try_emplace(it, key);
    Call& call = it->second;
    call.copies = copies_of(comm);
    start(call, plan, plan.schedule);
    call.first_task = &task;
    call.first_rank = rank;
  } else if (const Call& call = it->second; call.first_task->bytes != task.bytes) {
    throw UserError(workload_.source, 0,
                    "the two sides of a " + describe(key, true) + " disagree on the size: " +
                        call_summary(call.first_rank, *call.first_task) + ", but " + call_summary(rank, task),
                    "the n-th send from A to B and the n-th recv at B from A must have the same bytes");
  }
  return it;
}

void CallMatcher::arrive(Call& call, std::uint32_t member) {
  finished_scratch_.clear();
  steps_timed_ += call.run->arrive(member, sg4::Engine::get_clock(), finished_scratch_);
  if (call.finished && std::any_of(finished_scratch_.begin(), finished_scratch_.end(), [&](std::uint32_t m) { return m != member; }))
    call.finished->notify_all();
}

double CallMatcher::await(CallTable& table, CallTable::iterator it, std::uint32_t member) {
  Call& call = it->second;
  arrive(call, member);
  if (!call.run->finish_known(member))
    wait_until_done(signal_of(call), mutex_, [&] { return call.run->finish_known(member); });
  const double finish_s = call.run->finish_s(member);
  consume(table, it);
  return finish_s;
}

double CallMatcher::post_transfer(std::uint32_t rank, const ProgramTask& task, std::uint32_t dst, std::uint64_t seq) {
  const auto it = open_transfer(rank, task, rank, dst, seq);
  arrive(it->second, 0);
  consume(transfers_, it);
  return sg4::Engine::get_clock();
}

void CallMatcher::fold_ranks(FoldedRanks folded) {
  folded_ = std::move(folded);
  mirror_comms_.assign(workload_.communicators.size(), {});
  if (folded_.empty())
    return;
  for (std::uint32_t c = 0; c < workload_.communicators.size(); ++c) {
    const workloads::CommunicatorDef& def = workload_.communicators[c];
    if (def.ranks.size() < 2 ||
        std::any_of(def.ranks.begin(), def.ranks.end(), [&](std::uint32_t r) { return folded_.representative[r] == r; }))
      continue;
    if (const std::int32_t image = image_communicator(workload_, folded_, c); image >= 0)
      mirror_comms_[static_cast<std::size_t>(image)].push_back(c);
  }
}

std::vector<CollectiveStat> CallMatcher::collective_stats() const {
  // Mirrored communicators take their images' entries once, at the end: copied per call, the
  // 16,384-GPU folded run spent half its time on it.
  CollectiveStats all = stats_;
  for (std::uint32_t image = 0; image < mirror_comms_.size(); ++image)
    for (std::uint32_t m : mirror_comms_[image])
      all.copy_to(image, m, workload_.communicators[m].name);
  return all.sorted();
}

bool CallMatcher::projects_every_call(std::uint32_t rank, std::uint32_t comm) {
  const std::uint32_t slot = workload_.communicators[comm].slot;
  const std::uint32_t member = workload_.member_index(rank, slot);
  for (const ProgramTask& t : workload_.program(rank).tasks)
    if (t.kind == workloads::TaskKind::collective && t.slot == slot && !plans_.mirrored(comm, t, member).projection)
      return false;
  return true;
}

bool CallMatcher::one_member_times_all(std::uint32_t rank, std::uint32_t comm) {
  if (folded_.empty() || !sender_links_only_)
    return false;
  if (one_member_times_all_.empty())
    one_member_times_all_.assign(workload_.communicators.size(), -1);
  if (one_member_times_all_[comm] < 0) {
    const workloads::CommunicatorDef& c = workload_.communicators[comm];
    one_member_times_all_[comm] = folded_.folds(c.slot) &&
                                  std::all_of(c.ranks.begin(), c.ranks.end(), [&](std::uint32_t r) { return folded_.representative[r] == rank; }) &&
                                  members_own_their_links(c, platform_);
  }
  return one_member_times_all_[comm] != 0;
}

void CallMatcher::drain() {
  std::erase_if(draining_, [&](const std::pair<CallTable*, CallTable::iterator>& d) {
    Call& call = d.second->second;
    if (!call.run->all_resolved())
      return false;
    network_->close(call);
    d.first->erase(d.second);
    return true;
  });
}

void CallMatcher::consume(CallTable& table, CallTable::iterator it) {
  drain();
  Call& call = it->second;
  if (++call.consumed == call.run->schedule().members()) {
    ++calls_completed_;
    if (call.choice != nullptr) {  // a collective (send/recv are not tabulated)
      const ProgramTask& t = *call.first_task;
      stats_.record(call.comm, workload_.communicators[call.comm].name, static_cast<int>(t.op), std::string(op_name(t)),
                    t.bytes, *call.choice, call.run->last_finish_s() - call.run->first_arrival_s());
    }
    if (call.on_network && !call.run->all_resolved()) {
      // Mirrored members (rank folding) never come to take their finish, and their last steps
      // may still wait on the links: the network model holds the call until it has timed them.
      draining_.emplace_back(&table, it);
      return;
    }
    if (call.on_network)
      network_->close(call);
    table.erase(it);
  }
}

double CallMatcher::await_collective(std::uint32_t rank, const ProgramTask& task, std::uint32_t comm,
                                     std::uint64_t seq) {
  // NCCL on a communicator of one rank at most copies within the GPU: nothing crosses a link
  // (traced programs do this, e.g. after ncclCommSplit).
  if (workload_.communicators[comm].ranks.size() == 1)
    return sg4::Engine::get_clock();
  const auto it = open_collective(rank, task, comm, seq);
  if (folded_.folds(task.slot)) {
    Call& call = it->second;
    const std::vector<std::uint32_t>& ranks = call.gpus();  // rank r runs on GPU r
    std::vector<std::uint32_t> unused;
    for (std::uint32_t m = 0; m < ranks.size(); ++m)
      if (ranks[m] != rank && folded_.representative[ranks[m]] == rank) {
        if (!call.projected())  // a projected call's mirrored members have no steps of their own
          steps_timed_ += call.run->arrive(m, sg4::Engine::get_clock(), unused);
        ++call.consumed;  // a mirrored member never comes to collect its finish
      }
  }
  return await(collectives_, it, workload_.member_index(rank, task.slot));
}

double CallMatcher::await_transfer(std::uint32_t rank, const ProgramTask& task, std::uint32_t src, std::uint32_t dst,
                                   std::uint64_t seq) {
  return await(transfers_, open_transfer(rank, task, src, dst, seq), rank == src ? 0 : 1);
}

std::vector<std::string> CallMatcher::pending_report(std::size_t max_calls) const {
  std::vector<std::string> out;
  for (const auto* table : {&collectives_, &transfers_})
    for (const auto& [key, call] : *table) {
      const bool transfer = table == &transfers_;
      if (out.size() == max_calls)
        return out;
      std::string arrived, missing;
      std::size_t n_arrived = 0, n_missing = 0;
      const std::vector<std::uint32_t>& ranks = call.gpus();  // rank r runs on GPU r
      for (std::uint32_t m = 0; m < ranks.size(); ++m) {
        std::string& list = call.run->arrived(m) ? arrived : missing;
        std::size_t& count = call.run->arrived(m) ? n_arrived : n_missing;
        if (++count <= 16)
          list += (list.empty() ? "" : ", ") + std::to_string(ranks[m]);
        else if (count == 17)
          list += ", ...";
      }
      out.push_back(std::string(op_name(*call.first_task)) + " of " + std::to_string(call.first_task->bytes) +
                    " bytes on " + describe(key, transfer) + ": ranks that arrived: " + (arrived.empty() ? "none" : arrived) +
                    "; ranks that never did: " + (missing.empty() ? "none" : missing));
    }
  return out;
}

} // namespace echo::core
