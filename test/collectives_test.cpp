// Schedules of the collective algorithms, timed with ScheduleRun (no SimGrid needed): each one
// against hand-computed times, and its closed form against its own schedule.
#include "collectives/algorithm.hpp"
#include "collectives/hierarchical.hpp"
#include "collectives/member_projection.hpp"
#include "collectives/pairwise_all_to_all.hpp"
#include "collectives/pat.hpp"
#include "collectives/point_to_point.hpp"
#include "collectives/ring.hpp"
#include "collectives/tree.hpp"
#include "core/schedule_run.hpp"
#include "examples/custom_algorithm/halving_doubling.hpp"
#include "support/approx.hpp"
#include "support/calls.hpp"
#include "support/fake_platform.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <numeric>

using namespace echo;
using echo::test::call_of;
using collectives::CollectiveCall;
using collectives::DepKind;
using collectives::Op;
using platforms::LinkKind;

namespace {

// A call with hand-set costs: every step pays `hop_s` (network hops `net_hop_s`) and the call's
// data goes through at `Bps`, after `base_s`.
struct Planned {
  CollectiveCall call;
  test::FakePlatform platform;
  collectives::CommShape shape;
  std::vector<std::uint32_t> nodes;
  collectives::StepCosts costs;

  Planned(CollectiveCall c, test::FakePlatform p, double base_s, double hop_s, double net_hop_s, double Bps)
      : call(std::move(c)), platform(std::move(p)) {
    shape = collectives::comm_shape(call.gpus, platform);
    for (std::uint32_t g : call.gpus)
      nodes.push_back(platform.node_of(g));
    costs.base_s = base_s;
    costs.hop_s[static_cast<int>(LinkKind::nvlink)] = hop_s;
    costs.hop_s[static_cast<int>(LinkKind::network)] = net_hop_s;
    costs.algorithm_Bps = Bps;
    costs.channels = 4;
  }
  collectives::PlannedCall view() const { return {call, shape, nodes, platform, costs}; }
};

// Finish time of every member when they arrive at the given times.
std::vector<double> finish_times(const collectives::Schedule& schedule, const std::vector<double>& arrivals) {
  core::ScheduleRun run(std::make_shared<const collectives::Schedule>(schedule));
  std::vector<std::uint32_t> order(arrivals.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return arrivals[a] < arrivals[b]; });
  std::vector<std::uint32_t> finished;
  for (std::uint32_t m : order) {
    run.arrive(m, arrivals[m], finished);
    for (std::uint32_t f : finished)
      CHECK(run.finish_s(f) >= arrivals[m]);  // nobody is told a finish time in the past
    finished.clear();
  }
  std::vector<double> out;
  for (std::uint32_t m = 0; m < arrivals.size(); ++m) {
    REQUIRE(run.finish_known(m));
    out.push_back(run.finish_s(m));
  }
  return out;
}

double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

double slowest(const collectives::Schedule& s) { return max_of(finish_times(s, std::vector<double>(s.members(), 0.0))); }

test::FakePlatform nodes_of(std::uint32_t nodes, std::uint32_t per_node) {
  test::FakePlatform p;
  p.nodes = nodes;
  p.gpus_per_node = per_node;
  return p;
}

} // namespace

TEST_CASE("ring AllReduce: base + 2(n-1) slices at the call's pace + 2(n-1) hop latencies") {
  const double base = 5e-6, hop = 1.7e-6, bw = 123e9;
  for (std::uint32_t n : {2u, 3u, 8u, 16u})
    for (std::uint64_t bytes : {std::uint64_t{1} << 20, std::uint64_t{3} * 1000 * 1000 * 64}) {
      CAPTURE(n);
      CAPTURE(bytes);
      const Planned p(call_of(Op::all_reduce, bytes, n), test::one_node(n, 0, 1e12), base, hop, 0, bw);
      const auto schedule = collectives::RingAlgorithm().build(p.view());
      CHECK(schedule.steps().size() == 2u * (n - 1) * n);
      const double expected = base + static_cast<double>(bytes) / bw + 2.0 * (n - 1) * hop;
      CHECK(slowest(schedule) == test::Approx(expected).epsilon(1e-12));
      CHECK(*collectives::RingAlgorithm().closed_form_s(p.view()) == test::Approx(expected).epsilon(1e-12));
    }
}

