#include "base/file_text.hpp"

#include "base/user_error.hpp"

#include <fstream>
#include <sstream>

namespace echo {

std::string read_file_text(const std::string& path, const std::string& what, const std::string& fix) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UserError(path, 0, "cannot read the " + what, fix);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace echo
