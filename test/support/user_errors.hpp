#pragma once
// The message of the UserError `f` throws, or "" when it throws none.
#include "base/user_error.hpp"

#include <string>

namespace echo::test {

inline std::string user_error_of(auto&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

} // namespace echo::test
