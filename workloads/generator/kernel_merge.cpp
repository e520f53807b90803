#include "workloads/generator/kernel_merge.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace echo::workloads {

std::size_t merge_kernel_runs(trace::RankTemplate& tmpl, bool same_category) {
  const int n = tmpl.tasks_size();
  for (int i = 0; i < n; ++i)
    if (tmpl.tasks(i).id() != static_cast<std::uint64_t>(i))
      throw std::logic_error("merge_kernel_runs: task ids must be their positions (template " + tmpl.name() + ")");
  auto index_of = [](std::uint64_t id) { return static_cast<int>(id); };
  std::vector<bool> waited_on(static_cast<std::size_t>(n), false);
  for (const trace::Task& t : tmpl.tasks())
    for (std::uint64_t d : t.deps())
      waited_on[static_cast<std::size_t>(index_of(d))] = true;

  // Walk each stream in order; `open[s]` is the merged task a run on stream s is growing.
  std::vector<int> open(static_cast<std::size_t>(tmpl.streams_size()), -1);
  std::vector<int> absorbed_by(static_cast<std::size_t>(n), -1);
  std::vector<int> merged_count(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    trace::Task& t = *tmpl.mutable_tasks(i);
    int& run = open[t.stream()];
    // A kernel that fills the GPU keeps its own start and end: communication waits for exactly it.
    const bool compute = t.has_compute() && !t.compute().fills_gpu();
    if (compute && run >= 0 && t.deps_size() == 0 &&
        (!same_category || tmpl.tasks(run).category() == t.category())) {
      trace::Task& head = *tmpl.mutable_tasks(run);
      head.mutable_compute()->set_duration_ns(head.compute().duration_ns() + t.compute().duration_ns());
      absorbed_by[static_cast<std::size_t>(i)] = run;
      ++merged_count[static_cast<std::size_t>(run)];
      if (waited_on[static_cast<std::size_t>(i)])
        run = -1;  // others wait for the run's end: it stops here
      continue;
    }
    run = compute && !waited_on[static_cast<std::size_t>(i)] ? i : -1;
  }

  std::size_t removed = 0;
  google::protobuf::RepeatedPtrField<trace::Task> kept;
  for (int i = 0; i < n; ++i) {
    if (absorbed_by[static_cast<std::size_t>(i)] >= 0) {
      ++removed;
      continue;
    }
    trace::Task t = tmpl.tasks(i);
    if (merged_count[static_cast<std::size_t>(i)] > 0)
      t.set_name(t.name() + " +" + std::to_string(merged_count[static_cast<std::size_t>(i)]) + " kernels");
    for (auto& d : *t.mutable_deps()) {
      const int head = absorbed_by[static_cast<std::size_t>(index_of(d))];
      if (head >= 0)
        d = static_cast<std::uint64_t>(head);  // ids are positions
    }
    *kept.Add() = std::move(t);
  }
  tmpl.mutable_tasks()->Swap(&kept);
  return removed;
}

} // namespace echo::workloads
