#pragma once
// The --target / --ptx-version options shared by emit, golden, asm and run.

#include "emitter/lower/lower.hpp"

#include <optional>
#include <string>

namespace ptxgen::cli {

/// Fills options.target and options.version from the option strings; returns
/// false with `error` set for a malformed value.
bool parse_target_options(const std::string& target, const std::string& version,
                          lower::LowerOptions& options, std::string& error);

} // namespace ptxgen::cli
