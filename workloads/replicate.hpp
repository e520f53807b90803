#pragma once
// Ex-situ replication: a trace of one data-parallel replica — one rank, or one rank per (tp, pp)
// coordinate — describes a job of any data-parallel width. replicate_dp(trace, D) builds the whole
// job: D copies of the replica, each rank running its original's template (templates are shared,
// nothing is copied per rank), every communicator of the replica repeated per copy, and each
// data-parallel communicator (slot `dp`) grown to the D ranks that hold the same coordinate.
//
// The replica is the set of ranks that are member 0 of their `dp` communicator (every rank when
// the trace has no `dp` slot: then each rank gets a `dp` communicator of its own copies). A
// non-dp communicator that mixes replicas cannot be repeated and is the user's error.
#include "proto/trace.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace echo::workloads {

trace::Trace replicate_dp(const trace::Trace& trace, std::uint32_t dp, const std::string& source);

// A trace of some ranks of a real job (Kineto files of rank 0 only, say) as one data-parallel
// replica: only the traced ranks are kept, and each communicator that reaches ranks nobody traced
// — the data-parallel group — becomes a `dp` communicator over the traced ranks in it (the tasks
// that use it are moved to slot `dp`). replicate_dp then grows it to any width. A rank in two such
// groups is the user's error: which one is data-parallel cannot be told.
trace::Trace as_dp_replica(const trace::Trace& trace, const std::vector<std::uint32_t>& traced_ranks, const std::string& source);

} // namespace echo::workloads
