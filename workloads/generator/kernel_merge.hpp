#pragma once
// Merging runs of kernels into one task, only where that cannot change any result: consecutive
// compute tasks of one stream (of one category when `same_category`, so that a per-category
// slowdown applies alike), where nothing but the stream order leads into the later ones and
// nothing on another stream waits for the earlier ones; a kernel that fills the GPU
// (Compute.fills_gpu) stays whole, since communication waits for exactly its end. The engine then
// keeps one event where there were many; the iteration time, breakdown and critical path are the
// same (tested). The merged task keeps the first kernel's id and is named after it
// ("layer3.norm1 +4 kernels").
#include "proto/trace.pb.h"

namespace echo::workloads {

// The template's task ids are their positions, as ProgramBuilder and add_host_thread leave them.
// Returns how many tasks were folded away.
std::size_t merge_kernel_runs(trace::RankTemplate& tmpl, bool same_category);

} // namespace echo::workloads
