#include "driver/sim/parser.hpp"

#include <charconv>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>

namespace ptxgen::sim {
namespace {

// ---------------------------------------------------------------- lexer

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

bool ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '%' || c == '.' ||
         c == '$';
}
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '%' || c == '.' ||
         c == '$';
}

/// An error at a token, thrown inside the parser and turned into a Diagnostic.
struct ParseError {
  std::size_t pos;
  std::size_t length;
  std::string message;
};

/// A well-formed instruction that the simulator does not execute.
struct Unsupported {
  std::string reason;
};

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
        throw ParseError{i, 2, "unterminated /* comment"};
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
  if (s.size() == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    std::uint32_t bits = 0;
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
    if (ec != std::errc() || p != s.data() + s.size())
      return std::nullopt;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  if (s.size() == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
    std::uint64_t bits = 0;
    auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
    if (ec != std::errc() || p != s.data() + s.size())
      return std::nullopt;
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  std::string copy(s);
  char* endp = nullptr;
  double d = std::strtod(copy.c_str(), &endp);
  if (endp != copy.c_str() + copy.size())
    return std::nullopt;
  return d;
}

// ---------------------------------------------------------------- types

struct TypeInfo {
  ir::Type t;
  bool is_float = false;
  bool is_pred = false;
  bool is_bits = false; ///< bN
};

std::optional<TypeInfo> parse_type(std::string_view s) {
  static const std::map<std::string_view, TypeInfo> table = {
      {"pred", {{1, false}, false, true, false}},  {"b8", {{8, false}, false, false, true}},
      {"b16", {{16, false}, false, false, true}},  {"b32", {{32, false}, false, false, true}},
      {"b64", {{64, false}, false, false, true}},  {"u8", {{8, false}, false, false, false}},
      {"u16", {{16, false}, false, false, false}}, {"u32", {{32, false}, false, false, false}},
      {"u64", {{64, false}, false, false, false}}, {"s8", {{8, true}, false, false, false}},
      {"s16", {{16, true}, false, false, false}},  {"s32", {{32, true}, false, false, false}},
      {"s64", {{64, true}, false, false, false}},  {"f16", {{16, false}, true, false, false}},
      {"f32", {{32, false}, true, false, false}},  {"f64", {{64, false}, true, false, false}},
  };
  auto it = table.find(s);
  if (it == table.end())
    return std::nullopt;
  return it->second;
}

std::optional<ir::Special> parse_special(std::string_view s) {
  static const std::map<std::string_view, ir::Special> table = {
      {"%tid.x", ir::Special::tid_x},       {"%tid.y", ir::Special::tid_y},
      {"%tid.z", ir::Special::tid_z},       {"%ntid.x", ir::Special::ntid_x},
      {"%ntid.y", ir::Special::ntid_y},     {"%ntid.z", ir::Special::ntid_z},
      {"%ctaid.x", ir::Special::ctaid_x},   {"%ctaid.y", ir::Special::ctaid_y},
      {"%ctaid.z", ir::Special::ctaid_z},   {"%nctaid.x", ir::Special::nctaid_x},
      {"%nctaid.y", ir::Special::nctaid_y}, {"%nctaid.z", ir::Special::nctaid_z},
      {"%laneid", ir::Special::laneid},     {"%warpid", ir::Special::warpid},
  };
  auto it = table.find(s);
  if (it == table.end())
    return std::nullopt;
  return it->second;
}

// ---------------------------------------------------------------- operands

/// An operand as written, before it is checked against its instruction.
struct Opnd {
  enum class Kind : std::uint8_t {
    name,   ///< an identifier: register (%...), special register or symbol
    number, ///< an integer or float literal (possibly negated)
    addr,   ///< [base+offset]
    vec,    ///< {a, b, ...}
  };
  Kind kind = Kind::name;
  std::size_t pos = 0; ///< source offset, for diagnostics
  std::size_t length = 1;
  bool negated = false;    ///< `!%p`
  std::string_view name;   ///< name, or addr base
  std::string_view number; ///< literal text
  bool minus = false;      ///< `-` in front of a literal
  std::int64_t offset = 0; ///< addr offset
  std::vector<Opnd> elems; ///< vec elements
};

struct RegInfo {
  std::uint32_t index = 0;
  std::uint8_t bits = 32;
};

struct Family {
  std::uint32_t base = 0;
  std::uint32_t count = 0;
  std::uint8_t bits = 32;
};

// ---------------------------------------------------------------- parser

class Parser {
public:
  explicit Parser(std::string_view src) : src_(src) {
    std::size_t start = 0;
    for (std::size_t k = 0; k <= src.size(); ++k) {
      if (k == src.size() || src[k] == '\n') {
        lines_.push_back(src.substr(start, k - start));
        start = k + 1;
      }
    }
  }

  Result<std::shared_ptr<const ir::Module>> run() {
    auto m = std::make_shared<ir::Module>();
    try {
      toks_ = lex(src_);
      module(*m);
    } catch (const ParseError& e) {
      add_error(e);
    } catch (const Unsupported& u) {
      add_error(ParseError{peek().pos, 1, u.reason});
    }
    if (diags_.has_errors())
      return Result<std::shared_ptr<const ir::Module>>::failure(std::move(diags_));
    return Result<std::shared_ptr<const ir::Module>>::success(std::move(m));
  }

private:
  // ------------------------------------------------ diagnostics

  void add_error(const ParseError& e) {
    Diagnostic d;
    d.severity = Severity::error;
    d.message = e.message;
    auto [line, col] = position(e.pos);
    d.line = line;
    d.column = col;
    d.length = static_cast<std::uint32_t>(std::max<std::size_t>(e.length, 1));
    if (line >= 1 && line <= lines_.size())
      d.source_line = std::string(lines_[line - 1]);
    diags_.add(std::move(d));
  }

  std::pair<std::uint32_t, std::uint32_t> position(std::size_t pos) const {
    std::uint32_t line = 1;
    std::size_t start = 0;
    for (std::size_t k = 0; k < pos && k < src_.size(); ++k) {
      if (src_[k] == '\n') {
        ++line;
        start = k + 1;
      }
    }
    return {line, static_cast<std::uint32_t>(pos - start + 1)};
  }

  [[noreturn]] void fail(const Token& t, std::string message) {
    throw ParseError{t.pos, std::max<std::size_t>(t.text.size(), 1), std::move(message)};
  }
  [[noreturn]] void fail(const Opnd& o, std::string message) {
    throw ParseError{o.pos, o.length, std::move(message)};
  }

  // ------------------------------------------------ token helpers

  const Token& peek(std::size_t ahead = 0) const {
    std::size_t k = std::min(i_ + ahead, toks_.size() - 1);
    return toks_[k];
  }
  const Token& next() {
    const Token& t = peek();
    if (i_ + 1 < toks_.size())
      ++i_;
    return t;
  }
  bool is(std::string_view text, std::size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind != Tok::end && t.text == text;
  }
  bool accept(std::string_view text) {
    if (is(text)) {
      next();
      return true;
    }
    return false;
  }
  const Token& expect(std::string_view text, std::string_view what) {
    if (!is(text))
      fail(peek(), "expected `" + std::string(text) + "` " + std::string(what) + ", found " +
                       describe(peek()));
    return next();
  }
  static std::string describe(const Token& t) {
    if (t.kind == Tok::end)
      return "the end of the input";
    return "`" + std::string(t.text) + "`";
  }
  const Token& expect_ident(std::string_view what) {
    if (peek().kind != Tok::ident)
      fail(peek(), "expected " + std::string(what) + ", found " + describe(peek()));
    return next();
  }
  std::int64_t expect_int(std::string_view what) {
    bool minus = accept("-");
    const Token& t = peek();
    if (t.kind != Tok::number)
      fail(t, "expected " + std::string(what) + ", found " + describe(t));
    auto v = parse_int(t.text);
    if (!v)
      fail(t, "`" + std::string(t.text) + "` is not an integer");
    next();
    return minus ? -*v : *v;
  }
  void skip_statement() {
    while (peek().kind != Tok::end && !is(";") && !is("}"))
      next();
    accept(";");
  }

  // ------------------------------------------------ module level

  void module(ir::Module& m) {
    while (peek().kind != Tok::end) {
      const Token& t = peek();
      if (t.text == ".version") {
        next();
        const Token& v = next();
        if (v.kind != Tok::number)
          fail(v, "expected a version number like 8.0 after .version");
        m.version = std::string(v.text);
      } else if (t.text == ".target") {
        next();
        m.target = std::string(expect_ident("a target like sm_80").text);
        while (accept(","))
          expect_ident("a target modifier");
      } else if (t.text == ".address_size") {
        next();
        std::int64_t a = expect_int("32 or 64");
        if (a != 64)
          fail(t, ".address_size " + std::to_string(a) + " is not simulated; only 64");
        m.address_size = 64;
      } else if (t.text == ".visible" || t.text == ".weak" || t.text == ".extern") {
        next();
      } else if (t.text == ".entry") {
        m.entries.push_back(entry());
      } else if (t.text == ".func") {
        fail(t, ".func is not simulated: only .entry kernels without calls");
      } else {
        fail(t, "expected .version, .target, .address_size or an .entry at module scope, found " +
                    describe(t));
      }
    }
  }

  // ------------------------------------------------ entry

  ir::Entry entry() {
    ir::Entry e;
    e_ = &e;
    regs_.clear();
    families_.clear();
    labels_.clear();
    branch_fixups_.clear();
    const Token& kw = next(); // .entry
    e.line = kw.line;
    e.name = std::string(expect_ident("the entry name").text);
    expect("(", "to open the parameter list");
    if (!is(")")) {
      do {
        param(e);
      } while (accept(","));
    }
    expect(")", "to close the parameter list");
    while (!is("{")) {
      const Token& d = expect_ident("a performance directive or `{`");
      if (d.text == ".reqntid") {
        std::int64_t x = expect_int("the block size");
        while (accept(",")) {
          if (expect_int("a block dimension") != 1)
            fail(d, ".reqntid with y or z other than 1 is not simulated (x only)");
        }
        if (x <= 0)
          fail(d, ".reqntid needs a positive block size");
        e.reqntid = static_cast<std::uint32_t>(x);
      } else if (d.text == ".maxntid" || d.text == ".minnctapersm" || d.text == ".maxnreg" ||
                 d.text == ".maxnctapersm" || d.text == ".noreturn") {
        if (peek().kind == Tok::number) {
          expect_int("a number");
          while (accept(","))
            expect_int("a number");
        }
      } else {
        fail(d, "unexpected `" + std::string(d.text) + "` before the entry body");
      }
    }
    expect("{", "to open the entry body");
    int depth = 0;
    while (true) {
      if (peek().kind == Tok::end)
        fail(peek(), "the body of entry `" + e.name + "` is not closed with `}`");
      if (is("}")) {
        next();
        if (depth == 0)
          break;
        --depth;
        continue;
      }
      if (is("{")) {
        // Nested blocks (inline asm scopes) are transparent here.
        next();
        ++depth;
        continue;
      }
      std::size_t before = i_;
      try {
        statement(e);
      } catch (const ParseError& err) {
        add_error(err);
        if (i_ == before)
          next();
        // Skip the rest of the statement unless the error came after its `;`.
        if (!(i_ > before && toks_[i_ - 1].kind == Tok::punct && toks_[i_ - 1].text == ";"))
          skip_statement();
      }
    }
    for (auto& [op_index, label_tok] : branch_fixups_) {
      auto it = labels_.find(std::string(label_tok.text));
      if (it == labels_.end()) {
        add_error(ParseError{label_tok.pos, label_tok.text.size(),
                             "branch to undeclared label `" + std::string(label_tok.text) + "`"});
        continue;
      }
      e.ops[op_index].n = static_cast<std::int64_t>(it->second);
    }
    e_ = nullptr;
    return e;
  }

  void param(ir::Entry& e) {
    expect(".param", "to start a parameter");
    const Token& ty = expect_ident("the parameter type");
    auto t = parse_type(ty.text.substr(ty.text.empty() ? 0 : 1));
    if (ty.text.empty() || ty.text[0] != '.' || !t || t->is_pred)
      fail(ty, "expected a parameter type like .u64 or .u32, found `" + std::string(ty.text) + "`");
    // `.ptr.global.align 16` style attributes are hints.
    while (peek().kind == Tok::ident && peek().text.starts_with(".")) {
      const Token& a = next();
      if (a.text.starts_with(".align") || a.text.starts_with(".ptr")) {
        if (peek().kind == Tok::number)
          next();
        continue;
      }
      fail(a, "unexpected parameter attribute `" + std::string(a.text) + "`");
    }
    const Token& nm = expect_ident("the parameter name");
    if (is("["))
      fail(peek(), "array parameters are not simulated; use .u64 / .u32 scalars");
    ir::Param p;
    p.name = std::string(nm.text);
    p.size = t->t.bits / 8;
    e.param_bytes = (e.param_bytes + p.size - 1) / p.size * p.size;
    p.offset = e.param_bytes;
    e.param_bytes += p.size;
    for (const auto& q : e.params) {
      if (q.name == p.name)
        fail(nm, "parameter `" + p.name + "` is declared twice");
    }
    e.params.push_back(std::move(p));
  }

  // ------------------------------------------------ statements

  void statement(ir::Entry& e) {
    const Token& t = peek();
    if (t.kind == Tok::ident && t.text == ".reg") {
      reg_decl(e);
      return;
    }
    if (t.kind == Tok::ident && t.text == ".shared") {
      shared_decl(e);
      return;
    }
    if (t.kind == Tok::ident && t.text == ".pragma") {
      skip_statement();
      return;
    }
    if (t.kind == Tok::ident && (t.text == ".loc" || t.text == ".file")) {
      // Debug line info has no semicolon: skip to the end of the line.
      std::uint32_t line = t.line;
      while (peek().kind != Tok::end && peek().line == line)
        next();
      return;
    }
    if (t.kind == Tok::ident && t.text.starts_with(".")) {
      fail(t, "`" + std::string(t.text) +
                  "` declarations are not simulated (only .reg and .shared inside an entry)");
    }
    if (t.kind == Tok::ident && is(":", 1)) {
      std::string label(t.text);
      if (labels_.count(label) != 0)
        fail(t, "label `" + label + "` is defined twice");
      labels_[label] = e.ops.size();
      next();
      next();
      return;
    }
    instruction(e);
  }

  static std::uint8_t reg_bits(const Token& ty, std::optional<TypeInfo> t, Parser& p) {
    if (!t)
      p.fail(ty, "expected a register type like .b32, found `" + std::string(ty.text) + "`");
    return t->t.bits;
  }

  void reg_decl(ir::Entry& e) {
    next(); // .reg
    const Token& ty = expect_ident("the register type");
    if (ty.text.starts_with(".v"))
      fail(ty, "vector registers are not simulated");
    std::uint8_t bits = reg_bits(
        ty, ty.text.starts_with(".") ? parse_type(ty.text.substr(1)) : std::nullopt, *this);
    do {
      const Token& nm = expect_ident("a register name");
      if (!nm.text.starts_with("%"))
        fail(nm, "register names start with `%`");
      std::string name(nm.text);
      if (accept("<")) {
        std::int64_t n = expect_int("the register count");
        expect(">", "to close the register count");
        if (n < 0 || n > 1'000'000)
          fail(nm, "register count out of range");
        if (families_.count(name) != 0)
          fail(nm, "registers `" + name + "<N>` are declared twice");
        Family f{static_cast<std::uint32_t>(e.reg_mask.size()), static_cast<std::uint32_t>(n),
                 bits};
        families_[name] = f;
        for (std::int64_t k = 0; k < n; ++k)
          add_reg(e, name + std::to_string(k), bits);
      } else {
        if (regs_.count(name) != 0)
          fail(nm, "register `" + name + "` is declared twice");
        regs_[name] = RegInfo{add_reg(e, name, bits), bits};
      }
    } while (accept(","));
    expect(";", "after the register declaration");
  }

  std::uint32_t add_reg(ir::Entry& e, std::string name, std::uint8_t bits) {
    auto index = static_cast<std::uint32_t>(e.reg_mask.size());
    e.reg_mask.push_back(bits >= 64 ? ~0ull : ((1ull << bits) - 1));
    e.reg_names.push_back(std::move(name));
    return index;
  }

  std::optional<RegInfo> find_reg(std::string_view name) const {
    if (auto it = regs_.find(std::string(name)); it != regs_.end())
      return it->second;
    std::size_t k = name.size();
    while (k > 0 && std::isdigit(static_cast<unsigned char>(name[k - 1])) != 0)
      --k;
    if (k == name.size() || k == 0)
      return std::nullopt;
    auto it = families_.find(std::string(name.substr(0, k)));
    if (it == families_.end())
      return std::nullopt;
    std::string_view digits = name.substr(k);
    if (digits.size() > 1 && digits[0] == '0')
      return std::nullopt;
    std::uint32_t n = 0;
    std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (n >= it->second.count)
      return std::nullopt;
    return RegInfo{it->second.base + n, it->second.bits};
  }

  void shared_decl(ir::Entry& e) {
    const Token& kw = next(); // .shared
    std::uint64_t align = 0;
    if (accept(".align")) {
      std::int64_t a = expect_int("the alignment");
      if (a <= 0 || (a & (a - 1)) != 0)
        fail(kw, ".align must be a power of two");
      align = static_cast<std::uint64_t>(a);
    }
    const Token& ty = expect_ident("the element type");
    auto t = ty.text.starts_with(".") ? parse_type(ty.text.substr(1)) : std::nullopt;
    if (!t || t->is_pred)
      fail(ty, "expected an element type like .b8, found `" + std::string(ty.text) + "`");
    const Token& nm = expect_ident("the shared array name");
    std::uint64_t elem = t->t.bits / 8;
    std::uint64_t count = 1;
    if (accept("[")) {
      if (is("]"))
        fail(peek(), "dynamic (extern, unsized) shared arrays are not simulated");
      std::int64_t n = expect_int("the array length");
      if (n <= 0)
        fail(nm, "shared array length must be positive");
      count = static_cast<std::uint64_t>(n);
      expect("]", "to close the array length");
    }
    expect(";", "after the shared declaration");
    if (align == 0)
      align = elem;
    ir::SharedArray a;
    a.name = std::string(nm.text);
    a.align = align;
    a.bytes = elem * count;
    a.offset = (e.shared_bytes + align - 1) / align * align;
    for (const auto& q : e.shared) {
      if (q.name == a.name)
        fail(nm, "shared array `" + a.name + "` is declared twice");
    }
    e.shared_bytes = a.offset + a.bytes;
    e.shared.push_back(std::move(a));
  }

  // ------------------------------------------------ operands

  Opnd operand() {
    Opnd o;
    const Token& first = peek();
    o.pos = first.pos;
    if (accept("[")) {
      o.kind = Opnd::Kind::addr;
      const Token& base = peek();
      if (base.kind != Tok::ident)
        fail(base, "expected a register or symbol as the address base, found " + describe(base) +
                       " (immediate addresses are not accepted)");
      next();
      o.name = base.text;
      if (accept("+")) {
        o.offset = expect_int("an address offset");
      } else if (is("-")) {
        fail(peek(), "write a negative address offset as `+-N`; ptxas rejects `-N`");
      }
      const Token& close = expect("]", "to close the address");
      o.length = close.pos + 1 - o.pos;
      return o;
    }
    if (accept("{")) {
      o.kind = Opnd::Kind::vec;
      do {
        o.elems.push_back(operand());
      } while (accept(","));
      const Token& close = expect("}", "to close the vector");
      o.length = close.pos + 1 - o.pos;
      return o;
    }
    if (accept("!")) {
      const Token& t = expect_ident("a predicate register after `!`");
      o.kind = Opnd::Kind::name;
      o.negated = true;
      o.name = t.text;
      o.length = t.pos + t.text.size() - o.pos;
      return o;
    }
    if (accept("-")) {
      o.minus = true;
    }
    const Token& t = peek();
    if (t.kind == Tok::number) {
      next();
      o.kind = Opnd::Kind::number;
      o.number = t.text;
      o.length = t.pos + t.text.size() - o.pos;
      return o;
    }
    if (t.kind == Tok::ident && !o.minus) {
      next();
      o.kind = Opnd::Kind::name;
      o.name = t.text;
      o.length = t.text.size();
      return o;
    }
    fail(t, "expected an operand, found " + describe(t));
  }

  /// A register operand of exactly `bits` bits (or at least, when `at_least`).
  std::uint32_t reg(const Opnd& o, unsigned bits, bool at_least, std::string_view role) {
    if (o.kind != Opnd::Kind::name || o.negated || !o.name.starts_with("%"))
      fail(o, std::string(role) + " must be a register");
    auto r = find_reg(o.name);
    if (!r) {
      if (parse_special(o.name))
        fail(o, std::string(role) + " cannot be the read-only special register `" +
                    std::string(o.name) + "`");
      fail(o, "register `" + std::string(o.name) + "` is not declared");
    }
    bool ok = at_least ? (r->bits >= bits && (bits == 1) == (r->bits == 1)) : r->bits == bits;
    if (!ok)
      fail(o, std::string(role) + " `" + std::string(o.name) + "` is a " +
                  (r->bits == 1 ? std::string("predicate") : std::to_string(r->bits) + "-bit") +
                  " register; this instruction needs " +
                  (bits == 1 ? std::string("a predicate") : std::to_string(bits) + "-bit") +
                  (at_least && bits != 1 ? " or wider" : ""));
    return r->index;
  }

  std::int64_t int_literal(const Opnd& o) {
    auto v = parse_int(o.number);
    if (!v)
      fail(o, "`" + std::string(o.number) + "` is not an integer literal");
    return o.minus ? -*v : *v;
  }

  /// A value operand read as a `bits`-wide integer.
  ir::Val value(const Opnd& o, unsigned bits, std::string_view role, bool allow_symbol = true) {
    ir::Val v;
    if (o.kind == Opnd::Kind::number) {
      v.kind = ir::Val::Kind::imm;
      v.imm = int_literal(o);
      return v;
    }
    if (o.kind != Opnd::Kind::name || o.negated)
      fail(o, std::string(role) + " must be a register or an immediate");
    if (auto s = parse_special(o.name)) {
      if (bits == 1)
        fail(o, "a special register is not a predicate");
      v.kind = ir::Val::Kind::special;
      v.special = *s;
      return v;
    }
    if (o.name.starts_with("%")) {
      if (!find_reg(o.name) && o.name.starts_with("%") && !o.name.starts_with("%r") &&
          !o.name.starts_with("%p") && !o.name.starts_with("%f"))
        throw Unsupported{"special register `" + std::string(o.name) + "` is not simulated"};
      v.kind = ir::Val::Kind::reg;
      v.reg = reg(o, bits, false, role);
      return v;
    }
    if (allow_symbol) {
      for (const auto& a : e_->shared) {
        if (a.name == o.name) {
          if (bits != 32 && bits != 64)
            fail(o, "the address of `" + a.name + "` needs a 32- or 64-bit type");
          v.kind = ir::Val::Kind::imm;
          v.imm = static_cast<std::int64_t>(a.offset);
          return v;
        }
      }
      for (const auto& p : e_->params) {
        if (p.name == o.name)
          throw Unsupported{"taking the address of parameter `" + p.name +
                            "` is not simulated; read it with ld.param"};
      }
    }
    fail(o, "`" + std::string(o.name) + "` is not a declared register or symbol");
  }

  /// A memory operand in `space`; symbols are folded into the offset.
  ir::Addr address(const Opnd& o, ir::Space space, std::uint32_t access_bytes) {
    if (o.kind != Opnd::Kind::addr)
      fail(o, "expected a memory operand like [%rd1] or [%rd1+16]");
    ir::Addr a;
    a.offset = o.offset;
    if (o.name.starts_with("%")) {
      auto r = find_reg(o.name);
      if (!r)
        fail(o, "register `" + std::string(o.name) + "` is not declared");
      if (r->bits != 32 && r->bits != 64)
        fail(o, "address register `" + std::string(o.name) + "` must be 32 or 64 bits");
      if (space == ir::Space::param)
        throw Unsupported{"ld.param through a register address is not simulated"};
      a.has_reg = true;
      a.reg = r->index;
      return a;
    }
    if (space == ir::Space::param) {
      for (const auto& p : e_->params) {
        if (p.name == o.name) {
          std::int64_t off = static_cast<std::int64_t>(p.offset) + o.offset;
          if (o.offset < 0 || static_cast<std::uint64_t>(o.offset) + access_bytes > p.size)
            fail(o, "the access of " + std::to_string(access_bytes) + " bytes at offset " +
                        std::to_string(o.offset) + " does not fit parameter `" + p.name + "` of " +
                        std::to_string(p.size) + " bytes");
          a.offset = off;
          return a;
        }
      }
      fail(o, "`" + std::string(o.name) + "` is not a parameter of this entry");
    }
    for (const auto& s : e_->shared) {
      if (s.name == o.name) {
        if (space != ir::Space::shared)
          throw Unsupported{"a shared symbol used as a " +
                            std::string(space == ir::Space::global ? "global" : "generic") +
                            " address is not simulated"};
        a.offset = static_cast<std::int64_t>(s.offset) + o.offset;
        return a;
      }
    }
    fail(o, "`" + std::string(o.name) + "` is not a declared register or shared array");
  }

  // ------------------------------------------------ instructions

  void instruction(ir::Entry& e) {
    ir::Op op;
    const Token& first = peek();
    op.line = first.line;
    std::size_t start = first.pos;
    std::optional<Opnd> guard;
    if (accept("@")) {
      guard = operand();
      if (guard->kind != Opnd::Kind::name)
        fail(*guard, "a guard is `@%p` or `@!%p`");
    }
    const Token& opc = expect_ident("an instruction");
    std::vector<Opnd> ops;
    if (!is(";")) {
      do {
        ops.push_back(operand());
      } while (accept(","));
    }
    const Token& semi = peek();
    if (!is(";"))
      fail(semi, "expected `,` or `;` after an operand, found " + describe(semi));
    next();
    // The instruction text, whitespace collapsed, for messages.
    std::string text;
    for (char c : src_.substr(start, semi.pos + 1 - start)) {
      bool space = std::isspace(static_cast<unsigned char>(c)) != 0;
      if (space) {
        if (!text.empty() && text.back() != ' ')
          text.push_back(' ');
      } else {
        text.push_back(c);
      }
    }
    op.text = static_cast<std::uint32_t>(e.texts.size());
    e.texts.push_back(text);
    if (guard) {
      // reg() refuses negated operands; the guard's negation is kept apart.
      Opnd plain = *guard;
      plain.negated = false;
      op.guard = static_cast<std::int32_t>(reg(plain, 1, false, "the guard"));
      op.guard_neg = guard->negated;
    }
    try {
      decode(op, opc, ops);
    } catch (const Unsupported& u) {
      op.code = ir::Code::unsupported;
      op.n = static_cast<std::int64_t>(e.texts.size());
      e.texts.push_back(u.reason);
    }
    e.ops.push_back(op);
  }

  void arity(const Token& opc, const std::vector<Opnd>& ops, std::size_t n) {
    if (ops.size() != n)
      fail(opc, "`" + std::string(opc.text) + "` takes " + std::to_string(n) + " operand" +
                    (n == 1 ? "" : "s") + ", found " + std::to_string(ops.size()));
  }

  TypeInfo type_part(const Token& opc, std::string_view part) {
    auto t = parse_type(part);
    if (!t)
      fail(opc, "`" + std::string(part) + "` is not a PTX type");
    return *t;
  }

  TypeInfo int_type(const Token& opc, std::string_view part) {
    TypeInfo t = type_part(opc, part);
    if (t.is_float)
      throw Unsupported{"floating-point arithmetic (`." + std::string(part) +
                        "`) is not simulated"};
    return t;
  }

  void decode(ir::Op& op, const Token& opc, const std::vector<Opnd>& ops) {
    auto parts = split_dots(opc.text);
    std::string_view root = parts[0];
    if (root == "cp" && parts.size() >= 2 && parts[1] == "async") {
      cp_async(op, opc, parts, ops);
    } else if (root == "createpolicy") {
      createpolicy(op, opc, parts, ops);
    } else if (root == "mov") {
      if (parts.size() != 2)
        throw Unsupported{"`" + std::string(opc.text) + "` is not simulated"};
      arity(opc, ops, 2);
      TypeInfo t = type_part(opc, parts[1]);
      op.code = ir::Code::mov;
      op.type = t.t;
      if (ops[1].kind == Opnd::Kind::vec || ops[0].kind == Opnd::Kind::vec)
        throw Unsupported{"vector mov (packing registers) is not simulated"};
      op.dst[0] = reg(ops[0], t.t.bits, false, "the destination");
      if (ops[1].kind == Opnd::Kind::number && t.is_float) {
        auto f = parse_float(ops[1].number);
        if (!f)
          fail(ops[1], "`" + std::string(ops[1].number) + "` is not a literal");
        op.src[0].kind = ir::Val::Kind::imm;
        if (ops[1].number.size() > 2 && (ops[1].number[1] == 'f' || ops[1].number[1] == 'd')) {
          op.src[0].imm = *parse_int("0x" + std::string(ops[1].number.substr(2)));
        } else {
          throw Unsupported{"decimal floating-point literals are not simulated"};
        }
        return;
      }
      op.src[0] = value(ops[1], t.t.bits, "the source");
    } else if (root == "ld" || root == "st") {
      ld_st(op, opc, parts, ops, root == "ld");
    } else if (root == "cvta") {
      cvta(op, opc, parts, ops);
    } else if (root == "add" || root == "sub" || root == "div" || root == "rem" || root == "min" ||
               root == "max" || root == "and" || root == "or" || root == "xor") {
      if (parts.size() != 2)
        throw Unsupported{"`" + std::string(opc.text) +
                          "` (with these qualifiers) is not simulated"};
      arity(opc, ops, 3);
      TypeInfo t = int_type(opc, parts[1]);
      static const std::map<std::string_view, ir::Code> codes = {
          {"add", ir::Code::add},  {"sub", ir::Code::sub}, {"div", ir::Code::div},
          {"rem", ir::Code::rem},  {"min", ir::Code::min}, {"max", ir::Code::max},
          {"and", ir::Code::and_}, {"or", ir::Code::or_},  {"xor", ir::Code::xor_}};
      op.code = codes.at(root);
      bool logical = root == "and" || root == "or" || root == "xor";
      if (t.is_pred && !logical)
        fail(opc, "`" + std::string(root) + "` does not take .pred");
      op.type = t.t;
      op.dst[0] = reg(ops[0], t.t.bits, false, "the destination");
      op.src[0] = value(ops[1], t.t.bits, "the first source");
      op.src[1] = value(ops[2], t.t.bits, "the second source");
    } else if (root == "mul" || root == "mad") {
      bool mad = root == "mad";
      if (parts.size() != 3)
        throw Unsupported{"`" + std::string(opc.text) + "` is not simulated"};
      TypeInfo t = int_type(opc, parts[2]);
      if (t.is_pred)
        fail(opc, "`" + std::string(root) + "` does not take .pred");
      unsigned dbits = t.t.bits;
      if (parts[1] == "lo") {
        op.code = mad ? ir::Code::mad_lo : ir::Code::mul_lo;
      } else if (parts[1] == "wide") {
        op.code = mad ? ir::Code::mad_wide : ir::Code::mul_wide;
        if (t.t.bits > 32)
          fail(opc, "`." + std::string(root) + ".wide` takes 16- or 32-bit sources");
        dbits = 2u * t.t.bits;
      } else if (parts[1] == "hi" && !mad) {
        op.code = ir::Code::mul_hi;
      } else {
        throw Unsupported{"`" + std::string(opc.text) + "` is not simulated"};
      }
      arity(opc, ops, mad ? 4 : 3);
      op.type = t.t;
      op.dst[0] = reg(ops[0], dbits, false, "the destination");
      op.src[0] = value(ops[1], t.t.bits, "the first source");
      op.src[1] = value(ops[2], t.t.bits, "the second source");
      if (mad)
        op.src[2] = value(ops[3], dbits, "the addend");
    } else if (root == "shl" || root == "shr") {
      if (parts.size() != 2)
        throw Unsupported{"`" + std::string(opc.text) + "` is not simulated"};
      arity(opc, ops, 3);
      TypeInfo t = int_type(opc, parts[1]);
      if (t.is_pred)
        fail(opc, "shifts do not take .pred");
      op.code = root == "shl" ? ir::Code::shl : ir::Code::shr;
      op.type = t.t;
      op.dst[0] = reg(ops[0], t.t.bits, false, "the destination");
      op.src[0] = value(ops[1], t.t.bits, "the shifted value");
      op.src[1] = value(ops[2], 32, "the shift amount");
    } else if (root == "not" || root == "neg") {
      if (parts.size() != 2)
        throw Unsupported{"`" + std::string(opc.text) + "` is not simulated"};
      arity(opc, ops, 2);
      TypeInfo t = int_type(opc, parts[1]);
      op.code = root == "not" ? ir::Code::not_ : ir::Code::neg;
      if (t.is_pred && root == "neg")
        fail(opc, "neg does not take .pred");
      op.type = t.t;
      op.dst[0] = reg(ops[0], t.t.bits, false, "the destination");
      op.src[0] = value(ops[1], t.t.bits, "the source");
    } else if (root == "cvt") {
      if (parts.size() != 3)
        throw Unsupported{"`" + std::string(opc.text) +
                          "` is not simulated (only integer cvt.dtype.stype)"};
      arity(opc, ops, 2);
      TypeInfo d = int_type(opc, parts[1]);
      TypeInfo s = int_type(opc, parts[2]);
      if (d.is_pred || s.is_pred)
        fail(opc, "cvt does not take .pred");
      op.code = ir::Code::cvt;
      op.type = d.t;
      op.type2 = s.t;
      op.dst[0] = reg(ops[0], d.t.bits, true, "the destination");
      if (ops[1].kind == Opnd::Kind::name && ops[1].name.starts_with("%") &&
          !parse_special(ops[1].name)) {
        op.src[0].kind = ir::Val::Kind::reg;
        op.src[0].reg = reg(ops[1], s.t.bits, true, "the source");
      } else {
        op.src[0] = value(ops[1], s.t.bits, "the source");
      }
    } else if (root == "setp") {
      static const std::vector<std::string_view> cmps = {"eq", "ne", "lt", "le", "gt",
                                                         "ge", "lo", "ls", "hi", "hs"};
      if (parts.size() != 3 || ops.size() != 3)
        throw Unsupported{"`" + std::string(opc.text) +
                          "` is not simulated (only setp.cmp.type p, a, b)"};
      std::size_t c = 0;
      while (c < cmps.size() && cmps[c] != parts[1])
        ++c;
      if (c == cmps.size())
        throw Unsupported{"comparison `." + std::string(parts[1]) + "` is not simulated"};
      TypeInfo t = int_type(opc, parts[2]);
      if (t.is_pred)
        fail(opc, "setp does not take .pred");
      op.code = ir::Code::setp;
      op.cmp = static_cast<std::uint8_t>(c);
      op.type = t.t;
      op.dst[0] = reg(ops[0], 1, false, "the destination");
      op.src[0] = value(ops[1], t.t.bits, "the first source");
      op.src[1] = value(ops[2], t.t.bits, "the second source");
    } else if (root == "selp") {
      if (parts.size() != 2)
        throw Unsupported{"`" + std::string(opc.text) + "` is not simulated"};
      arity(opc, ops, 4);
      TypeInfo t = type_part(opc, parts[1]);
      if (t.is_pred)
        fail(opc, "selp does not take .pred");
      op.code = ir::Code::selp;
      op.type = t.t;
      op.dst[0] = reg(ops[0], t.t.bits, false, "the destination");
      op.src[0] = value(ops[1], t.t.bits, "the first source");
      op.src[1] = value(ops[2], t.t.bits, "the second source");
      op.src[2].kind = ir::Val::Kind::reg;
      op.src[2].reg = reg(ops[3], 1, false, "the selector");
    } else if (root == "bar" || root == "barrier") {
      bool ok = parts.size() >= 2 && parts[1] == "sync" &&
                (parts.size() == 2 || (parts.size() == 3 && parts[2] == "aligned"));
      if (!ok)
        throw Unsupported{"`" + std::string(opc.text) + "` is not simulated (only bar.sync N)"};
      if (ops.size() != 1)
        throw Unsupported{"bar.sync with a thread count is not simulated"};
      if (ops[0].kind != Opnd::Kind::number)
        throw Unsupported{"bar.sync with a register barrier number is not simulated"};
      op.code = ir::Code::bar;
      op.n = int_literal(ops[0]);
      if (op.n < 0 || op.n > 15)
        fail(ops[0], "the barrier number must be in 0..15");
    } else if (root == "ret" || root == "exit") {
      if (parts.size() > 2 || (parts.size() == 2 && parts[1] != "uni"))
        fail(opc, "unexpected qualifiers on `" + std::string(opc.text) + "`");
      arity(opc, ops, 0);
      op.code = ir::Code::ret;
    } else if (root == "bra") {
      if (parts.size() > 2 || (parts.size() == 2 && parts[1] != "uni"))
        fail(opc, "unexpected qualifiers on `" + std::string(opc.text) + "`");
      arity(opc, ops, 1);
      if (ops[0].kind != Opnd::Kind::name)
        fail(ops[0], "bra needs a label");
      op.code = ir::Code::bra;
      Token label;
      label.text = ops[0].name;
      label.pos = ops[0].pos;
      branch_fixups_.emplace_back(e_->ops.size(), label);
    } else {
      throw Unsupported{"`" + std::string(opc.text) + "` is not in the simulated PTX subset"};
    }
  }

  void cp_async(ir::Op& op, const Token& opc, const std::vector<std::string_view>& parts,
                const std::vector<Opnd>& ops) {
    if (parts.size() == 3 && parts[2] == "commit_group") {
      arity(opc, ops, 0);
      op.code = ir::Code::commit_group;
      return;
    }
    if (parts.size() == 3 && parts[2] == "wait_all") {
      arity(opc, ops, 0);
      op.code = ir::Code::wait_all;
      return;
    }
    if (parts.size() == 3 && parts[2] == "wait_group") {
      arity(opc, ops, 1);
      if (ops[0].kind != Opnd::Kind::number)
        fail(ops[0], "cp.async.wait_group needs an integer immediate N");
      op.code = ir::Code::wait_group;
      op.n = int_literal(ops[0]);
      if (op.n < 0)
        fail(ops[0], "cp.async.wait_group N must not be negative");
      return;
    }
    if (parts.size() >= 3 && parts[2] == "mbarrier")
      throw Unsupported{"cp.async.mbarrier.arrive is not simulated (no mbarrier objects)"};
    // The copy: cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB}
    std::optional<bool> cg;
    bool seen_shared = false, seen_global = false, hint = false, prefetch = false;
    for (std::size_t k = 2; k < parts.size(); ++k) {
      std::string_view q = parts[k];
      if (q == "ca" || q == "cg") {
        if (cg)
          fail(opc, "cp.async takes exactly one of .ca / .cg");
        cg = q == "cg";
      } else if (q == "shared" || q == "shared::cta") {
        if (seen_shared || seen_global)
          fail(opc, "cp.async names the destination space .shared first, then .global");
        seen_shared = true;
      } else if (q == "global") {
        if (!seen_shared || seen_global)
          fail(opc, "cp.async names the destination space .shared first, then .global");
        seen_global = true;
      } else if (q == "L2::cache_hint") {
        if (hint)
          fail(opc, ".L2::cache_hint appears twice");
        hint = true;
      } else if (q == "L2::64B" || q == "L2::128B" || q == "L2::256B") {
        if (prefetch)
          fail(opc, "at most one .L2 prefetch size");
        prefetch = true;
      } else if (q == "shared::cluster") {
        fail(opc, "cp.async to .shared::cluster is rejected by ptxas");
      } else {
        fail(opc, "`." + std::string(q) + "` is not a cp.async qualifier");
      }
    }
    if (!cg)
      fail(opc, "cp.async needs .ca or .cg");
    if (!seen_shared || !seen_global)
      fail(opc, "cp.async needs `.shared.global` (destination shared, source global)");
    if (ops.size() < 3)
      fail(opc, "cp.async takes [dst], [src], cp-size{, src-size | ignore-src}{, policy}");
    op.code = ir::Code::cp_async;
    if (ops[2].kind != Opnd::Kind::number)
      fail(ops[2], "cp-size must be an immediate");
    std::int64_t size = int_literal(ops[2]);
    if (*cg && size != 16)
      fail(ops[2], "`.cg` copies exactly 16 bytes; cp-size is " + std::to_string(size));
    if (!*cg && size != 4 && size != 8 && size != 16)
      fail(ops[2], "`.ca` copies 4, 8 or 16 bytes; cp-size is " + std::to_string(size));
    op.cp_size = static_cast<std::uint32_t>(size);
    op.addr = address(ops[0], ir::Space::shared, op.cp_size);
    op.addr2 = address(ops[1], ir::Space::global, op.cp_size);
    std::size_t tail = ops.size() - 3;
    if (hint) {
      if (tail == 0)
        fail(opc, ".L2::cache_hint requires a cache-policy operand (ptxas rejects it without)");
      const Opnd& pol = ops.back();
      if (pol.kind == Opnd::Kind::name)
        reg(pol, 64, false, "the cache policy");
      else if (pol.kind != Opnd::Kind::number)
        fail(pol, "the cache policy is a 64-bit register or immediate");
      --tail;
    }
    if (tail > 1)
      fail(ops[3], "too many operands for cp.async");
    if (tail == 1) {
      const Opnd& z = ops[3];
      bool is_pred = false;
      if (z.kind == Opnd::Kind::name && z.name.starts_with("%")) {
        auto r = find_reg(z.name);
        is_pred = r && r->bits == 1;
      }
      if (is_pred) {
        op.zfill = ir::ZeroFill::ignore_src;
        op.zval.kind = ir::Val::Kind::reg;
        Opnd plain = z; // `!%p`: the negation is kept in zneg
        plain.negated = false;
        op.zval.reg = reg(plain, 1, false, "ignore-src");
        op.zneg = z.negated;
      } else {
        if (z.negated)
          fail(z, "`!` applies only to a predicate (ignore-src)");
        op.zfill = ir::ZeroFill::src_size;
        op.zval = value(z, 32, "src-size", false);
        if (op.zval.kind == ir::Val::Kind::special)
          fail(z, "src-size must be a u32 register or an immediate");
        if (op.zval.kind == ir::Val::Kind::imm &&
            (op.zval.imm < 0 || op.zval.imm > static_cast<std::int64_t>(op.cp_size)))
          fail(z, "src-size " + std::to_string(op.zval.imm) + " is outside 0.." +
                      std::to_string(op.cp_size));
      }
    } else if (!hint && ops.size() > 3) {
      fail(ops[3], "too many operands for cp.async");
    }
  }

  void createpolicy(ir::Op& op, const Token& opc, const std::vector<std::string_view>& parts,
                    const std::vector<Opnd>& ops) {
    if (parts.size() < 2 || parts[1] != "fractional")
      throw Unsupported{"`" + std::string(opc.text) +
                        "` is not simulated (only createpolicy.fractional)"};
    std::size_t k = 2;
    std::size_t evictions = 0;
    while (k < parts.size() && parts[k].starts_with("L2::evict_")) {
      static const std::vector<std::string_view> prios = {"L2::evict_last", "L2::evict_normal",
                                                          "L2::evict_first", "L2::evict_unchanged"};
      bool known = false;
      for (auto p : prios)
        known = known || p == parts[k];
      if (!known)
        fail(opc, "`." + std::string(parts[k]) + "` is not an L2 eviction priority");
      ++evictions;
      ++k;
    }
    if (evictions == 0 || evictions > 2 || k + 1 != parts.size() || parts[k] != "b64")
      fail(opc, "expected createpolicy.fractional.L2::evict_*{.L2::evict_*}.b64");
    if (ops.empty() || ops.size() > 2)
      fail(opc, "createpolicy.fractional takes a destination and an optional fraction");
    op.code = ir::Code::createpolicy;
    op.type = ir::Type{64, false};
    op.dst[0] = reg(ops[0], 64, false, "the destination");
    if (ops.size() == 2) {
      if (ops[1].kind != Opnd::Kind::number)
        fail(ops[1], "the fraction is a literal in (0, 1]");
      auto f = parse_float(ops[1].number);
      if (!f || *f <= 0.0 || *f > 1.0)
        fail(ops[1], "the fraction must be in (0, 1]");
    }
  }

  void ld_st(ir::Op& op, const Token& opc, const std::vector<std::string_view>& parts,
             const std::vector<Opnd>& ops, bool is_ld) {
    std::optional<ir::Space> space;
    std::uint8_t vec = 1;
    std::optional<TypeInfo> type;
    for (std::size_t k = 1; k < parts.size(); ++k) {
      std::string_view q = parts[k];
      if (q == "param" || q == "global" || q == "shared" || q == "shared::cta") {
        if (space)
          fail(opc, "two state spaces");
        space = q == "param"    ? ir::Space::param
                : q == "global" ? ir::Space::global
                                : ir::Space::shared;
      } else if (q == "local" || q == "const" || q == "shared::cluster" || q == "tex") {
        throw Unsupported{"the ." + std::string(q) + " state space is not simulated"};
      } else if (q == "v2" || q == "v4") {
        vec = q == "v2" ? 2 : 4;
      } else if (q == "ca" || q == "cg" || q == "cs" || q == "lu" || q == "cv" || q == "wb" ||
                 q == "wt" || q == "nc" || q == "volatile" || q == "weak" || q == "L2::64B" ||
                 q == "L2::128B" || q == "L2::256B") {
        // cache operators and prefetch sizes are hints
      } else if (auto t = parse_type(q)) {
        if (type)
          fail(opc, "two types");
        type = t;
      } else {
        throw Unsupported{"`." + std::string(q) + "` on " + std::string(is_ld ? "ld" : "st") +
                          " is not simulated"};
      }
    }
    if (!type)
      fail(opc, "`" + std::string(opc.text) + "` needs a type");
    if (type->is_pred)
      fail(opc, "ld/st do not take .pred");
    if (!space)
      space = ir::Space::generic;
    if (*space == ir::Space::param && !is_ld)
      throw Unsupported{"st.param is not simulated"};
    if (*space == ir::Space::param && vec != 1)
      throw Unsupported{"vector ld.param is not simulated"};
    arity(opc, ops, 2);
    op.code = is_ld ? ir::Code::ld : ir::Code::st;
    op.space = *space;
    op.type = type->t;
    op.vec = vec;
    const Opnd& data = is_ld ? ops[0] : ops[1];
    const Opnd& mem = is_ld ? ops[1] : ops[0];
    std::uint32_t bytes = type->t.bits / 8u * vec;
    op.addr = address(mem, *space, bytes);
    std::vector<const Opnd*> elems;
    if (vec == 1) {
      if (data.kind == Opnd::Kind::vec)
        fail(data, "a vector operand needs .v2 or .v4");
      elems.push_back(&data);
    } else {
      if (data.kind != Opnd::Kind::vec || data.elems.size() != vec)
        fail(data, "`.v" + std::to_string(vec) + "` needs {" + std::to_string(vec) + " registers}");
      for (const auto& x : data.elems)
        elems.push_back(&x);
    }
    for (std::size_t k = 0; k < elems.size(); ++k) {
      if (is_ld) {
        op.dst[k] = reg(*elems[k], type->t.bits, true, "the destination");
      } else if (elems[k]->kind == Opnd::Kind::name && elems[k]->name.starts_with("%") &&
                 !parse_special(elems[k]->name)) {
        op.src[k].kind = ir::Val::Kind::reg;
        op.src[k].reg = reg(*elems[k], type->t.bits, true, "the stored value");
      } else {
        op.src[k] = value(*elems[k], type->t.bits, "the stored value");
      }
    }
  }

  void cvta(ir::Op& op, const Token& opc, const std::vector<std::string_view>& parts,
            const std::vector<Opnd>& ops) {
    std::size_t k = 1;
    bool to = k < parts.size() && parts[k] == "to";
    if (to)
      ++k;
    if (parts.size() != k + 2)
      fail(opc, "expected cvta{.to}.space.type");
    std::string_view sp = parts[k];
    if (sp == "global")
      op.space = ir::Space::global;
    else if (sp == "shared" || sp == "shared::cta")
      op.space = ir::Space::shared;
    else
      throw Unsupported{"cvta for ." + std::string(sp) + " is not simulated"};
    TypeInfo t = type_part(opc, parts[k + 1]);
    if ((t.t.bits != 32 && t.t.bits != 64) || t.is_float || t.is_pred)
      fail(opc, "cvta takes .u32 or .u64");
    arity(opc, ops, 2);
    op.code = ir::Code::cvta;
    op.to = to;
    op.type = t.t;
    op.dst[0] = reg(ops[0], t.t.bits, false, "the destination");
    if (ops[1].kind == Opnd::Kind::name && ops[1].name.starts_with("%")) {
      auto r = find_reg(ops[1].name);
      if (!r)
        fail(ops[1], "register `" + std::string(ops[1].name) + "` is not declared");
      op.src[0].kind = ir::Val::Kind::reg;
      op.src[0].reg = reg(ops[1], r->bits == 64 ? 64 : t.t.bits, false, "the source");
    } else {
      op.src[0] = value(ops[1], t.t.bits, "the source");
    }
  }

  std::string_view src_;
  std::vector<std::string_view> lines_;
  std::vector<Token> toks_;
  std::size_t i_ = 0;
  Diagnostics diags_;
  ir::Entry* e_ = nullptr;
  std::unordered_map<std::string, RegInfo> regs_;
  std::unordered_map<std::string, Family> families_;
  std::unordered_map<std::string, std::size_t> labels_;
  std::vector<std::pair<std::size_t, Token>> branch_fixups_;
};

} // namespace

Result<std::shared_ptr<const ir::Module>> parse_module(std::string_view text) {
  Parser p(text);
  return p.run();
}

} // namespace ptxgen::sim
