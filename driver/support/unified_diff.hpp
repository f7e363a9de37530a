#pragma once
// A unified diff of two texts, line by line, for golden mismatches.

#include <string>
#include <string_view>

namespace ptxgen::driver {

/// `--- a_name` / `+++ b_name` and hunks with `context` lines around each change.
/// Empty when the texts are equal.
std::string unified_diff(std::string_view a, std::string_view b, const std::string& a_name,
                         const std::string& b_name, int context = 3);

} // namespace ptxgen::driver
