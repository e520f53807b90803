#include "platforms/cluster_spec.hpp"

#include "base/user_error.hpp"
#include "platforms/link_figures.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>

namespace echo::platforms {

namespace {

// Sources of the figures: NVLink bandwidth is what NCCL counts per link (Ampere 20 GB/s x 12
// links on A100; Hopper 20.6 GB/s x 18 on H100, x 8 on H800 — nccl-facts.md, hardware section);
// NIC rates are the InfiniBand port rates of the vendors' node specs (HDR 200 Gb/s, NDR 400 Gb/s,
// one per GPU); switch latency is the port-to-port figure of NVIDIA Quantum / Quantum-2 switches.

// An AllToAll sends from every GPU to every other node at once: InfiniBand NICs sustain less than
// the rate they reach in rings and trees (many connections into each NIC), and not the same share
// on both generations once a member's sends inside its node run beside its sends to other nodes
// (collectives/pairwise_all_to_all.cpp): NDR (ConnectX-7) 91.7%, fitted on the 10-node, 8 GPUs
// per node H100 AllToAll of ../shared/data/collectives from 256 MiB (1, 2 and 4 GPUs per node held
// out: 0.4-2.3%); HDR (ConnectX-6) 88.5%, fitted on ALCF Sophia's first DGX A100 AllToAll from 64
// MiB (its second held out: 8.6% from 1 MiB, 4.3% over all sizes). Not the clouds' EFA and TCPXO,
// nor Slingshot: no AllToAll of theirs says what they sustain.
constexpr const char* kAllToAllOnNdr = "0.917";
constexpr const char* kAllToAllOnHdr = "0.885";

const std::map<std::string, ClusterSpec>& presets() {
  static const std::map<std::string, ClusterSpec> table = [] {
    std::map<std::string, ClusterSpec> t;
    ClusterSpec a100;
    a100.gpu = "A100-SXM4-80GB";
    a100.gpus_per_node = 8;
    a100.nvlink_bw = "240GBps";
    a100.nvlink_latency = "350ns";
    a100.nics_per_node = 8;
    a100.nic_bw = "200Gbps";
    a100.nic_latency = "1us";
    a100.switch_latency = "130ns";
    a100.cpu = "amd";  // DGX A100 and ND A100 v4 hosts are AMD EPYC
    a100.preset = "dgx-a100";
    a100.source = "NVIDIA DGX A100 datasheet: 8x A100-SXM4-80GB on NVSwitch (12 NVLink3 links), 8x 200 Gb/s HDR "
                  "InfiniBand, 2x AMD EPYC 7742; collective parameters fitted on Azure ND A100 v4 nccl-tests logs (the same "
                  "machine class; docs/validation.md)";

    // Collective-model parameters fitted to the Azure ND A100 v4 nccl-tests logs (2, 8 and 16
    // GPUs; the 4-GPU log held out) by scripts/calibrate_nccl.py — see docs/validation.md. DGX
    // A100 is the same machine class (A100 SXM4, NVSwitch, 8x HDR, AMD hosts) and borrows them.
    // The NVLink efficiency and the rate a ring channel copies its last chunk into the output while
    // its links wait were refitted together (2026-11-29, sizes from 64 MiB): one node's AllReduce
    // bus bandwidth rises with the GPU count, 206 / 224 / 231 GB/s on 2 / 4 / 8 GPUs, as 2(n-1) /
    // (2(n-1) + 0.36) of NCCL's 240 GB/s, the wait being 0.36 of a step on 12 channels at 55.5 GB/s
    // each; vTrain's seven one-node tables held out.
    a100.calibration = {
        {"nccl.extra_base_us.ll", "-1.55"},    {"nccl.extra_base_us.ll128", "30.5"},
        {"nccl.extra_base_us.simple", "41"},   {"nccl.extra_hop_us.nvlink", "1.11"},
        {"nccl.extra_hop_us.net", "-3.96"},    {"nccl.efficiency.nvlink", "1"},
        {"nccl.efficiency.net", "0.64"},       {"nccl.efficiency.ll", "0.507"},
        {"nccl.efficiency.ll128", "0.999"},     {"nccl.efficiency.all_to_all", kAllToAllOnHdr},
        {"nccl.tail_copy_bw.ring", "55.5"},
    };
    ClusterSpec ndv4 = a100;  // Azure ND A100 v4: A100 40 GB, 8x HDR, NVSwitch
    ndv4.preset = "azure-ndv4-a100";
    ndv4.gpu = "A100-SXM4-40GB";
    ndv4.source = "Azure ND A100 v4 sizes page: 8x A100-SXM4-40GB on NVSwitch, 8x 200 Gb/s HDR InfiniBand, AMD EPYC; collective parameters "
                  "fitted on its nccl-tests logs (docs/validation.md)";
    t["azure-ndv4-a100"] = ndv4;

    // A bare-metal DGX A100 sustains more of its HDR NICs than Azure's virtual machines do (0.64):
    // 0.96, fitted on ALCF Sophia's 2-node AllReduce (DGX A100 class, 8x HDR; sizes from 64 MiB)
    // with its second run, AllGather and AllToAll held out (docs/validation.md). Its other
    // parameters are Azure's: the same GPUs, NVSwitch and NCCL protocols.
    a100.calibration["nccl.efficiency.net"] = "0.96";
    a100.source += "; NIC efficiency fitted on ALCF Sophia's nccl-tests (bare metal)";
    t["dgx-a100"] = a100;

    // ALCF Polaris (HPE Apollo 6500 Gen10+): 4x A100-SXM4-40GB joined by NVLink directly (4
    // NVLink3 links per GPU pair, no NVSwitch), 2x 200 Gb/s Slingshot-11 NICs, AMD EPYC 7543P,
    // dragonfly between groups. The parameters fitted on InfiniBand do not describe Slingshot
    // through libfabric; five are fitted on their own. Two on the 2-node NCCL 2.21 AllReduce table
    // of ../shared/data/collectives with the 8-node and other tables held out (docs/validation.md):
    // the fraction of the NICs' line rate a collective sustains (0.764 with the A100's ring wait,
    // nccl.tail_copy_bw.ring as the A100 presets have it; 0.73 without; sizes from 64 MiB) and the
    // extra latency of a network hop through libfabric's CXI provider (7 us, sizes to 32 KiB). Two
    // on its AllToAll (the NCCL 2.18, Sirius and 128-540-node runs held out): the
    // share of that rate a NIC sustains when every GPU sends to every other node at once (0.541 of
    // 0.73; 0.517 of the refitted 0.764, the same rate; its 2-node table from 64 MiB; InfiniBand's
    // is 0.885-0.917; fitted when a member's sends inside and outside its node went one after the
    // other: side by side, they move these tables by 0.2-1.6 points) and the time the proxy spends
    // setting up each peer
    // across nodes, once per call (9.22 us, fitted on the 2- and 8-node NCCL 2.21 tables at 2-32 KiB:
    // small AllToAlls took 62 us at 2 nodes and 290 at 8); what every step of an inter-node ring
    // costs at least, NCCL's "net overhead" (8.19 us, x3 for Simple as NCCL counts it; fitted on the
    // 2-node NCCL 2.21 AllGather at 128 B-16 KiB, which took 67 us where NCCL's 1 us gave 31). The
    // rest are NCCL's nominal figures.
    ClusterSpec polaris = a100;
    polaris.preset = "polaris";
    polaris.gpu = "A100-SXM4-40GB";
    polaris.gpus_per_node = 4;
    polaris.nics_per_node = 2;
    // Each GPU and NIC hangs off its own root port of the one EPYC socket: ALCF runs NCCL with
    // NCCL_NET_GDR_LEVEL=PHB so that GPUDirect RDMA crosses the host bridge at all.
    polaris.gpu_nic_path = "phb";
    polaris.calibration = {{"nccl.efficiency.net", "0.764"},       {"nccl.extra_hop_us.net", "7"},
                           {"nccl.net_overhead_us", "8.19"},       {"nccl.efficiency.all_to_all", "0.517"},
                           {"nccl.p2p_peer_us.net", "9.22"},       {"nccl.tail_copy_bw.ring", "55.5"}};
    polaris.source = "ALCF Polaris machine overview: 560 nodes of 4x A100-SXM4-40GB (NVLink), 2x Slingshot-11 "
                     "200 Gb/s, 1x AMD EPYC 7543P; NIC efficiency and network hop latency fitted on ALCF's 2-node "
                     "nccl-tests AllReduce, the ring step overhead on its 2-node AllGather, the NICs' all-to-all share "
                     "and the per-peer set-up on its AllToAll (docs/validation.md)";
    polaris.approximation = "NVLink without NVSwitch modelled as a switch (240 GB/s per GPU; a GPU pair has 80 GB/s "
                            "on its 4 links); dragonfly modelled as a fat-tree; Slingshot through libfabric as "
                            "InfiniBand at its fitted rates, hop latency, ring step overhead and per-peer set-up; "
                            "NCCL's protocol switch from LL to Simple at 8+ nodes comes 16-32x too late (the "
                            "network plugin's NIC speed as NCCL reads it is not known), and the provider's "
                            "mid-size plateaus are not modelled";
    t["polaris"] = polaris;

    ClusterSpec h100 = a100;
    h100.preset = "dgx-h100";
    h100.cpu = "intel";  // DGX H100: Intel Xeon
    // NCCL's nominal figures but these. The NVSwitch's multicast reduction sustains 74% of a GPU's
    // NVLink bandwidth in the node's part of an NVLSTree AllReduce (77% of NCCL's NVLS figure
    // before the node's part was timed from the links' load; scripts/calibrate_nccl.py dgx-h100 on
    // the two 2-node H100 AllReduce tables of ../shared/data/collectives, sizes from 64 MiB; the 4-
    // and 10-node, AWS p5 and GCP tables held out) and 82.1% in one node's NVLS AllReduce (fitted on
    // one single-node 8-GPU run of xxrjun/nccl-tests-cluster from 64 MiB; its nine other nodes and
    // ten 4-GPU runs held out). An AllToAll inside a node sustains 92.9% of the NVLinks' rate (the
    // same runs' AllToAll from 1 GiB, the rest held out) — about what InfiniBand's NICs sustain
    // under all-to-all (0.917 on NDR, below). A send/recv channel (one CTA) moves 20.6 GB/s over NVLink, so
    // a send inside a node goes at the pace of the channels NCCL gives it for its size (4 for 32
    // MiB among 8 GPUs: 80 GB/s, as measured; fitted on one 8-GPU SendRecv run up to 128 MiB, the
    // other 19 held out). docs/validation.md has each fit. The HGX H100 baseboard is the
    // same in every Hopper preset below, which inherit it.
    // And a send/recv channel between nodes moves 12.4 GB/s (NCCL's own figure is 14): a peer's
    // send/recv gets a few channels, collectives many (scripts/calibrate_nccl.py on the 10-node,
    // 1 GPU per node SendRecv table; 2, 4 and 8 GPUs per node held out).
    // And a collective's channel (one CTA) moves 20.1 GB/s between nodes: with 8 GPUs per node
    // NCCL runs two CTAs per NIC (the ring graph's 8 channels doubled at set-up, NVLSTree's 16),
    // so a 400 Gb/s NIC moves about 40 GB/s, not 50; with 1-4 GPUs per node four CTAs share a NIC
    // and the NIC binds (scripts/calibrate_nccl.py on the 10-node, 8 GPUs per node AllGather from
    // 1 GiB; its ReduceScatter and NVLSTree AllReduce, two 4-node AllReduce tables of other
    // clusters and the NCCL_MIN_CTAS=24 table held out, docs/validation.md).
    h100.calibration = {{"nccl.efficiency.nvls", "0.821"},
                        {"nccl.efficiency.nvls_tree", "0.74"},
                        {"nccl.efficiency.all_to_all", kAllToAllOnNdr},
                        {"nccl.efficiency.all_to_all_nvlink", "0.929"},
                        {"nccl.p2p_channel_bw.net", "12.4"},
                        {"nccl.p2p_channel_bw.nvlink", "20.6"},
                        {"nccl.coll_channel_bw.net", "20.1"}};
    h100.gpu = "H100-SXM5-80GB";
    h100.nvlink_bw = "370.8GBps";
    h100.nic_bw = "400Gbps";
    h100.source = "NVIDIA DGX H100 datasheet: 8x H100-SXM5-80GB on NVSwitch (18 NVLink4 links), 8x 400 Gb/s NDR "
                  "InfiniBand (ConnectX-7), 2x Intel Xeon Platinum 8480C";
    t["dgx-h100"] = h100;

    // AWS p5.48xlarge: 32 EFA interfaces of 100 Gb/s (3,200 Gb/s), four behind each GPU's PCIe
    // switch. EFA's SRD sprays a flow over paths, so a GPU's four NICs act as one pipe of 400 Gb/s
    // (the platform writes one link per GPU of their summed rate).
    // EFA's SRD transport through libfabric (aws-ofi-nccl) is slower per message than InfiniBand
    // verbs: each network hop costs 20.7 us more than NCCL's figure, fitted on the 2-node NCCL 2.22
    // AllReduce table of ../shared/data/collectives (sizes to 32 KiB), its 2.20 and tuner-plugin
    // tables held out (docs/validation.md).
    ClusterSpec p5 = h100;
    p5.calibration.erase("nccl.efficiency.all_to_all");  // InfiniBand's, not EFA's
    p5.calibration["nccl.extra_hop_us.net"] = "20.7";
    p5.preset = "aws-p5";
    p5.cpu = "amd";
    p5.nics_per_node = 32;
    p5.nic_bw = "100Gbps";
    p5.source = "AWS EC2 P5 instance page: p5.48xlarge, 8x H100 80GB (NVSwitch, 900 GB/s GPU peer-to-peer), "
                "3,200 Gbps EFAv2 (32 network cards), 3rd-gen AMD EPYC";
    p5.approximation = "a GPU's 4 EFA NICs as one link of their summed rate; EFA's per-hop latency fitted on 2 nodes";
    t["aws-p5"] = p5;

    // GCP A3 Mega (a3-megagpu-8g): 8x 200 Gb/s NICs for the GPUs (1,600 Gb/s, GPUDirect-TCPXO over
    // Ethernet), Intel Sapphire Rapids hosts.
    // GPUDirect-TCPXO carries NCCL's traffic over TCP through a receive-data-path offload: a network
    // hop costs 48.5 us more than InfiniBand's (sizes to 32 KiB) and the NICs sustain 83% of their
    // line rate (sizes from 1 GiB). Both fitted on the one 2-node AllReduce table there is: no table
    // is held out, so these are fit figures, not predictions (docs/validation.md).
    ClusterSpec a3mega = h100;
    a3mega.calibration.erase("nccl.efficiency.all_to_all");  // InfiniBand's, not GPUDirect-TCPXO's
    a3mega.calibration["nccl.extra_hop_us.net"] = "48.5";
    a3mega.calibration["nccl.efficiency.net"] = "0.83";
    a3mega.preset = "gcp-a3-mega";
    a3mega.nic_bw = "200Gbps";
    a3mega.source = "Google Cloud GPU machine types: a3-megagpu-8g, 8x H100 80GB, 8x 200 Gbps GPU NICs "
                    "(GPUDirect-TCPXO), 4th-gen Intel Xeon";
    a3mega.approximation = "GPUDirect-TCPXO as InfiniBand with its hop latency and NIC efficiency fitted on one 2-node table";
    t["gcp-a3-mega"] = a3mega;

    ClusterSpec h800 = h100;  // export variant: 8 NVLink links instead of 18
    h800.preset = "h800";
    h800.gpu = "H800-SXM5-80GB";
    h800.nvlink_bw = "164.8GBps";
    h800.source = "DGX H100 with the H800's NVLink: 8 links of 20.6 GB/s per GPU (NVIDIA H800 product brief)";
    t["h800"] = h800;
    return t;
  }();
  return table;
}

std::uint32_t parse_count(const std::string& key, const std::string& value, const std::string& origin) {
  std::uint32_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n == 0)
    throw UserError(origin, 0, "`" + key + "` must be a positive integer, got '" + value + "'",
                    "write e.g. " + key + "=8");
  return n;
}

void check_unit(const std::string& key, const std::string& value, const std::string& origin, bool bandwidth) {
  // A figure without its unit would be read as bytes / s or seconds: 200 for 200Gbps is 200 B/s.
  if (value.empty() || std::isalpha(static_cast<unsigned char>(value.back())) == 0)
    throw UserError(origin, 0, "`" + key + "` = '" + value + "' has no unit",
                    bandwidth ? "write the unit, e.g. 200Gbps (bits) or 25GBps (bytes)" : "write the unit, e.g. 2us or 500ns");
  const auto v = bandwidth ? read_bandwidth(value) : read_latency(value);
  if (!v || !(bandwidth ? is_physical_bandwidth(*v) : is_physical_latency(*v)))
    throw UserError(origin, 0, "`" + key + "` = '" + value + "' is not a valid " +
                                   (bandwidth ? "bandwidth" : "latency"),
                    bandwidth ? "use SimGrid's units, e.g. 300GBps (bytes) or 200Gbps (bits)"
                              : "use SimGrid's units, e.g. 2us, 500ns, 0.1ms");
}

} // namespace

