#pragma once
// JSON as the text of an output. Names come from users' traces and may hold bytes that are not
// UTF-8; they are written as U+FFFD instead of failing the run at its last step.
#include <nlohmann/json.hpp>

#include <string>

namespace echo::report {

template <class Json>
std::string json_text(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace echo::report
