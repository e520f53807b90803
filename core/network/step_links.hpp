#pragma once
// The links each step of a call's schedule leaves its GPU through: its intra-node link for a hop
// inside a node; for a hop across nodes, as many of the NICs the call's members use on that node
// as the step's time needs, the sender's own first (a ring step's channels are spread over all of
// them, a pairwise send takes its own). Shared by the `steps` and `flow` models.
#include "collectives/schedule.hpp"
#include "core/network/link_load.hpp"
#include "platforms/cluster.hpp"

#include <map>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace echo::core::network {

struct StepLinks {
  // Step i: ids[begin[i]..begin[i+1]); `distinct`: the links of the whole schedule. A NIC's id
  // names its node and index (LinkLoad::nic_index).
  std::vector<std::uint32_t> begin;
  std::vector<LinkLoad::LinkId> ids, distinct;
  // Step i leaves through a NIC that GPUs outside the call leave through too (fewer NICs than
  // GPUs: two GPUs of a node on one NIC, each in its own data-parallel ring): another call may
  // start on it at the same instant without being open yet.
  std::vector<bool> nic_shared_outside;
  // Per node, the call's first GPU on each NIC of that node (NIC index -> GPU), for laying a step
  // across nodes out on the rails.
  std::map<std::uint32_t, std::map<std::uint32_t, std::uint32_t>> gpu_on_nic;
  // A schedule that splits the ways out of groups of nodes (Schedule::group_exits_split): its
  // steps between groups also name the sender's group's way out and the receiver's way in
  // (LinkLoad::group_link, after its NICs), each with its capacity here, bytes per second.
  std::vector<std::pair<LinkLoad::LinkId, double>> group_capacity;
};

StepLinks step_links(const platforms::Cluster& platform, const collectives::Schedule& schedule,
                     const std::vector<std::uint32_t>& gpus);

// The links of each schedule on each GPU list, worked out once. A schedule is shared by every call
// of its kind and by communicators of the same shape (core/call_plans.hpp), each with its own GPU
// list; both outlive the run (the engine keeps its plans), so their addresses name them and the
// schedule is kept alive here.
class StepLinksCache {
public:
  explicit StepLinksCache(const platforms::Cluster& platform) : platform_(platform) {}
  const StepLinks& of(const std::shared_ptr<const collectives::Schedule>& schedule, const std::vector<std::uint32_t>& gpus);

private:
  const platforms::Cluster& platform_;
  using Key = std::pair<const collectives::Schedule*, const std::vector<std::uint32_t>*>;
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.first) * 31 + std::hash<const void*>()(k.second);
    }
  };
  std::unordered_map<Key, std::pair<std::shared_ptr<const collectives::Schedule>, StepLinks>, KeyHash> cache_;
};

} // namespace echo::core::network
