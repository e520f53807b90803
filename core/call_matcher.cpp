#include "core/call_matcher.hpp"

#include "core/cooperative_wait.hpp"

#include "base/user_error.hpp"
#include "core/collective_timing.hpp"
#include "core/rank_runtime.hpp"
#include "core/trace_names.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>

namespace echo::core {

namespace sg4 = simgrid::s4u;
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

} // namespace

CallMatcher::CallMatcher(const workloads::Workload& workload, const collectives::CollectiveModel& model,
                         const platforms::Cluster& platform, Fidelity fidelity)
    : workload_(workload), model_(model), platform_(platform), fidelity_(fidelity), mutex_(sg4::Mutex::create()),
      load_([this](LinkLoad::CallId id) {
        auto it = open_calls_.find(id);
        return it != open_calls_.end() && !it->second->run->all_resolved();
      }),
      clock_wakeup_(sg4::ConditionVariable::create()) {}

std::shared_ptr<const CallMatcher::StepLinks> CallMatcher::links_of(const collectives::Schedule& schedule,
                                                                    const std::vector<std::uint32_t>& gpus) const {
  auto links = std::make_shared<StepLinks>();
  std::map<std::uint32_t, std::vector<LinkLoad::LinkId>> nics_of_node;  // the NICs the members use
  for (std::uint32_t gpu : gpus)
    links->gpu_on_nic[platform_.node_of(gpu)].emplace(platform_.nic_of(gpu), gpu);
  for (std::uint32_t gpu : gpus) {
    auto& nics = nics_of_node[platform_.node_of(gpu)];
    const LinkLoad::LinkId id = LinkLoad::nic(platform_.node_of(gpu), platform_.nic_of(gpu));
    if (std::find(nics.begin(), nics.end(), id) == nics.end())
      nics.push_back(id);
  }
  for (const collectives::Step& st : schedule.steps()) {
    links->begin.push_back(static_cast<std::uint32_t>(links->ids.size()));
    const std::uint32_t from = gpus[st.member], to = gpus[st.peer];
    const std::uint32_t node = platform_.node_of(from);
    if (node == platform_.node_of(to))
      links->ids.push_back(LinkLoad::intra_link(from));
    else
      for (LinkLoad::LinkId id : nics_of_node[node])
        links->ids.push_back(id);
  }
  links->begin.push_back(static_cast<std::uint32_t>(links->ids.size()));
  links->distinct = links->ids;
  std::sort(links->distinct.begin(), links->distinct.end());
  links->distinct.erase(std::unique(links->distinct.begin(), links->distinct.end()), links->distinct.end());
  return links;
}

void CallMatcher::start(Call& call, const Planned& planned) {
  call.id = next_call_id_++;
  call.choice = nullptr;
  calls_too_large_ += planned.too_large ? 1 : 0;
  call.links = planned.links;
  call.gate.matcher = this;
  call.gate.call = &call;
  const bool shared_links = fidelity_ != Fidelity::analytic && !planned.schedule->steps().empty();
  call.run = std::make_unique<ScheduleRun>(planned.schedule, shared_links ? &call.gate : nullptr);
  if (shared_links) {
    open_calls_.emplace(call.id, &call);
    load_.claim(call.id, call.links->distinct);
  }
}

std::optional<double> CallMatcher::admit(Call& call, std::uint32_t step, double start_s, double serialize_s) {
  if (fidelity_ == Fidelity::flow) {
    Call* c = &call;
    sg4::Actor::create("step", platform_.gpus()[call.ranks[call.run->schedule().steps()[step].member]].host,
                       [this, c, step, start_s, serialize_s] { run_as_flows(*c, step, start_s, serialize_s); });
    return std::nullopt;
  }
  const StepLinks& l = *call.links;
  const auto first = l.ids.begin() + l.begin[step], last = l.ids.begin() + l.begin[step + 1];
  if (std::none_of(first, last, [&](LinkLoad::LinkId id) { return load_.contended(id, call.id, start_s); })) {
    for (auto it = first; it != last; ++it)
      load_.book(*it, call.id, start_s, start_s + serialize_s, sg4::Engine::get_clock());
    return serialize_s;
  }
  const bool earliest = held_.empty() || start_s < held_.top().start_s;
  held_.push({start_s, held_order_++, &call, step, serialize_s});
  if (earliest)
    clock_wakeup_->notify_all();
  return std::nullopt;
}

