#pragma once
// KernelTable: measured kernels for training and evaluating slowdown predictors, read from CSV
// files laid out as ../shared/data/slowdown/*.csv: per kernel its isolated duration
// (`ground_truth`, ns), its duration when it overlapped communication (`duration`, ns), the
// overlapped fraction (`overlap_ratio`), and the feature columns (features.hpp). Extra columns
// are ignored; a missing feature column, an unreadable number or a non-positive duration is the
// user's error (file, line, what).
#include <string>
#include <vector>

namespace echo::slowdown {

struct KernelRow {
  std::string name;
  double isolated_ns = 0.0;
  double measured_ns = 0.0;
  double overlap_ratio = 0.0;
  // In feature_names() order, followed by collective_feature_names() when the table has those
  // columns (all five, or none: a table with some of them is refused, naming the first missing).
  std::vector<float> features;
};

std::vector<KernelRow> read_kernel_table(const std::string& path);

// Slowdown that explains a row's measured duration: duration = (1-r) T0 + r T0 (1 + s).
double measured_slowdown(const KernelRow& row);
// A measured duration shorter than the kernel's non-overlapped part alone, (1 - r) T0, would
// need the overlapped part to take negative time (s < -1): the two durations were not measured on
// the same launch. Training skips such rows; evaluation keeps every row.
bool impossible_measurement(const KernelRow& row);
// The duration a predicted slowdown gives the row.
double predicted_ns(const KernelRow& row, double slowdown);

} // namespace echo::slowdown
