// The NCCL side of the collective model: NCCL_ALGO / NCCL_PROTO lists, the channel search,
// NCCL's estimate, the choice, the calibrated costs, and the two fidelities agreeing.
#include "base/user_error.hpp"
#include "collectives/calibration.hpp"
#include "collectives/channel_search.hpp"
#include "collectives/collective_model.hpp"
#include "collectives/nccl_selection.hpp"
#include "collectives/nccl_tuner.hpp"
#include "collectives/p2p_channel_spread.hpp"
#include "collectives/p2p_channels.hpp"
#include "collectives/schedule_key.hpp"
#include "core/collective_timing.hpp"
#include "core/network/network_model.hpp"
#include "core/schedule_run.hpp"
#include "examples/custom_algorithm/halving_doubling.hpp"
#include "support/approx.hpp"
#include "support/calls.hpp"
#include "support/fake_platform.hpp"
#include "support/user_errors.hpp"

#include <doctest/doctest.h>

#include <numeric>

using namespace echo;
using echo::test::call_of;
using namespace echo::collectives;

namespace {

test::FakePlatform ndv4(std::uint32_t nodes) {
  test::FakePlatform p;  // 8x A100 on NVSwitch (240 GB/s), 8x HDR (25 GB/s) per node
  p.nodes = nodes;
  p.model = "A100-SXM4-40GB";
  p.properties["cpu"] = "amd";
  return p;
}

test::FakePlatform h100(std::uint32_t nodes) {
  test::FakePlatform p;
  p.nodes = nodes;
  p.model = "H100-SXM5-80GB";
  p.intra_Bps = 370.8e9;
  p.nic_Bps = 50e9;
  return p;
}

} // namespace

TEST_CASE("NCCL_ALGO lists: only, all but, per function, case-insensitive") {
  NcclSelection s;
  s.restrict_algorithms("ring,TREE", "test");
  CHECK(s.algorithm_enabled(Op::all_reduce, "Ring"));
  CHECK(s.algorithm_enabled(Op::all_reduce, "Tree"));
  CHECK_FALSE(s.algorithm_enabled(Op::all_reduce, "NVLS"));

  NcclSelection t;
  t.restrict_algorithms("^tree", "test");
  CHECK_FALSE(t.algorithm_enabled(Op::all_reduce, "Tree"));
  CHECK(t.algorithm_enabled(Op::all_reduce, "Ring"));

  NcclSelection u;
  u.restrict_algorithms("ring;allreduce:tree", "test");
  CHECK(u.algorithm_enabled(Op::all_reduce, "Tree"));
  CHECK_FALSE(u.algorithm_enabled(Op::all_reduce, "Ring"));
  CHECK(u.algorithm_enabled(Op::broadcast, "Ring"));
  CHECK_FALSE(u.algorithm_enabled(Op::all_gather, "Tree"));
  CHECK(u.algorithm_enabled(Op::all_to_all, "anything"));  // NCCL does not tune AllToAll

  NcclSelection p;
  p.restrict_protocols("^LL128;allreduce:LL128", "test");
  CHECK(p.protocol_enabled(Op::all_reduce, Protocol::ll128));
  CHECK_FALSE(p.protocol_enabled(Op::all_reduce, Protocol::simple));
  CHECK(p.protocol_enabled(Op::broadcast, Protocol::simple));
  CHECK_FALSE(p.protocol_enabled(Op::broadcast, Protocol::ll128));
}

TEST_CASE("bad NCCL_ALGO / NCCL_PROTO lists name the origin and the valid names") {
  NcclSelection s;
  CHECK(echo::test::user_error_of([&] { s.restrict_algorithms("ring,star", "--algo"); }).find("unknown algorithm 'star'") != std::string::npos);
  CHECK(echo::test::user_error_of([&] { s.restrict_algorithms("ring,star", "--algo"); }).find("Tree, Ring, CollNetDirect") != std::string::npos);
  CHECK(echo::test::user_error_of([&] { s.restrict_algorithms("ring,star", "--algo"); }).find("--algo") != std::string::npos);
  CHECK(echo::test::user_error_of([&] { s.restrict_algorithms("ring;tree", "x"); }).find("needs a function prefix") != std::string::npos);
  CHECK(echo::test::user_error_of([&] { s.restrict_algorithms("allscatter:ring", "x"); }).find("unknown function 'allscatter'") !=
        std::string::npos);
  CHECK(echo::test::user_error_of([&] { s.restrict_protocols("LL256", "x"); }).find("LL, LL128, Simple") != std::string::npos);
  // A researcher's algorithm is a valid name once registered, and named per op.
  s.restrict_algorithms("ring;allreduce:halving", "x", {"halving"});
  CHECK(s.extra_algorithms_for(Op::all_reduce) == std::vector<std::string>{"halving"});
  CHECK(s.extra_algorithms_for(Op::all_gather).empty());
}

TEST_CASE("channel search: NCCL's channels on A100 and H100 nodes and across nodes") {
  const auto one = ring_graph(comm_shape(call_of(Op::all_reduce, 8, 8).gpus, ndv4(1)));
  CHECK(one.channels == 12);  // 6 rings of 40 GB/s over 240 GB/s NVLink, doubled
  CHECK(one.bw_intra_GBps == test::Approx(20.0));
  const auto two = ring_graph(comm_shape(call_of(Op::all_reduce, 8, 16).gpus, ndv4(2)));
  CHECK(two.channels == 8);  // one 24 GB/s ring per 25 GB/s NIC
  CHECK(two.bw_inter_GBps == test::Approx(24.0));
  const auto hopper = ring_graph(comm_shape(call_of(Op::all_reduce, 8, 16).gpus, h100(2)));
  CHECK(hopper.channels * hopper.bw_inter_GBps <= 8 * 50.0);
  CHECK(hopper.channels >= 8);
  CHECK(nvls_graph(comm_shape(call_of(Op::all_reduce, 8, 8).gpus, h100(1))).channels == 16);
  CHECK(nvls_graph(comm_shape(call_of(Op::all_reduce, 8, 8).gpus, ndv4(1))).channels == 0);
}

TEST_CASE("NCCL's estimate for ring LL on one A100 node, by hand") {
  const NcclTuner tuner(comm_shape(call_of(Op::all_reduce, 8, 8).gpus, ndv4(1)));
  // 6.6 + 14 hops x 0.6 us; bandwidth min(87.7, 240 / 2) GB/s bus, x 8/14 for the algorithm.
  const double bytes = 1 << 20;
  CHECK(*tuner.estimate_us(Op::all_reduce, NcclAlgo::ring, Protocol::ll, 1 << 20) ==
        test::Approx(6.6 + 14 * 0.6 + bytes / (1000 * 87.7 * 8 / 14)));
  CHECK(tuner.channels_used(NcclAlgo::ring, Protocol::ll, 1 << 20) == 12);
  CHECK(tuner.channels_used(NcclAlgo::ring, Protocol::ll, 64 << 10) == 2);  // 32 KiB per channel
  CHECK(tuner.channels_used(NcclAlgo::ring, Protocol::simple, 8) == 1);
}

