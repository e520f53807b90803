#include "base/atomic_write.hpp"

#include "base/user_error.hpp"

#include <fstream>

namespace echo {

namespace fs = std::filesystem;

namespace {
const char* const kSuffix = ".tmp";
}

void write_atomically(const fs::path& path, const std::function<void(std::ostream&)>& write, const std::string& what) {
  const fs::path tmp = path.string() + kSuffix;
  std::error_code ignored;
  fs::remove(tmp, ignored);  // a killed run's leftover, whatever it is (a FIFO would block the open)
  try {
    std::ofstream out(tmp, std::ios::binary);
    if (!out)
      throw UserError(path.string(), 0, "cannot write " + what, "check that the output folder is writable");
    write(out);
    if (!out.flush())
      throw UserError(path.string(), 0, "writing " + what + " failed", "check the free disk space");
  } catch (...) {
    fs::remove(tmp, ignored);  // no half-written file is left behind
    throw;
  }
  fs::rename(tmp, path);
}

bool is_atomic_write_leftover(const std::string& file_name, const std::string& final_name) {
  return file_name == final_name + kSuffix;
}

} // namespace echo
