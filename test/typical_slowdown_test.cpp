// The typical slowdown each kernel is trained on: the common outcome among its look-alikes.
#include "slowdown/features.hpp"
#include "slowdown/typical_slowdown.hpp"
#include "support/approx.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace echo::slowdown;

namespace {

// A fully overlapped launch (r = 1) of a kernel with isolated duration t0_ns that measured slowdown s.
KernelRow launch(double t0_ns, double s, float dram = 80) {
  KernelRow r;
  r.name = "k";
  r.isolated_ns = t0_ns;
  r.measured_ns = t0_ns * (1 + s);
  r.overlap_ratio = 1.0;
  r.features = {static_cast<float>(t0_ns), 30, 108, dram, dram, 50, 100, 10, 40};
  return r;
}

} // namespace

TEST_CASE("typical slowdown: the common outcome wins over a blend of two") {
  std::vector<KernelRow> rows;
  for (int i = 0; i < 20; ++i)
    rows.push_back(launch(100000, i < 14 ? 0.0 : 1.5));
  for (double label : typical_slowdowns(rows))
    CHECK(label == 0.0);  // the 6 slowed launches too: 14 of 20 agree on 0
}

TEST_CASE("typical slowdown: look-alikes share duration (10%) and metrics (5 points)") {
  std::vector<KernelRow> rows;
  for (double s : {2.0, 2.1, 2.05, 2.15})
    rows.push_back(launch(70000, s));
  for (int i = 0; i < 5; ++i)
    rows.push_back(launch(100000, 0.0));  // the same kernel at another size: not a look-alike
  rows.push_back(launch(70000, 0.0, 50));   // another kernel: DRAM throughput 30 points apart
  const auto labels = typical_slowdowns(rows);
  // All four fit one window (each fits within 0.1 (1 + s) of its own s): their mean.
  for (int i = 0; i < 4; ++i)
    CHECK(labels[i] == echo::test::Approx(2.075));
  for (int i = 4; i < 10; ++i)
    CHECK(labels[i] == 0.0);
}

TEST_CASE("typical slowdown: equally common outcomes, the one nearest no slowdown") {
  // Windows [0.35, 0.65] and [1.25, 1.75] do not meet; each fits one launch.
  const auto labels = typical_slowdowns({launch(100000, 0.5), launch(100000, 1.5)});
  CHECK(labels[0] == echo::test::Approx(0.5));
  CHECK(labels[1] == echo::test::Approx(0.5));
}

TEST_CASE("typical slowdown: with the collective's columns, only launches beside the same kind of call look alike") {
  auto beside = [](double s, float op, float bytes) {
    KernelRow r = launch(100000, s);
    r.features.insert(r.features.end(), {op, 0, 2, 16, bytes});
    return r;
  };
  const float unknown = std::nanf("");
  const auto labels = typical_slowdowns({beside(0.0, 1, 1e6), beside(0.0, 1, 1e6), beside(0.6, 1, 1e8), beside(0.6, 1, 1.05e8),
                                         beside(0.6, 1, 1e8), beside(0.3, unknown, unknown), beside(0.3, unknown, unknown)});
  CHECK(labels[0] == 0.0);
  CHECK(labels[1] == 0.0);
  for (int i = 2; i < 5; ++i)
    CHECK(labels[i] == echo::test::Approx(0.6));
  CHECK(labels[5] == echo::test::Approx(0.3));  // unknown matches unknown only
}

TEST_CASE("typical slowdown: kernels that did not overlap get no label and are no one's look-alike") {
  KernelRow idle = launch(100000, 0.0);
  idle.overlap_ratio = 0;
  idle.measured_ns = 900000;
  const auto labels = typical_slowdowns({idle, launch(100000, 0.2)});
  CHECK(labels[0] == 0.0);
  CHECK(labels[1] == echo::test::Approx(0.2));
}