TEST_CASE("ring AllGather and ReduceScatter take n-1 steps, reducing only for ReduceScatter") {
  const std::uint32_t n = 16;
  for (Op op : {Op::all_gather, Op::reduce_scatter}) {
    const Planned p(call_of(op, 16u << 20, n), test::one_node(n, 0, 1e12), 0, 2e-6, 0, 25e9);
    const auto s = collectives::RingAlgorithm().build(p.view());
    CHECK(s.steps().size() == n * (n - 1));
    CHECK(slowest(s) == test::Approx((16u << 20) / 25e9 + (n - 1) * 2e-6).epsilon(1e-12));
    CHECK(std::all_of(s.steps().begin(), s.steps().end(), [&](const auto& st) { return st.reduce == (op == Op::reduce_scatter); }));
  }
}

TEST_CASE("a ring crosses each node boundary once, whatever order the members come in") {
  // Members alternate between two nodes; NCCL's ring still visits node by node.
  test::FakePlatform platform = nodes_of(2, 4);
  CollectiveCall c = call_of(Op::all_reduce, 8 << 20, 8);
  c.gpus = {0, 4, 1, 5, 2, 6, 3, 7};
  const Planned p(c, platform, 0, 1e-6, 10e-6, 50e9);
  const auto s = collectives::RingAlgorithm().build(p.view());
  std::size_t crossings = 0;
  for (std::uint32_t i = 0; i < 8; ++i)  // the first round: one step per member
    crossings += p.nodes[s.steps()[i].member] != p.nodes[s.steps()[i].peer];
  CHECK(crossings == 2);
  // The slowest member's data crosses 14 consecutive edges: 4 of them between nodes at most.
  const double expected = (8 << 20) / 50e9 + 10 * 1e-6 + 4 * 10e-6;
  CHECK(slowest(s) == test::Approx(expected).epsilon(1e-12));
  CHECK(*collectives::RingAlgorithm().closed_form_s(p.view()) == test::Approx(expected).epsilon(1e-12));
}

TEST_CASE("one member's share of a ring whose hops all cost the same times every member, an uneven ring or a tree has none") {
  // Eight nodes, one member each: every hop crosses the network at the same cost.
  const Planned even(call_of(Op::all_reduce, 64 << 20, 8), nodes_of(8, 1), 5e-6, 1e-6, 10e-6, 40e9);
  const auto full = collectives::RingAlgorithm().build(even.view());
  for (std::uint32_t self : {0u, 3u}) {
    CAPTURE(self);
    const auto own = collectives::project_onto_member(full, self);
    REQUIRE(own);
    CHECK(own->symmetric());
    CHECK(own->members() == 8);
    CHECK(own->steps().size() * 8 == full.steps().size());
    CHECK(std::all_of(own->steps().begin(), own->steps().end(), [&](const auto& st) { return st.member == self; }));
    // `self` alone arriving finishes when every member of the full schedule does.
    core::ScheduleRun run(std::make_shared<const collectives::Schedule>(*own));
    std::vector<std::uint32_t> finished;
    run.arrive(self, 0.0, finished);
    REQUIRE(run.finish_known(self));
    CHECK(run.finish_s(self) == test::Approx(slowest(full)).epsilon(1e-12));
  }
  // Two nodes of four: hops inside a node and across it differ, so the members' steps do too.
  const Planned uneven(call_of(Op::all_reduce, 64 << 20, 8), nodes_of(2, 4), 5e-6, 1e-6, 10e-6, 40e9);
  CHECK(!collectives::project_onto_member(collectives::RingAlgorithm().build(uneven.view()), 0));
  // A tree's members play different parts.
  CHECK(!collectives::project_onto_member(collectives::TreeAlgorithm().build(even.view()), 0));
  // Rendezvous steps wait for their peer, which would never come.
  collectives::Schedule pair(2);
  pair.add_step(0, 1, 1000, 1e-6, 1e-6, {}, false, true);
  pair.add_step(1, 0, 1000, 1e-6, 1e-6, {}, false, true);
  pair.finalize();
  CHECK(!collectives::project_onto_member(pair, 0));
  CHECK(!collectives::project_onto_member(collectives::Schedule::barrier(8, 1e-3), 0));
}

