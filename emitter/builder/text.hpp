#pragma once
// Small text helpers the builder's rules share: quoting names in messages and reading
// the numbers and names a spec writes inside strings.

#include "emitter/tile/name_chars.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ptxgen::build {

/// `s` in single quotes, as messages name what the spec wrote.
inline std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

/// `xs` separated by ", ", as messages list choices.
inline std::string joined(std::span<const std::string_view> xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i)
    out += (i ? ", " : "") + std::string(xs[i]);
  return out;
}

/// `s` without leading and trailing blanks (spaces and tabs); `skipped` gets how many
/// leading ones were dropped.
inline std::string_view trimmed(std::string_view s, std::size_t* skipped = nullptr) {
  std::size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t'))
    ++b;
  std::size_t e = s.size();
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t'))
    --e;
  if (skipped)
    *skipped = b;
  return s.substr(b, e - b);
}

/// A whole decimal or `0x` hexadecimal integer, or nullopt.
template <class Int>
std::optional<Int> integer_of(std::string_view s) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  Int v{};
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    return std::nullopt;
  return v;
}

/// A name as expressions spell one: a name-start character, then name characters.
inline bool is_name(std::string_view s) {
  return !s.empty() && tile::name_start(s[0]) && std::all_of(s.begin(), s.end(), tile::name_char);
}

} // namespace ptxgen::build
