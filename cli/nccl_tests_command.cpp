#include "base/user_error.hpp"
#include "cli/commands.hpp"
#include "cli/nccl_tests_sizes.hpp"
#include "cli/communication_options.hpp"
#include "core/collective_benchmark.hpp"
#include "report/json_text.hpp"
#include "report/nccl_tests_report.hpp"
#include "platforms/cluster_spec.hpp"

#include <cctype>
#include <iostream>
#include <memory>

namespace echo::cli {

namespace {

struct NcclTestsOptions {
  std::string platform;
  std::string op = "all_reduce";
  std::uint32_t gpus = 0;
  std::string min_bytes = "8";
  std::string max_bytes = "8G";
  std::uint64_t factor = 2;
  std::string dtype = "float";
  std::uint32_t root = 0;
  std::string algo, proto, fidelity = "steps", nccl_version;
  std::vector<std::string> figures;  // KEY=VALUE what-if overrides of a preset
  bool json = false;
};

platforms::PlatformSource parse_platform(const std::string& text, const std::vector<std::string>& figures) {
  platforms::PlatformSource source;
  const std::string prefix = "preset:";
  if (text.rfind(prefix, 0) != 0) {
    if (!figures.empty())
      throw UserError("--set " + figures.front(), 0, "--set changes a preset's figures, but the platform is a file",
                      "edit the XML file, or use --platform preset:NAME:NODES");
    source.file = text;
    return source;
  }
  const std::string rest = text.substr(prefix.size());
  const auto colon = rest.find(':');
  if (colon == std::string::npos)
    throw UserError("--platform " + text, 0, "a preset platform is written preset:NAME:NODES",
                    "e.g. --platform preset:azure-ndv4-a100:2");
  platforms::ClusterSpec spec = platforms::preset(rest.substr(0, colon), 1);
  platforms::override_figure(spec, "nodes", rest.substr(colon + 1), "--platform " + text);
  for (const std::string& figure : figures) {
    const auto eq = figure.find('=');
    if (eq == std::string::npos)
      throw UserError("--set " + figure, 0, "an override must look like key=value", "e.g. --set nic_bw=400Gbps");
    // `platform.nic_bw=...` as `run --set` spells it, or the bare figure: nccl-tests has nothing
    // but a platform to set.
    std::string key = figure.substr(0, eq);
    if (key.rfind("platform.", 0) == 0)
      key = key.substr(std::string("platform.").size());
    platforms::override_figure(spec, key, figure.substr(eq + 1), "--set " + figure);
  }
  platforms::validate(spec, "--platform " + text);
  source.spec = spec;
  return source;
}

} // namespace

Action add_nccl_tests_command(CLI::App& app, const collectives::AlgorithmSetup& setup) {
  auto opts = std::make_shared<NcclTestsOptions>();
  CLI::App* cmd = app.add_subcommand("nccl-tests", "Simulate an nccl-tests sweep and print its table the way *_perf prints it");
  cmd->footer("Ops: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv\n"
              "Environment: NCCL_ALGO, NCCL_PROTO (as --algo, --proto), NCCL_MIN_CTAS, NCCL_MAX_CTAS (1..64: the\n"
              "channels collectives run on, as NCCL's set-up bounds them)\n"
              "Example:\n  echo-des nccl-tests --platform preset:azure-ndv4-a100:2 --op all_reduce --gpus 16 -b 8 -e 8G -f 2");
  cmd->add_option("--platform", opts->platform, "Platform XML file, or preset:NAME:NODES")->required();
  cmd->add_option("--op", opts->op, "Collective: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv");
  cmd->add_option("-g,--gpus", opts->gpus, "Number of GPUs (ranks 0..N-1 of the platform)")->required();
  cmd->add_option("-b,--minbytes", opts->min_bytes, "Smallest size (default 8; K, M, G suffixes)");
  cmd->add_option("-e,--maxbytes", opts->max_bytes, "Largest size (default 8G)");
  cmd->add_option("-f,--stepfactor", opts->factor, "Multiply the size by this between rows (default 2)");
  cmd->add_option("-d,--datatype", opts->dtype, "Element type: float, half, bfloat16, double, int8, uint8, int32, uint32, int64, uint64");
  cmd->add_option("-r,--root", opts->root, "Root rank of broadcast and reduce (default 0)");
  cmd->add_option("--algo", opts->algo,
                  "Allowed algorithms, NCCL_ALGO syntax: ring,tree | ^tree | ring;allreduce:tree (default: "
                  "$NCCL_ALGO, else all)");
  cmd->add_option("--proto", opts->proto,
                  "Allowed protocols, NCCL_PROTO syntax: LL,LL128,Simple | ^LL128 (default: $NCCL_PROTO, else all)");
  cmd->add_option("--set", opts->figures, "Change a preset's figure, platform.KEY=VALUE as `run --set` takes it (or KEY=VALUE; see `platform generate --help`); repeatable");
  cmd->add_option("--nccl-version", opts->nccl_version,
                  "NCCL release (" + collectives::known_nccl_versions() + "; default " + collectives::kNewestNccl.str() +
                      "): algorithms it does not have (NVLS before 2.17, NVLSTree before 2.18, PAT before 2.23) are not chosen, "
                      "and its own tuning constants choose among the rest");
  cmd->add_flag("--json", opts->json, "Print the sweep as one JSON object (a row per size) instead of nccl-tests' table");
  cmd->add_option("--fidelity", opts->fidelity,
                  "analytic (closed form), steps (run the schedule; default) or a registered network model; flow equals steps for a call alone");
  return [cmd, opts, setup]() -> int {
    if (!cmd->parsed())
      return -1;
    core::BenchmarkSpec spec;
    const auto op = collectives::op_from_string(opts->op);
    if (!op)
      throw UserError("--op " + opts->op, 0, "unknown collective '" + opts->op + "'",
                      "use one of: all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv");
    spec.op = *op;
    spec.algorithms = setup;
    spec.gpus = opts->gpus;
    spec.dtype = core::data_type(opts->dtype);
    spec.root = opts->root;
    if (spec.root >= spec.gpus)
      throw UserError("--root " + std::to_string(spec.root), 0, "the root must be one of the " + std::to_string(spec.gpus) + " ranks",
                      "give a root below --gpus");
    spec.sizes = nccl_tests_sizes(opts->min_bytes, opts->max_bytes, opts->factor);
    spec.platform = parse_platform(opts->platform, opts->figures);
    spec.communication.fidelity = parse_fidelity(opts->fidelity, "--fidelity");
    if (!opts->nccl_version.empty())
      spec.communication.nccl_version = parse_nccl_version(opts->nccl_version, "--nccl-version");
    if (!opts->algo.empty()) {
      spec.communication.algo = opts->algo;
      spec.communication.algo_origin = "--algo";
    }
    if (!opts->proto.empty()) {
      spec.communication.proto = opts->proto;
      spec.communication.proto_origin = "--proto";
    }
    apply_nccl_environment(spec.communication);
    const auto rows = core::run_collective_benchmark(spec);
    if (opts->json)
      std::cout << report::json_text(report::nccl_tests_json(spec, rows, spec.platform.describe()), 2) << "\n";
    else
      std::cout << report::nccl_tests_table(spec, rows, spec.platform.describe());
    return 0;
  };
}

} // namespace echo::cli
