#pragma once
// What every fuzz target uses to state a property: on violation print why and
// abort, so that libFuzzer records the input as a crash.

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace ptxgen::fuzz {

/// Aborts with `what` and the offending text when `ok` is false.
inline void check(bool ok, const char* what, std::string_view detail = {}) {
  if (ok)
    return;
  std::fprintf(stderr, "property violated: %s\n%.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

} // namespace ptxgen::fuzz
