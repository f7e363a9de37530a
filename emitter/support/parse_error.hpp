#pragma once
// The one exception of the libraries' parsers.

#include "emitter/support/diagnostic.hpp"

#include <cstddef>
#include <string>

namespace ptxgen {

/// Unwinds a recursive-descent parser from where it finds an error to its public entry
/// point, which turns it into a Diagnostic (each parser knows how its offsets map to a
/// line and column). It never leaves that entry point.
struct ParseError {
  DiagId id;
  std::size_t pos;    ///< byte offset of the error in the text being parsed
  std::size_t length; ///< bytes to underline
  std::string message;
};

} // namespace ptxgen
