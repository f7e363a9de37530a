// The simulator's PTX parser, driving part: diagnostics, token access, the
// module and entry structure and statement dispatch. Declarations, operands
// and instructions are in declarations.cpp, operands.cpp, decode.cpp, qualifiers.cpp and
// shapes.cpp.

#include "driver/sim/parser.hpp"

#include "driver/sim/parser_impl.hpp"
#include "emitter/ptx/feature.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace ptxgen::sim {
namespace detail {

Parser::Parser(std::string_view src) : src_(src) {
  std::size_t start = 0;
  for (std::size_t k = 0; k <= src.size(); ++k) {
    if (k == src.size() || src[k] == '\n') {
      lines_.push_back(src.substr(start, k - start));
      start = k + 1;
    }
  }
}

Result<std::shared_ptr<const ir::Module>> Parser::run() {
  auto m = std::make_shared<ir::Module>();
  m_ = m.get();
  try {
    toks_ = lex(src_);
    module(*m);
  } catch (const ParseError& e) {
    add_error(e);
  }
  // Each function's own problems, in line order, before linking copies them.
  std::vector<Diagnostic> problems;
  for (const auto* fns : {&m->entries, &m->funcs}) {
    for (const auto& f : *fns)
      problems.insert(problems.end(), f.problems.begin(), f.problems.end());
  }
  if (!diags_.has_errors())
    link(*m);
  problems.insert(problems.end(), link_problems_.begin(), link_problems_.end());
  std::stable_sort(problems.begin(), problems.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.line < b.line; });
  // Only the entry being run must be simulable. A construct the simulator does
  // not run never refuses the file (its entry runs to `unsupported`); invalid
  // PTX refuses it only when no entry is free of it. The problems stay with
  // their entries (warnings here).
  auto invalid = [](const Diagnostic& d) { return d.id != DiagId::sim_unsupported_construct; };
  // The candidates: the `.entry`s, or in a file of .funcs only, the .funcs run as entries.
  const bool has_entries = std::any_of(m->entries.begin(), m->entries.end(),
                                       [](const ir::Entry& e) { return !e.from_func; });
  const bool runnable = std::any_of(m->entries.begin(), m->entries.end(), [&](const ir::Entry& e) {
    return e.from_func != has_entries &&
           std::none_of(e.problems.begin(), e.problems.end(), invalid);
  });
  const bool refused =
      diags_.has_errors() || (std::any_of(problems.begin(), problems.end(), invalid) && !runnable);
  for (auto& d : problems) {
    if (!refused)
      d.severity = Severity::warning;
    diags_.add(std::move(d));
  }
  if (refused)
    return Result<std::shared_ptr<const ir::Module>>::failure(std::move(diags_));
  auto r = Result<std::shared_ptr<const ir::Module>>::success(std::move(m));
  r.diagnostics = std::move(diags_);
  return r;
}

// ------------------------------------------------ diagnostics

void Parser::add(Severity severity, DiagId id, std::size_t pos, std::size_t length,
                 std::string message) {
  Diagnostic d(id, std::move(message), severity);
  auto [line, col] = position(pos);
  d.line = line;
  d.column = col;
  d.length = static_cast<std::uint32_t>(std::max<std::size_t>(length, 1));
  if (line >= 1 && line <= lines_.size())
    d.source_line = std::string(lines_[line - 1]);
  if (e_ != nullptr && severity == Severity::error)
    e_->problems.push_back(std::move(d)); // the function's, not the file's
  else
    diags_.add(std::move(d));
}

void Parser::add_error(const ParseError& e) {
  add(Severity::error, e.id, e.pos, e.length, e.message);
}

