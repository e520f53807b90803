#pragma once
// The host thread of a generated rank: the CPU thread that launches the rank's kernels and
// communication calls one after the other, in the order the framework issues them, paying a host
// cost per launch (Python, the dispatcher, autograd, the CUDA launch), and that waits for the GPU
// where the framework synchronises (`.item()`, `torch.cuda.synchronize()`). A GPU task cannot
// start before its launch; a job whose kernels are shorter than their launches is host-bound.
//
// Written into the template as HOST tasks on a stream of its own ("host"), as traced host threads
// are, so the engine needs nothing new. A GPU task gets a dependency on its launch only where the
// launch can be what it waits for: within a stretch between two host waits, a task whose stream
// predecessor or dependencies cannot end before its launch even at the earliest (every GPU task
// starting at its launch, communication taking no time) keeps no gate, and its launch cost is
// carried by the next host task. So a GPU-bound job gets a handful of host tasks per
// synchronisation, and the kernel merge still folds its kernel runs; only a host-bound stretch pays
// one host task per kernel. The result equals gating every task (tested).
#include "proto/trace.pb.h"
#include "workloads/generator/program_builder.hpp"

#include <vector>

namespace echo::workloads {

inline constexpr const char* kHostStream = "host";

// Adds the host thread to a template whose tasks are in issue order with ids equal to their
// positions (as ProgramBuilder makes them). `launch_cost_s[i]` is the host time of launching task
// i; `waits` are the host's waits for the GPU. Tasks are renumbered in their new order.
// `gate_every_task` gives every GPU task its own launch (the reference the pruning is tested against).
void add_host_thread(trace::RankTemplate& tmpl, const std::vector<double>& launch_cost_s, const std::vector<HostWait>& waits,
                     bool gate_every_task = false);

} // namespace echo::workloads
