#pragma once
// The names NCCL's tuner works with: algorithms, protocols and GPU architectures, in NCCL's own
// order (the order its tables and NCCL_ALGO / NCCL_PROTO use).
#include <array>
#include <optional>
#include <string_view>

namespace echo::collectives {

enum class Protocol { ll, ll128, simple };
inline constexpr std::array<Protocol, 3> kProtocols = {Protocol::ll, Protocol::ll128, Protocol::simple};

// NCCL's algorithms. CollNet needs in-network reduction (SHARP) that no platform here describes;
// its names are still accepted in NCCL_ALGO so that users' settings parse.
enum class NcclAlgo { tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat };
inline constexpr std::array<NcclAlgo, 7> kNcclAlgos = {NcclAlgo::tree, NcclAlgo::ring, NcclAlgo::collnet_direct,
                                                      NcclAlgo::collnet_chain, NcclAlgo::nvls, NcclAlgo::nvls_tree,
                                                      NcclAlgo::pat};

// Compute-capability classes NCCL keeps separate constants for.
enum class Arch { volta, ampere, hopper, blackwell };

std::string_view to_string(Protocol p);   // "LL", "LL128", "Simple"
std::string_view to_string(NcclAlgo a);   // "Tree", "Ring", ..., as NCCL prints them
std::string_view to_string(Arch a);
// Case-insensitive, as NCCL parses them.
std::optional<Protocol> protocol_from_string(std::string_view name);
std::optional<NcclAlgo> nccl_algo_from_string(std::string_view name);
// From a GPU model name (the `gpu` host property): V100 -> volta, A100 / A800 -> ampere,
// H100 / H800 / H200 / GH200 -> hopper, B200 / GB200 / B300 -> blackwell; anything else -> ampere.
Arch arch_from_gpu_model(std::string_view model);

} // namespace echo::collectives
