#pragma once
// A CSV field as RFC 4180 writes it: quoted (quotes doubled) when it holds a comma, a quote or a
// line break.
#include <string>

namespace echo::report {

inline std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace echo::report
