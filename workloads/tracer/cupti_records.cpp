#include "workloads/tracer/cupti_records.hpp"

#include <mutex>
#include <string>
#include <unordered_map>

namespace echo::workloads::tracer {

namespace {

// Runtime and driver calls are many (cudaGetDevice, cudaStreamIsCapturing, ...); only the ones
// that launch work or wait for it matter, decided once per callback id from its name.
bool call_matters(CUpti_CallbackDomain domain, CUpti_CallbackId cbid) {
  static std::mutex mutex;
  static std::unordered_map<std::uint64_t, bool> known;
  const std::uint64_t key = (static_cast<std::uint64_t>(domain) << 32) | cbid;
  std::lock_guard lock(mutex);
  const auto it = known.find(key);
  if (it != known.end())
    return it->second;
  const char* name = nullptr;
  bool matters = false;
  if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr) {
    const std::string n = name;
    for (const char* word : {"Launch", "Memcpy", "Memset", "Synchronize", "EventRecord", "StreamWaitEvent"})
      matters = matters || n.find(word) != std::string::npos;
  }
  known.emplace(key, matters);
  return matters;
}

const char* memcpy_name(std::uint8_t kind) {
  switch (kind) {
  case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "Memcpy HtoD";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "Memcpy DtoH";
  case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "Memcpy DtoD";
  case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "Memcpy PtoP";
  default: return "Memcpy";
  }
}

void add_gpu(const RecordFn& record, GpuActivityKind kind, const char* name, std::uint32_t stream, std::uint32_t correlation,
             std::uint64_t start, std::uint64_t end) {
  record([&](ActivityLog& log) {
    log.gpu.push_back({kind, intern(log, name != nullptr ? name : "kernel"), stream, correlation, start, end});
  });
}

} // namespace

void read_cupti_record(const CUpti_Activity* r, const RecordFn& record) {
  switch (r->kind) {
  case CUPTI_ACTIVITY_KIND_KERNEL:
  case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
    const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
    add_gpu(record, GpuActivityKind::kernel, k->name, k->streamId, k->correlationId, k->start, k->end);
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMCPY: {
    const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
    add_gpu(record, GpuActivityKind::memcpy, memcpy_name(m->copyKind), m->streamId, m->correlationId, m->start, m->end);
    break;
  }
  case CUPTI_ACTIVITY_KIND_MEMSET: {
    const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
    add_gpu(record, GpuActivityKind::memset, "Memset", m->streamId, m->correlationId, m->start, m->end);
    break;
  }
  case CUPTI_ACTIVITY_KIND_RUNTIME:
  case CUPTI_ACTIVITY_KIND_DRIVER: {
    const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
    const auto domain = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
    if (call_matters(domain, a->cbid))
      record([&](ActivityLog& log) { log.api.push_back({a->correlationId, a->threadId, a->start, a->end}); });
    break;
  }
  case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
    const auto* e = reinterpret_cast<const CUpti_ActivityCudaEvent2*>(r);
    record([&](ActivityLog& log) { log.event_records.push_back({e->correlationId, e->eventId, e->streamId}); });
    break;
  }
  case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
    const auto* s = reinterpret_cast<const CUpti_ActivitySynchronization2*>(r);
    SyncKind kind;
    switch (s->type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: kind = SyncKind::stream_wait_event; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: kind = SyncKind::event_synchronize; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: kind = SyncKind::stream_synchronize; break;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: kind = SyncKind::context_synchronize; break;
    default: return;
    }
    record([&](ActivityLog& log) {
      log.syncs.push_back({kind, s->correlationId, s->streamId, s->cudaEventId, s->start, s->end});
    });
    break;
  }
  case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
    const auto* x = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(r);
    if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
      record([&](ActivityLog& log) { log.external.push_back({x->correlationId, x->externalId}); });
    break;
  }
  default:
    break;
  }
}


} // namespace echo::workloads::tracer
