#include "platforms/link_figures.hpp"

#include <xbt/parse_units.hpp>

#include <exception>

namespace echo::platforms {

// SimGrid's unit parser throws on an unknown unit or a number it cannot read.
std::optional<double> read_bandwidth(const std::string& text) {
  try {
    return xbt_parse_get_bandwidth("", 0, text, "");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<double> read_latency(const std::string& text) {
  try {
    return xbt_parse_get_time("", 0, text, "");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

} // namespace echo::platforms
