#pragma once
// Bandwidths and latencies as SimGrid reads them from text with a unit ("200Gbps", "1us"), and
// what makes one physical. SimGrid itself takes a negative or zero bandwidth (a route through one
// then reads as -25 GB/s): callers refuse those with a message of their own.
#include <cmath>
#include <optional>
#include <string>

namespace echo::platforms {

// nullopt when SimGrid's unit parser cannot read the text.
std::optional<double> read_bandwidth(const std::string& text);
std::optional<double> read_latency(const std::string& text);

inline bool is_physical_bandwidth(double bytes_per_s) { return std::isfinite(bytes_per_s) && bytes_per_s > 0; }
inline bool is_physical_latency(double seconds) { return std::isfinite(seconds) && seconds >= 0; }

} // namespace echo::platforms
