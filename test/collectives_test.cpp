// Schedules of the first collective model, timed with ScheduleRun (no SimGrid needed).
#include "base/user_error.hpp"
#include "collectives/algorithm.hpp"
#include "collectives/ring.hpp"
#include "core/schedule_run.hpp"
#include "support/uniform_routes.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

using namespace echo;
using collectives::CollectiveCall;
using collectives::Op;

namespace {

CollectiveCall call_of(Op op, std::uint64_t bytes, std::uint32_t n, std::uint32_t root = 0) {
  CollectiveCall c;
  c.op = op;
  c.bytes = bytes;
  c.root = root;
  c.gpus.resize(n);
  std::iota(c.gpus.begin(), c.gpus.end(), 0u);
  return c;
}

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

} // namespace

TEST_CASE("ring AllReduce matches 2(n-1)/n * B/bw + 2(n-1) * lat on uniform links") {
  const double lat = 1.7e-6, bw = 123e9;
  for (std::uint32_t n : {2u, 3u, 8u, 16u, 64u})
    for (std::uint64_t bytes : {std::uint64_t{1} << 20, std::uint64_t{3} * 1000 * 1000 * 64, std::uint64_t{1} << 33}) {
      CAPTURE(n);
      CAPTURE(bytes);
      const double per_member = static_cast<double>((bytes + n - 1) / n);  // ring slices are whole bytes
      const double expected = 2.0 * (n - 1) * per_member / bw + 2.0 * (n - 1) * lat;
      test::UniformRoutes routes(n, lat, bw);
      const auto schedule = collectives::RingAlgorithm().build(call_of(Op::all_reduce, bytes, n), routes);
      CHECK(schedule.steps().size() == 2u * (n - 1) * n);
      const double t = max_of(finish_times(schedule, std::vector<double>(n, 0.0)));
      CHECK(std::abs(t - expected) <= 1e-9 * expected);
      if (bytes % n == 0)
        CHECK(std::abs(t - (2.0 * (n - 1) / n * static_cast<double>(bytes) / bw + 2.0 * (n - 1) * lat)) <= 1e-9 * expected);
    }
}

TEST_CASE("ring AllGather and ReduceScatter take n-1 steps of B/n") {
  const double lat = 2e-6, bw = 25e9;
  const std::uint32_t n = 16;
  const std::uint64_t bytes = 16u << 20;
  test::UniformRoutes routes(n, lat, bw);
  for (Op op : {Op::all_gather, Op::reduce_scatter}) {
    const auto s = collectives::RingAlgorithm().build(call_of(op, bytes, n), routes);
    const double expected = (n - 1) * (static_cast<double>(bytes / n) / bw + lat);
    CHECK(max_of(finish_times(s, std::vector<double>(n, 0.0))) == doctest::Approx(expected).epsilon(1e-12));
    CHECK(std::all_of(s.steps().begin(), s.steps().end(), [&](const auto& st) { return st.reduce == (op == Op::reduce_scatter); }));
  }
}

TEST_CASE("pipelined chain Broadcast costs about B/bw + (n-1) latencies, starting at the root") {
  const double lat = 1e-6, bw = 100e9;
  const std::uint32_t n = 8;
  const std::uint64_t bytes = 256ull << 20;  // 512 chunks of 512 KiB, capped at 256 chunks
  test::UniformRoutes routes(n, lat, bw);
  const auto s = collectives::RingAlgorithm().build(call_of(Op::broadcast, bytes, n, 3), routes);
  const double chunks = collectives::RingAlgorithm::kMaxChunks;
  const double chunk_s = static_cast<double>(bytes) / chunks / bw;
  // The last chunk leaves the root after chunks-1 earlier ones, then crosses n-1 hops.
  const double expected = (chunks - 1) * chunk_s + (n - 1) * (chunk_s + lat);
  const auto t = finish_times(s, std::vector<double>(n, 0.0));
  CHECK(max_of(t) == doctest::Approx(expected).epsilon(1e-12));
  CHECK(s.steps().front().member == 3);  // the chain starts at the root
  // The root is done once its last chunk has left, before the others have it.
  CHECK(t[3] == doctest::Approx(chunks * chunk_s).epsilon(1e-12));
}

TEST_CASE("Reduce flows into the root and reduces on the way") {
  test::UniformRoutes routes(4, 1e-6, 10e9);
  const auto s = collectives::RingAlgorithm().build(call_of(Op::reduce, 1000, 4, 2), routes);
  REQUIRE(s.steps().size() == 3);  // one chunk, three hops: 3 -> 0 -> 1 -> 2
  CHECK(s.steps().back().peer == 2);
  CHECK(s.steps().front().member == 3);
  CHECK(s.steps().front().reduce);
}

