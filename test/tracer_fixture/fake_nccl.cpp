// A stand-in for libnccl with no GPU: communicators are plain structs and the operations do
// nothing. It lets CI run a real program under the tracer's LD_PRELOAD interposition.
#include <nccl.h>

#include <cstdlib>

struct ncclComm {
  int rank, size;
};

extern "C" {
ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId, int rank) {
  *comm = new ncclComm{rank, nranks};
  return ncclSuccess;
}
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t*) {
  // Splitting a communicator of two by colour = rank gives each member a communicator of one.
  *newcomm = new ncclComm{color == comm->rank ? 0 : key, 1};
  return ncclSuccess;
}
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) { *rank = comm->rank; return ncclSuccess; }
ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) { *count = comm->size; return ncclSuccess; }
ncclResult_t ncclAllReduce(const void*, void*, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) { return ncclSuccess; }
ncclResult_t ncclSend(const void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) { return ncclSuccess; }
ncclResult_t ncclRecv(void*, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) { return ncclSuccess; }
ncclResult_t ncclGroupStart() { return ncclSuccess; }
ncclResult_t ncclGroupEnd() { return ncclSuccess; }
}
