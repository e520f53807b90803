#include "core/network/shared_steps_model.hpp"

#include "core/cooperative_wait.hpp"
#include "core/network/link_load.hpp"
#include "core/network/step_links.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <queue>
#include <unordered_map>

namespace echo::core::network {

namespace sg4 = simgrid::s4u;

namespace {

class SharedStepsModel final : public NetworkModel {
public:
  explicit SharedStepsModel(const NetworkContext& context)
      : mutex_(context.mutex), network_efficiency_(context.link_efficiency[static_cast<int>(platforms::LinkKind::network)]),
        links_(context.platform), load_([this](LinkLoad::CallId id) {
          auto it = open_.find(id);
          return it != open_.end() && !it->second.call->all_steps_timed();
        }),
        clock_wakeup_(sg4::ConditionVariable::create()) {}

  void open(NetworkCall& call) override {
    const StepLinks& links = links_.of(call.schedule(), call.gpus());
    open_.emplace(call.id(), Open{&call, &links});
    load_.claim(call.id(), links.distinct);
    // In the payload's bytes per second, as the schedule split it (pairwise_all_to_all.cpp).
    for (const auto& [id, Bps] : links.group_capacity)
      load_.set_capacity(id, Bps * network_efficiency_);
  }

  void close(NetworkCall& call) override {
    auto it = open_.find(call.id());
    if (it == open_.end())
      return;
    load_.release(call.id(), it->second.links->distinct);
    open_.erase(it);
  }

  std::optional<double> admit(NetworkCall& call, std::uint32_t step, double start_s, double serialize_s) override {
    const StepLinks& l = *open_.at(call.id()).links;
    const auto first = l.ids.begin() + l.begin[step], last = l.ids.begin() + l.begin[step + 1];
    // A step on a NIC other GPUs use too waits for its start even when nothing is open there yet:
    // their call may open at that very instant, later in the same round of the engine. One that
    // stands for mirrored ranks' steps on a link is never alone there.
    // Nor is one that asks more of a pod's way out than it has (a ring on an up-link oversubscribed
    // past one ring's rate): shared_end() slows it to the way's capacity.
    const double rate = rate_of(call, step, serialize_s);
    if (!l.nic_shared_outside[step] &&
        std::none_of(first, last, [&](LinkLoad::LinkId id) { return copies_on(call.link_copies(), id) > 1; }) &&
        std::none_of(first, last, [&](LinkLoad::LinkId id) { return load_.contended(id, call.id(), start_s); }) &&
        std::none_of(first, last, [&](LinkLoad::LinkId id) {
          return LinkLoad::is_group_link(id) && rate > load_.capacity_Bps(id) * (1.0 + 1e-12);
        })) {
      for (auto it = first; it != last; ++it)
        load_.book(*it, call.id(), start_s, start_s + serialize_s, sg4::Engine::get_clock(), 1,
                   LinkLoad::is_group_link(*it) ? rate : 0.0);
      return serialize_s;
    }
    const bool earliest = held_.empty() || start_s < held_.top().start_s;
    held_.push({start_s, held_order_++, &call, step, serialize_s});
    if (earliest)
      clock_wakeup_->notify_all();
    return std::nullopt;
  }

  std::function<void()> daemon() override {
    return [this] { run_step_clock(); };
  }

private:
  struct Open {
    NetworkCall* call;
    const StepLinks* links;
  };

  // How many calls `copies` (a call's NetworkCall::link_copies(), nullptr: none) counts it for on `link`.
  static std::uint32_t copies_on(const LinkCopies* copies, LinkLoad::LinkId link) {
    if (copies == nullptr)
      return 1;
    const auto it = std::lower_bound(copies->begin(), copies->end(), link,
                                     [](const std::pair<std::uint64_t, std::uint32_t>& c, LinkLoad::LinkId id) { return c.first < id; });
    return it != copies->end() && it->first == link ? it->second : 1;
  }
  // A step's bytes per second over `seconds`: what it asks of a capacity link.
  static double rate_of(const NetworkCall& call, std::uint32_t step, double seconds) {
    return seconds > 0.0 ? static_cast<double>(call.schedule()->steps()[step].bytes) / seconds : 0.0;
  }

  struct Held {
    double start_s;
    std::uint64_t order;  // ties in time go first come, first served
    NetworkCall* call;
    std::uint32_t step;
    double serialize_s;
    bool operator>(const Held& o) const { return start_s != o.start_s ? start_s > o.start_s : order > o.order; }
  };

