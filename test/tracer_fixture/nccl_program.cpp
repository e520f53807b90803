// A two-process NCCL program (argument: its rank) for the tracer's end-to-end test: one
// AllReduce, a grouped send / recv with the other rank, and an AllReduce on a split communicator.
#include <nccl.h>

#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  const int rank = argc > 1 ? std::atoi(argv[1]) : 0;
  ncclUniqueId id;
  std::memset(&id, 7, sizeof id);  // both processes agree on it, as after an out-of-band broadcast
  ncclComm_t world = nullptr, alone = nullptr;
  if (ncclCommInitRank(&world, 2, id, rank) != ncclSuccess)
    return 1;
  ncclAllReduce(nullptr, nullptr, 1 << 20, ncclFloat32, ncclSum, world, nullptr);
  ncclGroupStart();
  ncclSend(nullptr, 4096, ncclBfloat16, 1 - rank, world, nullptr);
  ncclRecv(nullptr, 4096, ncclBfloat16, 1 - rank, world, nullptr);
  ncclGroupEnd();
  ncclCommSplit(world, rank, 0, &alone, nullptr);
  ncclAllReduce(nullptr, nullptr, 256, ncclFloat16, ncclSum, alone, nullptr);
  return 0;
}
