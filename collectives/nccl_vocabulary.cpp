#include "collectives/nccl_vocabulary.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace echo::collectives {

namespace {

bool equal_folded(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool contains(std::string_view haystack, std::string_view needle) {
  std::string h(haystack);
  std::transform(h.begin(), h.end(), h.begin(), [](unsigned char c) { return std::toupper(c); });
  return h.find(needle) != std::string::npos;
}

} // namespace

std::string_view to_string(Protocol p) {
  switch (p) {
  case Protocol::ll: return "LL";
  case Protocol::ll128: return "LL128";
  case Protocol::simple: return "Simple";
  }
  return "?";
}

std::string_view to_string(NcclAlgo a) {
  switch (a) {
  case NcclAlgo::tree: return "Tree";
  case NcclAlgo::ring: return "Ring";
  case NcclAlgo::collnet_direct: return "CollNetDirect";
  case NcclAlgo::collnet_chain: return "CollNetChain";
  case NcclAlgo::nvls: return "NVLS";
  case NcclAlgo::nvls_tree: return "NVLSTree";
  case NcclAlgo::pat: return "PAT";
  }
  return "?";
}

std::string_view to_string(Arch a) {
  switch (a) {
  case Arch::volta: return "Volta";
  case Arch::ampere: return "Ampere";
  case Arch::hopper: return "Hopper";
  case Arch::blackwell: return "Blackwell";
  }
  return "?";
}

std::optional<Protocol> protocol_from_string(std::string_view name) {
  for (Protocol p : kProtocols)
    if (equal_folded(name, to_string(p)))
      return p;
  return std::nullopt;
}

std::optional<NcclAlgo> nccl_algo_from_string(std::string_view name) {
  for (NcclAlgo a : kNcclAlgos)
    if (equal_folded(name, to_string(a)))
      return a;
  return std::nullopt;
}

Arch arch_from_gpu_model(std::string_view model) {
  if (contains(model, "V100"))
    return Arch::volta;
  if (contains(model, "B100") || contains(model, "B200") || contains(model, "B300"))
    return Arch::blackwell;
  if (contains(model, "H100") || contains(model, "H800") || contains(model, "H200") || contains(model, "H20"))
    return Arch::hopper;
  return Arch::ampere;
}

} // namespace echo::collectives
