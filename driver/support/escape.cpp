#include "driver/support/escape.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

namespace ptxgen::driver {

namespace {

/// One character's replacement in an escaped text.
struct Escape {
  char c;
  std::string_view as;
};

/// `s` with each character of `escapes` replaced; another control character (below 0x20) is
/// passed to `control`, which appends what stands for it (or nothing).
template <std::size_t N, class Control>
std::string escaped(std::string_view s, const std::array<Escape, N>& escapes, Control control) {
  std::string out;
  for (char c : s) {
    const auto* e =
        std::find_if(escapes.begin(), escapes.end(), [c](const Escape& x) { return x.c == c; });
    if (e != escapes.end())
      out += e->as;
    else if (static_cast<unsigned char>(c) < 0x20)
      control(c, out);
    else
      out += c;
  }
  return out;
}

} // namespace

std::string json_escape(std::string_view s) {
  static constexpr std::array<Escape, 5> escapes{
      {{'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\t', "\\t"}, {'\r', "\\r"}}};
  return escaped(s, escapes, [](char c, std::string& out) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
    out += buf;
  });
}

std::string xml_escape(std::string_view s) {
  static constexpr std::array<Escape, 4> escapes{
      {{'&', "&amp;"}, {'<', "&lt;"}, {'>', "&gt;"}, {'"', "&quot;"}}};
  // XML 1.0 forbids most control characters: only tab and newline are kept.
  return escaped(s, escapes, [](char c, std::string& out) {
    if (c == '\n' || c == '\t')
      out += c;
  });
}

} // namespace ptxgen::driver
