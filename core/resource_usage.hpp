#pragma once
// Process resource figures for the `simulation` section of summaries.
namespace echo::core {

double peak_rss_mb();

} // namespace echo::core
