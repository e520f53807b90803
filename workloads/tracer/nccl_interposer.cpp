// NCCL calls, seen by standing in for libnccl's functions when the tracer is LD_PRELOADed. Each
// wrapper records the call and forwards to the real function (dlsym RTLD_NEXT). Around the real
// call that launches the kernel — the call itself, or ncclGroupEnd for grouped calls — it pushes a
// CUPTI external correlation id, so the kernel's activity record names the call(s) it ran.
//
// A wrapper must never make the program fail: if the real function cannot be found it returns
// ncclSystemError as libnccl would for a broken installation, and recording never throws.
#include "workloads/tracer/cupti_bridge.hpp"
#include "workloads/tracer/tracer_state.hpp"

#include <nccl.h>

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

using namespace echo::workloads::tracer;
namespace trace = echo::trace;

template <typename Fn>
Fn real(const char* name) {
  return reinterpret_cast<Fn>(dlsym(RTLD_NEXT, name));
}

#define ECHO_REAL(name) static const auto real_fn = real<decltype(&name)>(#name); \
  if (real_fn == nullptr) return ncclSystemError

thread_local int group_depth = 0;
thread_local std::uint64_t group_launch = 0;

std::uint32_t thread_id() {
  static std::atomic<std::uint32_t> next{1};
  thread_local const std::uint32_t id = next++;
  return id;
}

std::pair<std::uint8_t, std::uint8_t> dtype_of(ncclDataType_t t) {
  // (echo.trace.DataType, bytes per element)
  switch (t) {
  case ncclInt8: return {7, 1};
  case ncclUint8: return {7, 1};
  case ncclInt32: return {5, 4};
  case ncclUint32: return {5, 4};
  case ncclInt64: return {6, 8};
  case ncclUint64: return {6, 8};
  case ncclFloat16: return {2, 2};
  case ncclFloat32: return {1, 4};
  case ncclFloat64: return {8, 8};
  case ncclBfloat16: return {3, 2};
  default: return {4, 1};  // the fp8 types
  }
}

std::string digest(const void* data, std::size_t size, std::string_view salt = {}) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  auto mix = [&](unsigned char c) { h = (h ^ c) * 1099511628211ull; };
  for (std::size_t i = 0; i < size; ++i)
    mix(static_cast<const unsigned char*>(data)[i]);
  for (char c : salt)
    mix(static_cast<unsigned char>(c));
  char buf[32];
  std::snprintf(buf, sizeof buf, "nccl-%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Communicator ids by handle, for ncclCommSplit (the child's id derives from its parent's).
std::mutex comms_mutex;
std::map<std::uint64_t, std::pair<std::string, std::uint64_t>> comm_ids;  // handle -> (id, splits so far)

void joined(ncclComm_t comm, const std::string& id, int rank, int size) {
  if (comm == nullptr)
    return;
  const auto handle = reinterpret_cast<std::uint64_t>(comm);
  {
    std::lock_guard lock(comms_mutex);
    comm_ids[handle] = {id, 0};
  }
  TracerState::get().record([&](ActivityLog& log) {
    log.comms.push_back({handle, id, static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(size)});
  });
}

void record_call(NcclOp op, std::uint64_t launch, std::size_t count, ncclDataType_t type, int peer_or_root, ncclComm_t comm,
                 cudaStream_t stream) {
  const auto [dtype, bytes] = dtype_of(type);
  NcclCall c;
  c.op = op;
  c.launch = launch;
  c.comm = reinterpret_cast<std::uint64_t>(comm);
  c.count = count;
  c.dtype = dtype;
  c.dtype_bytes = bytes;
  c.peer = op.transfer != Transfer::none ? static_cast<std::uint32_t>(peer_or_root) : 0;
  c.root = op.collective == trace::BROADCAST || op.collective == trace::REDUCE ? static_cast<std::uint32_t>(peer_or_root) : 0;
  c.stream = reinterpret_cast<std::uint64_t>(stream);
  c.thread = thread_id();
  TracerState::get().record([&](ActivityLog& log) { log.nccl.push_back(c); });
}

// Records the call and runs `launch` under its correlation id (or the enclosing group's).
template <typename Launch>
ncclResult_t traced(NcclOp op, std::size_t count, ncclDataType_t type, int peer_or_root, ncclComm_t comm, cudaStream_t stream,
                    Launch launch) {
  if (group_depth > 0) {
    record_call(op, group_launch, count, type, peer_or_root, comm, stream);
    return launch();
  }
  const std::uint64_t id = TracerState::get().next_launch_id();
  record_call(op, id, count, type, peer_or_root, comm, stream);
  push_external_correlation(id);
  const ncclResult_t r = launch();
  pop_external_correlation();
  return r;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  ECHO_REAL(ncclCommInitRank);
  const ncclResult_t r = real_fn(comm, nranks, id, rank);
  if ((r == ncclSuccess || r == ncclInProgress) && comm != nullptr)
    joined(*comm, digest(&id, sizeof id), rank, nranks);
  return r;
}

__attribute__((visibility("default"))) ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                                                        ncclConfig_t* config) {
  ECHO_REAL(ncclCommInitRankConfig);
  const ncclResult_t r = real_fn(comm, nranks, id, rank, config);
  if ((r == ncclSuccess || r == ncclInProgress) && comm != nullptr)
    joined(*comm, digest(&id, sizeof id), rank, nranks);
  return r;
}

