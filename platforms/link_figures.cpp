#include "platforms/link_figures.hpp"

#include <xbt/parse_units.hpp>

#include <exception>

namespace echo::platforms {

namespace {

// SimGrid's unit parser throws on an unknown unit or a number it cannot read.
template <typename Parse>
std::optional<double> read_with(Parse parse) {
  try {
    return parse();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

} // namespace

std::optional<double> read_bandwidth(const std::string& text) {
  return read_with([&] { return xbt_parse_get_bandwidth("", 0, text, ""); });
}

std::optional<double> read_latency(const std::string& text) {
  return read_with([&] { return xbt_parse_get_time("", 0, text, ""); });
}

} // namespace echo::platforms