void CallMatcher::run_as_flows(Call& call, std::uint32_t step, double start_s, double serialize_s) {
  sg4::this_actor::sleep_until(start_s);
  const collectives::Step& st = call.run->schedule().steps()[step];
  const std::uint32_t from = call.ranks[st.member], to = call.ranks[st.peer];
  // Across nodes the call's channels cross on every rail its members use: rail k goes from the
  // sender node's GPU on NIC k to the receiver node's GPU on NIC k. Inside a node, one flow.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  const std::uint32_t a = platform_.node_of(from), b = platform_.node_of(to);
  if (a != b) {
    const auto& there = call.links->gpu_on_nic.at(b);
    for (const auto& [nic, g] : call.links->gpu_on_nic.at(a))
      if (auto it = there.find(nic); it != there.end())
        pairs.emplace_back(g, it->second);
  }
  if (pairs.empty())
    pairs.emplace_back(from, to);
  // Each flow is sized to take the step's own time alone on its route; SimGrid's sharing slows it
  // when others use the same links.
  std::vector<sg4::CommPtr> flows;
  double route_latency_s = 0.0;
  for (const auto& [g, h] : pairs) {
    const platforms::Route r = platform_.route(g, h);
    route_latency_s = std::max(route_latency_s, r.latency_s);
    const auto bytes = static_cast<std::uint64_t>(std::ceil(serialize_s * r.bandwidth_Bps));
    flows.push_back(sg4::Comm::sendto_async(platform_.gpus()[g].host, platform_.gpus()[h].host, std::max<std::uint64_t>(1, bytes)));
  }
  for (auto& f : flows)
    f->wait();
  const double took = std::max(0.0, sg4::Engine::get_clock() - start_s - route_latency_s);
  std::unique_lock lock(*mutex_);
  std::vector<std::uint32_t> finished;
  steps_timed_ += call.run->commit(step, took, finished);
  if (!finished.empty())
    call.finished->notify_all();
}

void CallMatcher::run_step_clock() {
  // Locked for good: this daemon only gives the mutex up while it waits, and is killed at the
  // end of the run (cooperative_wait.hpp says why no std::unique_lock).
  mutex_->lock();
  std::vector<std::uint32_t> finished;
  for (;;) {
    if (held_.empty()) {
      clock_wakeup_->wait(mutex_);
      continue;
    }
    const double now = sg4::Engine::get_clock();
    if (held_.top().start_s > now) {
      wait_locked_until(*clock_wakeup_, mutex_, held_.top().start_s);
      continue;
    }
    const Held h = held_.top();
    held_.pop();
    Call& call = *h.call;
    const StepLinks& l = *call.links;
    const auto first = l.ids.begin() + l.begin[h.step], last = l.ids.begin() + l.begin[h.step + 1];
    // The step shares its busiest link with every other call busy on it now.
    std::uint32_t sharers = 0;
    for (auto it = first; it != last; ++it)
      sharers = std::max(sharers, load_.sharers(*it, call.id, h.start_s));
    const double serialize = h.serialize_s * (1 + sharers);
    for (auto it = first; it != last; ++it)
      load_.book(*it, call.id, h.start_s, h.start_s + serialize, now);
    finished.clear();
    steps_timed_ += call.run->commit(h.step, serialize, finished);
    if (!finished.empty())
      call.finished->notify_all();
  }
}

