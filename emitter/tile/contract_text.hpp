#pragma once
// How the contract's messages point at what they are about, shared by its parts: the
// diagnostic at a spec position, the characters it underlines and a view's shape as the
// messages print it.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace ptxgen::tile {

/// The diagnostic for a message at a spec position.
inline Diagnostic diagnostic_at(DiagId id, const SourcePos& pos, std::string message,
                                std::uint32_t length = 1) {
  Diagnostic d(id, std::move(message));
  d.file = pos.file;
  d.line = pos.line;
  d.column = pos.column;
  d.length = std::max<std::uint32_t>(length, 1);
  d.source_line = pos.source_line;
  return d;
}

/// The characters a diagnostic at l underlines: its text, at least one.
template <class T>
std::uint32_t text_length(const Located<T>& l) {
  return static_cast<std::uint32_t>(std::max<std::size_t>(l.text.size(), 1));
}

/// The view's axis sizes, "(4,32,8)".
inline std::string shape_str(const View& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.axes.size(); ++i)
    s += (i ? "," : "") + std::to_string(v.axes[i].size);
  return s + ")";
}

} // namespace ptxgen::tile
