#pragma once
// The --target / --ptx-version options shared by emit, golden, asm and run.

#include "emitter/lower/lower.hpp"
#include "emitter/support/result.hpp"

#include <optional>
#include <string>

namespace ptxgen::cli {

/// Fills options.target and options.version from the option strings; fails for a
/// malformed value.
Status parse_target_options(const std::string& target, const std::string& version,
                            lower::LowerOptions& options);

} // namespace ptxgen::cli
