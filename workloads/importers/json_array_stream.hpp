#pragma once
// Reads one big array of a JSON object — Kineto's "traceEvents", hundreds of MB — in bounded
// memory. The text arrives in chunks; a small scanner (strings, escapes, nesting) finds where the
// array's elements begin and end, and hands them on in batches re-wrapped as JSON arrays
// ("[e1,e2,...]", padded for simdjson) of about `batch_bytes`. Everything else in the object is
// returned with the array left empty, for an ordinary parse. Only the scanner's own state, one
// chunk and one batch are in memory at a time; JSON itself is still parsed by simdjson.
#include <simdjson.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace echo::workloads {

struct JsonArrayStreamResult {
  std::string rest;          // the object with the array's elements removed
  bool found = false;        // the key was there, holding an array
  std::size_t bytes = 0;     // text read in all
};

// `read` fills a buffer and returns the bytes written, 0 at the end. Throws std::runtime_error with
// a description when the text is not well formed (unbalanced, cut short).
JsonArrayStreamResult stream_json_array(const std::function<std::size_t(char*, std::size_t)>& read, std::string_view key,
                                        std::size_t batch_bytes,
                                        const std::function<void(const simdjson::padded_string&)>& on_batch);

} // namespace echo::workloads
