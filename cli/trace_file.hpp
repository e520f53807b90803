#pragma once
// Writing a native trace the commands produced: binary protobuf, or text format for a .pbtxt
// name; written whole (through a temporary file) or not at all.
#include "proto/trace.pb.h"

#include <string>

namespace echo::cli {

void write_trace(const trace::Trace& t, const std::string& path);

} // namespace echo::cli
