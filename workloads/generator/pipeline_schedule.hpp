#pragma once
// The order in which one pipeline stage runs the forward and backward passes of its micro-batches,
// as Megatron-LM's schedules issue them:
//  - gpipe: every forward, then every backward;
//  - 1f1b: (pp - stage - 1) warm-up forwards, then one forward / one backward, then the
//    remaining backwards (Narayanan et al. 2021, PipeDream-Flush);
//  - interleaved-1f1b: each stage holds `virtual_stages` model chunks; micro-batches go through
//    the chunks in groups of pp, with (pp - stage - 1) * 2 + (v - 1) * pp warm-up passes.
#include "workloads/generator/training_job.hpp"

#include <cstdint>
#include <vector>

namespace echo::workloads {

struct PipelinePass {
  bool forward = true;
  std::uint32_t micro_batch = 0;
  std::uint32_t chunk = 0;  // model chunk on this stage (0 .. virtual_stages - 1)
};

std::vector<PipelinePass> pipeline_order(PipelineSchedule schedule, std::uint32_t stages, std::uint32_t stage,
                                         std::uint32_t micro_batches, std::uint32_t virtual_stages);

} // namespace echo::workloads