TEST_CASE("a ring builds one member's share alone, step for step the projection of its whole schedule") {
  const auto same = [](const collectives::Schedule& a, const collectives::Schedule& b) {
    REQUIRE(a.steps().size() == b.steps().size());
    CHECK(a.members() == b.members());
    CHECK(a.symmetric() == b.symmetric());
    CHECK(a.base_latency_s() == b.base_latency_s());
    for (std::size_t i = 0; i < a.steps().size(); ++i) {
      const auto &x = a.steps()[i], &y = b.steps()[i];
      CHECK(x.member == y.member);
      CHECK(x.peer == y.peer);
      CHECK(x.bytes == y.bytes);
      CHECK(x.serialize_s == y.serialize_s);
      CHECK(x.latency_s == y.latency_s);
      CHECK(x.unit_s == y.unit_s);
      CHECK(x.reduce == y.reduce);
      const auto dx = a.deps(x), dy = b.deps(y);
      REQUIRE(dx.size() == dy.size());
      for (std::size_t k = 0; k < dx.size(); ++k) {
        CHECK(dx[k].step == dy[k].step);
        CHECK(dx[k].kind == dy[k].kind);
      }
    }
  };
  const collectives::RingAlgorithm ring;
  for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter})
    for (std::uint32_t n : {2u, 3u, 5u, 8u})
      for (const auto& layout : {std::pair{n, 1u}, std::pair{1u, n}}) {
        const std::uint32_t nodes = layout.first, per_node = layout.second;  // no structured binding: CAPTURE's lambda
        CAPTURE(static_cast<int>(op));
        CAPTURE(n);
        CAPTURE(nodes);
        const Planned p(call_of(op, 3 << 20, n), nodes_of(nodes, per_node), 5e-6, 1e-6, 10e-6, 40e9);
        const auto full = ring.build(p.view());
        for (std::uint32_t self = 0; self < n; ++self) {
          const auto alone = ring.build_for_member(p.view(), self);
          const auto projected = collectives::project_onto_member(full, self);
          REQUIRE(alone);
          REQUIRE(projected);
          same(*alone, *projected);
        }
      }
  // Not symmetric: hops inside and across nodes differ, members out of ring order, a chain.
  const Planned uneven(call_of(Op::all_reduce, 64 << 20, 8), nodes_of(2, 4), 5e-6, 1e-6, 10e-6, 40e9);
  CHECK(!ring.build_for_member(uneven.view(), 0));
  CollectiveCall shuffled = call_of(Op::all_reduce, 64 << 20, 4);
  shuffled.gpus = {0, 2, 1, 3};  // members on nodes 0, 1, 0, 1: the ring goes 0, 2, 1, 3
  const Planned interleaved(shuffled, nodes_of(2, 2), 5e-6, 1e-6, 1e-6, 40e9);
  CHECK(!collectives::project_onto_member(ring.build(interleaved.view()), 1));
  CHECK(!ring.build_for_member(interleaved.view(), 1));
  CHECK(!ring.build_for_member(Planned(call_of(Op::broadcast, 1 << 20, 4), nodes_of(4, 1), 5e-6, 1e-6, 10e-6, 40e9).view(), 0));
}

