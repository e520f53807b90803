#include "platforms/natural_order.hpp"

#include <cctype>

namespace echo::platforms {

namespace {
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
} // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      // Compare digit runs by value: skip leading zeros, then the longer run is larger.
      while (i < a.size() && a[i] == '0') ++i;
      while (j < b.size() && b[j] == '0') ++j;
      std::size_t ei = i, ej = j;
      while (ei < a.size() && is_digit(a[ei])) ++ei;
      while (ej < b.size() && is_digit(b[ej])) ++ej;
      if (ei - i != ej - j)
        return ei - i < ej - j;
      for (; i < ei; ++i, ++j)
        if (a[i] != b[j])
          return a[i] < b[j];
      continue;
    }
    if (a[i] != b[j])
      return a[i] < b[j];
    ++i, ++j;
  }
  return a.size() - i < b.size() - j;
}

} // namespace echo::platforms
