#include "collectives/schedule.hpp"

#include <stdexcept>

namespace echo::collectives {

std::uint32_t Schedule::add_step(std::uint32_t member, std::uint32_t peer, std::uint64_t bytes, double serialize_s,
                                 double latency_s, std::initializer_list<StepDep> deps, bool reduce, bool rendezvous) {
  return add_step(member, peer, bytes, serialize_s, latency_s, std::span<const StepDep>(deps.begin(), deps.size()),
                  reduce, rendezvous);
}

std::uint32_t Schedule::add_step(std::uint32_t member, std::uint32_t peer, std::uint64_t bytes, double serialize_s,
                                 double latency_s, std::span<const StepDep> deps, bool reduce, bool rendezvous) {
  if (member >= members_ || peer >= members_ || member == peer)
    throw std::logic_error("schedule step between invalid members");
  Step s;
  s.member = member;
  s.peer = peer;
  s.bytes = bytes;
  s.serialize_s = serialize_s;
  s.latency_s = latency_s;
  s.reduce = reduce;
  s.rendezvous = rendezvous;
  s.dep_begin = static_cast<std::uint32_t>(deps_.size());
  for (const StepDep& d : deps) {
    if (d.step >= steps_.size())
      throw std::logic_error("schedule step depends on a later step");
    deps_.push_back(d);
  }
  s.dep_end = static_cast<std::uint32_t>(deps_.size());
  steps_.push_back(s);
  return static_cast<std::uint32_t>(steps_.size() - 1);
}

void Schedule::finalize() {
  const std::size_t n = steps_.size();
  Index ix;
  ix.dependents_begin.assign(n + 1, 0);
  ix.streamed_begin.assign(n + 1, 0);
  ix.streams_in.assign(n, 0);
  ix.waiting_begin.assign(members_ + 1, 0);
  ix.involved.assign(members_, 0);
  ix.gates.assign(n, 0);

  // Counting pass, then fill: compressed adjacency keeps one schedule to a few flat vectors.
  for (std::size_t i = 0; i < n; ++i) {
    const Step& s = steps_[i];
    for (const StepDep& d : deps(s))
      if (d.kind == DepKind::stream) {
        ++ix.streamed_begin[d.step + 1];
        ++ix.streams_in[i];
      } else {
        ++ix.dependents_begin[d.step + 1];
      }
    ++ix.waiting_begin[s.member + 1];
    if (s.rendezvous)
      ++ix.waiting_begin[s.peer + 1];
    ++ix.involved[s.member];
    ++ix.involved[s.peer];
    ix.gates[i] = (s.dep_end - s.dep_begin) + 1 + (s.rendezvous ? 1 : 0);
  }
  for (std::size_t i = 0; i < n; ++i) {
    ix.dependents_begin[i + 1] += ix.dependents_begin[i];
    ix.streamed_begin[i + 1] += ix.streamed_begin[i];
  }
  for (std::uint32_t m = 0; m < members_; ++m)
    ix.waiting_begin[m + 1] += ix.waiting_begin[m];

  ix.dependents.resize(ix.dependents_begin[n]);
  ix.streamed.resize(ix.streamed_begin[n]);
  ix.waiting.resize(ix.waiting_begin[members_]);
  std::vector<std::uint32_t> fill_dep(ix.dependents_begin.begin(), ix.dependents_begin.end() - 1);
  std::vector<std::uint32_t> fill_stream(ix.streamed_begin.begin(), ix.streamed_begin.end() - 1);
  if (ix.streamed.empty()) {
    // No stream dependencies (rings, pairwise exchanges: the largest schedules): no per-step
    // stream index either.
    ix.streamed_begin = {};
    ix.streams_in = {};
  }
  std::vector<std::uint32_t> fill_wait(ix.waiting_begin.begin(), ix.waiting_begin.end() - 1);
  for (std::uint32_t i = 0; i < n; ++i) {
    const Step& s = steps_[i];
    for (const StepDep& d : deps(s))
      (d.kind == DepKind::stream ? ix.streamed[fill_stream[d.step]++] : ix.dependents[fill_dep[d.step]++]) = i;
    ix.waiting[fill_wait[s.member]++] = i;
    if (s.rendezvous)
      ix.waiting[fill_wait[s.peer]++] = i;
  }
  index_ = std::move(ix);
}

std::uint64_t Schedule::bytes_sent_by(std::uint32_t member) const {
  std::uint64_t total = 0;
  for (const Step& s : steps_)
    if (s.member == member)
      total += s.bytes;
  return total;
}

} // namespace echo::collectives
