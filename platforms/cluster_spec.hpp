#pragma once
// ClusterSpec: the figures of a generated GPU cluster (a preset, possibly with what-if overrides).
// Bandwidths and latencies are kept as SimGrid unit strings ("300GBps", "200Gbps", "2us") so a
// value written by the user means exactly what it means in a platform XML file.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace echo::platforms {

struct ClusterSpec {
  std::string preset;            // the preset it started from
  std::string gpu;               // GPU model, written as the hosts' `gpu` property
  std::uint32_t nodes = 1;
  std::uint32_t gpus_per_node = 8;
  std::string nvlink_bw;         // per GPU, per direction, to the NVSwitch
  std::string nvlink_latency;    // GPU to NVSwitch, one way
  std::uint32_t nics_per_node = 8;
  std::string nic_bw;            // per NIC, per direction
  std::string nic_latency;       // GPU through its NIC to the leaf switch, one way
  std::string switch_latency;    // one InfiniBand switch traversal
  double oversubscription = 1.0; // leaf down-link capacity / leaf up-link capacity
  std::uint32_t pod_nodes = 32;  // nodes under one set of rail leaf switches
  std::string cpu = "intel";     // host CPU vendor (intel | amd): NCCL's LL limits across nodes depend on it
  // The PCIe path from a GPU to its NIC as NCCL's topology names it: pix (one PCIe switch), pxb
  // (several), phb (through the CPU's host bridge), sys (across CPU sockets). NCCL runs LL128
  // between nodes only up to pxb.
  std::string gpu_nic_path = "pxb";
  // Standard deviation of the GPUs' sustained speed, a fraction of the median GPU's
  // (core/gpu_speed_spread.hpp): an average 8% spread between a cluster's fastest and slowest GPU
  // of one model (Sinha et al., SC'22, over clusters of hundreds to tens of thousands of GPUs) is
  // about 6.5 standard deviations.
  std::string gpu_speed_spread = "0.012";
  // Where a preset's figures come from, and what of the machine the model cannot express yet
  // (shown by `platform list`).
  std::string source;
  std::string approximation;
  // Fitted parameters of the collective model (`nccl.*` keys, see collectives/calibration.hpp),
  // written as properties of the platform's root zone.
  std::map<std::string, std::string> calibration;
};

// The names `preset()` knows, in the order `--help` lists them.
const std::vector<std::string>& preset_names();

// `gpu_speed_spread` (a preset figure and a platform file's root property): a fraction in [0, 0.2];
// empty reads as 0. Throws UserError naming it and `origin` for anything else.
double gpu_speed_spread_value(const std::string& text, const std::string& origin);

// `gpu_nic_path` (a preset figure and a platform file's root property): pix, pxb, phb or sys; empty
// reads as pxb. Throws UserError naming it and `origin` for anything else.
std::string gpu_nic_path_value(const std::string& text, const std::string& origin);

// The figures of a bundled preset. Throws UserError (naming the known presets) when unknown.
ClusterSpec preset(const std::string& name, std::uint32_t nodes);

// The what-if figures `override_figure` accepts, each with a line of help (for --help).
struct Figure {
  std::string key;
  std::string help;
};
const std::vector<Figure>& figures();
// Just their keys, for messages.
const std::vector<std::string>& override_keys();

// Applies one what-if override (`nic_bw` = "100Gbps", ...). Values are checked with SimGrid's own
// unit parser; `origin` names where the value came from (a job file, the command line) in errors.
void override_figure(ClusterSpec& spec, const std::string& key, const std::string& value,
                     const std::string& origin);

// Checks the figures together (NICs per node divides GPUs per node, or GPUs per node divides the
// NICs when each GPU has several). Throws UserError.
void validate(const ClusterSpec& spec, const std::string& origin);

} // namespace echo::platforms