TEST_CASE("what NCCL cannot run, and why") {
  const NcclTuner a100(comm_shape(call_of(Op::all_reduce, 8, 16).gpus, ndv4(2)));
  CHECK(a100.unavailable(Op::all_reduce, NcclAlgo::nvls, Protocol::simple).find("Hopper") != std::string::npos);
  CHECK(a100.unavailable(Op::all_gather, NcclAlgo::tree, Protocol::simple).find("Ring, PAT or NVLS") != std::string::npos);
  CHECK(a100.unavailable(Op::all_gather, NcclAlgo::pat, Protocol::simple).find("one GPU per node") != std::string::npos);
  CHECK(a100.unavailable(Op::broadcast, NcclAlgo::tree, Protocol::ll).find("ring only") != std::string::npos);
  CHECK(a100.unavailable(Op::all_reduce, NcclAlgo::ring, Protocol::ll128).empty());
  auto pcie = ndv4(1);
  pcie.intra_kind = platforms::LinkKind::pcie;
  const NcclTuner p(comm_shape(call_of(Op::all_reduce, 8, 8).gpus, pcie));
  CHECK(p.unavailable(Op::all_reduce, NcclAlgo::ring, Protocol::ll128).find("NVLink") != std::string::npos);
  const NcclTuner hopper(comm_shape(call_of(Op::all_reduce, 8, 8).gpus, h100(1)));
  CHECK(hopper.unavailable(Op::all_reduce, NcclAlgo::nvls, Protocol::simple).empty());
  CHECK(hopper.unavailable(Op::all_reduce, NcclAlgo::nvls, Protocol::ll).find("Simple") != std::string::npos);
}

TEST_CASE("the model chooses as NCCL does: small calls by latency, large ones by bandwidth") {
  const auto registry = AlgorithmRegistry::with_builtins();
  const auto platform = ndv4(2);
  const CollectiveModel model(platform, registry, {}, {});
  const Plan small = model.plan(call_of(Op::all_reduce, 1024, 16));
  CHECK(small.algorithm_name == "Tree");
  CHECK(small.protocol == Protocol::ll);
  CHECK(small.channels == 1);
  const Plan large = model.plan(call_of(Op::all_reduce, 1ull << 30, 16));
  CHECK(large.describe() == "Ring/Simple/8");
  CHECK(model.plan(call_of(Op::broadcast, 1 << 20, 16)).algorithm_name == "Ring");

  NcclSelection ring_only;
  ring_only.restrict_algorithms("ring", "test");
  ring_only.restrict_protocols("Simple", "test");
  const CollectiveModel forced(platform, registry, ring_only, {});
  CHECK(forced.plan(call_of(Op::all_reduce, 1024, 16)).describe() == "Ring/Simple/1");
}

TEST_CASE("a forced algorithm that cannot run says why, for each candidate") {
  const auto registry = AlgorithmRegistry::with_builtins();
  const auto platform = ndv4(1);
  NcclSelection nvls;
  nvls.restrict_algorithms("nvls", "--algo");
  const CollectiveModel model(platform, registry, nvls, {});
  const std::string e = echo::test::user_error_of([&] { model.plan(call_of(Op::all_reduce, 1 << 20, 8)); });
  CHECK(e.find("no allowed algorithm") != std::string::npos);
  CHECK(e.find("NVLS/Simple: NVLS needs NVLink SHARP") != std::string::npos);
}

TEST_CASE("calibration from platform properties, and what it changes") {
  auto platform = ndv4(1);
  const auto registry = AlgorithmRegistry::with_builtins();
  const auto call = call_of(Op::all_reduce, 1ull << 30, 8);
  const CollectiveModel nominal(platform, registry, {}, calibration_of(platform, "p"));
  platform.properties["nccl.efficiency.nvlink"] = "0.5";
  platform.properties["nccl.extra_hop_us.nvlink"] = "2";
  const Calibration c = calibration_of(platform, "p");
  CHECK(c.link_efficiency(platforms::LinkKind::nvlink) == 0.5);
  const CollectiveModel calibrated(platform, registry, {}, c);
  const Plan a = nominal.plan(call), b = calibrated.plan(call);
  CHECK(b.costs.algorithm_Bps == test::Approx(a.costs.algorithm_Bps * 0.5));
  CHECK(b.costs.hop(platforms::LinkKind::nvlink) == test::Approx(a.costs.hop(platforms::LinkKind::nvlink) + 2e-6));

  platform.properties["nccl.efficiency.net"] = "1.5";
  CHECK(echo::test::user_error_of([&] { calibration_of(platform, "p.xml"); }).find("nccl.efficiency.net") != std::string::npos);
  platform.properties["nccl.efficiency.net"] = "fast";
  CHECK(echo::test::user_error_of([&] { calibration_of(platform, "p.xml"); }).find("out of range") != std::string::npos);
  platform.properties["nccl.efficiency.net"] = "0.9";
  platform.properties["nccl.net_device_latency_us"] = "-75";
  CHECK(echo::test::user_error_of([&] { calibration_of(platform, "p.xml"); }).find("nccl.net_device_latency_us") != std::string::npos);
}

TEST_CASE("NVLSTree's efficiency defaults to NVLS's, and each applies to its own algorithm only") {
  auto platform = ndv4(1);
  platform.properties["nccl.efficiency.nvls"] = "0.8";
  Calibration c = calibration_of(platform, "p");
  CHECK(c.algorithm_efficiency(NcclAlgo::nvls) == 0.8);
  CHECK(c.algorithm_efficiency(NcclAlgo::nvls_tree) == 0.8);
  CHECK(c.algorithm_efficiency(NcclAlgo::ring) == 1.0);
  platform.properties["nccl.efficiency.nvls_tree"] = "0.7";
  c = calibration_of(platform, "p");
  CHECK(c.algorithm_efficiency(NcclAlgo::nvls) == 0.8);
  CHECK(c.algorithm_efficiency(NcclAlgo::nvls_tree) == 0.7);
  platform.properties["nccl.efficiency.nvls_tree"] = "0";
  CHECK(echo::test::user_error_of([&] { calibration_of(platform, "p.xml"); }).find("nccl.efficiency.nvls_tree") != std::string::npos);
}

