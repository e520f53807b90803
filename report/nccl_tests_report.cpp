#include "report/nccl_tests_report.hpp"

#include <cstdio>

namespace echo::report {

namespace {

using collectives::Op;

std::string format(const char* fmt, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

bool reduces(Op op) { return op == Op::all_reduce || op == Op::reduce_scatter || op == Op::reduce; }
bool rooted(Op op) { return op == Op::broadcast || op == Op::reduce; }

std::string perf_name(Op op) {
  switch (op) {
  case Op::all_to_all: return "alltoall_perf";
  case Op::send_recv: return "sendrecv_perf";
  default: return std::string(collectives::to_string(op)) + "_perf";
  }
}

// "Ring/LL/12: 8 .. 65536 B": runs of consecutive sizes with the same algorithm, protocol and
// channel count.
std::string choices_by_size(const std::vector<core::BenchmarkRow>& rows) {
  std::string out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i;
    while (j + 1 < rows.size() && rows[j + 1].choice == rows[i].choice)
      ++j;
    out += format("#   %-20s %llu .. %llu B\n", (rows[i].choice + ":").c_str(), static_cast<unsigned long long>(rows[i].bytes),
                  static_cast<unsigned long long>(rows[j].bytes));
    i = j + 1;
  }
  return out;
}

} // namespace

std::string nccl_float(double value, int width) {
  char buf[64];
  if (std::snprintf(buf, sizeof buf, "%*.2f", width, value) <= width)
    return buf;
  if (std::snprintf(buf, sizeof buf, "%*.1f", width, value) <= width)
    return buf;
  if (std::snprintf(buf, sizeof buf, "%*.0f", width, value) <= width)
    return buf;
  std::snprintf(buf, sizeof buf, width >= 7 ? "%*.1e" : "%*.0e", width, value);
  return buf;
}

std::string nccl_tests_table(const core::BenchmarkSpec& spec, const std::vector<core::BenchmarkRow>& rows,
                             const std::string& platform_description) {
  const std::string name = perf_name(spec.op);
  const std::uint64_t min_bytes = spec.sizes.empty() ? 0 : spec.sizes.front();
  const std::uint64_t max_bytes = spec.sizes.empty() ? 0 : spec.sizes.back();
  std::string out;
  out += "# echo-des nccl-tests: " + name + ", simulated (no GPU was used)\n";
  out += "# Collective test starting: " + name + "\n";
  out += format("# nThread 1 nGpus 1 minBytes %llu maxBytes %llu step: %llu(factor) warmup iters: 0 iters: 1 agg iters: 1 "
                "validation: 0 graph: 0\n",
                static_cast<unsigned long long>(min_bytes), static_cast<unsigned long long>(max_bytes),
                static_cast<unsigned long long>(spec.sizes.size() > 1 ? spec.sizes[1] / std::max<std::uint64_t>(1, spec.sizes[0]) : 1));
  out += "# platform: " + platform_description + ", ranks 0.." + std::to_string(spec.gpus - 1) + "\n";
  // Alone on the cluster, `flow` steps take their `steps` time by construction.
  const std::string fidelity =
      spec.communication.fidelity == "flow" ? "flow (alone: the steps time)" : spec.communication.fidelity;
  out += std::string("# fidelity: ") + fidelity +
         "; NCCL_ALGO=" + (spec.communication.algo.empty() ? "(all)" : spec.communication.algo) +
         " NCCL_PROTO=" + (spec.communication.proto.empty() ? "(all)" : spec.communication.proto) +
         (spec.communication.nccl_version == collectives::kNewestNccl ? "" : "; NCCL " + spec.communication.nccl_version.str()) +
         "\n";
  out += "# algorithm/protocol/channels by size:\n";
  out += choices_by_size(rows);
  out += "#\n";
  out += format("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "", "", "", "");
  out += format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "size", "count", "type", "redop",
                "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  out += format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s \n", "(B)", "(elements)", "", "", "",
                "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  double bus_sum = 0.0;
  int bus_count = 0;
  const double factor = core::bus_bandwidth_factor(spec.op, spec.gpus);
  for (const core::BenchmarkRow& row : rows) {
    const int root = rooted(spec.op) ? static_cast<int>(spec.root) : -1;
    out += format("%12llu  %12llu  %8s  %6s  %6i", static_cast<unsigned long long>(row.bytes),
                  static_cast<unsigned long long>(row.count), spec.dtype.name.c_str(), reduces(spec.op) ? "sum" : "none", root);
    for (double us : {row.time_us, row.time_us}) {  // out of place, in place
      const double alg = core::algorithm_bandwidth(spec.op, row, spec.dtype.bytes, spec.gpus, us);
      out += format("  %7s  %6s  %6s    N/A", nccl_float(us, 7).c_str(), nccl_float(alg, 6).c_str(),
                    nccl_float(alg * factor, 6).c_str());
      bus_sum += alg * factor;
      ++bus_count;
    }
    out += "\n";
  }
  out += format("# %-20s : %d %s\n", "Out of bounds values", 0, "OK");
  out += format("# %-20s : %g %s\n", "Avg bus bandwidth", bus_count > 0 ? bus_sum / bus_count : 0.0, "");
  out += "#\n";
  out += "# Collective test concluded: " + name + "\n";
  return out;
}

nlohmann::ordered_json nccl_tests_json(const core::BenchmarkSpec& spec, const std::vector<core::BenchmarkRow>& rows,
                                       const std::string& platform_description) {
  const double factor = core::bus_bandwidth_factor(spec.op, spec.gpus);
  nlohmann::ordered_json out = {{"op", perf_name(spec.op)},
                                {"platform", platform_description},
                                {"gpus", spec.gpus},
                                {"datatype", spec.dtype.name},
                                {"fidelity", spec.communication.fidelity},
                                {"algo", spec.communication.algo},
                                {"proto", spec.communication.proto},
                                {"nccl_version", spec.communication.nccl_version.str()}};
  nlohmann::ordered_json table = nlohmann::ordered_json::array();
  for (const core::BenchmarkRow& row : rows) {
    const double alg = core::algorithm_bandwidth(spec.op, row, spec.dtype.bytes, spec.gpus, row.time_us);
    table.push_back({{"bytes", row.bytes},
                     {"count", row.count},
                     {"time_us", row.time_us},
                     {"algbw_GBps", alg},
                     {"busbw_GBps", alg * factor},
                     {"algorithm", row.choice}});
  }
  out["rows"] = table;
  return out;
}

} // namespace echo::report