TEST_CASE("a stream dependency forwards unit by unit: B/bw once, a unit and a latency per hop") {
  collectives::Schedule s(3);
  const double S = 100e-6, unit = 2e-6, lat = 1e-6;
  const auto first = s.add_step(0, 1, 1000, S, lat, {});
  s.set_unit(first, unit);
  const auto second = s.add_step(1, 2, 1000, S, lat, {{first, DepKind::stream}});
  s.set_unit(second, unit);
  s.finalize();
  const auto t = finish_times(s, {0, 0, 0});
  CHECK(t[0] == test::Approx(S));
  // Member 1 starts forwarding when the first unit arrived (unit + lat), and cannot send its last
  // unit before it arrived (S + lat): it is done at S + lat + unit; member 2 one latency later.
  CHECK(t[1] == test::Approx(S + lat + unit));
  CHECK(t[2] == test::Approx(S + 2 * lat + unit));
}

TEST_CASE("chain Broadcast streams from the root: B/bw + (n-2) units + (n-1) latencies") {
  const std::uint32_t n = 8;
  const std::uint64_t bytes = 256ull << 20;
  const Planned p(call_of(Op::broadcast, bytes, n, 3), test::one_node(n, 0, 1e12), 1e-6, 1e-6, 0, 100e9);
  const auto s = collectives::RingAlgorithm().build(p.view());
  REQUIRE(s.steps().size() == n - 1);
  CHECK(s.steps().front().member == 3);  // the chain starts at the root
  const double unit = s.steps().front().unit_s;
  CHECK(unit == test::Approx(512.0 * 1024 * 4 / 100e9));  // a 512 KiB Simple step on each of 4 channels
  const double expected = 1e-6 + bytes / 100e9 + (n - 2) * unit + (n - 1) * 1e-6;
  CHECK(slowest(s) == test::Approx(expected).epsilon(1e-12));
  CHECK(*collectives::RingAlgorithm().closed_form_s(p.view()) == test::Approx(expected).epsilon(1e-12));
}

TEST_CASE("Reduce flows into the root and reduces on the way") {
  const Planned p(call_of(Op::reduce, 1000, 4, 2), test::one_node(4, 0, 1e12), 0, 1e-6, 0, 10e9);
  const auto s = collectives::RingAlgorithm().build(p.view());
  REQUIRE(s.steps().size() == 3);  // three hops: 3 -> 0 -> 1 -> 2
  CHECK(s.steps().back().peer == 2);
  CHECK(s.steps().front().member == 3);
  CHECK(s.steps().front().reduce);
}

TEST_CASE("tree AllReduce: chains up, the tree up and down, chains down - closed form = schedule") {
  for (std::uint32_t nodes : {1u, 2u, 3u, 5u, 8u})
    for (std::uint32_t per_node : {1u, 4u}) {
      if (nodes * per_node < 2)
        continue;
      CAPTURE(nodes);
      CAPTURE(per_node);
      const Planned p(call_of(Op::all_reduce, 64 << 20, nodes * per_node), nodes_of(nodes, per_node), 3e-6, 1e-6, 5e-6,
                      80e9);
      const auto s = collectives::TreeAlgorithm().build(p.view());
      CHECK(s.steps().size() == 4u * (nodes * per_node - 1));  // two trees, each up and down
      CHECK(slowest(s) == test::Approx(*collectives::TreeAlgorithm().closed_form_s(p.view())).epsilon(1e-12));
    }
  // By hand, 2 nodes x 2 GPUs: up the chain (1 hop), up the tree (1), down (1), down the chain
  // (1): B/bw + 4 latencies + 3 units.
  const Planned p(call_of(Op::all_reduce, 1 << 20, 4), nodes_of(2, 2), 3e-6, 1e-6, 5e-6, 80e9);
  const auto s = collectives::TreeAlgorithm().build(p.view());
  const double unit = s.steps().front().unit_s;
  CHECK(slowest(s) == test::Approx(3e-6 + (1 << 20) / 80e9 + 2 * 1e-6 + 2 * 5e-6 + 3 * unit).epsilon(1e-12));
}

