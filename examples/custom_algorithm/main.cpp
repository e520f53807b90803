// echo-des-hd: echo-des with one more collective algorithm, recursive halving-doubling AllReduce.
// Everything else — the job file, `run`, `nccl-tests`, the reports — is echo-des's own.
//
//   build/examples/custom_algorithm/echo-des-hd run examples/custom_algorithm/job.yaml
//   build/examples/custom_algorithm/echo-des-hd nccl-tests --platform preset:dgx-a100:1
//       --gpus 8 --algo 'ring;allreduce:HalvingDoubling' -b 1M -e 1G
#include "cli/commands.hpp"
#include "halving_doubling.hpp"

int main(int argc, char** argv) {
  return echo::cli::echo_des_main(argc, argv, [](echo::collectives::AlgorithmRegistry& registry) {
    registry.add(std::make_unique<example::HalvingDoubling>());
  });
}