TEST_CASE("an uncontended collective takes the same time in `analytic` and `steps`") {
  const auto registry = AlgorithmRegistry::with_builtins();
  for (const auto& platform : {ndv4(1), ndv4(2), ndv4(4), h100(2)}) {
    const CollectiveModel model(platform, registry, {}, calibration_of(platform, "p"));
    for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::broadcast, Op::reduce, Op::all_to_all})
      for (std::uint64_t bytes : {std::uint64_t{8} * platform.gpu_count(), std::uint64_t{1} << 20, std::uint64_t{1} << 31}) {
        CAPTURE(to_string(op));
        CAPTURE(bytes);
        CAPTURE(platform.nodes);
        const auto call = call_of(op, bytes, platform.gpu_count(), 1);
        const double steps = core::uncontended_time_s(core::time_call(model, call, true).schedule);
        const double analytic = core::uncontended_time_s(core::time_call(model, call, false).schedule);
        CHECK(steps == test::Approx(analytic).epsilon(1e-9));
      }
  }
}

TEST_CASE("communicators of one shape share a schedule key, and another node pattern, size or a route-reading algorithm does not") {
  const auto registry = AlgorithmRegistry::with_builtins();
  const auto platform = ndv4(8);
  const CollectiveModel model(platform, registry, {}, calibration_of(platform, "p"));
  // A data-parallel ring per pipeline stage: local GPU 0 of nodes 0-3, and of nodes 4-7.
  auto on = [&](std::vector<std::uint32_t> gpus, std::uint64_t bytes = 64 << 20, Op op = Op::all_reduce) {
    CollectiveCall c = call_of(op, bytes, static_cast<std::uint32_t>(gpus.size()));
    c.gpus = std::move(gpus);
    return c;
  };
  const auto key = [&](const CollectiveCall& c) { return shape_schedule_key(model.plan(c), c); };
  const auto first = on({0, 8, 16, 24}), second = on({32, 40, 48, 56});
  REQUIRE(key(first));
  CHECK(key(first) == key(second));
  // The same schedule, step for step: what sharing it assumes.
  const auto a = model.build(model.plan(first), first), b = model.build(model.plan(second), second);
  REQUIRE(a.steps().size() == b.steps().size());
  for (std::size_t i = 0; i < a.steps().size(); ++i) {
    CHECK(a.steps()[i].member == b.steps()[i].member);
    CHECK(a.steps()[i].peer == b.steps()[i].peer);
    CHECK(a.steps()[i].serialize_s == b.steps()[i].serialize_s);
    CHECK(a.steps()[i].latency_s == b.steps()[i].latency_s);
  }
  // Two members on one node, not one per node: other hops, another key.
  CHECK(key(on({0, 1, 8, 9})) != key(on({0, 8, 16, 24})));
  // Nodes numbered by first appearance: members interleaved over two nodes differ from grouped.
  CHECK(key(on({0, 8, 1, 9})) != key(on({0, 1, 8, 9})));
  CHECK(key(on({0, 8, 1, 9})) == key(on({16, 24, 17, 25})));
  CHECK(key(on({0, 8, 16, 24}, 32 << 20)) != key(first));
  CHECK(key(on({0, 8, 16, 24}, 64 << 20, Op::all_gather)) != key(first));
  // AllToAll's pairwise sends ask the platform for each pair's route: never shared.
  CHECK_FALSE(key(on({0, 8, 16, 24}, 64 << 20, Op::all_to_all)));
}

TEST_CASE("a researcher's algorithm runs where the algorithm list names it, and says why it cannot") {
  auto registry = AlgorithmRegistry::with_builtins();
  registry.add(std::make_unique<example::HalvingDoubling>());
  const auto platform = ndv4(1);
  NcclSelection selection;
  selection.restrict_algorithms("ring;allreduce:HalvingDoubling", "test", registry.names());
  const CollectiveModel model(platform, registry, selection, {});
  CHECK(model.plan(call_of(Op::all_reduce, 1 << 20, 8)).algorithm_name == "HalvingDoubling");
  CHECK(model.plan(call_of(Op::all_gather, 1 << 20, 8)).algorithm_name == "Ring");
  const std::string e = echo::test::user_error_of([&] { model.plan(call_of(Op::all_reduce, 1 << 20, 6)); });
  CHECK(e.find("HalvingDoubling needs a power-of-two number of ranks") != std::string::npos);
  // Without the list naming it, NCCL's own choice stands.
  const CollectiveModel plain(platform, registry, {}, {});
  CHECK(plain.plan(call_of(Op::all_reduce, 1 << 20, 8)).algorithm_name != "HalvingDoubling");
}

TEST_CASE("Hopper: NVLS on one node and NVLSTree across nodes for large AllReduce, PAT with one GPU per node") {
  const auto registry = AlgorithmRegistry::with_builtins();
  const auto one = h100(1), two = h100(2);
  CHECK(CollectiveModel(one, registry, {}, {}).plan(call_of(Op::all_reduce, 1ull << 30, 8)).describe() == "NVLS/Simple/16");
  CHECK(CollectiveModel(two, registry, {}, {}).plan(call_of(Op::all_reduce, 1ull << 30, 16)).algorithm_name == "NVLSTree");
  auto single = h100(8);
  single.gpus_per_node = 1;
  single.nics = 1;
  CHECK(CollectiveModel(single, registry, {}, {}).plan(call_of(Op::all_gather, 1 << 20, 8)).algorithm_name == "PAT");
}

TEST_CASE("an older NCCL release has no NVLS before 2.17, no NVLSTree before 2.18 and no PAT before 2.23") {
  const auto registry = AlgorithmRegistry::with_builtins();
  auto at = [&](const test::FakePlatform& platform, const char* version) {
    NcclSelection selection;
    selection.set_nccl_version(*parse_nccl_version(version));
    return CollectiveModel(platform, registry, selection, {});
  };
  auto single = h100(8);
  single.gpus_per_node = 1;
  single.nics = 1;
  CHECK(at(h100(1), "2.17").plan(call_of(Op::all_reduce, 1ull << 30, 8)).algorithm_name == "NVLS");
  CHECK(at(h100(1), "2.16.5-1").plan(call_of(Op::all_reduce, 1ull << 30, 8)).algorithm_name == "Ring");
  CHECK(at(h100(2), "2.18.3").plan(call_of(Op::all_reduce, 1ull << 30, 16)).algorithm_name == "NVLSTree");
  CHECK(at(h100(2), "2.17").plan(call_of(Op::all_reduce, 1ull << 30, 16)).algorithm_name != "NVLSTree");
  CHECK(at(single, "2.23").plan(call_of(Op::all_gather, 1 << 20, 8)).algorithm_name == "PAT");
  CHECK(at(single, "2.22").plan(call_of(Op::all_gather, 1 << 20, 8)).algorithm_name != "PAT");
  // Forced onto an algorithm the release does not have: the reason is the release.
  NcclSelection forced;
  forced.restrict_algorithms("pat", "test");
  forced.set_nccl_version(*parse_nccl_version("2.21"));
  CHECK_THROWS_WITH_AS(CollectiveModel(single, registry, forced, {}).plan(call_of(Op::all_gather, 1 << 20, 8)),
                       doctest::Contains("PAT needs NCCL 2.23 or newer (nccl_version is 2.21)"), UserError);
  // Releases the model does not know.
  for (const char* bad : {"2.31", "2.11", "3.0", "2", "2.18.", "2.18.3-", "v2.18", "2.18x", "", "2.-18", "2.18.-3", "2.18.+3"})
    CHECK_MESSAGE(!parse_nccl_version(bad).has_value(), bad);
}