TEST_CASE("the double binary tree: NCCL's in-order tree, then its mirror (even) or shift (odd)") {
  using collectives::dtree_parent;
  // The first tree over 14 nodes, as NCCL's trees.cc draws it.
  const std::vector<std::int64_t> parent14 = {-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8, 12};
  for (std::uint32_t k = 0; k < 14; ++k)
    CHECK(dtree_parent(14, k, 0) == parent14[k]);
  // Mirror: node k's parent is the mirror of its mirror's parent; the root is node 13.
  CHECK(dtree_parent(14, 13, 1) == -1);
  CHECK(dtree_parent(14, 12, 1) == 11);
  // Shift by one (13 nodes): the second tree's root is node 1.
  CHECK(dtree_parent(13, 1, 1) == -1);
  CHECK(dtree_parent(13, 2, 1) == 3);
  // A node that is a leaf of one tree is inside the other.
  for (std::uint32_t k = 1; k < 13; k += 2) {
    bool parent_in_tree1 = false;
    for (std::uint32_t c = 0; c < 13; ++c)
      parent_in_tree1 |= dtree_parent(13, c, 1) == static_cast<std::int64_t>(k);
    CHECK(parent_in_tree1);
  }
}

TEST_CASE("a straggler delays everyone, and early members make progress before it arrives") {
  const std::uint32_t n = 4;
  const Planned p(call_of(Op::all_reduce, 4'000'000, n), test::one_node(n, 0, 1e12), 0, 1e-6, 0, 4e6 / 60e-6);
  const auto s = collectives::RingAlgorithm().build(p.view());  // 6 steps of 10 us + 1 us
  const auto t = finish_times(s, {0.0, 0.0, 0.0, 100e-6});
  const double uncontended = 6 * (10e-6 + 1e-6);
  CHECK(max_of(t) > 100e-6 + uncontended * 0.5);
  CHECK(max_of(t) <= 100e-6 + uncontended + 1e-12);
}

TEST_CASE("send/recv starts when both sides have arrived and runs at the route's bandwidth") {
  Planned p(call_of(Op::send_recv, 1'000'000, 2), test::one_node(2, 0, 10e9), 2e-6, 1e-6, 0, 0);
  p.costs.efficiency[static_cast<int>(LinkKind::nvlink)] = 0.5;  // 5 GB/s achieved
  const auto s = collectives::PointToPoint().build(p.view());
  const auto t = finish_times(s, {5e-6, 20e-6});  // the receiver is late
  CHECK(t[0] == test::Approx(20e-6 + 2e-6 + 200e-6));         // sender: last byte left
  CHECK(t[1] == test::Approx(20e-6 + 2e-6 + 200e-6 + 1e-6));  // receiver: last byte arrived
  CHECK(*collectives::PointToPoint().closed_form_s(p.view()) == test::Approx(2e-6 + 200e-6 + 1e-6));
}

TEST_CASE("a single-member collective finishes after the base latency") {
  const Planned p(call_of(Op::all_reduce, 1 << 20, 1), test::one_node(1, 0, 1e12), 3e-6, 1e-6, 0, 1e9);
  const auto s = collectives::RingAlgorithm().build(p.view());
  CHECK(s.steps().empty());
  CHECK(finish_times(s, {7e-6})[0] == test::Approx(10e-6));
}

TEST_CASE("a barrier schedule finishes everyone a fixed time after the last arrival") {
  const auto s = collectives::Schedule::barrier(3, 5e-6);
  const auto t = finish_times(s, {1e-6, 4e-6, 2e-6});
  CHECK(t == std::vector<double>{9e-6, 9e-6, 9e-6});
}

