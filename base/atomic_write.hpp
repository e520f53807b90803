#pragma once
// Output files appear whole or not at all: written under `NAME.tmp` beside the final name, then
// renamed. A failed write removes its temporary file; a killed process can leave one, which the
// next run into the same folder may overwrite (is_atomic_write_leftover says which names those are).
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace echo {

// Writes `path` through `write`; a UserError naming `path` when the folder is not writable or the
// write fails (`what` says what the file is: "the output file", "the sweep results").
void write_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write,
                      const std::string& what);

// True for the temporary file write_atomically makes for `final_name` (a leftover of a killed run).
bool is_atomic_write_leftover(const std::string& file_name, const std::string& final_name);

} // namespace echo