TEST_CASE("every built-in schedule runs alone in its closed-form time (or the analytic barrier of it)") {
  auto registry = AlgorithmRegistry::with_builtins();
  struct Case {
    test::FakePlatform platform;
    Op op;
    std::string algo;
  };
  auto single = h100(8);
  single.gpus_per_node = 1;
  single.nics = 1;
  for (const Case& c : {Case{h100(1), Op::all_reduce, "nvls"}, Case{h100(1), Op::all_gather, "nvls"},
                        Case{h100(1), Op::reduce_scatter, "nvls"}, Case{h100(4), Op::all_reduce, "nvlstree"},
                        Case{single, Op::all_gather, "pat"}, Case{single, Op::reduce_scatter, "pat"},
                        Case{ndv4(4), Op::all_reduce, "ring;allreduce:Hierarchical"}, Case{ndv4(3), Op::all_reduce, "tree"}}) {
    CAPTURE(c.algo);
    CAPTURE(to_string(c.op));
    NcclSelection selection;
    selection.restrict_algorithms(c.algo, "test", registry.names());
    const CollectiveModel model(c.platform, registry, selection, calibration_of(c.platform, "p"));
    for (std::uint64_t bytes : {std::uint64_t{4096} * c.platform.gpu_count(), std::uint64_t{1} << 30}) {
      const auto call = call_of(c.op, bytes, c.platform.gpu_count());
      const auto timed = core::time_call(model, call, true);
      CHECK(timed.plan.algorithm->name().size() > 0);
      const double steps = core::uncontended_time_s(timed.schedule);
      const double analytic = core::uncontended_time_s(core::time_call(model, call, false).schedule);
      CHECK(steps == test::Approx(analytic).epsilon(1e-9));
      CHECK(steps > 0);
    }
  }
}

TEST_CASE("a schedule too large to hold runs at analytic fidelity, and says so") {
  auto big = ndv4(256);  // 2,048 GPUs: a world ring AllReduce would be 8.4 M steps
  const auto registry = AlgorithmRegistry::with_builtins();
  NcclSelection ring;
  ring.restrict_algorithms("ring", "test");
  const CollectiveModel model(big, registry, ring, calibration_of(big, "p"));
  const auto call = call_of(Op::all_reduce, 1ull << 30, 2048);
  const auto timed = core::time_call(model, call, true);
  CHECK(timed.too_large_for_steps);
  CHECK(timed.schedule.is_barrier());
  CHECK(timed.schedule.barrier_s() == test::Approx(*model.closed_form_s(timed.plan, call)));
  // Below the limit the schedule is built.
  CHECK_FALSE(core::time_call(model, call_of(Op::all_reduce, 1ull << 30, 64), true).too_large_for_steps);
}

TEST_CASE("AllToAll's closed form is its schedule's time, inside and across nodes") {
  const auto registry = AlgorithmRegistry::with_builtins();
  for (const auto& platform : {ndv4(1), ndv4(3)}) {
    const CollectiveModel model(platform, registry, {}, calibration_of(platform, "p"));
    const auto call = call_of(Op::all_to_all, 3 << 20, platform.gpu_count());
    const double steps = core::uncontended_time_s(core::time_call(model, call, true).schedule);
    CHECK(steps == test::Approx(*model.closed_form_s(model.plan(call), call)).epsilon(1e-12));
  }
}

TEST_CASE("p2p channels: what NCCL gives one peer, by release and communicator size") {
  // H100 nodes with one 400 Gb/s NIC per GPU, 10 nodes, 1 / 2 / 4 / 8 GPUs per node (the shapes of
  // the 10-node SendRecv tables). Worked from NCCL 2.29's paths.cc by hand: the ring graph's
  // channels doubled (4 / 8 / 16 / 16 for the communicator), to a power of two for p2p; 4 per
  // network peer (50 GB/s at 14 a channel), halved until every peer fits one round of 8 a channel.
  auto shape_of = [](std::uint32_t per_node) {
    test::FakePlatform p = h100(10);
    p.gpus_per_node = per_node;
    p.nics = per_node;
    return comm_shape(call_of(Op::send_recv, per_node, 10 * per_node).gpus, p);
  };
  const NcclVersion v229{2, 29}, v219{2, 19}, v225{2, 25};
  CHECK(comm_channels(shape_of(1)) == 4);
  CHECK(comm_channels(shape_of(8)) == 16);
  CHECK(p2p_channels_per_peer(shape_of(1), v229) == 2);   // 4 x ceil(10/8) > 4
  CHECK(p2p_channels_per_peer(shape_of(2), v229) == 2);   // 2 x 3 <= 8
  CHECK(p2p_channels_per_peer(shape_of(4), v229) == 2);   // 2 x 5 <= 16
  CHECK(p2p_channels_per_peer(shape_of(8), v229) == 1);   // 2 x 10 > 16
  CHECK(p2p_channels_per_peer(shape_of(8), v219) == 2);   // NCCL_NCHANNELS_PER_NET_PEER
  CHECK(p2p_channels_per_peer(shape_of(8), v225) == 1);   // 2 x 80 > 4 x 16: halved
  // Per call: a small message runs on one channel, a large one on all the peer's.
  CHECK(p2p_channels_for(4096, shape_of(1), v229) == 1);
  CHECK(p2p_channels_for(1 << 30, shape_of(1), v229) == 2);
  // One node: two channels per NVLink between the GPUs, up to the communicator's p2p channels.
  const CommShape node = comm_shape(call_of(Op::send_recv, 8, 8).gpus, h100(1));
  CHECK(p2p_channels_per_peer(node, v229) == p2p_channels(node));
}

TEST_CASE("a send/recv between nodes goes as fast as its channels, a collective fills the NIC") {
  test::FakePlatform p = h100(2);
  p.gpus_per_node = 1;
  p.nics = 1;
  p.properties["nccl.p2p_channel_bw.net"] = "10";
  const auto algorithms = AlgorithmRegistry::with_builtins();
  const CollectiveModel model(p, algorithms, NcclSelection{}, calibration_of(p, "test"));
  const std::uint64_t bytes = 1ull << 30;
  auto call = call_of(Op::send_recv, 1, 2);
  call.bytes = bytes;
  const CommShape shape = comm_shape(call.gpus, p);
  const std::uint32_t channels = p2p_channels_for(bytes, shape, NcclVersion{});
  const Plan plan = model.plan(call);
  const double s = *model.closed_form_s(plan, call);
  CHECK(bytes / s == test::Approx(channels * 10e9).epsilon(0.01));
  // Unset, the NIC is the limit.
  test::FakePlatform open = p;
  open.properties.erase("nccl.p2p_channel_bw.net");
  const CollectiveModel unlimited(open, algorithms, NcclSelection{}, calibration_of(open, "test"));
  CHECK(bytes / *unlimited.closed_form_s(unlimited.plan(call), call) == test::Approx(50e9).epsilon(0.01));
  // AllToAll between the two nodes: one peer, the same channels.
  auto a2a = call_of(Op::all_to_all, 1, 2);
  a2a.bytes = 2 * bytes;
  CHECK(bytes / *model.closed_form_s(model.plan(a2a), a2a) == test::Approx(channels * 10e9).epsilon(0.01));
}