TEST_CASE("pairwise AllToAll: n-1 serialized sends of B/n per member") {
  const std::uint32_t n = 8;
  const Planned p(call_of(Op::all_to_all, 8'000'000, n), test::one_node(n, 0, 10e9), 0, 1e-6, 0, 0);
  const auto s = collectives::PairwiseAllToAll().build(p.view());
  CHECK(s.steps().size() == n * (n - 1));
  CHECK(slowest(s) == test::Approx((n - 1) * 1e6 / 10e9 + 1e-6));
}

TEST_CASE("pairwise AllToAll across nodes: every GPU sends at once, so each gets its share of the node's NICs") {
  test::FakePlatform platform;  // two nodes of 4 GPUs, 2 NICs of 25 GB/s each: two GPUs per NIC
  platform.nodes = 2;
  platform.gpus_per_node = 4;
  platform.nics = 2;
  Planned p(call_of(Op::all_to_all, 8'000'000, 8), platform, 0, 0, 0, 0);
  p.costs.link_Bps[static_cast<int>(LinkKind::network)] = 12.5e9;  // 2 NICs shared by 4 GPUs
  const double across = 4 * 1e6 / 12.5e9, inside = 3 * 1e6 / 240e9;  // 4 peers on the other node, 3 on this one
  // The sends inside the node run beside the sends across (NCCL: rounds on channels of their own):
  // the slower chain, not the sum.
  const auto closed = collectives::PairwiseAllToAll().closed_form_s(p.view());
  REQUIRE(closed.has_value());
  CHECK(*closed == test::Approx(std::max(across, inside)));
  CHECK(*closed < across + inside * 0.5);
  CHECK(slowest(collectives::PairwiseAllToAll().build(p.view())) == test::Approx(*closed));
  p.costs.link_Bps[static_cast<int>(LinkKind::network)] = 25e9;  // a NIC per GPU: the route's full rate
  CHECK(*collectives::PairwiseAllToAll().closed_form_s(p.view()) == test::Approx(4 * 1e6 / 25e9));
  CHECK(slowest(collectives::PairwiseAllToAll().build(p.view())) == test::Approx(4 * 1e6 / 25e9));
}

TEST_CASE("pairwise AllToAll across groups of nodes: the members sending out of a group at once share its way out") {
  test::FakePlatform platform;  // four nodes of 2 GPUs in two groups of two nodes, a NIC per GPU
  platform.nodes = 4;
  platform.gpus_per_node = 2;
  platform.nics = 2;
  platform.nodes_per_group = 2;
  Planned p(call_of(Op::all_to_all, 8'000'000, 8), platform, 0, 0, 0, 0);
  const double per_peer = 1e6, nic = 25e9, inside = per_peer / 240e9;
  // A way out as wide as the group's NICs: nothing changes (round k: min(k, 4) members cross).
  p.platform.group_exit_Bps = 4 * nic;
  const auto wide = collectives::PairwiseAllToAll().closed_form_s(p.view());
  REQUIRE(wide.has_value());
  CHECK(*wide == test::Approx(6 * per_peer / nic));  // the send inside the node runs beside them
  // Oversubscribed 4:1, one NIC's worth for the group: in round k the members whose peer m + k
  // sits in the other group (k of them for k <= 4, 8 - k beyond) split it; the slowest member
  // takes 14 NIC-times where 6 did.
  p.platform.group_exit_Bps = nic;
  double expected = 0;
  for (std::uint32_t member = 0; member < 8; ++member) {
    double across = 0;
    for (std::uint32_t k = 1; k < 8; ++k) {
      const std::uint32_t peer = (member + k) % 8;
      const double crossing = std::min(k, 8 - k);
      if (member / 2 != peer / 2)
        across += member / 4 != peer / 4 ? per_peer * crossing / nic : per_peer / nic;
    }
    expected = std::max({expected, across, inside});
  }
  CHECK(expected == test::Approx(14 * per_peer / nic));
  const auto narrow = collectives::PairwiseAllToAll().closed_form_s(p.view());
  CHECK(*narrow > *wide * 1.5);
  CHECK(*narrow == test::Approx(expected));
  CHECK(slowest(collectives::PairwiseAllToAll().build(p.view())) == test::Approx(*narrow));
  // Where the engine's network model shares those links itself (flow), the schedule leaves them be.
  p.costs.split_group_exits = false;
  CHECK(*collectives::PairwiseAllToAll().closed_form_s(p.view()) == test::Approx(*wide));
  p.costs.split_group_exits = true;
  // One group: the way out is never asked for.
  p.platform.nodes_per_group = 0;
  CHECK(*collectives::PairwiseAllToAll().closed_form_s(p.view()) == test::Approx(*wide));
}

