#pragma once
// What every fuzz target shares. A reader is handed bytes as the files it reads; the only outcomes
// allowed are success and echo::UserError (the message a user sees, exit 2). Anything else — any
// other exception, a crash, a sanitizer report, a hang (libFuzzer's -timeout) — is a finding.
#include "base/user_error.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace echo::fuzz {

// One folder per fuzzing process, emptied before each input and removed at exit.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "echo-des-fuzz-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      std::abort();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch(), ec);
    });
    return std::filesystem::path(pattern);
  }();
  return dir;
}

inline void clear_scratch() {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(scratch(), ec))
    std::filesystem::remove_all(entry.path(), ec);
}

// Writes `content` to `name` inside the scratch folder; returns its path.
inline std::string write_file(const std::string& name, std::string_view content) {
  const std::filesystem::path path = scratch() / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(content.data(), static_cast<std::streamsize>(content.size()));
  return path.string();
}

// Splits an input into parts at a separator line, so one input can be several files (or a file and
// its command-line overrides). Seeds are written the same way.
inline constexpr std::string_view kPartSeparator = "\n#~~~8<~~~\n";
inline std::vector<std::string_view> parts(std::string_view input, std::size_t most) {
  std::vector<std::string_view> out;
  while (out.size() + 1 < most) {
    const auto at = input.find(kPartSeparator);
    if (at == std::string_view::npos)
      break;
    out.push_back(input.substr(0, at));
    input.remove_prefix(at + kPartSeparator.size());
  }
  out.push_back(input);
  return out;
}

// Runs `read`; a UserError is a good answer, anything else aborts with what it was.
template <class Read>
int expect_clean_outcome(Read&& read) {
  try {
    read();
  } catch (const UserError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "finding: internal error: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "finding: unknown exception\n");
    std::abort();
  }
  return 0;
}

} // namespace echo::fuzz
