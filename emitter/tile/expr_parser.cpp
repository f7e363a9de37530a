// parse_expr: a recursive-descent parser with C precedence (see expr.hpp).

#include "emitter/support/parse_error.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/expr.hpp"
#include "emitter/tile/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ptxgen::tile {

namespace {

enum class Tok : std::uint8_t {
  end,      ///< past the last token
  integer,  ///< a literal; `uvalue` holds it
  ident,    ///< a name, possibly dotted (`T.uint32`)
  op,       ///< an operator; the spelling is the token text
  lparen,   ///< (
  rparen,   ///< )
  comma,    ///< ,
  question, ///< ?
  colon,    ///< :
};

/// The one-character tokens that are no operator.
constexpr std::pair<char, Tok> kPunctuation[] = {{'(', Tok::lparen},
                                                 {')', Tok::rparen},
                                                 {',', Tok::comma},
                                                 {'?', Tok::question},
                                                 {':', Tok::colon}};

struct Token {
  Tok kind = Tok::end;
  std::size_t offset = 0;
  std::size_t length = 0;
  std::uint64_t uvalue = 0;
  bool too_big = false; ///< the literal does not fit in uint64
};

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// An infix operator of expr_ops.def: its spelling, what it builds and how tightly it
/// binds (higher binds tighter).
struct Binary {
  std::string_view spelling;
  ExprOp op;
  int level;
};

/// The infix operator spelled at the start of `text`, the longest one when several match
/// (`<<` over `<`); nullopt when none does.
std::optional<Binary> infix_at(std::string_view text) {
  std::optional<Binary> best;
  const auto table = expr_op_table();
  for (std::size_t k = 0; k < table.size(); ++k) {
    const ExprOpInfo& row = table[k];
    if (!row.infix || text.substr(0, row.spelling.size()) != row.spelling)
      continue;
    if (!best || row.spelling.size() > best->spelling.size())
      best = Binary{row.spelling, static_cast<ExprOp>(k), static_cast<int>(row.precedence)};
  }
  return best;
}

constexpr int kLowestBinary = static_cast<int>(Precedence::logical_or);

/// The functions a call may name, what each becomes, and its arity.
enum class Function : std::uint8_t {
  if_then_else, ///< a select
  uint32,       ///< the identity
  min,          ///< ExprOp::min
  max,          ///< ExprOp::max
  clamp,        ///< min(max(x, lo), hi)
};

struct FunctionSpec {
  std::string_view name;
  Function fn;
  std::size_t arity;
  std::string_view arguments; ///< for the arity message
};

constexpr FunctionSpec kFunctionSpecs[] = {
    {"if_then_else", Function::if_then_else, 3, "(condition, then, else)"},
    {"T.if_then_else", Function::if_then_else, 3, "(condition, then, else)"},
    {"uint32", Function::uint32, 1, "(x)"},
    {"T.uint32", Function::uint32, 1, "(x)"},
    {"min", Function::min, 2, "(a, b)"},
    {"max", Function::max, 2, "(a, b)"},
    {"clamp", Function::clamp, 3, "(x, lo, hi)"},
};

constexpr std::string_view kFunctions[] = {"if_then_else", "uint32", "T.if_then_else", "T.uint32",
                                           "min",          "max",    "clamp"};

const FunctionSpec* find_function(std::string_view name) {
  for (const auto& f : kFunctionSpecs)
    if (f.name == name)
      return &f;
  return nullptr;
}

class Parser {
public:
  Parser(std::string_view text, std::size_t begin, std::size_t end, const ExprNames& names)
      : text_(text), begin_(begin), end_(end), names_(names) {}

  ExprPtr run() {
    lex();
    if (toks_.size() == 1)
      fail(DiagId::expr_empty, begin_, end_ - begin_,
           "empty expression; expected an index or a value");
    Node n = parse_ternary();
    const Token& t = peek();
    if (t.kind == Tok::rparen)
      fail(DiagId::expr_syntax, t, "unmatched ')'");
    if (t.kind != Tok::end)
      fail(DiagId::expr_syntax, t,
           "expected an operator or the end of the expression; found '" + spell(t) + "'");
    return n.e;
  }

private:
  struct Node {
    ExprPtr e;
    unsigned depth = 1;
  };

