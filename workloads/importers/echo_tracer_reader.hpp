#pragma once
// Echo tracer importer: turns the output of the Echo workload tracer (torch.fx graphs of one
// training step, profiled per node; see ../shared/data/echo-tracer) into a native trace.
//
// From a folder it reads the global graph (`*global_graph_profiling*.json`: nodes with their
// input nodes), the per-node mean times in milliseconds (`*global_ops_profiling*.json`) and,
// when present, the run's config log (`logs__config_*.json`: GPU count, batch, sequence, DDP).
// Every graph node becomes a compute kernel with its profiled time, in an order that respects
// the graph; in DDP mode each `ddp_Allreduce_i` becomes an AllReduce of `bucket_size` float32
// elements on a communication stream, issued once the gradients its `ddp_pre_i` gathers are
// ready — as DDP overlaps bucket reduction with the rest of backward — and the profiled
// `optimizer_step` (not a graph node) runs once every bucket is reduced. Every rank runs the same
// program (data parallelism).
#include "proto/trace.pb.h"

#include <string>

namespace echo::workloads {

// `config` names the config log to use when the folder holds profiles of several runs (it picks
// the files of that run's batch size and sequence length); empty: the folder's only one.
trace::Trace read_echo_tracer(const std::string& folder, const std::string& config = "");

} // namespace echo::workloads
