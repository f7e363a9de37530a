#pragma once
// The --target / --ptx-version options shared by emit, golden, asm and run.

#include "emitter/lower/lower.hpp"
#include "emitter/support/result.hpp"

#include <optional>
#include <string>

namespace ptxgen::cli {

/// Fills options.target and options.version from the option strings; fails for a
/// malformed value. A target left at its default (`target_defaulted`) may be raised to what
/// a spec needs (LowerOptions::raise_target); one the user gave is kept.
Status parse_target_options(const std::string& target, const std::string& version,
                            bool target_defaulted, lower::LowerOptions& options);

} // namespace ptxgen::cli