  // RAII counter for recursion depth.
  struct Nest {
    Parser& p;
    explicit Nest(Parser& parser) : p(parser) {
      if (++p.nest_ > kMaxExprDepth)
        p.too_deep(p.peek());
    }
    ~Nest() { --p.nest_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };

  [[noreturn]] void fail(DiagId id, std::size_t offset, std::size_t length, std::string message) {
    throw ParseError{id, offset, length, std::move(message)};
  }
  [[noreturn]] void fail(DiagId id, const Token& t, std::string message) {
    fail(id, t.offset, t.length, std::move(message));
  }
  [[noreturn]] void too_deep(const Token& t) {
    fail(DiagId::expr_too_deep, t,
         "expression nested too deeply (more than " + std::to_string(kMaxExprDepth) + " levels)");
  }

  std::string spell(const Token& t) const { return std::string(text_.substr(t.offset, t.length)); }

  void lex() {
    std::size_t i = begin_;
    while (true) {
      while (i < end_ && std::isspace(static_cast<unsigned char>(text_[i])))
        ++i;
      Token t;
      t.offset = i;
      if (i >= end_) {
        t.kind = Tok::end;
        t.length = 1;
        toks_.push_back(t);
        return;
      }
      char c = text_[i];
      if (std::isdigit(static_cast<unsigned char>(c))) {
        lex_integer(i, t);
      } else if (ident_start(c)) {
        std::size_t j = i;
        while (true) {
          while (j < end_ && ident_char(text_[j]))
            ++j;
          // A dotted name (`T.uint32`) continues only with another name part.
          if (j + 1 < end_ && text_[j] == '.' && ident_start(text_[j + 1]))
            ++j;
          else
            break;
        }
        t.kind = Tok::ident;
        t.length = j - i;
      } else {
        t.length = 1;
        const auto* p = std::find_if(std::begin(kPunctuation), std::end(kPunctuation),
                                     [c](const auto& x) { return x.first == c; });
        if (p != std::end(kPunctuation)) {
          t.kind = p->second;
        } else if (c == '!') {
          t.kind = Tok::op;
          if (i + 1 < end_ && text_[i + 1] == '=')
            t.length = 2;
        } else {
          t.kind = Tok::op;
          const auto b = infix_at(text_.substr(i, end_ - i));
          if (b)
            t.length = b->spelling.size();
          else {
            if (c == '=')
              fail(DiagId::expr_syntax, i, 1, "unexpected '='; did you mean '=='?");
            fail(DiagId::expr_syntax, i, 1, std::string("unexpected character '") + c + "'");
          }
        }
      }
      i = t.offset + t.length;
      toks_.push_back(t);
    }
  }

  void lex_integer(std::size_t i, Token& t) {
    std::size_t j = i;
    unsigned base = 10;
    if (text_[i] == '0' && i + 1 < end_ && (text_[i + 1] == 'x' || text_[i + 1] == 'X')) {
      base = 16;
      j = i + 2;
    }
    std::size_t digits_begin = j;
    std::uint64_t v = 0;
    bool too_big = false;
    while (j < end_ && std::isxdigit(static_cast<unsigned char>(text_[j]))) {
      char d = text_[j];
      unsigned digit = 0;
      if (std::isdigit(static_cast<unsigned char>(d)))
        digit = static_cast<unsigned>(d - '0');
      else if (base == 16)
        digit = static_cast<unsigned>(std::tolower(static_cast<unsigned char>(d)) - 'a' + 10);
      else
        break;
      if (__builtin_mul_overflow(v, std::uint64_t{base}, &v) ||
          __builtin_add_overflow(v, std::uint64_t{digit}, &v))
        too_big = true;
      ++j;
    }
    std::size_t k = j;
    while (k < end_ && ident_char(text_[k]))
      ++k;
    if (k != j || j == digits_begin)
      fail(DiagId::expr_bad_literal, i, k - i,
           "invalid integer literal '" + std::string(text_.substr(i, k - i)) +
               "'; expected decimal digits or 0x and hex digits");
    t.kind = Tok::integer;
    t.length = j - i;
    t.uvalue = v;
    t.too_big = too_big;
  }