TEST_CASE("AllToAll across nodes: the parts NCCL puts on its busiest p2p channel, by release") {
  // 10 nodes of 1 GPU, 2 parts per peer on 4 channels (the 10-node H100 table). Worked by hand in
  // every release's way: the nine remote rounds' bases are 2, 1, 3, 0, 2, 1, 3, 0, 2 (mirrored:
  // 2.21, 2.28, 2.29) or 1..9 with the parts mirrored (2.22-2.27), so the channels carry 4, 4, 5,
  // 5 parts: 18 parts, the busiest 5.
  CommShape ten;
  ten.ranks = ten.nodes = 10;
  ten.ppn = 1;
  for (NcclVersion v : {NcclVersion{2, 21}, NcclVersion{2, 26}, NcclVersion{2, 28}, NcclVersion{2, 29}}) {
    CAPTURE(v.str());
    CHECK(all_to_all_network_channels(ten, 2, 4, v) == test::Approx(3.6));
  }
  // 8 GPUs a node, one part per peer on 16 channels: the nine remote nodes land on nine channels,
  // eight parts each (every GPU of a node on the same channel): even.
  CommShape eighty = ten;
  eighty.ranks = 80;
  eighty.ppn = 8;
  CHECK(all_to_all_network_channels(eighty, 1, 16, NcclVersion{2, 29}) == test::Approx(9.0));
  // Six nodes of 1 GPU on 4 channels, a part a peer: five parts, one channel carries two.
  CommShape six = ten;
  six.ranks = six.nodes = 6;
  CHECK(all_to_all_network_channels(six, 1, 4, NcclVersion{2, 29}) == test::Approx(2.5));
  // 16 GPUs a node: NCCL 2.29 schedules groups of 8, two per node, and skips the group on its own
  // node; each remote group's eight rounds share a channel: 16 parts on two channels.
  CommShape wide = ten;
  wide.ranks = 32;
  wide.nodes = 2;
  wide.ppn = 16;
  CHECK(all_to_all_network_channels(wide, 1, 16, NcclVersion{2, 29}) == test::Approx(2.0));
  CHECK(all_to_all_network_channels(wide, 1, 16, NcclVersion{2, 28}) == test::Approx(2.0));
  // One node: nothing crosses the network.
  CommShape one = ten;
  one.nodes = 1;
  CHECK(all_to_all_network_channels(one, 2, 4, NcclVersion{2, 29}) == 0.0);
}

TEST_CASE("AllToAll across nodes runs at its busiest channel's pace, and at the NICs' all-to-all share") {
  const auto registry = AlgorithmRegistry::with_builtins();
  const std::uint64_t bytes = 16ull << 30;
  const auto network_rate = [&](std::uint32_t per_node, const char* all_to_all_efficiency) {
    test::FakePlatform p = h100(10);
    p.gpus_per_node = per_node;
    p.nics = per_node;
    p.properties["nccl.p2p_channel_bw.net"] = "12.4";
    if (all_to_all_efficiency != nullptr)
      p.properties["nccl.efficiency.all_to_all"] = all_to_all_efficiency;
    const CollectiveModel model(p, registry, NcclSelection{}, calibration_of(p, "test"));
    auto call = call_of(Op::all_to_all, 1, 10 * per_node);
    call.bytes = bytes;
    // A GPU sends nine tenths of its buffer to other nodes.
    return 0.9 * static_cast<double>(bytes) / *model.closed_form_s(model.plan(call), call);
  };
  // One GPU a node: 3.6 channels of 12.4 GB/s (the NIC, 50, does not bind); was 4 channels' worth.
  CHECK(network_rate(1, nullptr) == test::Approx(3.6 * 12.4e9).epsilon(0.01));
  // Eight a node: nine channels would move 112 GB/s; the GPU's own NIC binds, at the all-to-all share.
  CHECK(network_rate(8, nullptr) == test::Approx(50e9).epsilon(0.02));
  CHECK(network_rate(8, "0.9") == test::Approx(45e9).epsilon(0.02));
}

TEST_CASE("AllToAll and send/recv pay the proxy's set-up once per peer across nodes") {
  const auto registry = AlgorithmRegistry::with_builtins();
  // The extra time of a small call with 10 us per peer across nodes over the same call without.
  const auto extra_s = [&](Op op, std::uint32_t nodes, std::uint32_t per_node, std::uint32_t gpus) {
    test::FakePlatform p = ndv4(nodes);
    p.gpus_per_node = per_node;
    const CollectiveModel plain(p, registry, NcclSelection{}, calibration_of(p, "test"));
    p.properties["nccl.p2p_peer_us.net"] = "10";
    const CollectiveModel set_up(p, registry, NcclSelection{}, calibration_of(p, "test"));
    const auto call = call_of(op, 4096, gpus);
    return *set_up.closed_form_s(set_up.plan(call), call) - *plain.closed_form_s(plain.plan(call), call);
  };
  CHECK(extra_s(Op::all_to_all, 2, 4, 8) == test::Approx(4 * 10e-6));    // four peers on the other node
  CHECK(extra_s(Op::all_to_all, 8, 4, 32) == test::Approx(28 * 10e-6));  // 28 on seven others
  CHECK(extra_s(Op::all_to_all, 1, 8, 8) == test::Approx(0.0));          // none across nodes
  CHECK(extra_s(Op::send_recv, 2, 1, 2) == test::Approx(10e-6));
  CHECK(extra_s(Op::send_recv, 1, 8, 2) == test::Approx(0.0));
  CHECK(extra_s(Op::all_reduce, 2, 4, 8) == test::Approx(0.0));  // collectives have their own latencies

  test::FakePlatform bad = ndv4(2);
  bad.properties["nccl.p2p_peer_us.net"] = "-3";
  CHECK(echo::test::user_error_of([&] { calibration_of(bad, "p.xml"); }).find("nccl.p2p_peer_us.net") != std::string::npos);
}

TEST_CASE("p2p channels: messages of 4 GiB and more keep every channel") {
  test::FakePlatform p = h100(10);
  p.gpus_per_node = 1;
  p.nics = 1;
  const CommShape shape = comm_shape(call_of(Op::send_recv, 1, 10).gpus, p);
  for (std::uint64_t bytes : {1ull << 30, 1ull << 32, 17179869184ull, 1ull << 40})
    CHECK(p2p_channels_for(bytes, shape, NcclVersion{}) == 2);
}

