#include "core/resource_usage.hpp"

#include <sys/resource.h>

namespace echo::core {

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

} // namespace echo::core