const CallMatcher::Planned& CallMatcher::schedule_for(std::uint32_t comm, const ProgramTask& task) {
  // Schedules depend only on (communicator, op, bytes, root): build each once.
  auto key = std::make_tuple(comm, static_cast<int>(task.op), task.bytes, task.peer_or_root);
  auto& slot = schedule_cache_[key];
  if (!slot.schedule) {
    collectives::CollectiveCall call;
    call.op = to_collective_op(task.op);
    call.bytes = task.bytes;
    call.root = task.peer_or_root;
    call.gpus = workload_.communicators[comm].ranks;  // rank r runs on GPU r
    // A folded call has all its members arriving together (mirrors) on links nothing else uses
    // (rank_folding.hpp): its schedule would play out exactly as the closed form says.
    const bool folded = workload_.communicators[comm].slot == folded_slot_ && !representative_.empty();
    TimedCall timed = time_call(model_, call, folded ? Fidelity::analytic : fidelity_);
    slot.too_large = timed.too_large_for_steps;
    slot.choice = timed.plan.describe();
    slot.slowdown_features = {static_cast<float>(task.op), algorithm_code(timed.plan.algorithm_name),
                              static_cast<float>(timed.plan.protocol == collectives::Protocol::ll       ? 0
                                                 : timed.plan.protocol == collectives::Protocol::ll128 ? 1
                                                                                                       : 2),
                              static_cast<float>(timed.plan.channels), static_cast<float>(task.bytes)};
    slot.schedule = std::make_shared<const collectives::Schedule>(std::move(timed.schedule));
    slot.links = links_of(*slot.schedule, call.gpus);
  }
  return slot;
}

const std::vector<float>& CallMatcher::collective_features(std::uint32_t comm, const ProgramTask& task) {
  if (task.kind != TaskKind::collective || workload_.communicators[comm].ranks.size() == 1) {
    // A send / recv, or a call on one rank (no NCCL plan): op and bytes are all there is.
    const float op = task.kind == TaskKind::collective ? static_cast<float>(task.op) : 7.0f;
    auto& f = transfer_features_[(task.bytes << 3) | static_cast<std::uint64_t>(op)];
    if (f.empty())
      f = {op, std::nanf(""), std::nanf(""), std::nanf(""), static_cast<float>(task.bytes)};
    return f;
  }
  return schedule_for(comm, task).slowdown_features;
}

// The signal a new call's members wait on. Creating it is a simcall, during which other actors
// run, so it is made before the call is entered in the table: from then on, until the entry is
// filled in, nothing may yield (a later arrival would find it half made).
sg4::ConditionVariablePtr CallMatcher::first_arrival_signal(const CallTable& table, const Key& key) {
  return table.count(key) ? nullptr : sg4::ConditionVariable::create();
}

CallMatcher::CallTable::iterator CallMatcher::open_collective(std::uint32_t rank, const ProgramTask& task, std::uint32_t comm,
                                                std::uint64_t seq) {
  const Key key{comm, 0, seq};
  sg4::ConditionVariablePtr finished = first_arrival_signal(collectives_, key);
  auto [it, fresh] = collectives_.try_emplace(key);
  Call& call = it->second;
  const std::string where = "communicator '" + workload_.communicators[comm].name + "', call #" + std::to_string(seq);
  if (fresh) {
    const Planned& planned = schedule_for(comm, task);
    call.finished = std::move(finished);
    call.comm = comm;
    start(call, planned);
    call.choice = &planned.choice;
    call.first_task = &task;
    call.first_rank = rank;
    call.ranks = workload_.communicators[comm].ranks;
    call.where = where;
  } else if (!same_call(*call.first_task, task)) {
    throw UserError(workload_.source, 0,
                    "members of one collective disagree on " + where + ": " + call_summary(call.first_rank, *call.first_task) +
                        ", but " + call_summary(rank, task),
                    "every member's n-th call on a communicator must be the same op with the same size (and root)");
  }
  return it;
}