TEST_CASE("NCCL_MIN_CTAS and NCCL_MAX_CTAS bound the channels as NCCL's set-up does") {
  // 10 H100 nodes of 8 GPUs, a NIC each: the ring graph's 8 channels doubled at set-up (16).
  const test::FakePlatform p = h100(10);
  const CommShape shape = comm_shape(call_of(Op::all_gather, 8, 80).gpus, p);
  CHECK(comm_channels(shape) == 16);
  CHECK(comm_channels(shape, CtaLimits{24, 64}) == 24);  // copied up to the minimum
  CHECK(comm_channels(shape, CtaLimits{1, 4}) == 4);     // cut to the maximum
  CHECK(comm_channels(shape, CtaLimits{24, 8}) == 8);    // a minimum above the maximum becomes it
  CHECK(comm_channels(shape, CtaLimits{100, 200}) == 64);  // MAXCHANNELS
  CHECK(p2p_channels(shape, CtaLimits{24, 64}) == 32);     // p2p: to a power of two
  CHECK(CtaLimits{24, 64}.clamp(16) == 24);                // NVLS's 16 channels, clamped alike
  CHECK(CtaLimits{}.is_default());
}

TEST_CASE("a collective channel's network rate holds back a NIC that carries few CTAs") {
  // nccl.coll_channel_bw.net 20 GB/s: with 8 GPUs per node NCCL runs two CTAs per 50 GB/s NIC, so
  // the NIC moves 40; with NCCL_MIN_CTAS=24 three (60: the NIC binds again); with 4 GPUs per node
  // the ring's channels are doubled twice over 4 NICs (four CTAs each: the NIC binds).
  const auto registry = AlgorithmRegistry::with_builtins();
  NcclSelection ring;
  ring.restrict_algorithms("ring", "test");
  ring.restrict_protocols("simple", "test");
  const auto bandwidth = [&](std::uint32_t per_node, double cap, CtaLimits limits) {
    test::FakePlatform p = h100(10);
    p.gpus_per_node = per_node;
    p.nics = per_node;
    if (cap > 0)
      p.properties["nccl.coll_channel_bw.net"] = std::to_string(cap);
    NcclSelection s = ring;
    s.set_cta_limits(limits);
    const CollectiveModel model(p, registry, s, calibration_of(p, "test"));
    return model.plan(call_of(Op::all_gather, 16ull << 30, 10 * per_node)).costs.algorithm_Bps;
  };
  // Uncapped, the ring is bound by the node's NVLink (370.8 GB/s over its 8 channels), not the
  // NICs (8 x 50); capped, by the NICs at two CTAs each. A ring AllGather's algorithm bandwidth is
  // its bus bandwidth times n / (n - 1).
  const double ring_factor = 80.0 / 79.0;
  CHECK(bandwidth(8, 0, {}) == test::Approx(370.8e9 * ring_factor));
  CHECK(bandwidth(8, 20, {}) == test::Approx(8 * 40e9 * ring_factor));
  CHECK(bandwidth(8, 10, {}) == test::Approx(8 * 20e9 * ring_factor));
  CHECK(bandwidth(8, 20, CtaLimits{24, 64}) == test::Approx(bandwidth(8, 0, {})));
  CHECK(bandwidth(4, 20, {}) == test::Approx(bandwidth(4, 0, {})));
}

TEST_CASE("NCCL's net overhead: 1 us a ring step on Intel hosts, 2 on AMD ones, x3 for Simple") {
  // Eight nodes of one GPU: 7 ring steps of an AllGather, every one across nodes; on two nodes of
  // four, 7 steps of which 1 crosses (NCCL's count), the other 6 paying max(NVLink, overhead).
  auto amd = ndv4(2), intel = ndv4(2);
  amd.gpus_per_node = intel.gpus_per_node = 4;
  intel.properties["cpu"] = "intel";
  const auto gpus = call_of(Op::all_gather, 1 << 20, 8).gpus;
  const NcclTuner on_amd(comm_shape(gpus, amd)), on_intel(comm_shape(gpus, intel));
  CHECK(on_amd.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::ll) ==
        test::Approx(on_intel.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::ll) + 6 * (2.0 - 1.0)));
  CHECK(on_amd.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::simple) ==
        test::Approx(on_intel.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::simple) + 6 * (6.0 - 3.4)));
}

TEST_CASE("the network device's reported latency: NCCL's tuner counts it on every network hop") {
  // Two nodes of four: an AllGather ring crosses once, an AllReduce ring twice (2.23 on) or four
  // times (2 x nodes, up to 2.22); the tree AllReduce log2(2) = 1 hop each way.
  auto plain = ndv4(2), plugin = ndv4(2);
  plain.gpus_per_node = plugin.gpus_per_node = 4;
  plugin.properties["nccl.net_device_latency_us"] = "75";
  const auto gpus = call_of(Op::all_gather, 1 << 20, 8).gpus;
  const CommShape with = comm_shape(gpus, plugin), without = comm_shape(gpus, plain);
  CHECK(with.net_device_latency_us == 75.0);
  const NcclTuner a(with), b(without);
  const auto extra = [&](const NcclTuner& x, const NcclTuner& y, Op op, NcclAlgo al, Protocol pr) {
    return x.latency_us(op, al, pr) - y.latency_us(op, al, pr);
  };
  CHECK(extra(a, b, Op::all_gather, NcclAlgo::ring, Protocol::ll) == test::Approx(75.0));
  CHECK(extra(a, b, Op::all_gather, NcclAlgo::ring, Protocol::simple) == test::Approx(150.0));  // the flush
  CHECK(extra(a, b, Op::all_reduce, NcclAlgo::ring, Protocol::ll128) == test::Approx(2 * 75.0));
  CHECK(extra(a, b, Op::all_reduce, NcclAlgo::tree, Protocol::ll) == test::Approx(2 * 75.0));
  // Before 2.18 the device's latency stood in for the hop's own; up to 2.22 a ring AllReduce
  // counted 2 x nodes network steps.
  const NcclTuner a17(with, {2, 17}), b17(without, {2, 17}), b22(without, {2, 22}), b23(without, {2, 23});
  CHECK(a17.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::ll) - b17.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::ll) ==
        test::Approx(75.0 - 2.7));  // NCCL's ring LL network hop, replaced
  const auto net_steps = [](const NcclTuner& t) {
    return t.latency_us(Op::all_reduce, NcclAlgo::ring, Protocol::ll128) - t.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::ll128);
  };
  // AllReduce's 14 steps against AllGather's 7: 2.22 counts two more of them across the network
  // (4 against 2), each 4 us (LL128) instead of the 2 us an NVLink step costs on an AMD host (its
  // net overhead).
  CHECK(net_steps(b22) - net_steps(b23) == test::Approx(2 * (4.0 - 2.0)));
  // One GPU a node: from 2.23 a ring's network hop is reckoned at Tree's figure (5 us for LL
  // against the ring's 2.7); 8 nodes, an AllGather's 7 steps all across the network.
  auto single = ndv4(8);
  single.gpus_per_node = 1;
  const CommShape one = comm_shape(call_of(Op::all_gather, 1 << 20, 8).gpus, single);
  const NcclTuner one22(one, {2, 22}), one23(one, {2, 23});
  CHECK(one23.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::ll) - one22.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::ll) ==
        test::Approx(7 * (5.0 - 2.7)));
}