TEST_CASE("the registry finds algorithms by name, case-insensitively - a new one replaces its namesake") {
  auto registry = collectives::AlgorithmRegistry::with_builtins();
  CHECK(registry.find("ring") != nullptr);
  CHECK(registry.find("TREE") != nullptr);
  CHECK(registry.find("p2p") != nullptr);
  CHECK(registry.find("pairwise") != nullptr);
  CHECK(registry.find("nvls") != nullptr);
  CHECK(registry.find("star") == nullptr);
  const auto before = registry.names().size();
  registry.add(std::make_unique<collectives::RingAlgorithm>());
  CHECK(registry.names().size() == before);
}

TEST_CASE("op names accept NCCL spellings") {
  CHECK(collectives::op_from_string("allreduce") == Op::all_reduce);
  CHECK(collectives::op_from_string("AllGather") == Op::all_gather);
  CHECK(collectives::op_from_string("reduce_scatter") == Op::reduce_scatter);
  CHECK_FALSE(collectives::op_from_string("allscatter").has_value());
  CHECK(collectives::to_string(Op::broadcast) == "broadcast");
}

TEST_CASE("the example's halving-doubling AllReduce: 2 log2(n) rounds, closed form = schedule") {
  example::HalvingDoubling hd;
  for (std::uint32_t nodes : {1u, 2u, 4u}) {
    Planned p(call_of(Op::all_reduce, 64 << 20, nodes * 4), nodes_of(nodes, 4), 2e-6, 1e-6, 5e-6, 0);
    p.costs.link_Bps[static_cast<int>(LinkKind::nvlink)] = 200e9;
    p.costs.link_Bps[static_cast<int>(LinkKind::network)] = 50e9;
    CHECK(hd.unsupported(p.call, p.shape).empty());
    const auto s = hd.build(p.view());
    const std::uint32_t n = nodes * 4;
    CHECK(s.steps().size() == 2 * std::countr_zero(n) * n);
    CHECK(slowest(s) == test::Approx(*hd.closed_form_s(p.view())).epsilon(1e-12));
  }
  // One node of 8 at 100 GB/s: 20 + 10 + 5 + 5 + 10 + 20 MB = 70 MB, plus 6 hops.
  Planned one(call_of(Op::all_reduce, 40'000'000, 8), test::one_node(8, 0, 1e12), 0, 1e-6, 0, 0);
  one.costs.link_Bps[static_cast<int>(LinkKind::nvlink)] = 100e9;
  CHECK(slowest(hd.build(one.view())) == test::Approx(70e6 / 100e9 + 6e-6));
  CHECK(hd.unsupported(call_of(Op::all_reduce, 8, 6), one.shape).find("power-of-two") != std::string::npos);
  CHECK(hd.unsupported(call_of(Op::all_gather, 8, 8), one.shape).find("AllReduce only") != std::string::npos);
}

