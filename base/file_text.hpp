#pragma once
// The whole content of a file the user named. A file that cannot be opened is the user's error:
// "cannot read the <what>", with `fix` as the way out.
#include <string>

namespace echo {

std::string read_file_text(const std::string& path, const std::string& what, const std::string& fix);

} // namespace echo