TEST_CASE("a calibrated net overhead is what every intra-node step of an inter-node ring costs at least") {
  const auto registry = AlgorithmRegistry::with_builtins();
  auto p = ndv4(2);
  p.gpus_per_node = 4;
  const auto call = call_of(Op::all_gather, 1 << 20, 8);
  NcclSelection ring_ll, ring_simple;
  ring_ll.restrict_protocols("LL", "test");
  ring_simple.restrict_protocols("Simple", "test");
  const auto hop_us = [&](const NcclSelection& s, const char* overhead) {
    auto q = p;
    if (overhead != nullptr)
      q.properties["nccl.net_overhead_us"] = overhead;
    const CollectiveModel m(q, registry, s, calibration_of(q, "test"));
    return m.plan(call).costs.hop(platforms::LinkKind::nvlink) * 1e6;
  };
  // Unset: NCCL's Intel figure as the cost on every host (the InfiniBand tables of AMD hosts fit it).
  CHECK(hop_us(ring_ll, nullptr) == test::Approx(1.0));
  CHECK(hop_us(ring_simple, nullptr) == test::Approx(3.4));  // NVLink's own Simple hop is longer than 3 x 1
  CHECK(hop_us(ring_ll, "8") == test::Approx(8.0));
  CHECK(hop_us(ring_simple, "8") == test::Approx(24.0));
  // One node: no network, no overhead.
  auto one = ndv4(1);
  one.properties["nccl.net_overhead_us"] = "8";
  const CollectiveModel single(one, registry, ring_ll, calibration_of(one, "test"));
  CHECK(single.plan(call_of(Op::all_gather, 1 << 20, 8)).costs.hop(platforms::LinkKind::nvlink) * 1e6 < 1.0);

  auto bad = ndv4(2);
  bad.properties["nccl.net_overhead_us"] = "-1";
  CHECK(echo::test::user_error_of([&] { calibration_of(bad, "p.xml"); }).find("nccl.net_overhead_us") != std::string::npos);
}

TEST_CASE("a ring waits for each channel's last copy into the output, so one node's bus bandwidth rises with the GPU count") {
  const auto registry = AlgorithmRegistry::with_builtins();
  NcclSelection ring_simple;
  ring_simple.restrict_algorithms("ring", "test");
  ring_simple.restrict_protocols("Simple", "test");
  constexpr std::uint64_t bytes = 1ull << 30;
  struct Timed {
    double closed_form_s, steps_s;
    std::uint32_t channels;
  };
  const auto timed = [&](const char* copy_GBps, std::uint32_t n) {
    auto q = ndv4(1);
    q.properties["nccl.tail_copy_bw.ring"] = copy_GBps;
    const CollectiveModel m(q, registry, ring_simple, calibration_of(q, "test"));
    const auto call = call_of(Op::all_reduce, bytes, n);
    const Plan plan = m.plan(call);
    return Timed{*m.closed_form_s(plan, call), core::uncontended_time_s(core::time_call(m, call, true).schedule), plan.channels};
  };
  const auto bus_GBps = [&](const Timed& t, std::uint32_t n) { return bytes * 2.0 * (n - 1) / n / t.closed_form_s / 1e9; };
  std::vector<double> with, without;
  for (std::uint32_t n : {2u, 4u, 8u}) {
    CAPTURE(n);
    const Timed tail = timed("50", n), none = timed("0", n);
    // The member's share of the data, each channel copying its part at 50 GB/s.
    CHECK(tail.closed_form_s - none.closed_form_s == test::Approx(static_cast<double>(bytes / n) / tail.channels / 50e9).epsilon(1e-6));
    CHECK(tail.steps_s == test::Approx(tail.closed_form_s).epsilon(1e-9));
    with.push_back(bus_GBps(tail, n));
    without.push_back(bus_GBps(none, n));
  }
  CHECK(with[0] < with[1]);
  CHECK(with[1] < with[2]);
  CHECK(without[0] == test::Approx(without[2]).epsilon(0.005));  // links busy all the time: one figure
  auto bad = ndv4(1);
  bad.properties["nccl.tail_copy_bw.ring"] = "-5";
  CHECK(echo::test::user_error_of([&] { calibration_of(bad, "p.xml"); }).find("nccl.tail_copy_bw.ring") != std::string::npos);
}

TEST_CASE("LL128 across nodes only where a GPU reaches its NIC through PCIe switches") {
  const auto gpus = call_of(Op::all_reduce, 1 << 20, 16).gpus;
  auto behind_switches = ndv4(2), through_host = ndv4(2);
  through_host.properties["gpu_nic_path"] = "phb";
  CHECK(NcclTuner(comm_shape(gpus, behind_switches)).unavailable(Op::all_reduce, NcclAlgo::ring, Protocol::ll128).empty());
  const std::string why = NcclTuner(comm_shape(gpus, through_host)).unavailable(Op::all_reduce, NcclAlgo::ring, Protocol::ll128);
  CHECK(why.find("PCIe switches") != std::string::npos);
  // Inside one node the NIC is not on the way.
  auto one = ndv4(1);
  one.properties["gpu_nic_path"] = "phb";
  CHECK(NcclTuner(comm_shape(call_of(Op::all_reduce, 1 << 20, 8).gpus, one))
            .unavailable(Op::all_reduce, NcclAlgo::ring, Protocol::ll128).empty());
  // The model never picks it there.
  const auto registry = AlgorithmRegistry::with_builtins();
  for (std::uint64_t bytes = 1 << 10; bytes <= (1ull << 30); bytes <<= 2)
    CHECK(CollectiveModel(through_host, registry, {}, calibration_of(through_host, "t")).plan(call_of(Op::all_reduce, bytes, 16)).protocol !=
          Protocol::ll128);

  auto bad = ndv4(2);
  bad.properties["gpu_nic_path"] = "nvlink";
  const std::string e = echo::test::user_error_of([&] { calibration_of(bad, "p.xml"); });
  CHECK(e.find("gpu_nic_path") != std::string::npos);
  CHECK(e.find("p.xml") != std::string::npos);
}