TEST_CASE("hierarchical AllReduce by hand: node ring-reduce-scatter, rail ring all-reduce, node ring all-gather") {
  // 2 nodes x 2 GPUs, 4 MB: a 2 MB slice per GPU inside the node (100 GB/s, 1 us), then each
  // rail all-reduces its 2 MB over 2 nodes in 2 rounds of 1 MB (10 GB/s, 5 us), then 2 MB back.
  Planned p(call_of(Op::all_reduce, 4'000'000, 4), nodes_of(2, 2), 0, 1e-6, 5e-6, 0);
  p.costs.link_Bps[static_cast<int>(LinkKind::nvlink)] = 100e9;
  p.costs.link_Bps[static_cast<int>(LinkKind::network)] = 10e9;
  const auto s = collectives::HierarchicalAllReduce().build(p.view());
  CHECK(slowest(s) == test::Approx((20 + 1) * 1e-6 + 2 * (100 + 5) * 1e-6 + (20 + 1) * 1e-6));
}

TEST_CASE("PAT AllGather as Bruck's rounds: ceil(log2 n) rounds moving (n-1)/n B") {
  auto platform = nodes_of(6, 1);
  const Planned p(call_of(Op::all_gather, 6'000'000, 6), platform, 0, 0, 2e-6, 6e6 / 100e-6);
  const auto s = collectives::PatAlgorithm().build(p.view());
  CHECK(s.steps().size() == 3 * 6);  // slices 1, 2, 2
  // 5 slices in all at the call's pace (100 us for all of B), plus one latency per round.
  CHECK(slowest(s) == test::Approx(100e-6 + 3 * 2e-6));
  CHECK(*collectives::PatAlgorithm().closed_form_s(p.view()) == test::Approx(slowest(s)));
}

namespace {

// A gate that holds every step back, as a network model timing steps as they run does, and
// remembers what had been committed when each step was admitted.
struct HoldingGate final : core::StepGate {
  struct Admitted {
    std::uint32_t step;
    double start_s, serialize_s;
    std::size_t committed_before;
  };
  std::vector<Admitted> admitted;
  std::size_t committed = 0;
  std::optional<double> admit(std::uint32_t step, double start_s, double serialize_s) override {
    admitted.push_back({step, start_s, serialize_s, committed});
    return std::nullopt;
  }
};

} // namespace

TEST_CASE("a step that streams from another starts when the other starts, not when a holding gate has timed it") {
  // Two nodes of four: each tree's chain inside a node is a run of forwarding (stream) steps.
  const Planned p(call_of(Op::all_reduce, 64 << 20, 8), nodes_of(2, 4), 5e-6, 1e-6, 10e-6, 40e9);
  const auto schedule = std::make_shared<const collectives::Schedule>(collectives::TreeAlgorithm().build(p.view()));
  const double ungated = core::uncontended_time_s(*schedule);

  HoldingGate gate;
  core::ScheduleRun run(schedule, &gate);
  std::vector<std::uint32_t> finished;
  for (std::uint32_t m = 0; m < 8; ++m)
    run.arrive(m, 0.0, finished);
  // Commit the held steps in start order, each at its own time, as flows that never meet would.
  std::size_t next = 0;
  while (next < gate.admitted.size()) {
    std::stable_sort(gate.admitted.begin() + static_cast<std::ptrdiff_t>(next), gate.admitted.end(),
                     [](const auto& a, const auto& b) { return a.start_s < b.start_s; });
    const auto a = gate.admitted[next++];
    ++gate.committed;
    run.commit(a.step, a.serialize_s, finished);
  }
  REQUIRE(run.all_resolved());
  CHECK(gate.admitted.size() == schedule->steps().size());
  // Every chain's second step was admitted before its first was timed.
  const auto streams = [&](const HoldingGate::Admitted& a) {
    const auto deps = schedule->deps(schedule->steps()[a.step]);
    return std::any_of(deps.begin(), deps.end(), [](const auto& d) { return d.kind == DepKind::stream; });
  };
  CHECK(std::any_of(gate.admitted.begin(), gate.admitted.end(),
                    [&](const auto& a) { return streams(a) && a.committed_before == 0; }));
  // And the held run ends exactly where the ungated one does: each forwarding step still ends a
  // unit after its upstream's last unit came.
  CHECK(run.last_finish_s() == test::Approx(ungated).epsilon(1e-12));
}