const std::vector<std::string>& preset_names() {
  static const std::vector<std::string> names = {"dgx-a100", "azure-ndv4-a100", "dgx-h100", "h800", "aws-p5",
                                                 "gcp-a3-mega", "polaris"};
  return names;
}

const std::vector<Figure>& figures() {
  static const std::vector<Figure> table = {
      {"gpu", "GPU model written into the hosts' `gpu` property"},
      {"gpus_per_node", "GPUs per node"},
      {"nvlink_bw", "NVLink bandwidth per GPU per direction, e.g. 300GBps"},
      {"nvlink_latency", "GPU to NVSwitch latency, e.g. 350ns"},
      {"nics_per_node", "NICs per node (divides GPUs per node, or a multiple of it: several NICs per GPU)"},
      {"nic_bw", "Bandwidth per NIC per direction, e.g. 400Gbps"},
      {"nic_latency", "GPU through NIC to leaf switch latency, e.g. 1us"},
      {"switch_latency", "Latency of one switch traversal, e.g. 130ns"},
      {"oversubscription", "Fat-tree oversubscription (leaf down / up capacity), e.g. 2"},
      {"pod_nodes", "Nodes under one set of leaf switches (a pod; its up-link is their NICs / oversubscription), e.g. 16"},
      {"gpu_nic_path", "PCIe path from a GPU to its NIC as NCCL names it: pix, pxb, phb (host bridge) or sys"},
      {"gpu_speed_spread", "Standard deviation of the GPUs' sustained speed, a fraction of the median GPU's, e.g. 0.012"},
      {"nodes", "Number of nodes"},
      {"nccl.extra_base_us.ll", "Calibrated: extra per-call latency of an LL collective (us)"},
      {"nccl.extra_base_us.ll128", "Calibrated: extra per-call latency of an LL128 collective (us)"},
      {"nccl.extra_base_us.simple", "Calibrated: extra per-call latency of a Simple collective (us)"},
      {"nccl.extra_hop_us.nvlink", "Calibrated: extra latency per NVLink hop of a collective step (us)"},
      {"nccl.extra_hop_us.pcie", "Calibrated: extra latency per PCIe hop (us)"},
      {"nccl.extra_hop_us.net", "Calibrated: extra latency per network hop (us)"},
      {"nccl.efficiency.nvlink", "Calibrated: fraction of NVLink bandwidth a collective achieves (0..1]"},
      {"nccl.efficiency.pcie", "Calibrated: fraction of PCIe bandwidth a collective achieves (0..1]"},
      {"nccl.efficiency.net", "Calibrated: fraction of NIC bandwidth a collective achieves (0..1]"},
      {"nccl.efficiency.ll", "Calibrated: fraction of NCCL's LL bandwidth limit reached (0..1]"},
      {"nccl.efficiency.ll128", "Calibrated: fraction of NCCL's LL128 bandwidth limit reached (0..1]"},
      {"nccl.efficiency.nvls", "Calibrated: fraction of a GPU's NVLink bandwidth an NVLS reduction sustains in one node (0..1]"},
      {"nccl.efficiency.nvls_tree", "Calibrated: the same for the node's part of NVLSTree (0..1]; unset: nccl.efficiency.nvls"},
      {"nccl.efficiency.all_to_all", "Calibrated: fraction of the NICs' collective rate an AllToAll sustains (0..1]"},
      {"nccl.efficiency.all_to_all_nvlink", "Calibrated: fraction of a GPU's NVLink rate an AllToAll inside a node sustains (0..1]"},
      {"nccl.p2p_channel_bw.nvlink", "Calibrated: GB/s one send/recv channel moves over NVLink (0: no limit)"},
      {"nccl.p2p_channel_bw.pcie", "Calibrated: GB/s one send/recv channel moves over PCIe (0: no limit)"},
      {"nccl.p2p_channel_bw.net", "Calibrated: GB/s one send/recv channel moves between nodes (0: no limit)"},
      {"nccl.coll_channel_bw.net", "Calibrated: GB/s one collective channel (a CTA) moves between nodes (0: no limit)"},
      {"nccl.p2p_peer_us.net", "Calibrated: us a send/recv group or AllToAll spends per peer across nodes, once per call"},
      {"nccl.tail_copy_bw.ring", "Calibrated: GB/s a ring's channel copies its last received chunk into the output at, its links waiting (0: no wait)"},
      {"nccl.net_overhead_us", "Calibrated: us every step of an inter-node ring costs at least (x3 for Simple); unset: 1"},
      {"nccl.net_device_latency_us", "Not calibrated: the latency (us) the network plugin reports to NCCL, whose tuner adds it to each network hop; 0 for InfiniBand"},
  };
  return table;
}

