#pragma once
// The simulator's PTX lexer and literal readers (internal to driver/sim).

#include "emitter/support/diagnostic.hpp"
#include "emitter/support/parse_error.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::sim::detail {

enum class Tok : std::uint8_t {
  ident,  ///< directives, opcodes, registers, symbols (may hold '.', '%', '$', "::")
  number, ///< starts with a digit
  punct,  ///< one character
  end,    ///< end of input
};

struct Token {
  Tok kind = Tok::end;
  std::string_view text;
  std::uint32_t line = 0;
  std::uint32_t col = 0;
  std::size_t pos = 0;
};

/// A well-formed instruction that the simulator does not execute: the op
/// becomes ir::Code::unsupported and the parse reports a warning with `id`.
struct Unsupported {
  DiagId id;
  std::string reason;
};

/// Splits `s` into tokens; the last token is Tok::end. Throws ParseError
/// (sim_syntax) on an unterminated block comment.
std::vector<Token> lex(std::string_view s);

/// "cp.async.ca.shared.global" -> {"cp", "async", "ca", "shared", "global"}.
std::vector<std::string_view> split_dots(std::string_view s);

/// Integer literal: decimal, 0x hex, 0 octal, 0b binary, optional U suffix.
std::optional<std::int64_t> parse_int(std::string_view s);

/// Float literal: 1.0, 0.5e0, 0fXXXXXXXX (f32 bits), 0dXXXXXXXXXXXXXXXX (f64 bits).
std::optional<double> parse_float(std::string_view s);

} // namespace ptxgen::sim::detail