std::pair<std::uint32_t, std::uint32_t> Parser::position(std::size_t pos) const {
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

void Parser::fail(DiagId id, const Token& t, std::string message) {
  throw ParseError{id, t.pos, std::max<std::size_t>(t.text.size(), 1), std::move(message)};
}

void Parser::fail(DiagId id, const Opnd& o, std::string message) {
  throw ParseError{id, o.pos, o.length, std::move(message)};
}

// ------------------------------------------------ token helpers

const Token& Parser::peek(std::size_t ahead) const {
  std::size_t k = std::min(i_ + ahead, toks_.size() - 1);
  return toks_[k];
}

const Token& Parser::next() {
  const Token& t = peek();
  if (i_ + 1 < toks_.size())
    ++i_;
  return t;
}

bool Parser::is(std::string_view text, std::size_t ahead) const {
  const Token& t = peek(ahead);
  return t.kind != Tok::end && t.text == text;
}

bool Parser::accept(std::string_view text) {
  if (is(text)) {
    next();
    return true;
  }
  return false;
}

const Token& Parser::expect(std::string_view text, std::string_view what) {
  if (!is(text))
    fail(DiagId::sim_syntax, peek(),
         "expected `" + std::string(text) + "` " + std::string(what) + ", found " +
             describe(peek()));
  return next();
}

std::string Parser::describe(const Token& t) {
  if (t.kind == Tok::end)
    return "the end of the input";
  return "`" + std::string(t.text) + "`";
}

const Token& Parser::expect_ident(std::string_view what) {
  if (peek().kind != Tok::ident)
    fail(DiagId::sim_syntax, peek(),
         "expected " + std::string(what) + ", found " + describe(peek()));
  return next();
}

std::int64_t Parser::expect_int(std::string_view what) {
  bool minus = accept("-");
  const Token& t = peek();
  if (t.kind != Tok::number)
    fail(DiagId::sim_syntax, t, "expected " + std::string(what) + ", found " + describe(t));
  auto v = parse_int(t.text);
  if (!v)
    fail(DiagId::sim_literal, t, "`" + std::string(t.text) + "` is not an integer");
  next();
  return minus ? negate_mod64(*v) : *v;
}

void Parser::skip_statement() {
  while (peek().kind != Tok::end && !is(";") && !is("}"))
    next();
  accept(";");
}

/// Debug line info (`.loc`, `.file`, `@@DWARF`) has no semicolon: the rest of the line.
void Parser::skip_line() {
  std::uint32_t line = peek().line;
  while (peek().kind != Tok::end && peek().line == line)
    next();
}

/// From a `{` to its matching `}` (a `.section` of DWARF bytes, a broken body).
void Parser::skip_block() {
  int depth = 0;
  while (peek().kind != Tok::end) {
    if (is("{"))
      ++depth;
    if (is("}") && --depth <= 0) {
      next();
      return;
    }
    next();
  }
}

/// After an error in a function's header: its declaration's `;` or its body.
void Parser::skip_function(std::size_t start) {
  i_ = std::max(i_, start + 1);
  while (peek().kind != Tok::end) {
    if (accept(";"))
      return;
    if (is("{")) {
      skip_block();
      return;
    }
    next();
  }
}

// ------------------------------------------------ module and entry

void Parser::module(ir::Module& m) {
  while (peek().kind != Tok::end) {
    const Token& t = peek();
    if (t.text == ".version") {
      next();
      const Token& v = next();
      if (v.kind != Tok::number)
        fail(DiagId::sim_module_statement, v, "expected a version number like 8.0 after .version");
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
        fail(DiagId::sim_unsupported_construct, t,
             ".address_size " + std::to_string(a) + " is not simulated; only 64");
      m.address_size = 64;
    } else if (t.text == ".extern") {
      next();
      // `.extern .shared ... name[];`: dynamic shared memory, for every entry that follows.
      if (is(".shared"))
        shared_decl(module_shared_, true);
      else if (!is(".func") && !is(".visible") && !is(".weak"))
        skip_statement(); // `.extern .global` and the like: defined elsewhere
    } else if (t.text == ".visible" || t.text == ".weak" || t.text == ".common") {
      next();
    } else if (t.text == ".shared") {
      shared_decl(module_shared_, false);
    } else if (t.text == ".global" || t.text == ".const") {
      const std::size_t start = i_;
      try {
        data_decl(m, "");
      } catch (const ParseError&) {
        // A variable the simulator cannot hold (a texref): an entry that names it finds it
        // undeclared; the others do not care.
        i_ = start + 1;
        skip_declaration();
      }
    } else if (t.text == ".entry" || t.text == ".func") {
      function(m, t.text == ".func");
    } else if (t.text == ".loc" || t.text == ".file" || (t.text == "@" && is("@", 1))) {
      skip_line();
    } else if (t.text == ".section") {
      skip_block();
    } else if (t.text == ".pragma") {
      skip_statement();
    } else if (t.kind == Tok::ident && t.text.starts_with(".")) {
      // `.alias`, `.texref`, a directive of a newer PTX: skipped, so that the functions that
      // do not use it run (one that does finds its name undeclared).
      add(Severity::warning, DiagId::sim_unsupported_construct, t.pos, t.text.size(),
          "`" + std::string(t.text) + "` at module scope is not simulated; skipped");
      next();
      skip_declaration();
    } else {
      fail(DiagId::sim_module_statement, t,
           "expected .version, .target, .address_size or an .entry at module scope, found " +
               describe(t));
    }
  }
}

void Parser::function(ir::Module& m, bool is_func) {
  const std::size_t start = i_;
  ir::Entry e;
  e.is_func = is_func;
  e_ = &e;
  regs_.clear();
  families_.clear();
  labels_.clear();
  locals_.clear();
  scopes_.clear();
  scope_parents_.clear();
  branch_fixups_.clear();
  try {
    function_header(e);
  } catch (const ParseError& err) {
    if (e.name.empty()) { // nothing to attach it to: the file's error
      e_ = nullptr;
      throw;
    }
    add_error(err);
    skip_function(start);
  }
  e_ = nullptr;
  auto& list = is_func ? m.funcs : m.entries;
  for (auto& other : list) {
    if (other.name == e.name && is_func) {
      if (!other.defined)
        other = std::move(e); // a declaration, then its definition
      return;
    }
  }
  list.push_back(std::move(e));
}

void Parser::function_header(ir::Entry& e) {
  const Token& kw = next(); // .entry / .func
  e.line = kw.line;
  e.shared = module_shared_.shared;
  e.shared_bytes = module_shared_.shared_bytes;
  e.has_extern_shared = module_shared_.has_extern_shared;
  if (e.is_func && accept("(")) { // results
    if (!is(")")) {
      do {
        ir::Param p = param_decl();
        p.offset = frame_place(e, p);
        e.rets.push_back(std::move(p));
      } while (accept(","));
    }
    expect(")", "to close the results");
  }
  e.name = std::string(expect_ident(e.is_func ? "the function name" : "the entry name").text);
  if (e.is_func ? accept("(") : (expect("(", "to open the parameter list"), true)) {
    if (!is(")")) {
      do {
        param(e);
      } while (accept(","));
    }
    expect(")", "to close the parameter list");
  }
  performance_directives(e);
  if (e.is_func && accept(";"))
    return; // a declaration
  expect("{", "to open the entry body");
  e.defined = true;
  body(e);
  resolve_branches(e);
}

/// `x{, y{, z}}` after directive `d`: positive dimensions up to `max`, missing ones 1.
std::array<std::uint32_t, 3> Parser::directive_dims(const Token& d, std::int64_t max) {
  std::array<std::uint32_t, 3> dims = {1, 1, 1};
  std::size_t n = 0;
  do {
    const std::int64_t v = expect_int(n == 0 ? "a dimension" : "another dimension");
    if (n == dims.size())
      fail(DiagId::sim_entry, d, std::string(d.text) + " takes at most three dimensions");
    if (v <= 0 || v > max)
      fail(DiagId::sim_entry, d,
           std::string(d.text) + " needs dimensions in 1.." + std::to_string(max));
    dims[n++] = static_cast<std::uint32_t>(v);
  } while (accept(","));
  return dims;
}

/// The directives between a function's parameters and its body, kept in the Entry:
/// the launch (`.reqntid`, `.maxntid`), the cluster (`.reqnctapercluster`,
/// `.explicitcluster`, `.maxclusterrank`) and the occupancy hints.
void Parser::performance_directives(ir::Entry& e) {
  while (!is("{") && !(e.is_func && is(";"))) {
    const Token& d = expect_ident("a performance directive or `{`");
    const auto count = [&] {
      const std::int64_t v = expect_int("a number");
      if (v < 0 || v > std::numeric_limits<std::uint32_t>::max())
        fail(DiagId::sim_entry, d, std::string(d.text) + " needs a number in 0..2^32-1");
      return static_cast<std::uint32_t>(v);
    };
    if (d.text == ".reqntid") {
      e.reqntid = directive_dims(d, ptx::max_block_threads);
    } else if (d.text == ".maxntid") {
      e.maxntid = directive_dims(d, ptx::max_block_threads);
    } else if (d.text == ".reqnctapercluster") {
      e.reqnctapercluster = directive_dims(d, std::numeric_limits<std::int32_t>::max());
    } else if (d.text == ".explicitcluster") {
      e.explicitcluster = true;
    } else if (d.text == ".maxclusterrank") {
      e.maxclusterrank = count();
    } else if (d.text == ".minnctapersm") {
      e.minnctapersm = count();
    } else if (d.text == ".maxnctapersm") {
      e.maxnctapersm = count();
    } else if (d.text == ".maxnreg") {
      e.maxnreg = count();
    } else if (d.text == ".noreturn") {
      // a .func that never returns: nothing to keep
    } else if (d.text == ".pragma") {
      skip_statement();
    } else if (d.text.starts_with(".")) {
      // A directive of a newer PTX than this reader knows: its numbers are skipped, and
      // the function runs without it.
      add(Severity::warning, DiagId::sim_unsupported_construct, d.pos, d.text.size(),
          "`" + std::string(d.text) + "` is not simulated; the function runs without it");
      while (peek().kind == Tok::number || is(","))
        next();
    } else {
      fail(DiagId::sim_entry, d, "unexpected `" + std::string(d.text) + "` before the entry body");
    }
  }
}

/// The statements up to the entry's closing `}`. An error skips the rest of
/// its statement, so that one parse reports every bad statement.
void Parser::body(ir::Entry& e) {
  int depth = 0;
  open_scope();
  while (true) {
    if (peek().kind == Tok::end)
      fail(DiagId::sim_entry, peek(), "the body of entry `" + e.name + "` is not closed with `}`");
    if (is("}")) {
      next();
      close_scope();
      if (depth == 0)
        return;
      --depth;
      continue;
    }
    if (is("{")) {
      // A nested block (inline asm, a call sequence) scopes its declarations.
      next();
      open_scope();
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
}

/// A branch goes to the label of its name in its own block or the nearest enclosing one;
/// failing that, to the one label of that name in another block.
void Parser::resolve_branches(ir::Entry& e) {
  for (const BranchFixup& b : branch_fixups_) {
    const std::string name(b.label.text);
    std::optional<std::size_t> target;
    for (std::uint32_t s = b.scope;;) {
      if (auto it = labels_.find({s, name}); it != labels_.end()) {
        target = it->second;
        break;
      }
      if (s >= scope_parents_.size() || scope_parents_[s] == s)
        break;
      s = scope_parents_[s];
    }
    if (!target) {
      std::size_t found = 0;
      for (const auto& [key, at] : labels_) {
        if (key.second == name && found++ == 0)
          target = at;
      }
      if (found > 1)
        target.reset();
    }
    if (!target) {
      add_error(ParseError{DiagId::sim_undeclared, b.label.pos, b.label.text.size(),
                           "branch to undeclared label `" + name + "`"});
      continue;
    }
    e.ops[b.op].n = static_cast<std::int64_t>(*target);
  }
}

void Parser::statement(ir::Entry& e) {
  const Token& t = peek();
  if (t.kind == Tok::ident && t.text == ".reg") {
    reg_decl(e);
    return;
  }
  if (t.kind == Tok::ident && t.text == ".shared") {
    shared_decl(e, false);
    return;
  }
  if (t.kind == Tok::ident && t.text == ".param") {
    local_param(e);
    return;
  }
  if (t.kind == Tok::ident && t.text == ".local") {
    local_decl(e);
    return;
  }
  if (t.kind == Tok::ident && (t.text == ".global" || t.text == ".const")) {
    const std::size_t start = i_;
    try {
      data_decl(*m_, e.name);
    } catch (const ParseError&) {
      i_ = start + 1; // the rest of the declaration, its `{...}` initialiser too
      skip_declaration();
      throw;
    }
    return;
  }
  if (t.kind == Tok::ident && t.text == ".pragma") {
    skip_statement();
    return;
  }
  if (t.kind == Tok::ident && (t.text == ".loc" || t.text == ".file")) {
    skip_line();
    return;
  }
  if (t.kind == Tok::ident && t.text.starts_with(".")) {
    fail(DiagId::sim_unsupported_construct, t,
         "`" + std::string(t.text) +
             "` declarations are not simulated (only .reg, .param and .shared inside a function)");
  }
  if (t.kind == Tok::ident && is(":", 1) && is(".callprototype", 2)) {
    skip_statement(); // `name : .callprototype ...;`: an indirect call's signature, which
    return;           // the linker takes from the functions whose address is taken
  }
  if (t.kind == Tok::ident && is(":", 1)) {
    std::string label(t.text);
    const std::uint32_t scope = scopes_.empty() ? 0 : scopes_.back().id;
    if (labels_.count({scope, label}) != 0)
      fail(DiagId::sim_redeclared, t, "label `" + label + "` is defined twice in one block");
    labels_[{scope, label}] = e.ops.size();
    next();
    next();
    return;
  }
  instruction(e);
}

} // namespace detail

Result<std::shared_ptr<const ir::Module>> parse_module(std::string_view text) {
  detail::Parser p(text);
  return p.run();
}

} // namespace ptxgen::sim
