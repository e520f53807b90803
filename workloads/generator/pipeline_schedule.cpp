#include "workloads/generator/pipeline_schedule.hpp"

#include <algorithm>

namespace echo::workloads {

namespace {

// The k-th forward (or backward) pass of an interleaved stage: micro-batches advance in groups of
// `stages`, each group through every chunk before the next group starts.
PipelinePass interleaved_pass(bool forward, std::uint32_t k, std::uint32_t stages, std::uint32_t chunks) {
  const std::uint32_t in_group = (k / stages) % chunks;
  const std::uint32_t micro_batch = k / (stages * chunks) * stages + k % stages;
  return {forward, micro_batch, forward ? in_group : chunks - 1 - in_group};
}

} // namespace

std::vector<PipelinePass> pipeline_order(PipelineSchedule schedule, std::uint32_t stages, std::uint32_t stage,
                                         std::uint32_t micro_batches, std::uint32_t virtual_stages) {
  std::vector<PipelinePass> order;
  const std::uint32_t chunks = schedule == PipelineSchedule::interleaved ? virtual_stages : 1;
  const std::uint32_t total = micro_batches * chunks;
  order.reserve(2 * total);
  if (schedule == PipelineSchedule::gpipe) {
    for (std::uint32_t mb = 0; mb < micro_batches; ++mb)
      order.push_back({true, mb, 0});
    for (std::uint32_t mb = 0; mb < micro_batches; ++mb)
      order.push_back({false, mb, 0});
    return order;
  }
  std::uint32_t warmup = 0;
  if (schedule == PipelineSchedule::one_f_one_b)
    warmup = std::min(stages - stage - 1, micro_batches);
  else
    warmup = micro_batches == stages ? total : std::min((stages - stage - 1) * 2 + (chunks - 1) * stages, total);
  auto pass = [&](bool forward, std::uint32_t k) {
    return chunks == 1 ? PipelinePass{forward, k, 0} : interleaved_pass(forward, k, stages, chunks);
  };
  for (std::uint32_t k = 0; k < warmup; ++k)
    order.push_back(pass(true, k));
  for (std::uint32_t k = 0; k + warmup < total; ++k) {
    order.push_back(pass(true, warmup + k));
    order.push_back(pass(false, k));
  }
  for (std::uint32_t k = total - warmup; k < total; ++k)
    order.push_back(pass(false, k));
  return order;
}

} // namespace echo::workloads
