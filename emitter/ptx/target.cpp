#include "emitter/ptx/target.hpp"

#include <charconv>

namespace ptxgen::ptx {

namespace {
// Parses a run of decimal digits (no sign, no leading '+'); false on anything else.
bool parse_digits(std::string_view s, int& out) {
  if (s.empty() || s.size() > 4)
    return false;
  for (char c : s)
    if (c < '0' || c > '9')
      return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && ptr == s.data() + s.size();
}
} // namespace

std::string PtxVersion::str() const {
  return std::to_string(major) + '.' + std::to_string(minor);
}

std::optional<PtxVersion> PtxVersion::parse(std::string_view s) {
  auto dot = s.find('.');
  if (dot == std::string_view::npos)
    return std::nullopt;
  PtxVersion v;
  if (!parse_digits(s.substr(0, dot), v.major) || !parse_digits(s.substr(dot + 1), v.minor))
    return std::nullopt;
  // PTX minor versions are single digits ("7.8", "8.0"); "7.10" is not a version.
  if (s.size() - dot - 1 != 1)
    return std::nullopt;
  return v;
}

std::string Target::str() const {
  return "sm_" + std::to_string(sm) + (arch_specific ? "a" : "");
}

std::optional<Target> Target::parse(std::string_view s) {
  if (s.substr(0, 3) != "sm_")
    return std::nullopt;
  s.remove_prefix(3);
  Target t;
  if (!s.empty() && s.back() == 'a') {
    t.arch_specific = true;
    s.remove_suffix(1);
  }
  if (s.size() < 2 || s.front() == '0' || !parse_digits(s, t.sm))
    return std::nullopt;
  return t;
}

} // namespace ptxgen::ptx
