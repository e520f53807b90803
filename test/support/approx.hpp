#pragma once
// doctest::Approx(x) passes within 1.2e-5 x (1 + |x|): for the seconds this project compares (a
// kernel's 1e-3 to 1e-6 s) that is an absolute tolerance which lets errors of 1% to 1000% through.
// test::Approx is relative: within 1.2e-5 of |x| (or what .epsilon() says), whatever x's size;
// zero equals only zero (doctest's `<` needs a scale above 0 for that).
#include <doctest/doctest.h>

#include <limits>

namespace echo::test {

inline doctest::Approx Approx(double value) { return doctest::Approx(value).scale(std::numeric_limits<double>::min()); }

} // namespace echo::test
