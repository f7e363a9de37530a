#pragma once
// The characters of a name in the tile layer's text (views, rearrange patterns): a letter
// or '_' first, then letters, digits and '_'. One definition for both parsers.
#include <cctype>

namespace ptxgen::tile {

inline bool name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
inline bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

} // namespace ptxgen::tile