  // Times held-back steps when simulated time reaches their start.
  void run_step_clock() {
    // Locked for good: this daemon only gives the mutex up while it waits, and is killed at the
    // end of the run (cooperative_wait.hpp says why no std::unique_lock).
    mutex_->lock();
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
      // Steps that start at the same instant are timed together: each shares its links with the
      // others of the batch on them, and none of them is booked before all are timed.
      std::vector<Held>& batch = batch_;
      batch.clear();
      do {
        batch.push_back(held_.top());
        held_.pop();
      } while (!held_.empty() && held_.top().start_s == batch.front().start_s);
      std::vector<double>& ends = batch_ends_;
      ends.assign(batch.size(), 0.0);
      // Per link, the calls of the batch on it with their copies there (a ring's members all step
      // at once: a batch can hold thousands of steps of a few calls, so no pairwise comparison).
      std::vector<Span>& spans = batch_links_;
      spans.clear();
      calls_on_link_.clear();
      batch_rate_.clear();
      for (const Held& h : batch) {
        spans.push_back(links_of(h));
        const LinkCopies* copies = h.call->link_copies();
        for (const LinkLoad::LinkId* it = spans.back().first; it != spans.back().second; ++it) {
          if (LinkLoad::is_group_link(*it)) {
            batch_rate_[*it] += rate_of(*h.call, h.step, h.serialize_s) * copies_on(copies, *it);
            continue;
          }
          auto& calls = calls_on_link_[*it];
          if (std::none_of(calls.begin(), calls.end(), [&](const auto& c) { return c.first == h.call->id(); }))
            calls.emplace_back(h.call->id(), copies_on(copies, *it));
        }
      }
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto [first, last] = spans[i];
        std::size_t alongside = 0;  // other calls of the batch (and its own copies) on its busiest link
        for (const LinkLoad::LinkId* it = first; it != last; ++it) {
          if (LinkLoad::is_group_link(*it))
            continue;  // shared by rates (demand_ below), not by calls
          std::size_t on_link = 0;
          for (const auto& c : calls_on_link_[*it])
            on_link += c.second;
          alongside = std::max(alongside, on_link - 1);
        }
        demand_.assign(static_cast<std::size_t>(last - first), {});
        const double rate = rate_of(*batch[i].call, batch[i].step, batch[i].serialize_s);
        for (const LinkLoad::LinkId* it = first; it != last; ++it)
          if (LinkLoad::is_group_link(*it)) {
            const double own = rate * copies_on(batch[i].call->link_copies(), *it);
            demand_[static_cast<std::size_t>(it - first)] = {own, batch_rate_[*it] - own};
          }
        ends[i] = load_.shared_end(first, last, batch[i].call->id(), batch[i].start_s, batch[i].serialize_s,
                                   static_cast<std::uint32_t>(alongside), demand_.data());
      }
      for (std::size_t i = 0; i < batch.size(); ++i) {
        const auto [first, last] = spans[i];
        const LinkCopies* copies = batch[i].call->link_copies();
        const double rate = rate_of(*batch[i].call, batch[i].step, ends[i] - batch[i].start_s);
        for (const LinkLoad::LinkId* it = first; it != last; ++it)
          load_.book(*it, batch[i].call->id(), batch[i].start_s, ends[i], now, copies_on(copies, *it),
                     LinkLoad::is_group_link(*it) ? rate * copies_on(copies, *it) : 0.0);
        batch[i].call->commit(batch[i].step, ends[i] - batch[i].start_s);
      }
    }
  }

  using Span = std::pair<const LinkLoad::LinkId*, const LinkLoad::LinkId*>;  // a step's links

  Span links_of(const Held& h) const {
    const StepLinks& l = *open_.at(h.call->id()).links;
    const LinkLoad::LinkId* ids = l.ids.data();
    return {ids + l.begin[h.step], ids + l.begin[h.step + 1]};
  }

  sg4::MutexPtr mutex_;
  double network_efficiency_;
  StepLinksCache links_;
  std::unordered_map<LinkLoad::CallId, Open> open_;
  LinkLoad load_;
  std::priority_queue<Held, std::vector<Held>, std::greater<>> held_;
  std::uint64_t held_order_ = 0;
  std::vector<Held> batch_;  // the step clock's working space, kept between wake-ups
  std::vector<double> batch_ends_;
  std::vector<Span> batch_links_;
  std::unordered_map<LinkLoad::LinkId, double> batch_rate_;  // per capacity link: the batch's rates there
  std::vector<LinkLoad::Demand> demand_;
  std::unordered_map<LinkLoad::LinkId, std::vector<std::pair<LinkLoad::CallId, std::uint32_t>>> calls_on_link_;  // with copies
  sg4::ConditionVariablePtr clock_wakeup_;
};

} // namespace

std::unique_ptr<NetworkModel> make_shared_steps_model(const NetworkContext& context) {
  return std::make_unique<SharedStepsModel>(context);
}

} // namespace echo::core::network
