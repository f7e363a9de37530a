#pragma once
// The C++ API's expressions and source positions (docs/library.md).
//
//   using namespace ptxgen::api;
//   Expr rows = k.param_u32("valid_rows", 37);
//   Expr size = select(tid() < rows, 16, 0);   // the spec's "tid < valid_rows ? 16 : 0"
//
// An Expr is an immutable tile::ExprPtr with operators: + - * / % << >> & | ^,
// comparisons, && || ! and unary -, all building the same trees as the spec's
// expression strings (tile/expr.hpp gives their semantics). Integers convert to
// constants, so `tid() * 64 + 3` needs no wrapper.
//
// Pos: where a builder call came from, for diagnostics. Every builder call takes
// one as its last argument, defaulted to the C++ call site (CallSite::current());
// a code generator passes its own input's position instead, or Pos::none().

#include "emitter/tile/expr.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#if __has_include(<source_location>)
#include <source_location>
#endif
#include <string>

namespace ptxgen::api {

/// The C++ call site, taken by a default argument: std::source_location where the
/// library has it (g++ 12), else the compiler builtins it is made of (clang 14, CI's
/// sanitizer compiler, has __builtin_FILE/LINE/COLUMN but not the
/// __builtin_source_location that libstdc++ 12's <source_location> needs).
struct CallSite {
  const char* file = "";
  std::uint32_t line = 0;
  std::uint32_t column = 0;
#if defined(__cpp_lib_source_location)
  static constexpr CallSite current(std::source_location at = std::source_location::current()) {
    return CallSite{at.file_name(), at.line(), at.column()};
  }
#else
  static constexpr CallSite current(const char* file = __builtin_FILE(),
                                    std::uint32_t line = __builtin_LINE(),
                                    std::uint32_t column = __builtin_COLUMN()) {
    return CallSite{file, line, column};
  }
#endif
};

/// A source position: file, 1-based line and column (0: unknown), and optionally the
/// line's text for the caret display.
class Pos {
public:
  /// The C++ call site (the default argument of every builder call).
  Pos(CallSite at = CallSite::current()) // NOLINT: implicit on purpose
      : file_(at.file), line_(at.line), column_(at.column) {}
  /// A position in the generator's own input.
  Pos(std::string file, std::uint32_t line, std::uint32_t column = 1, std::string source_line = {})
      : file_(std::move(file)), line_(line), column_(column), source_line_(std::move(source_line)) {
  }
  /// No position: diagnostics then carry line 0.
  static Pos none() { return Pos(std::string(), 0, 0); }

  const std::string& file() const { return file_; }
  std::uint32_t line() const { return line_; }
  std::uint32_t column() const { return column_; }
  /// As the tile layer stores it.
  tile::SourcePos source_pos() const { return {file_, line_, column_, source_line_}; }

private:
  std::string file_;
  std::uint32_t line_ = 0;
  std::uint32_t column_ = 0;
  std::string source_line_;
};

/// An index, size or predicate expression.
class Expr {
public:
  Expr(std::int64_t value);                                   // NOLINT: integers are constants
  Expr(int value) : Expr(static_cast<std::int64_t>(value)) {} // NOLINT
  explicit Expr(tile::ExprPtr e);

  const tile::ExprPtr& ptr() const { return e_; }
  const tile::Expr& node() const { return *e_; }
  /// The canonical spelling (tile::print), which the spec's parser reads back.
  std::string str() const;

private:
  tile::ExprPtr e_;
};

/// Thread and block coordinates: %tid.x (linear), tid / 32, tid % 32, %ctaid.x (linear).
Expr tid();
Expr warp();
Expr lane();
Expr bid();
/// tid.x, ntid, nbid.y, ...: the launch's other coordinates and sizes.
Expr special(tile::Special s);
/// A named repeat axis of an apply's src view (in src_size, ignore_src, pred).
Expr axis(std::string name);

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);
Expr operator%(const Expr& a, const Expr& b);
Expr operator<<(const Expr& a, const Expr& b);
Expr operator>>(const Expr& a, const Expr& b);
Expr operator&(const Expr& a, const Expr& b);
Expr operator|(const Expr& a, const Expr& b);
Expr operator^(const Expr& a, const Expr& b);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr operator&&(const Expr& a, const Expr& b);
Expr operator||(const Expr& a, const Expr& b);
Expr operator!(const Expr& a);
Expr operator-(const Expr& a);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);
/// min(max(x, lo), hi), as the spec's clamp(x, lo, hi).
Expr clamp(const Expr& x, const Expr& lo, const Expr& hi);
/// c ? a : b (the spec's if_then_else(c, a, b)).
Expr select(const Expr& c, const Expr& a, const Expr& b);

} // namespace ptxgen::api