const std::vector<std::string>& override_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const Figure& f : figures())
      k.push_back(f.key);
    return k;
  }();
  return keys;
}

ClusterSpec preset(const std::string& name, std::uint32_t nodes) {
  auto it = presets().find(name);
  if (it == presets().end()) {
    std::string known;
    for (const auto& n : preset_names())
      known += (known.empty() ? "" : ", ") + n;
    throw UserError("", 0, "unknown platform preset '" + name + "'",
                    "use one of: " + known + " (or give a platform XML file)");
  }
  ClusterSpec spec = it->second;
  spec.nodes = nodes;
  return spec;
}

double gpu_speed_spread_value(const std::string& text, const std::string& origin) {
  if (text.empty())
    return 0.0;
  double v = -1.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !(v >= 0.0 && v <= 0.2))
    throw UserError(origin, 0, "`gpu_speed_spread` = '" + text + "' is not a fraction in [0, 0.2]",
                    "give the standard deviation of the GPUs' sustained speed as a fraction of the median GPU's, "
                    "e.g. gpu_speed_spread=0.012 (1.2%), or 0 for GPUs that all run alike");
  return v;
}

std::string gpu_nic_path_value(const std::string& text, const std::string& origin) {
  if (text.empty())
    return "pxb";
  if (text != "pix" && text != "pxb" && text != "phb" && text != "sys")
    throw UserError(origin, 0, "`gpu_nic_path` = '" + text + "' is not a PCIe path NCCL knows",
                    "use pix (one PCIe switch between GPU and NIC), pxb (several switches), phb (through the CPU's "
                    "host bridge) or sys (across CPU sockets)");
  return text;
}