  const Token& peek() const { return toks_[pos_]; }
  const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  bool is_op(const Token& t, std::string_view s) const {
    return t.kind == Tok::op && text_.substr(t.offset, t.length) == s;
  }

  static std::uint32_t u32(std::size_t v) { return static_cast<std::uint32_t>(v); }

  Node make(ExprKind kind, ExprOp op, std::vector<Node> args, std::size_t offset, std::size_t end,
            const Token& at) {
    auto e = std::make_shared<Expr>();
    e->kind = kind;
    e->op = op;
    unsigned depth = 0;
    for (auto& a : args) {
      depth = std::max(depth, a.depth);
      e->args.push_back(std::move(a.e));
    }
    if (depth + 1 > kMaxExprDepth)
      too_deep(at);
    e->offset = u32(offset);
    e->length = u32(end - offset);
    return {e, depth + 1};
  }

  static std::size_t end_of(const Node& n) { return n.e->offset + n.e->length; }

  // A copy of n with its span widened to [offset, end): parentheses, uint32(x).
  static Node respan(const Node& n, std::size_t offset, std::size_t end) {
    auto e = std::make_shared<Expr>(*n.e);
    e->offset = u32(offset);
    e->length = u32(end - offset);
    return {e, n.depth};
  }

  Node parse_ternary() {
    Nest guard(*this);
    Node cond = parse_binary(kLowestBinary);
    if (peek().kind != Tok::question)
      return cond;
    const Token q = next();
    Node a = parse_ternary();
    const Token& colon = peek();
    if (colon.kind != Tok::colon) {
      if (colon.kind == Tok::end)
        fail(DiagId::expr_syntax, colon,
             "expected ':' of the conditional '?' at column " + std::to_string(q.offset + 1) +
                 "; found the end of the expression");
      fail(DiagId::expr_syntax, colon,
           "expected ':' of the conditional '?'; found '" + spell(colon) + "'");
    }
    next();
    Node b = parse_ternary();
    std::size_t off = cond.e->offset, stop = end_of(b);
    return make(ExprKind::select, ExprOp::none, {cond, a, b}, off, stop, q);
  }

  std::optional<Binary> binary_at(const Token& t) const {
    if (t.kind != Tok::op)
      return std::nullopt;
    const std::string_view spelled = text_.substr(t.offset, t.length);
    auto b = infix_at(spelled);
    if (b && b->spelling.size() != spelled.size())
      return std::nullopt;
    return b;
  }

  Node parse_binary(int min_level) {
    Node lhs = parse_unary();
    while (true) {
      const std::optional<Binary> b = binary_at(peek());
      if (!b || b->level < min_level)
        return lhs;
      const Token op = next();
      Node rhs = parse_binary(b->level + 1);
      std::size_t off = lhs.e->offset, stop = end_of(rhs);
      lhs = make(ExprKind::binary, b->op, {lhs, rhs}, off, stop, op);
    }
  }

  Node parse_unary() {
    Nest guard(*this);
    const Token& t = peek();
    if (is_op(t, "-")) {
      const Token minus = next();
      const Token& lit = peek();
      if (lit.kind == Tok::integer) {
        // `-123` is the constant -123 (this also admits -9223372036854775808).
        next();
        if (lit.too_big || lit.uvalue > std::uint64_t{1} << 63)
          overflow(lit, minus.offset);
        auto e = std::make_shared<Expr>();
        e->kind = ExprKind::constant;
        e->value = lit.uvalue == std::uint64_t{1} << 63 ? std::numeric_limits<std::int64_t>::min()
                                                        : -static_cast<std::int64_t>(lit.uvalue);
        e->offset = u32(minus.offset);
        e->length = u32(lit.offset + lit.length - minus.offset);
        return {e, 1};
      }
      Node a = parse_unary();
      std::size_t stop = end_of(a);
      return make(ExprKind::unary, ExprOp::neg, {a}, minus.offset, stop, minus);
    }
    if (is_op(t, "!")) {
      const Token bang = next();
      Node a = parse_unary();
      std::size_t stop = end_of(a);
      return make(ExprKind::unary, ExprOp::logical_not, {a}, bang.offset, stop, bang);
    }
    return parse_atom();
  }

