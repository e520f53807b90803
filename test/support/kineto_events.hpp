#pragma once
// Small hand-made PyTorch profiler (Kineto) traces for tests: one JSON object per event, written
// as the profiler writes them, so that every schema variant a test needs is visible in the test.
#include <string>
#include <vector>

namespace echo::test::kineto {

inline std::string x(const std::string& cat, const std::string& name, double ts, double dur, const std::string& tid,
                     const std::string& args = "") {
  return R"({"ph": "X", "cat": ")" + cat + R"(", "name": ")" + name + R"(", "pid": 1, "tid": )" + tid +
         R"(, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) +
         (args.empty() ? std::string() : R"(, "args": {)" + args + "}") + "}";
}

inline std::string step(int n, double ts, double dur, const std::string& cat = "user_annotation", const std::string& tid = "1") {
  return x(cat, "ProfilerStep#" + std::to_string(n), ts, dur, tid);
}

// A runtime call on host thread 1 with its correlation id.
inline std::string call(const std::string& name, double ts, double dur, int correlation, const std::string& cat = "cuda_runtime",
                        const std::string& tid = "1") {
  return x(cat, name, ts, dur, tid, R"("correlation": )" + std::to_string(correlation));
}

// A kernel (or copy, memset) on `stream`, launched by the call with `correlation`.
inline std::string gpu(const std::string& name, double ts, double dur, int correlation, int stream,
                       const std::string& extra_args = "", const std::string& cat = "kernel") {
  return x(cat, name, ts, dur, std::to_string(stream),
           R"("correlation": )" + std::to_string(correlation) + R"(, "stream": )" + std::to_string(stream) +
               (extra_args.empty() ? std::string() : ", " + extra_args));
}

// PyTorch's record_function around a collective (`nccl:all_reduce`) or a c10d op, with its inputs.
inline std::string annotation(const std::string& name, double ts, double dur, const std::string& dims, const std::string& types,
                              const std::string& cat = "user_annotation") {
  return x(cat, name, ts, dur, "1", R"("Input Dims": )" + dims + R"(, "Input type": )" + types);
}

inline std::string trace(const std::vector<std::string>& events, const std::string& distributed_info = "") {
  std::string out = "{";
  if (!distributed_info.empty())
    out += R"("distributedInfo": )" + distributed_info + ", ";
  out += R"("traceEvents": [)";
  for (std::size_t i = 0; i < events.size(); ++i)
    out += (i ? ",\n " : "\n ") + events[i];
  return out + "\n]}";
}

} // namespace echo::test::kineto