void override_figure(ClusterSpec& spec, const std::string& key, const std::string& value,
                     const std::string& origin) {
  if (key == "gpu") {
    if (value.empty())
      throw UserError(origin, 0, "`gpu` must name a GPU model", "write e.g. gpu=H100-SXM5-80GB");
    spec.gpu = value;
  } else if (key == "gpus_per_node") {
    spec.gpus_per_node = parse_count(key, value, origin);
  } else if (key == "nics_per_node") {
    spec.nics_per_node = parse_count(key, value, origin);
  } else if (key == "nodes") {
    spec.nodes = parse_count(key, value, origin);
  } else if (key == "pod_nodes") {
    spec.pod_nodes = parse_count(key, value, origin);
  } else if (key == "nvlink_bw" || key == "nic_bw") {
    check_unit(key, value, origin, true);
    (key == "nvlink_bw" ? spec.nvlink_bw : spec.nic_bw) = value;
  } else if (key == "nvlink_latency" || key == "nic_latency" || key == "switch_latency") {
    check_unit(key, value, origin, false);
    (key == "nvlink_latency" ? spec.nvlink_latency
                             : key == "nic_latency" ? spec.nic_latency : spec.switch_latency) = value;
  } else if (key == "oversubscription") {
    double v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v) || v < 1.0)
      throw UserError(origin, 0, "`oversubscription` must be a number >= 1, got '" + value + "'",
                      "write e.g. oversubscription=2 for a 2:1 fat-tree");
    spec.oversubscription = v;
  } else if (key == "gpu_nic_path") {
    spec.gpu_nic_path = gpu_nic_path_value(value, origin);
  } else if (key == "gpu_speed_spread") {
    gpu_speed_spread_value(value, origin);
    spec.gpu_speed_spread = value;
  } else if (key.rfind("nccl.", 0) == 0 &&
             std::find(override_keys().begin(), override_keys().end(), key) != override_keys().end()) {
    double v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    const bool efficiency = key.rfind("nccl.efficiency.", 0) == 0;
    const bool bandwidth = key.find("_bw.") != std::string::npos;
    // Extra latencies may be negative (below NCCL's figure); a time something takes may not.
    const bool duration = key == "nccl.net_device_latency_us" || key == "nccl.net_overhead_us" || key == "nccl.p2p_peer_us.net";
    const bool bad = ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v) ||
                     (efficiency && (v <= 0 || v > 1)) || ((bandwidth || duration) && v < 0);
    if (bad)
      throw UserError(origin, 0,
                      "`" + key + "` must be " +
                          (efficiency  ? "a fraction in (0, 1]"
                           : bandwidth ? "a bandwidth in GB/s, 0 or more"
                           : duration  ? "a latency in us, 0 or more"
                                       : "a latency in us") +
                          ", got '" + value + "'",
                      "write e.g. " + key +
                          (efficiency ? "=0.9"
                           : bandwidth ? (key == "nccl.tail_copy_bw.ring" ? "=55.5 (0: no wait)" : "=20 (0: no limit)")
                                       : "=1.5"));
    spec.calibration[key] = value;
  } else {
    std::string known;
    for (const auto& k : override_keys())
      known += (known.empty() ? "" : ", ") + k;
    throw UserError(origin, 0, "unknown platform figure '" + key + "'", "use one of: " + known);
  }
}

void validate(const ClusterSpec& spec, const std::string& origin) {
  const bool shared = spec.gpus_per_node % spec.nics_per_node == 0;  // GPUs share a NIC
  const bool several = spec.nics_per_node % spec.gpus_per_node == 0; // each GPU has several
  if (!shared && !several)
    throw UserError(origin, 0,
                    "nics_per_node (" + std::to_string(spec.nics_per_node) + ") and gpus_per_node (" +
                        std::to_string(spec.gpus_per_node) + ") do not divide each other",
                    "NICs are shared evenly or each GPU has the same number: pick e.g. nics_per_node=" +
                        std::to_string(spec.gpus_per_node) + ", a divisor of it or a multiple");
}

} // namespace echo::platforms
