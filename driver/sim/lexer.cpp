// The simulator's PTX lexer and literal readers.

#include "driver/sim/lexer.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace ptxgen::sim::detail {
namespace {

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '%' || c == '.' ||
         c == '$';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '%' || c == '.' ||
         c == '$';
}

/// The float whose IEEE bits are the hex digits `hex` (the digits of 0fXXXXXXXX / 0dXXXX...).
template <class Float, class Bits>
std::optional<double> float_bits(std::string_view hex) {
  Bits bits = 0;
  auto [p, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), bits, 16);
  if (ec != std::errc() || p != hex.data() + hex.size())
    return std::nullopt;
  Float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

} // namespace

std::vector<Token> lex(std::string_view s) {
  std::vector<Token> out;
  std::uint32_t line = 1;
  std::size_t line_start = 0;
  std::size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
      line_start = i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n')
        ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      std::size_t close = s.find("*/", i + 2);
      if (close == std::string_view::npos)
        throw ParseError{DiagId::sim_syntax, i, 2, "unterminated /* comment"};
      for (std::size_t k = i; k < close; ++k) {
        if (s[k] == '\n') {
          ++line;
          line_start = k + 1;
        }
      }
      i = close + 2;
      continue;
    }
    Token t;
    t.line = line;
    t.col = static_cast<std::uint32_t>(i - line_start + 1);
    t.pos = i;
    std::size_t j = i + 1;
    if (ident_start(c)) {
      t.kind = Tok::ident;
      while (j < s.size()) {
        if (ident_char(s[j])) {
          ++j;
        } else if (s[j] == ':' && j + 1 < s.size() && s[j + 1] == ':') {
          j += 2;
        } else {
          break;
        }
      }
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      t.kind = Tok::number;
      while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) != 0 || s[j] == '.'))
        ++j;
    } else {
      t.kind = Tok::punct;
    }
    t.text = s.substr(i, j - i);
    out.push_back(t);
    i = j;
  }
  Token e;
  e.kind = Tok::end;
  e.line = line;
  e.col = static_cast<std::uint32_t>(i - line_start + 1);
  e.pos = s.size();
  out.push_back(e);
  return out;
}

std::vector<std::string_view> split_dots(std::string_view s) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t k = 0; k <= s.size(); ++k) {
    if (k == s.size() || s[k] == '.') {
      parts.push_back(s.substr(start, k - start));
      start = k + 1;
    }
  }
  return parts;
}

/// Integer literal: decimal, 0x hex, 0 octal, 0b binary, optional U suffix.
std::optional<std::int64_t> parse_int(std::string_view s) {
  if (!s.empty() && (s.back() == 'U' || s.back() == 'u'))
    s.remove_suffix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    s.remove_prefix(2);
  } else if (s.size() > 1 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty())
    return std::nullopt;
  return static_cast<std::int64_t>(v);
}

/// Float literal: 1.0, 0.5e0, 0fXXXXXXXX (f32 bits), 0dXXXXXXXXXXXXXXXX (f64 bits).
std::optional<double> parse_float(std::string_view s) {
  if (s.size() == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F'))
    return float_bits<float, std::uint32_t>(s.substr(2));
  if (s.size() == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D'))
    return float_bits<double, std::uint64_t>(s.substr(2));
  std::string copy(s);
  char* endp = nullptr;
  double d = std::strtod(copy.c_str(), &endp);
  if (endp != copy.c_str() + copy.size())
    return std::nullopt;
  return d;
}

} // namespace ptxgen::sim::detail