CallMatcher::CallTable::iterator CallMatcher::open_transfer(std::uint32_t rank, const ProgramTask& task, std::uint32_t src,
                                              std::uint32_t dst, std::uint64_t seq) {
  const Key key{src, dst, seq};
  sg4::ConditionVariablePtr finished = first_arrival_signal(transfers_, key);
  auto [it, fresh] = transfers_.try_emplace(key);
  Call& call = it->second;
  const std::string where = "send/recv from rank " + std::to_string(src) + " to rank " + std::to_string(dst) +
                            ", transfer #" + std::to_string(RankRuntime::transfer_number(seq));
  if (fresh) {
    collectives::CollectiveCall cc;
    cc.op = collectives::Op::send_recv;
    cc.bytes = task.bytes;
    cc.gpus = {src, dst};
    Planned planned;
    planned.schedule = std::make_shared<const collectives::Schedule>(time_call(model_, cc, fidelity_).schedule);
    planned.links = links_of(*planned.schedule, cc.gpus);
    call.finished = std::move(finished);
    start(call, planned);
    call.first_task = &task;
    call.first_rank = rank;
    call.ranks = {src, dst};
    call.where = where;
  } else if (call.first_task->bytes != task.bytes) {
    throw UserError(workload_.source, 0,
                    "the two sides of a " + where + " disagree on the size: " +
                        call_summary(call.first_rank, *call.first_task) + ", but " + call_summary(rank, task),
                    "the n-th send from A to B and the n-th recv at B from A must have the same bytes");
  }
  return it;
}

void CallMatcher::arrive(Call& call, std::uint32_t member) {
  finished_scratch_.clear();
  steps_timed_ += call.run->arrive(member, sg4::Engine::get_clock(), finished_scratch_);
  if (std::any_of(finished_scratch_.begin(), finished_scratch_.end(), [&](std::uint32_t m) { return m != member; }))
    call.finished->notify_all();
}

double CallMatcher::await(CallTable& table, CallTable::iterator it, std::uint32_t member) {
  Call& call = it->second;
  arrive(call, member);
  if (!call.run->finish_known(member))
    wait_until_done(*call.finished, mutex_, [&] { return call.run->finish_known(member); });
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

void CallMatcher::consume(CallTable& table, CallTable::iterator it) {
  Call& call = it->second;
  if (++call.consumed == call.run->schedule().members()) {
    ++calls_completed_;
    if (call.choice != nullptr) {  // a collective (send/recv are not tabulated)
      const ProgramTask& t = *call.first_task;
      CollectiveStat& stat = stats_[StatKey{call.comm, static_cast<int>(t.op), t.bytes}];
      if (stat.calls++ == 0) {
        stat.communicator = workload_.communicators[call.comm].name;
        stat.op = std::string(op_name(t));
        stat.bytes = t.bytes;
        stat.choice = *call.choice;
      }
      stat.total_s += call.run->last_finish_s() - call.run->first_arrival_s();
    }
    if (open_calls_.erase(call.id) != 0)
      load_.release(call.id, call.links->distinct);
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
  if (task.slot == folded_slot_ && !representative_.empty()) {
    Call& call = it->second;
    std::vector<std::uint32_t> unused;
    for (std::uint32_t m = 0; m < call.ranks.size(); ++m)
      if (call.ranks[m] != rank && representative_[call.ranks[m]] == rank) {
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

std::vector<CollectiveStat> CallMatcher::collective_stats() const {
  std::vector<CollectiveStat> out;
  for (const auto& [key, stat] : stats_)
    out.push_back(stat);
  std::stable_sort(out.begin(), out.end(), [](const CollectiveStat& a, const CollectiveStat& b) { return a.total_s > b.total_s; });
  return out;
}

std::vector<std::string> CallMatcher::pending_report(std::size_t max_calls) const {
  std::vector<std::string> out;
  for (const auto* table : {&collectives_, &transfers_})
    for (const auto& [key, call] : *table) {
      if (out.size() == max_calls)
        return out;
      std::string arrived, missing;
      std::size_t n_arrived = 0, n_missing = 0;
      for (std::uint32_t m = 0; m < call.ranks.size(); ++m) {
        std::string& list = call.run->arrived(m) ? arrived : missing;
        std::size_t& count = call.run->arrived(m) ? n_arrived : n_missing;
        if (++count <= 16)
          list += (list.empty() ? "" : ", ") + std::to_string(call.ranks[m]);
        else if (count == 17)
          list += ", ...";
      }
      out.push_back(std::string(op_name(*call.first_task)) + " of " + std::to_string(call.first_task->bytes) +
                    " bytes on " + call.where + ": ranks that arrived: " + (arrived.empty() ? "none" : arrived) +
                    "; ranks that never did: " + (missing.empty() ? "none" : missing));
    }
  return out;
}

} // namespace echo::core