TEST_CASE("NCCL_PROTO naming LL128 runs it past the hardware checks, as NCCL's tuning.cc does") {
  // NCCL checks the GPUs' and NICs' paths only for LL128's default ("2"); a protocol list makes
  // every protocol of the functions it names explicit, so "LL128" and "^LL" both enable it there.
  auto through_host = ndv4(2);
  through_host.properties["gpu_nic_path"] = "phb";
  const auto registry = AlgorithmRegistry::with_builtins();
  const auto call = call_of(Op::all_reduce, 1 << 20, 16);
  auto plan_with = [&](const std::string& protocols) {
    NcclSelection s;
    s.restrict_protocols(protocols, "NCCL_PROTO");
    return CollectiveModel(through_host, registry, s, calibration_of(through_host, "t")).plan(call);
  };
  CHECK(plan_with("LL128").protocol == Protocol::ll128);  // was refused: no algorithm left
  NcclSelection except_ll;
  except_ll.restrict_protocols("^LL", "NCCL_PROTO");
  CHECK(except_ll.protocols_given(Op::all_reduce));
  // A list for AllReduce alone leaves the other functions' LL128 to the hardware check.
  NcclSelection allreduce_only;
  allreduce_only.restrict_protocols("allreduce:LL128", "NCCL_PROTO");
  CHECK(allreduce_only.protocols_given(Op::all_reduce));
  CHECK_FALSE(allreduce_only.protocols_given(Op::all_gather));
  CHECK_FALSE(NcclSelection().protocols_given(Op::all_reduce));
  // "^LL128" leaves it off.
  CHECK(plan_with("^LL128").protocol != Protocol::ll128);
}

TEST_CASE("NCCL's tuning constants by release: what steers the choice changed, what the hardware does did not") {
  auto p = ndv4(4);
  p.gpus_per_node = 4;
  p.nic_Bps = 5e9;  // slow enough that NCCL's LL cap does not bind
  const auto gpus = call_of(Op::all_gather, 1 << 20, 16).gpus;
  const CommShape shape = comm_shape(gpus, p);
  const NcclTuner v2_18(shape, {2, 18}), v2_21(shape, {2, 21}), v2_23(shape, {2, 23}), newest(shape);
  // Ring LL across nodes: a quarter of the graph's bandwidth up to 2.20, half from 2.21.
  const std::uint64_t big = 64 << 20;
  const auto ll_us = [&](const NcclTuner& t) {
    return *t.estimate_us(Op::all_gather, NcclAlgo::ring, Protocol::ll, big) - t.latency_us(Op::all_gather, NcclAlgo::ring, Protocol::ll);
  };
  CHECK(ll_us(v2_18) == test::Approx(2 * ll_us(v2_21)));
  CHECK(ll_us(v2_21) == test::Approx(ll_us(newest)));
  // Tree Simple: 28 us a hop in 2.19-2.22, 14 across nodes in 2.18 and from 2.23, where its base latency became 8.4.
  const auto tree_simple = [&](const NcclTuner& t) { return t.latency_us(Op::all_reduce, NcclAlgo::tree, Protocol::simple); };
  // 2 x ((4 - 1) intra + log2(4) inter) hops
  CHECK(tree_simple(v2_21) == test::Approx(0.0 + 2 * (3 * 28 + 2 * 28)));
  CHECK(tree_simple(v2_18) == test::Approx(0.0 + 2 * (3 * 4 + 2 * 14)));
  CHECK(tree_simple(v2_23) == test::Approx(8.4 + 2 * (3 * 4.0 + 2 * 14)));
  // So 2.18 leaves LL earlier on a multi-node AllGather, as ALCF's Polaris runs show.
  const auto registry = AlgorithmRegistry::with_builtins();
  const auto last_ll = [&](int minor) {
    NcclSelection s;
    s.set_nccl_version({2, minor});
    const CollectiveModel m(p, registry, s, calibration_of(p, "t"));
    for (std::uint64_t bytes = 1 << 12;; bytes <<= 1)
      if (m.plan(call_of(Op::all_gather, bytes, 16)).protocol != Protocol::ll)
        return bytes / 2;
  };
  CHECK(last_ll(18) < last_ll(21));
  // The time of a given pick does not depend on the release.
  NcclSelection ring_simple_18, ring_simple_21;
  for (auto* s : {&ring_simple_18, &ring_simple_21}) {
    s->restrict_algorithms("ring", "t");
    s->restrict_protocols("Simple", "t");
  }
  ring_simple_18.set_nccl_version({2, 18});
  ring_simple_21.set_nccl_version({2, 21});
  const auto call = call_of(Op::all_gather, 1 << 20, 16);
  const CollectiveModel a(p, registry, ring_simple_18, {}), b(p, registry, ring_simple_21, {});
  CHECK(*a.closed_form_s(a.plan(call), call) == test::Approx(*b.closed_form_s(b.plan(call), call)));
}

TEST_CASE("NVLS AllReduce: a GPU's NVLinks carry S (1 + 1/n) each way, so 4 GPUs are slower than 8") {
  const auto registry = AlgorithmRegistry::with_builtins();
  NcclSelection nvls;
  nvls.restrict_algorithms("nvls", "t");
  const auto time_s = [&](std::uint32_t gpus) {
    auto p = h100(1);
    const CollectiveModel m(p, registry, nvls, calibration_of(p, "t"));
    const auto call = call_of(Op::all_reduce, 1ull << 30, gpus);
    return *m.closed_form_s(m.plan(call), call);
  };
  // Measured on an H100 node (xxrjun's single-node runs, 1 GiB): 4,508 us on 4 GPUs, 4,001 on 8.
  CHECK(time_s(4) / time_s(8) == test::Approx((1.0 + 1.0 / 4) / (1.0 + 1.0 / 8)).epsilon(0.01));
  // NCCL's own formula, which still picks the algorithm, says the opposite: fewer GPUs, less to do.
  const NcclTuner four(comm_shape(call_of(Op::all_reduce, 1, 4).gpus, h100(1))), eight(comm_shape(call_of(Op::all_reduce, 1, 8).gpus, h100(1)));
  CHECK(*four.estimate_us(Op::all_reduce, NcclAlgo::nvls, Protocol::simple, 1ull << 30) <
        *eight.estimate_us(Op::all_reduce, NcclAlgo::nvls, Protocol::simple, 1ull << 30));
}

TEST_CASE("a network model that shares the links out of a pod itself gets schedules that leave them be") {
  const auto registry = AlgorithmRegistry::with_builtins();
  const auto platform = h100(2);
  const auto call = call_of(Op::all_to_all, 1 << 20, 16);
  CHECK(CollectiveModel(platform, registry, {}, {}).plan(call).costs.split_group_exits);
  CHECK_FALSE(CollectiveModel(platform, registry, {}, {}, true).plan(call).costs.split_group_exits);
  CHECK(core::network::NetworkModelRegistry::global().require("flow", "t").shares_group_exits);
  CHECK_FALSE(core::network::NetworkModelRegistry::global().require("steps", "t").shares_group_exits);
}
