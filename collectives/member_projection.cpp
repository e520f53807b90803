#include "collectives/member_projection.hpp"

#include <vector>

namespace echo::collectives {

namespace {

std::uint32_t offset(std::uint32_t from, std::uint32_t to, std::uint32_t n) { return (to + n - from) % n; }

bool same_step(const Step& a, const Step& b) {
  return a.bytes == b.bytes && a.serialize_s == b.serialize_s && a.latency_s == b.latency_s && a.unit_s == b.unit_s &&
         a.reduce == b.reduce && !a.rendezvous && !b.rendezvous && a.dep_end - a.dep_begin == b.dep_end - b.dep_begin;
}

} // namespace

std::optional<Schedule> project_onto_member(const Schedule& schedule, std::uint32_t self) {
  const std::uint32_t n = schedule.members();
  const std::vector<Step>& steps = schedule.steps();
  // A schedule that splits a pod's way out between its members asks of that way what all its
  // crossing members send: one member's steps cannot stand for that.
  if (schedule.is_barrier() || steps.empty() || self >= n || schedule.group_exits_split())
    return std::nullopt;
  // Each step's position among its member's steps, in the order they were added.
  std::vector<std::uint32_t> position(steps.size());
  std::vector<std::vector<std::uint32_t>> steps_of(n);
  for (std::uint32_t i = 0; i < steps.size(); ++i) {
    position[i] = static_cast<std::uint32_t>(steps_of[steps[i].member].size());
    steps_of[steps[i].member].push_back(i);
  }
  const std::size_t per_member = steps_of[self].size();
  for (const auto& own : steps_of)
    if (own.size() != per_member)
      return std::nullopt;

  // Every member's p-th step must be `self`'s p-th step rotated.
  for (std::uint32_t m = 0; m < n; ++m)
    for (std::size_t p = 0; p < per_member; ++p) {
      const Step& a = steps[steps_of[m][p]];
      const Step& b = steps[steps_of[self][p]];
      if (!same_step(a, b) || offset(m, a.peer, n) != offset(self, b.peer, n))
        return std::nullopt;
      const auto da = schedule.deps(a), db = schedule.deps(b);
      for (std::size_t k = 0; k < da.size(); ++k) {
        const Step& ta = steps[da[k].step];
        const Step& tb = steps[db[k].step];
        if (da[k].kind != db[k].kind || position[da[k].step] != position[db[k].step] ||
            offset(m, ta.member, n) != offset(self, tb.member, n))
          return std::nullopt;
      }
    }

  Schedule out(n);
  out.set_base_latency(schedule.base_latency_s());
  out.reserve(per_member, per_member * 2);
  std::vector<StepDep> deps;
  for (std::size_t p = 0; p < per_member; ++p) {
    const Step& s = steps[steps_of[self][p]];
    deps.clear();
    for (const StepDep& d : schedule.deps(s)) {
      const std::uint32_t mapped = position[d.step];  // the same step of `self`: its index in `out`
      if (mapped >= p)
        return std::nullopt;
      deps.push_back({mapped, d.kind});
    }
    const std::uint32_t id = out.add_step(self, s.peer, s.bytes, s.serialize_s, s.latency_s, deps, s.reduce);
    out.set_unit(id, s.unit_s);
  }
  out.mark_symmetric();
  out.finalize();
  return out;
}

} // namespace echo::collectives