  [[noreturn]] void overflow(const Token& lit, std::size_t from) {
    fail(DiagId::expr_literal_overflow, from, lit.offset + lit.length - from,
         "integer literal '" + std::string(text_.substr(from, lit.offset + lit.length - from)) +
             "' does not fit in 64 bits (the range is -9223372036854775808..9223372036854775807)");
  }

  Node leaf(ExprKind k, const Token& t, std::string name = {}) {
    auto e = std::make_shared<Expr>();
    e->kind = k;
    e->name = std::move(name);
    e->offset = u32(t.offset);
    e->length = u32(t.length);
    return {e, 1};
  }

  void expect_rparen(const Token& open) {
    const Token& t = peek();
    if (t.kind != Tok::rparen) {
      (void)open;
      fail(DiagId::expr_syntax, t,
           t.kind == Tok::end ? "expected ')'; found the end of the expression"
                              : "expected ')'; found '" + spell(t) + "'");
    }
  }

  Node parse_call(const Token& name, const FunctionSpec& fn) {
    next(); // (
    std::vector<Node> args;
    if (peek().kind != Tok::rparen) {
      while (true) {
        args.push_back(parse_ternary());
        if (peek().kind == Tok::comma) {
          next();
          continue;
        }
        const Token& t = peek();
        if (t.kind != Tok::rparen)
          fail(DiagId::expr_syntax, t,
               t.kind == Tok::end ? "expected ',' or ')'; found the end of the expression"
                                  : "expected ',' or ')'; found '" + spell(t) + "'");
        break;
      }
    }
    const Token close = next();
    std::size_t stop = close.offset + close.length;
    if (args.size() != fn.arity)
      fail(DiagId::expr_arity, name.offset, stop - name.offset,
           std::string(fn.name) + " takes " + std::to_string(fn.arity) +
               (fn.arity == 1 ? " argument " : " arguments ") + std::string(fn.arguments) +
               "; got " + std::to_string(args.size()));
    switch (fn.fn) {
    case Function::uint32:
      return respan(args[0], name.offset, stop); // uint32(x) is x
    case Function::if_then_else:
      return make(ExprKind::select, ExprOp::none, std::move(args), name.offset, stop, name);
    case Function::min:
    case Function::max:
      return make(ExprKind::binary, fn.fn == Function::min ? ExprOp::min : ExprOp::max,
                  std::move(args), name.offset, stop, name);
    case Function::clamp: {
      // clamp(x, lo, hi) is min(max(x, lo), hi); the inner node spans x..lo.
      Node inner = make(ExprKind::binary, ExprOp::max, {args[0], args[1]}, args[0].e->offset,
                        end_of(args[1]), name);
      return make(ExprKind::binary, ExprOp::min, {inner, args[2]}, name.offset, stop, name);
    }
    }
    unreachable("parse_call: a function name without a case");
  }

