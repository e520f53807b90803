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

namespace echo::workloads {

trace::Trace replicate_dp(const trace::Trace& trace, std::uint32_t dp, const std::string& source);

} // namespace echo::workloads
