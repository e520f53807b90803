#pragma once
// One CUPTI activity record (CUDA 13's layouts: Kernel10, Memcpy6, Memset4, API, CudaEvent2,
// Synchronization2, ExternalCorrelation) into the activity log. Separate from the collector so
// that tests can feed it records built by hand, without a GPU.
#include "workloads/tracer/activity_log.hpp"

#include <cupti.h>

#include <functional>

namespace echo::workloads::tracer {

// Adds to the log through `record` (the tracer's bounded, locked log; a plain log in tests).
using RecordFn = std::function<void(const std::function<void(ActivityLog&)>&)>;

void read_cupti_record(const CUpti_Activity* r, const RecordFn& record);

} // namespace echo::workloads::tracer