  Node parse_atom() {
    const Token& t = peek();
    switch (t.kind) {
    case Tok::integer: {
      next();
      if (t.too_big ||
          t.uvalue > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        overflow(t, t.offset);
      auto e = std::make_shared<Expr>();
      e->kind = ExprKind::constant;
      e->value = static_cast<std::int64_t>(t.uvalue);
      e->offset = u32(t.offset);
      e->length = u32(t.length);
      return {e, 1};
    }
    case Tok::lparen: {
      const Token open = next();
      Node inner = parse_ternary();
      expect_rparen(open);
      const Token close = next();
      return respan(inner, open.offset, close.offset + close.length);
    }
    case Tok::ident: {
      const Token name = next();
      std::string_view s = text_.substr(name.offset, name.length);
      bool call = peek().kind == Tok::lparen;
      if (const FunctionSpec* fn = call ? find_function(s) : nullptr)
        return parse_call(name, *fn);
      if (s == "tid")
        return leaf(ExprKind::tid, name);
      if (s == "warp")
        return leaf(ExprKind::warp, name);
      if (s == "lane")
        return leaf(ExprKind::lane, name);
      if (s == "bid")
        return leaf(ExprKind::bid, name);
      if (call)
        fail(DiagId::expr_unknown_function, name,
             "unknown function '" + std::string(s) + "'" +
                 or_choices(did_you_mean(s, kFunctions),
                            "; expected if_then_else(c, a, b), min(a, b), max(a, b), "
                            "clamp(x, lo, hi) or uint32(x)"));
      if (auto sp = parse_special(s)) {
        Node n = leaf(ExprKind::special, name);
        auto e = std::make_shared<Expr>(*n.e);
        e->special = *sp;
        n.e = e;
        return n;
      }
      if (names_.is_param && names_.is_param(s))
        return leaf(ExprKind::param, name, std::string(s));
      if (names_.is_loop && names_.is_loop(s))
        return leaf(ExprKind::loop, name, std::string(s));
      if (names_.is_axis && names_.is_axis(s))
        return leaf(ExprKind::axis, name, std::string(s));
      fail(DiagId::expr_unknown_name, name,
           "unknown name '" + std::string(s) +
               "'; expected tid, warp, lane, bid, tid.x/y/z, bid.x/y/z, ntid[.x/y/z], "
               "nbid[.x/y/z]" +
               (names_.is_loop ? ", a loop variable" : "") +
               (names_.is_axis ? ", a kernel parameter or a repeat axis of the src view"
                               : " or a kernel parameter"));
    }
    case Tok::end:
      fail(DiagId::expr_syntax, t, "unexpected end of expression");
    case Tok::op:
    case Tok::rparen:
    case Tok::comma:
    case Tok::question:
    case Tok::colon:
      fail(DiagId::expr_syntax, t, "expected an operand; found '" + spell(t) + "'");
    }
    unreachable("parse_primary: not a Tok value");
  }

  std::string_view text_;
  std::size_t begin_;
  std::size_t end_;
  const ExprNames& names_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  unsigned nest_ = 0;
};

} // namespace

namespace {

Result<ExprPtr> parse_range(std::string_view text, std::size_t begin, std::size_t end,
                            const ExprNames& names) {
  end = std::min(end, text.size());
  begin = std::min(begin, end);
  try {
    Parser p(text, begin, end, names);
    return Result<ExprPtr>::success(p.run());
  } catch (const ParseError& e) {
    return Result<ExprPtr>::failure(error_at(e.id, text, e.pos, e.length, e.message));
  }
}

} // namespace

Result<ExprPtr> parse_expr_in(std::string_view text, std::size_t begin, std::size_t end,
                              const std::function<bool(std::string_view)>& is_param) {
  return parse_range(text, begin, end, ExprNames{is_param, {}, {}});
}

Result<ExprPtr> parse_expr_in(std::string_view text, std::size_t begin, std::size_t end,
                              const ExprNames& names) {
  return parse_range(text, begin, end, names);
}

Result<ExprPtr> parse_expr(std::string_view text,
                           const std::function<bool(std::string_view)>& is_param) {
  return parse_range(text, 0, text.size(), ExprNames{is_param, {}, {}});
}

Result<ExprPtr> parse_expr(std::string_view text,
                           const std::function<bool(std::string_view)>& is_param,
                           const std::function<bool(std::string_view)>& is_axis) {
  return parse_range(text, 0, text.size(), ExprNames{is_param, is_axis, {}});
}

Result<ExprPtr> parse_expr(std::string_view text, const ExprNames& names) {
  return parse_range(text, 0, text.size(), names);
}

} // namespace ptxgen::tile