__attribute__((visibility("default"))) ncclResult_t ncclCommInitRankScalable(ncclComm_t* comm, int nranks, int rank, int n_ids,
                                                                          ncclUniqueId* ids, ncclConfig_t* config) {
  ECHO_REAL(ncclCommInitRankScalable);
  const ncclResult_t r = real_fn(comm, nranks, rank, n_ids, ids, config);
  if ((r == ncclSuccess || r == ncclInProgress) && comm != nullptr && n_ids > 0 && ids != nullptr)
    joined(*comm, digest(ids, sizeof *ids), rank, nranks);
  return r;
}

__attribute__((visibility("default"))) ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
                                                               ncclConfig_t* config) {
  ECHO_REAL(ncclCommSplit);
  const ncclResult_t r = real_fn(comm, color, key, newcomm, config);
  if ((r != ncclSuccess && r != ncclInProgress) || newcomm == nullptr || *newcomm == nullptr)
    return r;
  // Every member splits its parent in the same order (the call is collective), so the parent's
  // id, the split's number and the colour name the child alike in every member.
  std::string parent = "unknown";
  std::uint64_t split = 0;
  {
    std::lock_guard lock(comms_mutex);
    const auto it = comm_ids.find(reinterpret_cast<std::uint64_t>(comm));
    if (it != comm_ids.end()) {
      parent = it->second.first;
      split = it->second.second++;
    }
  }
  static const auto user_rank = real<decltype(&ncclCommUserRank)>("ncclCommUserRank");
  static const auto count = real<decltype(&ncclCommCount)>("ncclCommCount");
  int rank = 0, size = 0;
  if (user_rank != nullptr && count != nullptr && user_rank(*newcomm, &rank) == ncclSuccess && count(*newcomm, &size) == ncclSuccess)
    joined(*newcomm, digest(parent.data(), parent.size(), ":" + std::to_string(split) + ":" + std::to_string(color)), rank, size);
  return r;
}

__attribute__((visibility("default"))) ncclResult_t ncclGroupStart() {
  ECHO_REAL(ncclGroupStart);
  if (group_depth++ == 0)
    group_launch = TracerState::get().next_launch_id();
  return real_fn();
}

__attribute__((visibility("default"))) ncclResult_t ncclGroupEnd() {
  ECHO_REAL(ncclGroupEnd);
  if (group_depth == 0 || --group_depth > 0)
    return real_fn();
  push_external_correlation(group_launch);
  const ncclResult_t r = real_fn();
  pop_external_correlation();
  return r;
}

__attribute__((visibility("default"))) ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t type,
                                                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  ECHO_REAL(ncclAllReduce);
  return traced(NcclOp::of(trace::ALL_REDUCE), count, type, 0, comm, stream, [&] { return real_fn(send, recv, count, type, op, comm, stream); });
}

__attribute__((visibility("default"))) ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, ncclDataType_t type,
                                                               int root, ncclComm_t comm, cudaStream_t stream) {
  ECHO_REAL(ncclBroadcast);
  return traced(NcclOp::of(trace::BROADCAST), count, type, root, comm, stream, [&] { return real_fn(send, recv, count, type, root, comm, stream); });
}

__attribute__((visibility("default"))) ncclResult_t ncclReduce(const void* send, void* recv, size_t count, ncclDataType_t type,
                                                            ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  ECHO_REAL(ncclReduce);
  return traced(NcclOp::of(trace::REDUCE), count, type, root, comm, stream, [&] { return real_fn(send, recv, count, type, op, root, comm, stream); });
}

__attribute__((visibility("default"))) ncclResult_t ncclAllGather(const void* send, void* recv, size_t count, ncclDataType_t type,
                                                               ncclComm_t comm, cudaStream_t stream) {
  ECHO_REAL(ncclAllGather);
  return traced(NcclOp::of(trace::ALL_GATHER), count, type, 0, comm, stream, [&] { return real_fn(send, recv, count, type, comm, stream); });
}

__attribute__((visibility("default"))) ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count, ncclDataType_t type,
                                                                   ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  ECHO_REAL(ncclReduceScatter);
  return traced(NcclOp::of(trace::REDUCE_SCATTER), count, type, 0, comm, stream,
                [&] { return real_fn(send, recv, count, type, op, comm, stream); });
}

__attribute__((visibility("default"))) ncclResult_t ncclAlltoAll(const void* send, void* recv, size_t count, ncclDataType_t type,
                                                              ncclComm_t comm, cudaStream_t stream) {
  ECHO_REAL(ncclAlltoAll);
  return traced(NcclOp::of(trace::ALL_TO_ALL), count, type, 0, comm, stream, [&] { return real_fn(send, recv, count, type, comm, stream); });
}

__attribute__((visibility("default"))) ncclResult_t ncclSend(const void* send, size_t count, ncclDataType_t type, int peer,
                                                          ncclComm_t comm, cudaStream_t stream) {
  ECHO_REAL(ncclSend);
  return traced(NcclOp::side(Transfer::send), count, type, peer, comm, stream, [&] { return real_fn(send, count, type, peer, comm, stream); });
}

__attribute__((visibility("default"))) ncclResult_t ncclRecv(void* recv, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                                                          cudaStream_t stream) {
  ECHO_REAL(ncclRecv);
  return traced(NcclOp::side(Transfer::recv), count, type, peer, comm, stream, [&] { return real_fn(recv, count, type, peer, comm, stream); });
}

} // extern "C"
