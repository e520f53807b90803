#pragma once
// echo-des's version, from the CMake project: `--version` prints it and every summary records it,
// so a result says which release produced it.
namespace echo {

inline constexpr const char* kVersion = ECHO_DES_VERSION;

} // namespace echo
