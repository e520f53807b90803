#pragma once
// MLCommons Chakra execution traces into a native trace: `echo-des import chakra FILE...`, one file
// per rank (`name.<rank>.et`; files without a rank in their name take their place in the list).
// Schema versions 0.0.4 and 1.0.x (proto/chakra_et.proto).
//
// Nodes become tasks with their durations and every control and data dependency:
// - COMP_NODE: a GPU kernel (category from its name) on its `stream` attribute's stream, or on one
//   "compute" stream; with `is_cpu_op` set, host time (never slowed, not GPU compute);
// - COMM_COLL_NODE: a collective (`comm_type`, `comm_size` bytes as the collective's buffer) on
//   the communicator of its `pg_name` — whose members are the ranks whose files use that name —
//   or on all ranks without one; its duration kept for `comm: measured`;
// - COMM_SEND_NODE / COMM_RECV_NODE: a transfer to `comm_dst` / from `comm_src` (global ranks);
// - MEM_LOAD_NODE / MEM_STORE_NODE: a copy of its duration; METADATA_NODE: an empty step that
//   keeps the dependencies through it.
// Nodes without a stream share one per kind, in dependency order (start time, then id, breaks ties).
#include "proto/trace.pb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace echo::workloads {

struct ChakraImport {
  trace::Trace trace;
  std::string version;
  std::uint64_t compute = 0, host = 0, collectives = 0, transfers = 0, other = 0;
};

ChakraImport read_chakra(const std::vector<std::string>& files);

} // namespace echo::workloads