TEST_CASE("a straggler delays everyone, and early members make progress before it arrives") {
  const double lat = 1e-6, bw = 100e9;
  const std::uint32_t n = 4;
  const std::uint64_t bytes = 4'000'000;  // slices of 1 MB: 10 us each
  test::UniformRoutes routes(n, lat, bw);
  const auto s = collectives::RingAlgorithm().build(call_of(Op::all_reduce, bytes, n), routes);
  std::vector<double> arrivals = {0.0, 0.0, 0.0, 100e-6};
  const auto t = finish_times(s, arrivals);
  const double uncontended = 2.0 * (n - 1) * (10e-6 + lat);
  // Nobody can finish before the straggler's data went around the ring...
  CHECK(max_of(t) > 100e-6 + uncontended * 0.5);
  // ...but the others' head start saves time compared with starting together at 100 us.
  CHECK(max_of(t) <= 100e-6 + uncontended + 1e-12);
}

TEST_CASE("send/recv starts when both sides have arrived") {
  test::UniformRoutes routes(2, 1e-6, 10e9);
  collectives::CollectiveCall c = call_of(Op::send_recv, 1'000'000, 2);
  const auto s = collectives::AlgorithmRegistry::with_builtins().choose(c).build(c, routes);
  const auto t = finish_times(s, {5e-6, 20e-6});  // the receiver is late
  CHECK(t[0] == doctest::Approx(20e-6 + 100e-6));          // sender: last byte left
  CHECK(t[1] == doctest::Approx(20e-6 + 100e-6 + 1e-6));   // receiver: last byte arrived
}

TEST_CASE("a single-member collective finishes on arrival") {
  test::UniformRoutes routes(1, 1e-6, 10e9);
  const auto s = collectives::RingAlgorithm().build(call_of(Op::all_reduce, 1 << 20, 1), routes);
  CHECK(s.steps().empty());
  CHECK(finish_times(s, {7e-6})[0] == 7e-6);
}

TEST_CASE("the registry chooses by op and names its algorithms") {
  const auto registry = collectives::AlgorithmRegistry::with_builtins();
  CHECK(registry.choose(call_of(Op::all_reduce, 8, 4)).name() == "ring");
  CHECK(registry.choose(call_of(Op::send_recv, 8, 2)).name() == "p2p");
  CHECK(registry.find("ring") != nullptr);
  CHECK(registry.find("tree") == nullptr);
  CHECK(registry.choose(call_of(Op::all_to_all, 8, 4)).name() == "pairwise");
  CHECK_THROWS_AS(registry.choose(call_of(Op::send_recv, 8, 3)), echo::UserError);
}

namespace {
// A researcher's algorithm: AllReduce only, as one direct exchange per pair (for the test's sake).
class DirectAllReduce final : public collectives::Algorithm {
public:
  std::string name() const override { return "direct"; }
  bool supports(const CollectiveCall& call) const override { return call.op == Op::all_reduce; }
  collectives::Schedule build(const CollectiveCall& call, const platforms::RouteOracle& routes) const override {
    const auto n = static_cast<std::uint32_t>(call.gpus.size());
    collectives::Schedule s(n);
    for (std::uint32_t a = 0; a < n; ++a)
      for (std::uint32_t b = 0; b < n; ++b)
        if (a != b)
          s.add_step(a, b, call.bytes, routes.route(call.gpus[a], call.gpus[b]), {}, true);
    s.finalize();
    return s;
  }
};
} // namespace

TEST_CASE("an added algorithm takes precedence for the calls it supports, and only those") {
  auto registry = collectives::AlgorithmRegistry::with_builtins();
  registry.add(std::make_unique<DirectAllReduce>());
  CHECK(registry.choose(call_of(Op::all_reduce, 8, 4)).name() == "direct");
  CHECK(registry.choose(call_of(Op::all_gather, 8, 4)).name() == "ring");
  test::UniformRoutes routes(4, 1e-6, 1e9);
  const auto s = registry.choose(call_of(Op::all_reduce, 1000, 4)).build(call_of(Op::all_reduce, 1000, 4), routes);
  CHECK(max_of(finish_times(s, std::vector<double>(4, 0.0))) == doctest::Approx(1e-6 + 1e-6));
}

TEST_CASE("op names accept NCCL spellings") {
  CHECK(collectives::op_from_string("allreduce") == Op::all_reduce);
  CHECK(collectives::op_from_string("AllGather") == Op::all_gather);
  CHECK(collectives::op_from_string("reduce_scatter") == Op::reduce_scatter);
  CHECK_FALSE(collectives::op_from_string("allscatter").has_value());
  CHECK(collectives::to_string(Op::broadcast) == "broadcast");
}

TEST_CASE("pairwise AllToAll: n-1 serialized sends of B/n per member") {
  const double lat = 1e-6, bw = 10e9;
  const std::uint32_t n = 8;
  test::UniformRoutes routes(n, lat, bw);
  const auto s = collectives::AlgorithmRegistry::with_builtins().choose(call_of(Op::all_to_all, 8'000'000, n))
                     .build(call_of(Op::all_to_all, 8'000'000, n), routes);
  CHECK(s.steps().size() == n * (n - 1));
  // The last send leaves after (n-1) sends of 1 MB, and arrives one latency later.
  CHECK(max_of(finish_times(s, std::vector<double>(n, 0.0))) == doctest::Approx((n - 1) * 1e6 / bw + lat));
}
