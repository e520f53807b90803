#include "platforms/route.hpp"

namespace echo::platforms {

std::string_view to_string(LinkKind kind) {
  switch (kind) {
  case LinkKind::nvlink: return "nvlink";
  case LinkKind::pcie: return "pcie";
  case LinkKind::network: return "network";
  }
  return "network";
}

} // namespace echo::platforms
