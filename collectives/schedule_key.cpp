#include "collectives/schedule_key.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

namespace echo::collectives {

namespace {

// Appends values' bytes: a key compared byte for byte, doubles included (a schedule built from
// costs that differ in the last bit is another schedule).
class KeyWriter {
public:
  template <class T> void add(const T& value) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    key_.append(bytes, sizeof(T));
  }
  template <class T, std::size_t N> void add(const T (&values)[N]) {
    for (const T& v : values)
      add(v);
  }
  void add(const std::string& text) {
    add(text.size());
    key_ += text;
  }
  std::string take() { return std::move(key_); }

private:
  std::string key_;
};

} // namespace

std::optional<std::string> shape_schedule_key(const Plan& plan, const CollectiveCall& call) {
  if (plan.algorithm == nullptr || !plan.algorithm->builds_from_shape())
    return std::nullopt;
  KeyWriter w;
  w.add(plan.algorithm->name());
  w.add(plan.protocol);
  w.add(plan.channels);

  const StepCosts& c = plan.costs;
  w.add(c.protocol);
  w.add(c.channels);
  w.add(c.base_s);
  w.add(c.ring_tail_copy_Bps);
  w.add(c.hop_s);
  w.add(c.algorithm_Bps);
  w.add(c.efficiency);
  w.add(c.link_Bps);
  w.add(c.p2p_Bps);

  const CommShape& s = plan.shape;
  w.add(s.ranks);
  w.add(s.nodes);
  w.add(s.ppn);
  w.add(s.arch);
  w.add(s.intra);
  w.add(s.intra_GBps);
  w.add(s.intra_latency_s);
  w.add(s.nic_GBps);
  w.add(s.nics);
  w.add(s.net_latency_s);
  w.add(s.nvswitch);
  w.add(s.amd_cpu);
  w.add(s.nic_past_switches);

  w.add(call.op);
  w.add(call.bytes);
  w.add(call.root);
  w.add(call.gpus.size());
  std::vector<std::uint32_t> seen;  // node ids in first-appearance order
  for (std::uint32_t node : plan.node_of_member) {
    auto it = std::find(seen.begin(), seen.end(), node);
    if (it == seen.end())
      it = seen.insert(seen.end(), node);
    w.add(static_cast<std::uint32_t>(it - seen.begin()));
  }
  return w.take();
}

} // namespace echo::collectives
