#pragma once
// A case the types allow but no caller produces (a bug in ptxgen, not in its
// input): stop with a message rather than compute something plausible. It ends
// the exhaustive switches over enums (no `default:`), so that the compiler's
// -Wswitch still names a new enum value that a switch forgets.

#include <cstdio>
#include <cstdlib>

namespace ptxgen {

[[noreturn]] inline void unreachable(const char* what) {
  std::fprintf(stderr, "ptxgen: internal error: %s\n", what);
  std::abort();
}

} // namespace ptxgen
