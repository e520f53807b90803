#include "base/user_error.hpp"

namespace echo {

std::string UserError::compose(const std::string& file, int line, const std::string& problem, const std::string& fix) {
  std::string text;
  if (!file.empty()) {
    text.append(file);
    if (line > 0)
      text.append(":").append(std::to_string(line));
    text.append(": ");
  }
  text.append(problem);
  if (!fix.empty())
    text.append("\n  how to fix: ").append(fix);
  return text;
}

} // namespace echo
