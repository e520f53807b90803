#include "core/collective_benchmark.hpp"

#include "base/user_error.hpp"
#include "collectives/collective_model.hpp"
#include "core/collective_timing.hpp"
#include "core/engine_setup.hpp"
#include "core/network/network_model.hpp"
#include "core/schedule_run.hpp"
#include "platforms/cluster.hpp"

#include <algorithm>
#include <array>
#include <memory>
#include <numeric>

namespace echo::core {

namespace {

using collectives::Op;

// Ops whose per-rank parameter is a slice of the buffer (nccl-tests rounds it down to 16 bytes).
bool sliced(Op op) { return op == Op::all_gather || op == Op::reduce_scatter || op == Op::all_to_all; }

// The rows' sizes and counts; a row's `bytes` is also the size the collective model is given.
std::vector<BenchmarkRow> plan_rows(const BenchmarkSpec& spec) {
  std::vector<BenchmarkRow> rows;
  const std::uint64_t ws = spec.dtype.bytes;
  for (std::uint64_t size : spec.sizes) {
    if (size % ws != 0)
      throw UserError("", 0,
                      "size " + std::to_string(size) + " is not a multiple of the " + spec.dtype.name + " element size (" +
                          std::to_string(ws) + " bytes)",
                      "use sizes that are multiples of " + std::to_string(ws) + ", e.g. -b " + std::to_string(ws * 2));
    const std::uint64_t count = size / ws;
    BenchmarkRow row;
    row.count = sliced(spec.op) ? (count / spec.gpus) & ~(std::uint64_t{16} / ws - 1) : count;
    row.bytes = row.count * ws * (sliced(spec.op) ? spec.gpus : 1);
    rows.push_back(row);
  }
  return rows;
}

} // namespace

DataTypeInfo data_type(const std::string& name) {
  static const std::array<DataTypeInfo, 10> kTypes = {{{"int8", 1}, {"uint8", 1}, {"int32", 4}, {"uint32", 4},
                                                       {"int64", 8}, {"uint64", 8}, {"half", 2}, {"float", 4},
                                                       {"double", 8}, {"bfloat16", 2}}};
  for (const auto& t : kTypes)
    if (t.name == name)
      return t;
  std::string known;
  for (const auto& t : kTypes)
    known += (known.empty() ? "" : ", ") + t.name;
  throw UserError("", 0, "unknown data type '" + name + "'", "use one of: " + known);
}

double bus_bandwidth_factor(Op op, std::uint32_t ranks) {
  const double n = ranks;
  switch (op) {
  case Op::all_reduce: return 2.0 * (n - 1) / n;
  case Op::all_gather:
  case Op::reduce_scatter:
  case Op::all_to_all: return (n - 1) / n;
  default: return 1.0;
  }
}

double algorithm_bandwidth(Op op, const BenchmarkRow& row, std::uint32_t bytes_per_element, std::uint32_t ranks,
                           double time_us) {
  const double moved = static_cast<double>(row.count) * bytes_per_element * (sliced(op) ? ranks : 1);
  return time_us > 0 ? moved / 1e9 / (time_us * 1e-6) : 0.0;
}

std::vector<BenchmarkRow> run_collective_benchmark(const BenchmarkSpec& spec) {
  if (spec.gpus == 0 || (spec.op == Op::send_recv && spec.gpus < 2))
    throw UserError("", 0, "--gpus must be at least " + std::string(spec.op == Op::send_recv ? "2 for send_recv" : "1"),
                    "give the number of GPUs to run on, e.g. --gpus 8");
  std::vector<BenchmarkRow> rows = plan_rows(spec);
  const auto engine = make_engine(0);
  platforms::load_platform(*engine, spec.platform);
  const platforms::Cluster cluster(*engine, spec.platform.describe());
  if (spec.gpus > cluster.gpu_count())
    throw UserError("", 0,
                    std::to_string(spec.gpus) + " GPUs asked for, but the platform (" + spec.platform.describe() + ") has " +
                        std::to_string(cluster.gpu_count()),
                    "use fewer GPUs or a larger platform (for a preset: more nodes, preset:NAME:NODES)");
  auto algorithms = collectives::AlgorithmRegistry::with_builtins();
  if (spec.algorithms)
    spec.algorithms(algorithms);
  const collectives::CollectiveModel model(cluster, algorithms, selection_for(spec.communication, algorithms),
                                          collectives::calibration_of(cluster, spec.platform.describe()));
  const bool runs_steps = network::NetworkModelRegistry::global().require(spec.communication.fidelity, "--fidelity").runs_steps;
  auto time_of = [&](const collectives::CollectiveCall& cc, BenchmarkRow& row) {
    TimedCall timed = time_call(model, cc, runs_steps);
    row.choice = timed.plan.describe();
    return uncontended_time_s(std::move(timed.schedule));
  };

  for (BenchmarkRow& row : rows) {
    collectives::CollectiveCall cc;
    cc.op = spec.op;
    cc.bytes = row.bytes;
    cc.root = spec.root;
    double slowest_s = 0.0;
    if (spec.op == Op::send_recv) {
      // Every rank sends to the next one at the same time: the slowest pair sets the time. All
      // ranks are one communicator, as in sendrecv_perf.
      cc.comm_gpus.resize(spec.gpus);
      std::iota(cc.comm_gpus.begin(), cc.comm_gpus.end(), 0u);
      for (std::uint32_t r = 0; r < spec.gpus; ++r) {
        cc.gpus = {r, (r + 1) % spec.gpus};
        slowest_s = std::max(slowest_s, time_of(cc, row));
      }
    } else {
      cc.gpus.resize(spec.gpus);
      std::iota(cc.gpus.begin(), cc.gpus.end(), 0u);
      slowest_s = time_of(cc, row);
    }
    row.time_us = slowest_s * 1e6;
  }
  return rows;
}

} // namespace echo::core
