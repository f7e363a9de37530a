#include "driver/spec/loader.hpp"

#include "driver/reference/expect.hpp"
#include "emitter/build/builder.hpp"
#include "emitter/lower/abi.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/instruction.hpp"
#include "emitter/ptx/opcode_parser.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/limits.hpp"
#include "emitter/tile/pipeline.hpp"
#include "emitter/tile/suggest.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include <toml++/toml.h>

namespace ptxgen::driver {
namespace {

using tile::SourcePos;

using tile::kMaxPatternBytes;

constexpr std::array<std::string_view, 5> kTopKeys = {"kernel", "tensor", "param", "op", "expect"};
constexpr std::array<std::string_view, 5> kKernelKeys = {"name", "grid", "block", "abi",
                                                         "dynamic_shared"};
constexpr std::array<std::string_view, 7> kTensorKeys = {"space",  "shape", "dtype", "init",
                                                         "output", "align", "layout"};
constexpr std::array<std::string_view, 3> kParamKeys = {"dtype", "value", "range"};
constexpr std::array<std::string_view, 14> kOpKinds = {"apply",
                                                       "commit_group",
                                                       "wait_group",
                                                       "wait_all",
                                                       "cta_sync",
                                                       "fill",
                                                       "copy",
                                                       "for",
                                                       "end",
                                                       "pipeline",
                                                       "mbarrier_init",
                                                       "copy_arrive",
                                                       "mbarrier_arrive",
                                                       "mbarrier_wait"};
constexpr std::array<std::string_view, 3> kMbarrierInitKeys = {"op", "barrier", "count"};
constexpr std::array<std::string_view, 3> kCopyArriveKeys = {"op", "barrier", "noinc"};
constexpr std::array<std::string_view, 3> kMbarrierArriveKeys = {"op", "barrier", "pred"};
constexpr std::array<std::string_view, 3> kMbarrierWaitKeys = {"op", "barrier", "parity"};
constexpr std::array<std::string_view, 6> kForKeys = {"op",   "var",  "start",
                                                      "stop", "step", "unroll"};
constexpr std::array<std::string_view, 10> kPipelineKeys = {
    "op", "var", "start", "stop", "step", "stages", "unroll", "stage_var", "load", "body"};
constexpr std::array<std::string_view, 10> kApplyKeys = {
    "op",    "opcode",   "dst",        "src",  "chunk_bytes",
    "scope", "src_size", "ignore_src", "pred", "cache_policy"};
constexpr std::array<std::string_view, 1> kBareKeys = {"op"};
constexpr std::array<std::string_view, 2> kWaitGroupKeys = {"op", "n"};
constexpr std::array<std::string_view, 3> kFillKeys = {"op", "dst", "pattern"};
constexpr std::array<std::string_view, 3> kCopyKeys = {"op", "dst", "src"};

const char* type_phrase(toml::node_type t) {
  switch (t) {
  case toml::node_type::none:
    return "nothing";
  case toml::node_type::table:
    return "a table";
  case toml::node_type::array:
    return "an array";
  case toml::node_type::string:
    return "a string";
  case toml::node_type::integer:
    return "an integer";
  case toml::node_type::floating_point:
    return "a floating-point number";
  case toml::node_type::boolean:
    return "a boolean";
  case toml::node_type::date:
    return "a date";
  case toml::node_type::time:
    return "a time";
  case toml::node_type::date_time:
    return "a date-time";
  }
  return "a value";
}

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0]))
    return false;
  return std::all_of(s.begin(), s.end(), is_ident_char);
}

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& xs, std::string_view x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

std::string join(std::span<const std::string_view> xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i != 0)
      out += ", ";
    out += xs[i];
  }
  return out;
}

std::string squote(std::string_view s) {
  return "'" + std::string(s) + "'";
}

using tile::did_you_mean;

using tile::or_choices;

bool before(const toml::source_position& a, const toml::source_position& b) {
  return a.line != b.line ? a.line < b.line : a.column < b.column;
}

std::string_view trim(std::string_view s, std::size_t* skipped = nullptr) {
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

template <class Int>
std::optional<Int> parse_integer(std::string_view s) {
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

/// Where a string value's characters sit in the file.
struct StringLoc {
  SourcePos pos;      ///< the first character (exact) or the opening quote (not exact)
  bool exact = false; ///< character i of the value is at pos.column + i
};

/// Keys in the order they appear in the file (toml::table iterates by name).
std::vector<std::pair<const toml::key*, const toml::node*>> in_file_order(const toml::table& t) {
  std::vector<std::pair<const toml::key*, const toml::node*>> out;
  for (auto&& [k, v] : t)
    out.emplace_back(&k, &v);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return before(a.first->source().begin, b.first->source().begin);
  });
  return out;
}

class Loader {
public:
  Loader(std::string_view text, std::string file) : text_(text), file_(std::move(file)), b_(file_) {
    std::size_t start = 0;
    while (start <= text_.size()) {
      std::size_t nl = text_.find('\n', start);
      std::string_view line =
          text_.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
      if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
      lines_.push_back(line);
      if (nl == std::string_view::npos)
        break;
      start = nl + 1;
    }
  }

  /// The 1-based column (in characters, as toml++ counts) of the first
  /// non-blank character of 1-based `line`.
  toml::source_index first_non_blank_column(toml::source_index line) const {
    std::size_t begin = 0;
    for (toml::source_index l = 1; l < line && begin != std::string_view::npos; ++l) {
      begin = std::string_view(text_).find('\n', begin);
      if (begin != std::string_view::npos)
        ++begin;
    }
    if (begin == std::string_view::npos)
      return 1;
    toml::source_index col = 1;
    while (begin < text_.size() && (text_[begin] == ' ' || text_[begin] == '\t')) {
      ++begin;
      ++col;
    }
    return col;
  }

  /// True when 1-based `line` is well-formed TOML on its own and the text is well-formed
  /// without it: the line then clashes with the rest (a key or table defined twice), and
  /// the error belongs to its key, where toml++ reports it at the value.
  bool conflicts_with_rest(toml::source_index line) const {
    if (line == 0 || line > lines_.size())
      return false;
    std::string without;
    for (std::size_t i = 0; i < lines_.size(); ++i)
      if (i + 1 != line)
        without.append(lines_[i]).push_back('\n');
    try {
      (void)toml::parse(lines_[line - 1]);
      (void)toml::parse(without);
    } catch (const toml::parse_error&) {
      return false;
    }
    return true;
  }

  /// toml++ recurses once per dotted key part and overflows the stack on keys
  /// such as `a.a.a...` with ~50,000 parts (less under AddressSanitizer). No
  /// spec needs deep keys, so a line with more than kMaxKeyDots dots outside
  /// quotes and comments is refused before toml++ sees the text.
  bool refuse_deep_keys() {
    constexpr int kMaxKeyDots = 256;
    toml::source_index line = 1;
    toml::source_index column = 0; // in characters, as toml++ counts
    int dots = 0;
    char quote = 0;
    bool comment = false;
    for (char c : text_) {
      if (c == '\n') {
        ++line;
        column = 0;
        dots = 0;
        quote = 0;
        comment = false;
        continue;
      }
      if ((static_cast<unsigned char>(c) & 0xC0) != 0x80)
        ++column;
      if (comment)
        continue;
      if (quote) {
        if (c == quote)
          quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '#') {
        comment = true;
      } else if (c == '.' && ++dots > kMaxKeyDots) {
        add_error(DiagId::spec_key_too_deep, {line, column}, 1,
                  "a key with more than " + std::to_string(kMaxKeyDots + 1) +
                      " dotted parts (or a line with more than " + std::to_string(kMaxKeyDots) +
                      " dots outside strings); no spec nests that deep");
        return true;
      }
    }
    return false;
  }

  Result<std::unique_ptr<tile::Kernel>> run() {
    if (refuse_deep_keys())
      return finish();
    toml::table root;
    try {
      root = toml::parse(text_, std::string_view(file_));
    } catch (const toml::parse_error& e) {
      toml::source_position at = e.source().begin;
      if (conflicts_with_rest(at.line))
        at.column = first_non_blank_column(at.line);
      add_error(DiagId::spec_toml_syntax, at, 1, "invalid TOML: " + std::string(e.description()));
      return finish();
    }

    for (auto [k, v] : in_file_order(root)) {
      (void)v;
      if (!contains(kTopKeys, k->str()))
        error_at(DiagId::spec_unknown_key, k->source(),
                 "unknown top-level key " + squote(k->str()) +
                     or_choices(
                         did_you_mean(k->str(), kTopKeys),
                         "; expected [kernel], [tensor.NAME], [param.NAME], [[op]] or [[expect]]"));
    }

    load_kernel(root);
    if (const toml::node* n = root.get("param"))
      load_params(*n);
    if (const toml::node* n = root.get("tensor"))
      load_tensors(*n);
    load_binding(root);
    const toml::node* ops = root.get("op");
    if (ops)
      load_ops(*ops);
    b_.close_loops();
    if (const toml::node* n = root.get("expect"))
      load_expectations(*n);
    if (!ops || (ops->is_array() && ops->as_array()->empty()))
      add(make_diag(Severity::warning, DiagId::spec_no_ops, {1, 1}, 1,
                    "the spec has no [[op]] tables; the kernel does nothing"));
    return finish();
  }

private:
  // ---------------------------------------------------------------- diagnostics

  std::string line_text(std::uint32_t line) const {
    if (line == 0 || line > lines_.size())
      return {};
    return std::string(lines_[line - 1]);
  }

  /// toml++ counts columns in code points; diagnostics count bytes.
  std::uint32_t byte_column(const toml::source_position& p) const {
    if (p.line == 0 || p.line > lines_.size() || p.column == 0)
      return p.column;
    std::string_view line = lines_[p.line - 1];
    std::uint32_t points = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      // A byte that is not a UTF-8 continuation byte (10xxxxxx) starts a code point.
      if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80 && ++points == p.column)
        return static_cast<std::uint32_t>(i + 1);
    }
    return static_cast<std::uint32_t>(line.size()) + (p.column - points);
  }

  SourcePos pos_of(const toml::source_position& p) const {
    return SourcePos{file_, p.line, byte_column(p), line_text(p.line)};
  }

  Diagnostic make_diag(Severity s, DiagId id, const toml::source_position& p, std::uint32_t length,
                       std::string message) const {
    Diagnostic d(id, std::move(message), s);
    d.file = file_;
    d.line = p.line;
    d.column = byte_column(p);
    d.length = std::max<std::uint32_t>(length, 1);
    d.source_line = line_text(p.line);
    return d;
  }

  void add(Diagnostic d) { b_.report(std::move(d)); }

  void add_error(DiagId id, const toml::source_position& p, std::uint32_t length,
                 std::string message) {
    add(make_diag(Severity::error, id, p, length, std::move(message)));
  }

  /// `r` for the builder: its first character, underlined to its end when on one line.
  build::At at(const toml::source_region& r) const {
    std::uint32_t length = 1;
    if (r.begin.line == r.end.line && r.end.column > r.begin.column)
      length = byte_column(r.end) - byte_column(r.begin);
    return build::At{pos_of(r.begin), length};
  }

  /// A string value for the builder, with where its characters are (see locate_string()).
  build::Text text_of(const toml::node& n, const std::string& value) const {
    const StringLoc loc = locate_string(n);
    return build::Text{value, loc.pos, loc.exact, 1};
  }

  /// An error underlining `r` when it lies on one line, else its first character.
  void error_at(DiagId id, const toml::source_region& r, std::string message) {
    const build::At a = at(r);
    add(tile::diagnostic_at(id, a.pos, std::move(message), a.length));
  }

  /// Diagnostics from a parser of a string value (line 1, columns within the string).
  void add_inner(const Diagnostics& inner, const StringLoc& loc) {
    for (const Diagnostic& d : inner.items()) {
      if (loc.exact && d.line <= 1) {
        add(rebase(d, file_, loc.pos.line, loc.pos.column, loc.pos.source_line));
      } else {
        Diagnostic r = d;
        r.file = file_;
        r.line = loc.pos.line;
        r.column = loc.pos.column;
        r.length = 1;
        r.source_line = loc.pos.source_line;
        add(std::move(r));
      }
    }
  }

  /// An error at `offset` (0-based) within a string value.
  void inner_error(DiagId id, const StringLoc& loc, std::string_view text, std::size_t offset,
                   std::size_t length, std::string message) {
    Diagnostics ds;
    ds.add(ptxgen::error_at(id, text, offset, length, std::move(message)));
    add_inner(ds, loc);
  }

  Result<std::unique_ptr<tile::Kernel>> finish() {
    auto built = std::move(b_).finish();
    std::vector<Diagnostic> items = built.diagnostics.items();
    std::stable_sort(items.begin(), items.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    Diagnostics sorted;
    for (auto& d : items)
      sorted.add(std::move(d));
    built.diagnostics = std::move(sorted);
    return built;
  }

  // ---------------------------------------------------------------- generic field access

  StringLoc locate_string(const toml::node& n) const {
    StringLoc loc;
    const toml::source_position b = n.source().begin;
    loc.pos = pos_of(b);
    const std::string& line = loc.pos.source_line;
    const std::size_t q = loc.pos.column == 0 ? 0 : loc.pos.column - 1;
    const toml::value<std::string>* s = n.as_string();
    if (!s || q >= line.size())
      return loc;
    const char quote = line[q];
    if (quote != '"' && quote != '\'')
      return loc;
    if (line.compare(q, 3, std::string(3, quote)) == 0)
      return loc; // multi-line string: report at its opening quotes
    const std::string& value = s->get();
    const std::size_t first = q + 1;
    if (first + value.size() >= line.size() || line[first + value.size()] != quote)
      return loc;
    if (line.compare(first, value.size(), value) != 0)
      return loc;
    if (quote == '"' && value.find('\\') != std::string::npos)
      return loc;
    loc.exact = true;
    loc.pos.column += 1;
    return loc;
  }

  /// Reports every key of `t` not in `allowed`.
  void check_keys(const toml::table& t, std::span<const std::string_view> allowed,
                  const std::string& where) {
    for (auto [k, v] : in_file_order(t)) {
      (void)v;
      if (std::find(allowed.begin(), allowed.end(), k->str()) != allowed.end())
        continue;
      std::string msg = "unknown key " + squote(k->str()) + " in " + where;
      msg += or_choices(did_you_mean(k->str(), allowed), "; expected one of: " + join(allowed));
      error_at(DiagId::spec_unknown_key, k->source(), std::move(msg));
    }
  }

  const toml::key* key_of(const toml::table& t, std::string_view key) const {
    auto it = t.find(key);
    return it == t.end() ? nullptr : &it->first;
  }

  void missing(const toml::table& t, std::string_view key, const std::string& where,
               std::string_view expected) {
    b_.missing(at(t.source()),
               where + " is missing " + squote(key) + " (" + std::string(expected) + ")");
  }

  void wrong_type(const toml::node& n, std::string_view key, const std::string& where,
                  std::string_view expected) {
    error_at(DiagId::spec_wrong_type, n.source(),
             squote(key) + " in " + where + " must be " + std::string(expected) + "; got " +
                 type_phrase(n.type()));
  }

  std::optional<std::int64_t> get_int(const toml::node& n, std::string_view key,
                                      const std::string& where, std::string_view expected) {
    if (const auto* v = n.as_integer())
      return v->get();
    wrong_type(n, key, where, expected);
    return std::nullopt;
  }

  std::optional<std::string> get_string(const toml::node& n, std::string_view key,
                                        const std::string& where, std::string_view expected) {
    if (const auto* v = n.as_string())
      return v->get();
    wrong_type(n, key, where, expected);
    return std::nullopt;
  }

  std::optional<bool> get_bool(const toml::node& n, std::string_view key,
                               const std::string& where) {
    if (const auto* v = n.as_boolean())
      return v->get();
    wrong_type(n, key, where, "true or false");
    return std::nullopt;
  }

  // ---------------------------------------------------------------- [kernel]

  void load_kernel(const toml::table& root) {
    const toml::node* n = root.get("kernel");
    if (!n) {
      b_.missing(build::At{pos_of({1, 1}), 1},
                 "the spec has no [kernel] table (name, grid, block)");
      return;
    }
    const toml::table* t = n->as_table();
    if (!t) {
      error_at(DiagId::spec_wrong_type, n->source(),
               "'kernel' must be a table ([kernel] with name, grid, block); got " +
                   std::string(type_phrase(n->type())));
      return;
    }
    const std::string where = "[kernel]";
    check_keys(*t, kKernelKeys, where);

    if (const toml::node* v = t->get("name")) {
      if (auto s = get_string(*v, "name", where, "a string (an identifier)"))
        b_.kernel_name(*s, at(v->source()));
    } else {
      missing(*t, "name", where, "an identifier such as \"copy_async\"");
    }

    tile::Dim3 grid{1, 1, 1}, block{b_.kernel().block, 1, 1};
    if (const toml::node* v = t->get("grid"))
      if (auto g = get_dims(*v, build::LaunchPart::grid))
        grid = *g;
    if (const toml::node* v = t->get("block")) {
      if (auto b = get_dims(*v, build::LaunchPart::block))
        block = *b;
    } else {
      missing(*t, "block", where, "the number of threads per CTA, 1..1024, or [x, y, z]");
    }
    b_.launch(grid, block);
  }

  /// [kernel]'s `abi = [...]` (the PTX parameter order: every global tensor and
  /// scalar parameter once) and `dynamic_shared = N` (a foreign kernel's dynamic
  /// shared bytes); after the tensors and parameters are loaded.
  void load_binding(const toml::table& root) {
    const toml::table* t = root.get("kernel") ? root.get("kernel")->as_table() : nullptr;
    if (!t)
      return;
    if (const toml::node* v = t->get("dynamic_shared"))
      if (auto n = get_int(*v, "dynamic_shared", "[kernel]", "an integer (bytes)"))
        b_.dynamic_shared(*n, at(v->source()));
    const toml::node* v = t->get("abi");
    if (!v)
      return;
    const toml::array* a = v->as_array();
    if (!a) {
      wrong_type(*v, "abi", "[kernel]", "an array of tensor and parameter names");
      return;
    }
    std::vector<std::pair<std::string, build::At>> names;
    const toml::node* unreadable = nullptr;
    for (const toml::node& e : *a) {
      if (!e.is_string()) {
        unreadable = &e;
        break;
      }
      names.emplace_back(e.as_string()->get(), at(e.source()));
    }
    if (b_.abi(names, at(v->source()), unreadable == nullptr) && unreadable)
      wrong_type(*unreadable, "abi", "[kernel]", "an array of tensor and parameter names");
  }

  /// `grid` or `block`: an integer N (x = N) or an array [x], [x, y] or [x, y, z].
  std::optional<tile::Dim3> get_dims(const toml::node& v, build::LaunchPart part) {
    const std::string_view key = part == build::LaunchPart::grid ? "grid" : "block";
    const std::string what = part == build::LaunchPart::grid ? "CTAs" : "threads per CTA";
    std::array<std::int64_t, 3> d = {1, 1, 1};
    if (const auto* n = v.as_integer()) {
      d[0] = n->get();
    } else if (const auto* a = v.as_array(); a && !a->empty() && a->size() <= 3) {
      for (std::size_t i = 0; i < a->size(); ++i) {
        const auto* x = (*a)[i].as_integer();
        if (!x) {
          wrong_type((*a)[i], key, "[kernel]", "an integer (" + what + " along an axis)");
          return std::nullopt;
        }
        d[i] = x->get();
      }
    } else {
      wrong_type(v, key, "[kernel]",
                 "an integer (" + what + ") or an array [x, y, z] of 1 to 3 integers");
      return std::nullopt;
    }
    return b_.dims(part, d, v.is_integer(), at(v.source()));
  }

  // ---------------------------------------------------------------- [param.NAME]

  void load_params(const toml::node& n) {
    const toml::table* all = n.as_table();
    if (!all) {
      error_at(DiagId::spec_wrong_type, n.source(),
               "'param' must be a table of parameters ([param.NAME]); got " +
                   std::string(type_phrase(n.type())));
      return;
    }
    for (auto [k, v] : in_file_order(*all))
      load_param(*k, *v);
  }

  /// A parameter's dtype: u64 or not; nullopt after an error.
  std::optional<bool> param_is_u64(const toml::table& t, const std::string& where) {
    const toml::node* v = t.get("dtype");
    if (!v) {
      missing(t, "dtype", where, "\"u32\" or \"u64\"");
      return std::nullopt;
    }
    auto s = get_string(*v, "dtype", where, "\"u32\" or \"u64\"");
    if (!s)
      return std::nullopt;
    if (*s == "u32" || *s == "uint32")
      return false;
    if (*s == "u64" || *s == "uint64")
      return true;
    constexpr std::array<std::string_view, 4> types = {"u32", "u64", "uint32", "uint64"};
    error_at(DiagId::spec_param_dtype, v->source(),
             "parameter dtype must be \"u32\" or \"u64\"; got " + squote(*s) +
                 did_you_mean(*s, types));
    return std::nullopt;
  }

  void load_param(const toml::key& k, const toml::node& n) {
    const std::string where = "[param." + std::string(k.str()) + "]";
    build::ParamDecl d;
    d.name = std::string(k.str());
    d.name_at = at(k.source());
    const toml::table* t = n.as_table();
    if (!t) {
      error_at(DiagId::spec_wrong_type, n.source(),
               "parameter " + squote(k.str()) + " must be a table with dtype and value; got " +
                   type_phrase(n.type()));
      b_.param(d); // the name is taken all the same
      return;
    }
    check_keys(*t, kParamKeys, where);
    d.pos = pos_of(t->source().begin);
    d.is_u64 = param_is_u64(*t, where);
    const bool u64 = d.is_u64.value_or(false);
    if (const toml::node* v = t->get("value")) {
      d.value_at = at(v->source());
      if (const auto* i = v->as_integer())
        d.value = build::ParamValue{build::ParamValue::Form::integer, i->get(), 0, {}};
      else if (const auto* s = v->as_string(); s && u64)
        d.value = build::ParamValue{build::ParamValue::Form::text, 0, 0, s->get()};
      else
        wrong_type(*v, "value", where, u64 ? "an integer (or a \"0x...\" string)" : "an integer");
    } else {
      missing(*t, "value", where, "the integer the test runs pass");
    }
    if (const toml::node* v = t->get("range")) {
      const toml::array* a = v->as_array();
      build::ParamRange r;
      r.at = at(v->source());
      r.well_formed = a && a->size() == 2 && (*a)[0].is_integer() && (*a)[1].is_integer();
      if (r.well_formed) {
        r.lo = (*a)[0].as_integer()->get();
        r.hi = (*a)[1].as_integer()->get();
      }
      d.range = r;
    }
    b_.param(d);
  }

  // ---------------------------------------------------------------- [tensor.NAME]

  void load_tensors(const toml::node& n) {
    const toml::table* all = n.as_table();
    if (!all) {
      error_at(DiagId::spec_wrong_type, n.source(),
               "'tensor' must be a table of tensors ([tensor.NAME]); got " +
                   std::string(type_phrase(n.type())));
      return;
    }
    for (auto [k, v] : in_file_order(*all))
      load_tensor(*k, *v);
  }

  /// The tensor's dtype; nullopt (after an error) when it is missing or unknown.
  std::optional<tile::DType> tensor_dtype(const toml::table& t, const std::string& where) {
    const toml::node* v = t.get("dtype");
    if (!v) {
      missing(t, "dtype", where, "an element type such as \"float16\"");
      return std::nullopt;
    }
    auto s = get_string(*v, "dtype", where, "a dtype name such as \"float16\"");
    if (!s)
      return std::nullopt;
    auto d = tile::parse_dtype(*s);
    if (!d)
      error_at(DiagId::spec_unknown_dtype, v->source(),
               "unknown dtype " + squote(*s) +
                   or_choices(did_you_mean(*s, tile::dtype_spellings()),
                              "; expected " + tile::dtype_choices()));
    return d;
  }

  /// The tensor's shape as written (its integer dimensions); `complete` false when a
  /// dimension is not an integer (reported).
  std::optional<std::vector<build::Dim>> tensor_shape(const toml::table& t,
                                                      const std::string& where, bool& complete) {
    const toml::node* shape_node = t.get("shape");
    if (!shape_node) {
      missing(t, "shape", where, "an array of positive integers such as [128, 32]");
      return std::nullopt;
    }
    const toml::array* a = shape_node->as_array();
    if (!a) {
      wrong_type(*shape_node, "shape", where, "an array of positive integers");
      return std::nullopt;
    }
    std::vector<build::Dim> shape;
    for (const toml::node& e : *a) {
      if (const auto* i = e.as_integer()) {
        shape.push_back(build::Dim{i->get(), at(e.source())});
        continue;
      }
      error_at(DiagId::spec_wrong_type, e.source(),
               "a shape dimension must be a positive integer; got " +
                   std::string(type_phrase(e.type())));
      complete = false;
    }
    return shape;
  }

  /// The tensor's space; nullopt (after an error) when it is missing or unknown.
  std::optional<tile::Space> tensor_space(const toml::table& t, const std::string& where) {
    const toml::node* v = t.get("space");
    if (!v) {
      missing(t, "space", where, "\"global\" or \"shared\"");
      return std::nullopt;
    }
    auto s = get_string(*v, "space", where, "\"global\" or \"shared\"");
    if (!s)
      return std::nullopt;
    if (*s == "global")
      return tile::Space::global;
    if (*s == "shared")
      return tile::Space::shared;
    constexpr std::array<std::string_view, 2> spaces = {"global", "shared"};
    error_at(DiagId::spec_unknown_space, v->source(),
             "space must be \"global\" or \"shared\"; got " + squote(*s) +
                 did_you_mean(*s, spaces));
    return std::nullopt;
  }

  void load_tensor(const toml::key& k, const toml::node& n) {
    const std::string where = "[tensor." + std::string(k.str()) + "]";
    build::TensorDecl d;
    d.name = std::string(k.str());
    d.name_at = at(k.source());
    const toml::table* t = n.as_table();
    if (!t) {
      error_at(DiagId::spec_wrong_type, n.source(),
               "tensor " + squote(k.str()) + " must be a table with space, shape and dtype; got " +
                   type_phrase(n.type()));
      d.syntax_ok = false;
      b_.tensor(d); // the name is taken all the same
      return;
    }
    check_keys(*t, kTensorKeys, where);
    d.pos = pos_of(t->source().begin);
    d.space = tensor_space(*t, where);
    const bool shared = d.space == tile::Space::shared;
    d.dtype = tensor_dtype(*t, where);
    d.shape = tensor_shape(*t, where, d.shape_complete);
    if (const toml::node* v = t->get("shape"))
      d.shape_at = at(v->source());
    if (const toml::node* v = t->get("align")) {
      d.align_at = at(v->source());
      d.align = get_int(*v, "align", where, "an integer (a power of two)");
      d.syntax_ok = d.align.has_value() && d.syntax_ok;
    }
    if (const toml::node* v = t->get("layout")) {
      auto s = get_string(*v, "layout", where, "\"default\"");
      if (s && *s != "default")
        error_at(DiagId::spec_bad_layout, v->source(),
                 "only the row-major \"default\" layout is supported; got " + squote(*s));
      d.syntax_ok = s && *s == "default" && d.syntax_ok;
    }
    if (const toml::node* v = t->get("init")) {
      d.init_at = at(key_of(*t, "init")->source());
      // Shared memory has no init (the builder says so): nothing to read.
      if (!shared)
        if (auto s = get_string(*v, "init", where,
                                "\"zero\", \"arange % M\", \"random(SEED)\" or "
                                "\"constant(V)\""))
          d.init = parse_init(*s, *v);
    }
    if (const toml::node* v = t->get("output")) {
      d.output_at = at(key_of(*t, "output")->source());
      if (!shared) {
        auto b = get_bool(*v, "output", where);
        d.output = b.value_or(false);
        d.syntax_ok = b.has_value() && d.syntax_ok;
      }
    }
    b_.tensor(d);
  }

  /// "zero" | "0" | "arange % M" | "random(SEED)" | "constant(V)", spaces allowed around tokens.
  std::optional<tile::TensorInit> parse_init(const std::string& text, const toml::node& node) {
    const StringLoc loc = locate_string(node);
    const std::string expected =
        "expected \"zero\", \"arange % M\", \"random(SEED)\" or \"constant(V)\"";
    std::size_t skip = 0;
    std::string_view s = trim(text, &skip);
    tile::TensorInit init;
    if (s == "zero" || s == "0")
      return init;
    auto call_arg = [&](std::string_view fn) -> std::optional<std::string_view> {
      if (s.rfind(fn, 0) != 0)
        return std::nullopt;
      std::string_view rest = trim(s.substr(fn.size()));
      if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')')
        return std::nullopt;
      return trim(rest.substr(1, rest.size() - 2));
    };
    if (s.rfind("arange", 0) == 0) {
      std::string_view rest = trim(s.substr(6));
      if (rest.empty() || rest[0] != '%') {
        inner_error(DiagId::spec_bad_init, loc, text, skip, s.size(),
                    "arange needs a modulus: \"arange % M\"");
        return std::nullopt;
      }
      std::string_view m = trim(rest.substr(1));
      auto v = parse_integer<std::int64_t>(m);
      if (!v || *v < 1) {
        inner_error(
            DiagId::spec_bad_init, loc, text, static_cast<std::size_t>(m.data() - text.data()),
            std::max<std::size_t>(m.size(), 1),
            "the arange modulus must be a positive integer; got \"" + std::string(m) + "\"");
        return std::nullopt;
      }
      init.kind = tile::TensorInit::Kind::arange_mod;
      init.modulus = *v;
      return init;
    }
    if (auto a = call_arg("random")) {
      auto v = parse_integer<std::uint64_t>(*a);
      if (!v) {
        inner_error(
            DiagId::spec_bad_init, loc, text, static_cast<std::size_t>(a->data() - text.data()),
            std::max<std::size_t>(a->size(), 1),
            "the random seed must be a non-negative integer; got \"" + std::string(*a) + "\"");
        return std::nullopt;
      }
      init.kind = tile::TensorInit::Kind::random;
      init.seed = *v;
      return init;
    }
    if (auto a = call_arg("constant")) {
      auto v = parse_integer<std::int64_t>(*a);
      if (!v) {
        inner_error(DiagId::spec_bad_init, loc, text,
                    static_cast<std::size_t>(a->data() - text.data()),
                    std::max<std::size_t>(a->size(), 1),
                    "the constant must be an integer; got \"" + std::string(*a) + "\"");
        return std::nullopt;
      }
      init.kind = tile::TensorInit::Kind::constant;
      init.value = *v;
      return init;
    }
    constexpr std::array<std::string_view, 4> kinds = {"zero", "arange", "random", "constant"};
    std::size_t word = 0;
    while (word < s.size() && is_ident_char(s[word]))
      ++word;
    inner_error(DiagId::spec_bad_init, loc, text, skip, std::max<std::size_t>(s.size(), 1),
                "unknown init " + squote(s) +
                    or_choices(did_you_mean(s.substr(0, word), kinds), "; " + expected));
    return std::nullopt;
  }

  // ---------------------------------------------------------------- [[op]]

  void load_ops(const toml::node& n) {
    const toml::array* ops = n.as_array();
    if (!ops) {
      error_at(DiagId::spec_wrong_type, n.source(),
               "ops must be an array of tables: write each op as [[op]] (two "
               "brackets); got " +
                   std::string(type_phrase(n.type())));
      return;
    }
    std::size_t index = 0;
    for (const toml::node& e : *ops) {
      ++index;
      const std::string where = "[[op]] " + std::to_string(index);
      const toml::table* t = e.as_table();
      if (!t) {
        error_at(DiagId::spec_wrong_type, e.source(),
                 where + " must be a table; got " + type_phrase(e.type()));
        continue;
      }
      load_op(*t, where);
    }
  }

  /// One [[op]] table; its op goes to `into` when given (a pipeline's consumer), else
  /// to the kernel.
  void load_op(const toml::table& t, const std::string& where,
               std::vector<tile::Op>* into = nullptr) {
    const toml::node* kind_node = t.get("op");
    if (!kind_node) {
      b_.missing(at(t.source()),
                 where + " has no 'op' key; expected op = one of: " + join(kOpKinds));
      return;
    }
    auto kind = get_string(*kind_node, "op", where, "a string naming the op");
    if (!kind)
      return;
    tile::Op op;
    op.pos = pos_of(t.source().begin);
    bool ok = true;
    const std::string where_kind = where + " (op \"" + *kind + "\")";
    if (*kind == "apply") {
      check_keys(t, kApplyKeys, where);
      tile::ApplyOp a;
      ok = load_apply(t, where_kind, a);
      op.body = std::move(a);
    } else if (*kind == "commit_group") {
      check_keys(t, kBareKeys, where);
      op.body = tile::CommitGroupOp{};
    } else if (*kind == "wait_all") {
      check_keys(t, kBareKeys, where);
      op.body = tile::WaitAllOp{};
    } else if (*kind == "cta_sync") {
      check_keys(t, kBareKeys, where);
      op.body = tile::CtaSyncOp{};
    } else if (*kind == "wait_group") {
      check_keys(t, kWaitGroupKeys, where);
      tile::WaitGroupOp w;
      if (const toml::node* v = t.get("n")) {
        auto i = get_int(*v, "n", where_kind, "an integer (groups left pending)");
        ok = i && b_.wait_group(*i, at(v->source()));
        if (ok)
          w.n = *i;
      } else {
        missing(t, "n", where_kind, "the number of groups that may stay pending, e.g. n = 0");
        ok = false;
      }
      op.body = w;
    } else if (*kind == "fill") {
      check_keys(t, kFillKeys, where);
      tile::FillOp f;
      auto dst = view_field(t, "dst", where_kind);
      ok = dst.has_value();
      if (dst)
        f.dst = std::move(*dst);
      if (const toml::node* v = t.get("pattern")) {
        if (auto p = parse_pattern(*v))
          f.pattern = std::move(*p);
        else
          ok = false;
      } else {
        missing(t, "pattern", where_kind, "a byte 0..255, an array of bytes or \"0x...\"");
        ok = false;
      }
      op.body = std::move(f);
    } else if (*kind == "for") {
      check_keys(t, kForKeys, where);
      load_for(t, where_kind, op);
      return;
    } else if (*kind == "end") {
      check_keys(t, kBareKeys, where);
      b_.end_for(at(t.source()));
      return;
    } else if (*kind == "pipeline") {
      check_keys(t, kPipelineKeys, where);
      load_pipeline(t, where_kind, op.pos);
      return;
    } else if (*kind == "mbarrier_init" || *kind == "copy_arrive" || *kind == "mbarrier_arrive" ||
               *kind == "mbarrier_wait") {
      auto body = load_mbarrier_op(t, *kind, where, where_kind);
      ok = body.has_value();
      if (body)
        op.body = std::move(*body);
    } else if (*kind == "copy") {
      check_keys(t, kCopyKeys, where);
      tile::CopyOp c;
      auto dst = view_field(t, "dst", where_kind);
      auto src = view_field(t, "src", where_kind);
      ok = dst && src;
      if (ok) {
        c.dst = std::move(*dst);
        c.src = std::move(*src);
      }
      op.body = std::move(c);
    } else {
      error_at(DiagId::spec_unknown_op, kind_node->source(),
               "unknown op " + squote(*kind) + did_you_mean(*kind, kOpKinds) +
                   " (expected one of: " + join(kOpKinds) + ")");
      return;
    }
    if (ok && into)
      into->push_back(std::move(op));
    else if (ok)
      b_.push(std::move(op));
  }

  // ---------------------------------------------------------------- mbarriers

  /// mbarrier_init / copy_arrive / mbarrier_arrive / mbarrier_wait: a `barrier` view of a
  /// shared tensor and the op's own key (count, noinc, pred, parity).
  std::optional<tile::OpBody> load_mbarrier_op(const toml::table& t, std::string_view kind,
                                               const std::string& where,
                                               const std::string& where_kind) {
    if (kind == "mbarrier_init")
      check_keys(t, kMbarrierInitKeys, where);
    else if (kind == "copy_arrive")
      check_keys(t, kCopyArriveKeys, where);
    else if (kind == "mbarrier_arrive")
      check_keys(t, kMbarrierArriveKeys, where);
    else
      check_keys(t, kMbarrierWaitKeys, where);
    auto barrier = view_field(t, "barrier", where_kind);
    bool ok = barrier.has_value();
    if (barrier && !b_.barrier(barrier->value, at(t.get("barrier")->source())))
      ok = false;
    if (kind == "mbarrier_init") {
      tile::MbarrierInitOp m;
      if (const toml::node* v = t.get("count")) {
        if (auto i = get_int(*v, "count", where_kind, "an integer (arrivals per phase)"))
          m.count = {*i, std::to_string(*i), pos_of(v->source().begin)};
        else
          ok = false;
      } else {
        missing(t, "count", where_kind, "the arrivals per phase, e.g. count = 128");
        ok = false;
      }
      if (!ok)
        return std::nullopt;
      m.barrier = std::move(*barrier);
      return m;
    }
    if (kind == "copy_arrive") {
      tile::CopyArriveOp m;
      if (const toml::node* v = t.get("noinc")) {
        if (auto b = get_bool(*v, "noinc", where_kind))
          m.noinc = *b;
        else
          ok = false;
      }
      if (!ok)
        return std::nullopt;
      m.barrier = std::move(*barrier);
      return m;
    }
    const std::map<std::string, std::size_t, std::less<>> no_axes;
    if (kind == "mbarrier_arrive") {
      tile::MbarrierArriveOp m;
      if (const toml::node* v = t.get("pred")) {
        m.pred = expr_field(*v, "pred", where_kind, false, no_axes);
        ok = m.pred.has_value() && ok;
      }
      if (!ok)
        return std::nullopt;
      m.barrier = std::move(*barrier);
      return m;
    }
    tile::MbarrierWaitOp m;
    if (const toml::node* v = t.get("parity")) {
      auto e = expr_field(*v, "parity", where_kind, true, no_axes);
      if (e)
        m.parity = std::move(*e);
      else
        ok = false;
    } else {
      missing(t, "parity", where_kind, "the phase parity waited for, e.g. parity = \"k % 2\"");
      ok = false;
    }
    if (!ok)
      return std::nullopt;
    m.barrier = std::move(*barrier);
    return m;
  }

  // ---------------------------------------------------------------- loops

  /// start, stop or step of a `for`: an integer or an expression string over
  /// constants, parameters, bid, nbid, ntid and enclosing loop variables.
  std::optional<tile::Located<tile::ExprPtr>> loop_bound(const toml::node& v, std::string_view key,
                                                         const std::string& where) {
    if (const auto* i = v.as_integer())
      return tile::Located<tile::ExprPtr>{tile::make_constant(i->get()), std::to_string(i->get()),
                                          pos_of(v.source().begin)};
    const auto* s = v.as_string();
    if (!s) {
      wrong_type(v, key, where, "an integer or an expression string such as \"k_tiles\"");
      return std::nullopt;
    }
    const build::Text text = text_of(v, s->get());
    auto r = b_.expr(text);
    if (!r || !b_.loop_bound(key, *r->value, text))
      return std::nullopt;
    return r;
  }

  /// A loop bound to load: its key, where it goes, and the example a missing one names.
  struct BoundField {
    const char* key;
    tile::Located<tile::ExprPtr>* slot;
    const char* example;
  };

  /// Loads each field with loop_bound(); false when one is missing or bad (each reported).
  /// An optional `unroll` key (body copies per back edge, 1..kMaxUnroll) into `out`
  /// (left as it is when absent); false after an error.
  bool load_unroll(const toml::table& t, const std::string& where, std::int64_t& out) {
    const toml::node* v = t.get("unroll");
    if (v == nullptr)
      return true;
    auto u = get_int(*v, "unroll", where, "an integer (body copies per back edge)");
    if (u)
      u = b_.unroll(*u, at(v->source()));
    if (u)
      out = *u;
    return u.has_value();
  }

  bool load_loop_bounds(const toml::table& t, const std::string& where,
                        std::span<const BoundField> fields) {
    bool ok = true;
    for (const BoundField& f : fields) {
      const toml::node* v = t.get(f.key);
      if (!v) {
        missing(t, f.key, where, f.example);
        ok = false;
        continue;
      }
      auto b = loop_bound(*v, f.key, where);
      ok = ok && b.has_value();
      if (b)
        *f.slot = std::move(*b);
    }
    return ok;
  }

  /// The loop variable's name: an identifier that is not reserved, a parameter,
  /// a tensor or the variable of an enclosing loop.
  std::optional<tile::Located<std::string>> loop_var(const toml::table& t,
                                                     const std::string& where) {
    const toml::node* v = t.get("var");
    if (!v) {
      missing(t, "var", where, "the loop variable's name, e.g. var = \"k\"");
      return std::nullopt;
    }
    auto name = get_string(*v, "var", where, "a string (the loop variable's name)");
    if (!name)
      return std::nullopt;
    const build::Text text = text_of(*v, *name);
    if (!b_.loop_var(text))
      return std::nullopt;
    return tile::Located<std::string>{*name, *name, text.pos};
  }

  void load_for(const toml::table& t, const std::string& where, tile::Op& op) {
    tile::ForOp f;
    auto var = loop_var(t, where);
    bool ok = var.has_value();
    const bool has_step = t.get("step") != nullptr;
    if (!has_step)
      f.step = {tile::make_constant(1), "1", op.pos};
    const BoundField fields[] = {
        {"start", &f.start, "the first value, e.g. start = 0"},
        {"stop", &f.stop, "the bound (exclusive), e.g. stop = \"k_tiles\""},
        {"step", &f.step, ""}};
    ok = load_loop_bounds(t, where, std::span(fields, has_step ? 3 : 2)) && ok;
    ok = load_unroll(t, where, f.unroll) && ok;
    const std::string name = var ? var->value : std::string();
    if (ok)
      f.var = std::move(*var);
    b_.begin_for(name, ok ? std::optional<tile::ForOp>(std::move(f)) : std::nullopt, op.pos);
  }

  // ---------------------------------------------------------------- pipeline

  /// op = "pipeline": a tile loop with S shared stages, its loads ([[op.load]],
  /// cp.async applies) and its consumer ([[op.body]], copy and fill), expanded
  /// by tile::expand_pipeline into plain ops (see emitter/tile/pipeline.hpp).
  void load_pipeline(const toml::table& t, const std::string& where, const SourcePos& pos) {
    tile::Pipeline p;
    p.pos = pos;
    auto var = loop_var(t, where);
    bool ok = var.has_value();
    if (var)
      p.var = *var;
    const BoundField fields[] = {
        {"start", &p.start, "the first tile, e.g. start = 0"},
        {"stop", &p.stop, "the end of the tiles (exclusive), e.g. stop = \"k_tiles\""}};
    ok = load_loop_bounds(t, where, fields) && ok;
    ok = pipeline_scalars(t, where, p) && ok;
    auto stage = pipeline_stage_var(t, where, var ? var->value : std::string());
    ok = ok && stage.has_value();
    if (stage)
      p.stage_var = *stage;
    // The loads and the consumer see the tile variable and the stage variable.
    const std::size_t open =
        b_.open_pipeline_vars(var ? var->value : std::string(), p.stage_var, pos);
    ok = pipeline_loads(t, where, p) && ok;
    ok = pipeline_body(t, where, p) && ok;
    b_.close_pipeline_vars(open);
    if (ok)
      b_.pipeline(std::move(p), at(t.source()));
  }

  /// stages (required), step (1 if given) and unroll of a pipeline.
  bool pipeline_scalars(const toml::table& t, const std::string& where, tile::Pipeline& p) {
    bool ok = true;
    if (const toml::node* v = t.get("stages")) {
      auto s = get_int(*v, "stages", where, "an integer, the shared buffers of the ring");
      if (s)
        s = b_.stages(*s, at(v->source()));
      ok = s.has_value();
      if (s)
        p.stages = *s;
    } else {
      missing(t, "stages", where, "the shared buffers of the ring, e.g. stages = 3");
      ok = false;
    }
    if (const toml::node* v = t.get("step")) {
      const auto* i = v->as_integer();
      if (!i || i->get() != 1) {
        error_at(DiagId::spec_pipeline_step, v->source(),
                 "a pipeline's tiles advance by 1 (step = 1, or no step); for a strided tile "
                 "loop write op = \"for\" with the stages, waits and barriers yourself");
        ok = false;
      }
    }
    ok = load_unroll(t, where, p.unroll) && ok;
    return ok;
  }

  /// The stage variable's name: `stage_var`, by default "stage"; a loop variable's rules.
  std::optional<std::string> pipeline_stage_var(const toml::table& t, const std::string& where,
                                                const std::string& var) {
    const toml::node* v = t.get("stage_var");
    std::string name(tile::kDefaultStageVar);
    if (v) {
      auto s = get_string(*v, "stage_var", where, "a string (the stage variable's name)");
      if (!s)
        return std::nullopt;
      name = *s;
    }
    const build::Text text = v ? text_of(*v, name) : build::Text{name, {}, false, 1};
    if (b_.stage_var(text, var, v != nullptr, at(t.get("op")->source())))
      return name;
    return std::nullopt;
  }

  /// The array of tables `key` of a pipeline (load or body), non-empty; else nullptr
  /// after an error.
  const toml::array* pipeline_tables(const toml::table& t, std::string_view key,
                                     const std::string& where, std::string_view expected) {
    const toml::node* n = t.get(key);
    const toml::array* a = n ? n->as_array() : nullptr;
    if (!n || (a && a->empty())) {
      missing(t, key, where, expected);
      return nullptr;
    }
    if (!a)
      wrong_type(*n, key, where, expected);
    return a;
  }

  /// The [[op.load]] tables: cp.async applies whose dst depends on the stage.
  bool pipeline_loads(const toml::table& t, const std::string& where, tile::Pipeline& p) {
    const toml::array* loads =
        pipeline_tables(t, "load", where,
                        "one or more [[op.load]] tables, the cp.async applies of one tile, "
                        "e.g. dst = 'sA.sub[stage, tid, :]' and src = 'A.sub[k, tid, :]'");
    if (!loads)
      return false;
    bool ok = true;
    std::size_t index = 0;
    for (const toml::node& e : *loads) {
      const std::string w = where + " [[op.load]] " + std::to_string(++index);
      const toml::table* lt = e.as_table();
      if (!lt) {
        error_at(DiagId::spec_wrong_type, e.source(),
                 w + " must be a table; got " + type_phrase(e.type()));
        ok = false;
        continue;
      }
      if (const toml::node* k = lt->get("op")) {
        auto s = get_string(*k, "op", w, "\"apply\" (or no op key)");
        if (!s || !b_.pipeline_load_kind(*s, at(k->source()))) {
          ok = false;
          continue;
        }
      }
      check_keys(*lt, kApplyKeys, w);
      tile::ApplyOp a;
      if (!load_apply(*lt, w, a)) {
        ok = false;
        continue;
      }
      if (!b_.pipeline_load_stage(p, a, at(lt->get("dst")->source()))) {
        ok = false;
        continue;
      }
      p.loads.push_back(tile::Op{std::move(a), pos_of(lt->source().begin)});
    }
    return ok;
  }

  /// The [[op.body]] tables: the consumer of one tile, copy and fill ops.
  bool pipeline_body(const toml::table& t, const std::string& where, tile::Pipeline& p) {
    const toml::array* body = pipeline_tables(
        t, "body", where,
        "one or more [[op.body]] tables, the consumer of one tile, e.g. op = \"copy\", "
        "dst = 'B.sub[k, tid, :]', src = 'sA.sub[stage, tid, :]'");
    if (!body)
      return false;
    bool ok = true;
    std::size_t index = 0;
    for (const toml::node& e : *body) {
      const std::string w = where + " [[op.body]] " + std::to_string(++index);
      const toml::table* bt = e.as_table();
      const toml::node* kind = bt ? bt->get("op") : nullptr;
      const auto* name = kind ? kind->as_string() : nullptr;
      if (name && !b_.pipeline_body_kind(name->get(), at(kind->source()))) {
        ok = false;
        continue;
      }
      if (!bt) {
        error_at(DiagId::spec_wrong_type, e.source(),
                 w + " must be a table; got " + type_phrase(e.type()));
        ok = false;
        continue;
      }
      const std::size_t before = p.body.size();
      load_op(*bt, w, &p.body);
      ok = p.body.size() != before && ok;
    }
    return ok;
  }

  std::optional<tile::Located<tile::View>> view_field(const toml::table& t, std::string_view key,
                                                      const std::string& where) {
    const toml::node* v = t.get(key);
    if (!v) {
      missing(t, key, where, "a view string such as \"shared.sub[tid, :]\"");
      return std::nullopt;
    }
    auto s = get_string(*v, key, where, "a view string such as \"shared.sub[tid, :]\"");
    if (!s)
      return std::nullopt;
    return b_.view(text_of(*v, *s));
  }

  /// src_size (integer or expression), ignore_src / pred (boolean or expression);
  /// `axes` are the repeat-axis names the expression may use.
  std::optional<tile::Located<tile::ExprPtr>>
  expr_field(const toml::node& v, std::string_view key, const std::string& where, bool is_size,
             const std::map<std::string, std::size_t, std::less<>>& axes) {
    if (is_size) {
      if (const auto* i = v.as_integer()) {
        std::string text = std::to_string(i->get());
        return tile::Located<tile::ExprPtr>{tile::make_constant(i->get()), text,
                                            pos_of(v.source().begin)};
      }
    } else if (const auto* b = v.as_boolean()) {
      return tile::Located<tile::ExprPtr>{tile::make_constant(b->get() ? 1 : 0),
                                          b->get() ? "true" : "false", pos_of(v.source().begin)};
    }
    const auto* s = v.as_string();
    if (!s) {
      wrong_type(v, key, where,
                 is_size ? "an integer or an expression string such as "
                           "\"tid < valid_rows ? 16 : 0\""
                         : "a boolean or an expression string such as \"tid < valid_rows\"");
      return std::nullopt;
    }
    return b_.expr(text_of(v, s->get()), &axes);
  }

  bool load_apply(const toml::table& t, const std::string& where, tile::ApplyOp& a) {
    bool ok = true;

    if (const toml::node* v = t.get("opcode")) {
      if (auto s = get_string(*v, "opcode", where,
                              "an opcode string such as \"cp.async.cg.shared.global\"")) {
        const StringLoc loc = locate_string(*v);
        auto r = ptx::parse_opcode(*s);
        if (r) {
          a.opcode = {*r, *s, loc.pos};
        } else {
          // A qualifier missing from the opcode ("missing cache operator") is reported by the
          // parser just past the end; the whole opcode lacks it, so underline the whole opcode.
          Diagnostics ds;
          for (Diagnostic d : r.diagnostics.items()) {
            if (d.line == 1 && d.column > s->size() && !s->empty()) {
              d.column = 1;
              d.length = static_cast<std::uint32_t>(s->size());
            }
            ds.add(std::move(d));
          }
          add_inner(ds, loc);
          ok = false;
        }
      } else {
        ok = false;
      }
    } else {
      missing(t, "opcode", where, "a cp.async opcode string such as \"cp.async.cg.shared.global\"");
      ok = false;
    }

    auto dst = view_field(t, "dst", where);
    auto src = view_field(t, "src", where);
    if (dst)
      a.dst = std::move(*dst);
    if (src)
      a.src = std::move(*src);
    ok = ok && dst && src;

    if (const toml::node* v = t.get("chunk_bytes")) {
      if (const auto* i = v->as_integer()) {
        a.chunk_bytes = {i->get(), std::to_string(i->get()), pos_of(v->source().begin)};
      } else {
        error_at(DiagId::spec_wrong_type, v->source(),
                 "chunk_bytes must be an integer literal (4, 8 or 16), not " +
                     std::string(type_phrase(v->type())) + "; it is a constant of the instruction");
        ok = false;
      }
    } else {
      missing(t, "chunk_bytes", where,
              "an integer literal 4, 8 or 16; no width is inferred from the layout");
      ok = false;
    }

    if (const toml::node* v = t.get("scope")) {
      if (auto s = get_string(*v, "scope", where, "\"thread\" or \"cta\"")) {
        if (*s == "thread")
          a.scope = tile::Scope::thread;
        else if (*s == "cta")
          a.scope = tile::Scope::cta;
        else {
          constexpr std::array<std::string_view, 2> scopes = {"thread", "cta"};
          error_at(DiagId::spec_unknown_scope, v->source(),
                   "scope must be \"thread\" or \"cta\"; got " + squote(*s) +
                       did_you_mean(*s, scopes));
          ok = false;
        }
      } else {
        ok = false;
      }
    }

    const auto axes = tile::repeat_axis_names(a);
    for (std::string_view key :
         {std::string_view("src_size"), std::string_view("ignore_src"), std::string_view("pred")}) {
      const toml::node* v = t.get(key);
      if (!v)
        continue;
      auto e = expr_field(*v, key, where, key == "src_size", axes);
      if (!e) {
        ok = false;
        continue;
      }
      if (key == "src_size")
        a.src_size = std::move(e);
      else if (key == "ignore_src")
        a.ignore_src = std::move(e);
      else
        a.pred = std::move(e);
    }
    const toml::key* size_key = key_of(t, "src_size");
    const toml::key* ignore_key = key_of(t, "ignore_src");
    if (size_key && ignore_key) {
      const toml::key* second =
          before(size_key->source().begin, ignore_key->source().begin) ? ignore_key : size_key;
      error_at(DiagId::contract_src_size_and_ignore_src, second->source(),
               "src_size and ignore_src are alternative operand forms and "
               "cannot both be supplied");
      ok = false;
    }

    if (const toml::node* v = t.get("cache_policy")) {
      if (auto p = cache_policy_field(*v, where))
        a.cache_policy = std::move(p);
      else
        ok = false;
    }
    return ok;
  }

  // ---------------------------------------------------------------- cache_policy

  /// An eviction priority, also written `.evict_last`, `L2::evict_last` or `.L2::evict_last`.
  static std::optional<ptx::EvictionPriority> parse_priority(std::string_view s) {
    return ptx::parse_eviction_priority(strip_priority_prefix(s));
  }

  static std::string_view strip_priority_prefix(std::string_view s) {
    if (!s.empty() && s[0] == '.')
      s.remove_prefix(1);
    if (s.rfind("L2::", 0) == 0)
      s.remove_prefix(4);
    return s;
  }

  /// "evict_last, evict_normal, evict_first or evict_unchanged" (all == false: the secondaries).
  static std::string priority_list(bool all) {
    std::vector<std::string_view> names;
    for (std::string_view n : ptx::eviction_priority_spellings())
      if (all || ptx::allowed_as_secondary(*ptx::parse_eviction_priority(n)))
        names.push_back(n);
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
      out += std::string(i == 0                  ? ""
                         : i + 1 == names.size() ? " or "
                                                 : ", ") +
             std::string(names[i]);
    return out;
  }

  std::optional<tile::Located<tile::CachePolicy>> cache_policy_field(const toml::node& v,
                                                                     const std::string& where) {
    const SourcePos pos = pos_of(v.source().begin);
    if (const toml::table* t = v.as_table())
      return cache_policy_table(*t, where, pos);
    const auto* sv = v.as_string();
    if (!sv) {
      wrong_type(v, "cache_policy", where,
                 "a u64 parameter name, \"createpolicy(...)\" or a table");
      return std::nullopt;
    }
    const std::string& text = sv->get();
    const StringLoc loc = locate_string(v);
    std::size_t skip = 0;
    std::string_view s = trim(text, &skip);
    auto offset_of = [&](std::string_view part) {
      return static_cast<std::size_t>(part.data() - text.data());
    };
    std::string_view name = s;
    if (s.rfind("param:", 0) == 0)
      name = trim(s.substr(6));
    if (is_identifier(name) && name != "createpolicy") {
      if (!b_.policy_param(name, text_of(v, text), offset_of(name)))
        return std::nullopt;
      return tile::Located<tile::CachePolicy>{tile::CachePolicyFromParam{std::string(name)}, text,
                                              loc.pos};
    }
    if (name != s) {
      inner_error(DiagId::spec_bad_cache_policy, loc, text, offset_of(name),
                  std::max<std::size_t>(name.size(), 1),
                  "expected a parameter name after \"param:\"");
      return std::nullopt;
    }
    constexpr std::string_view fn = "createpolicy";
    if (s.rfind(fn, 0) != 0) {
      inner_error(DiagId::spec_bad_cache_policy, loc, text, skip,
                  std::max<std::size_t>(s.size(), 1),
                  "expected a u64 parameter name, \"param:NAME\" or "
                  "\"createpolicy(evict_last[, evict_unchanged][, 0.5])\"");
      return std::nullopt;
    }
    std::string_view rest = trim(s.substr(fn.size()));
    if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') {
      inner_error(DiagId::spec_bad_cache_policy, loc, text, skip, s.size(),
                  "expected \"createpolicy(PRIMARY[, SECONDARY][, FRACTION])\"");
      return std::nullopt;
    }
    std::string_view inside = rest.substr(1, rest.size() - 2);
    std::vector<std::string_view> args;
    while (true) {
      std::size_t comma = inside.find(',');
      args.push_back(trim(inside.substr(0, comma)));
      if (comma == std::string_view::npos)
        break;
      inside = inside.substr(comma + 1);
    }
    tile::CachePolicyCreate c;
    bool have_secondary = false;
    bool have_fraction = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string_view arg = args[i];
      const std::size_t off = offset_of(arg);
      const std::size_t len = std::max<std::size_t>(arg.size(), 1);
      if (arg.empty()) {
        inner_error(DiagId::spec_bad_cache_policy, loc, text, off, 1,
                    "empty createpolicy argument");
        return std::nullopt;
      }
      if (i == 0) {
        auto p = parse_priority(arg);
        if (!p) {
          inner_error(
              DiagId::spec_unknown_eviction_priority, loc, text, off, len,
              "unknown primary eviction priority " + squote(arg) +
                  did_you_mean(strip_priority_prefix(arg), ptx::eviction_priority_spellings()) +
                  " (expected " + priority_list(true) + ")");
          return std::nullopt;
        }
        c.primary = *p;
        continue;
      }
      if (!have_fraction && !have_secondary && parse_priority(arg)) {
        auto p = parse_priority(arg);
        if (!ptx::allowed_as_secondary(*p)) {
          inner_error(DiagId::spec_bad_secondary_priority, loc, text, off, len,
                      "the secondary eviction priority must be " + priority_list(false) + "; got " +
                          squote(arg));
          return std::nullopt;
        }
        c.secondary = *p;
        have_secondary = true;
        continue;
      }
      if (!have_fraction) {
        auto f = parse_fraction(arg);
        if (!f) {
          inner_error(DiagId::spec_bad_cache_policy, loc, text, off, len,
                      "expected a fraction in (0, 1] such as 0.5; got " + squote(arg));
          return std::nullopt;
        }
        c.fraction = *f;
        have_fraction = true;
        continue;
      }
      inner_error(DiagId::spec_bad_cache_policy, loc, text, off, len,
                  "too many createpolicy arguments; expected (PRIMARY[, SECONDARY][, FRACTION])");
      return std::nullopt;
    }
    return tile::Located<tile::CachePolicy>{c, text, loc.pos};
  }

  static std::optional<float> parse_fraction(std::string_view s) {
    double d = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec != std::errc() || p != s.data() + s.size() || !(d > 0.0 && d <= 1.0))
      return std::nullopt;
    return static_cast<float>(d);
  }

  std::optional<tile::Located<tile::CachePolicy>>
  cache_policy_table(const toml::table& t, const std::string& where, const SourcePos& pos) {
    const std::string tw = "the cache_policy table of " + where;
    if (const toml::node* p = t.get("param")) {
      constexpr std::array<std::string_view, 1> keys = {"param"};
      check_keys(t, keys, tw);
      auto s = get_string(*p, "param", tw, "the name of a u64 parameter");
      if (!s)
        return std::nullopt;
      const build::At a = at(p->source());
      if (!b_.policy_param(*s, build::Text{*s, a.pos, false, a.length}))
        return std::nullopt;
      return tile::Located<tile::CachePolicy>{tile::CachePolicyFromParam{*s}, "param:" + *s, pos};
    }
    constexpr std::array<std::string_view, 3> keys = {"primary", "secondary", "fraction"};
    check_keys(t, keys, tw);
    tile::CachePolicyCreate c;
    bool ok = true;
    std::string text = "createpolicy(";
    if (const toml::node* v = t.get("primary")) {
      auto s = get_string(*v, "primary", tw, "an eviction priority such as \"evict_last\"");
      auto p = s ? parse_priority(*s) : std::nullopt;
      if (s && !p)
        error_at(DiagId::spec_unknown_eviction_priority, v->source(),
                 "unknown primary eviction priority " + squote(*s) +
                     did_you_mean(strip_priority_prefix(*s), ptx::eviction_priority_spellings()) +
                     " (expected " + priority_list(true) + ")");
      if (p) {
        c.primary = *p;
        text += *s;
      } else {
        ok = false;
      }
    } else {
      missing(t, "primary", tw, priority_list(true));
      ok = false;
    }
    if (const toml::node* v = t.get("secondary")) {
      auto s = get_string(*v, "secondary", tw, priority_list(false));
      auto p = s ? parse_priority(*s) : std::nullopt;
      if (s && (!p || !ptx::allowed_as_secondary(*p)))
        error_at(DiagId::spec_bad_secondary_priority, v->source(),
                 "the secondary eviction priority must be " + priority_list(false) + "; got " +
                     squote(*s));
      if (p && ptx::allowed_as_secondary(*p)) {
        c.secondary = *p;
        text += ", " + *s;
      } else {
        ok = false;
      }
    }
    if (const toml::node* v = t.get("fraction")) {
      std::optional<double> d;
      if (const auto* f = v->as_floating_point())
        d = f->get();
      else if (const auto* i = v->as_integer())
        d = static_cast<double>(i->get());
      if (!d || !(*d > 0.0 && *d <= 1.0)) {
        error_at(DiagId::spec_bad_cache_policy, v->source(), "fraction must be a number in (0, 1]");
        ok = false;
      } else {
        c.fraction = static_cast<float>(*d);
        std::ostringstream os;
        os << *d;
        text += ", " + os.str();
      }
    }
    if (!ok)
      return std::nullopt;
    return tile::Located<tile::CachePolicy>{c, text + ")", pos};
  }

  // ---------------------------------------------------------------- fill pattern

  std::optional<std::vector<std::uint8_t>> parse_pattern(const toml::node& v) {
    const std::string expected =
        "a byte 0..255, an array of bytes such as [0xDE, 0xAD] or a hex string such as "
        "\"0xDEADBEEF\"";
    if (const auto* i = v.as_integer()) {
      if (i->get() < 0 || i->get() > 255) {
        error_at(DiagId::spec_bad_pattern, v.source(),
                 "a pattern byte must be in 0..255; got " + std::to_string(i->get()));
        return std::nullopt;
      }
      return std::vector<std::uint8_t>{static_cast<std::uint8_t>(i->get())};
    }
    if (const auto* a = v.as_array()) {
      if (!b_.pattern_size(a->size(), at(v.source())))
        return std::nullopt;
      std::vector<std::uint8_t> out;
      bool ok = true;
      for (const toml::node& e : *a) {
        const auto* i = e.as_integer();
        if (!i || i->get() < 0 || i->get() > 255) {
          error_at(DiagId::spec_bad_pattern, e.source(),
                   "a pattern byte must be an integer in 0..255");
          ok = false;
          continue;
        }
        out.push_back(static_cast<std::uint8_t>(i->get()));
      }
      if (!ok)
        return std::nullopt;
      return out;
    }
    if (const auto* s = v.as_string()) {
      const std::string& text = s->get();
      const StringLoc loc = locate_string(v);
      if (text.size() < 4 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') ||
          text.size() % 2 != 0) {
        inner_error(DiagId::spec_bad_pattern, loc, text, 0, std::max<std::size_t>(text.size(), 1),
                    "a pattern string must be \"0x\" and an even number of hex digits (whole "
                    "bytes), such as \"0xDEADBEEF\"");
        return std::nullopt;
      }
      if (!b_.pattern_size((text.size() - 2) / 2, text_of(v, text).at(0, text.size())))
        return std::nullopt;
      std::vector<std::uint8_t> out;
      for (std::size_t i = 2; i < text.size(); i += 2) {
        unsigned byte = 0;
        auto [p, ec] = std::from_chars(text.data() + i, text.data() + i + 2, byte, 16);
        if (ec != std::errc() || p != text.data() + i + 2) {
          std::size_t bad = i;
          while (bad < i + 2 && std::isxdigit(static_cast<unsigned char>(text[bad])))
            ++bad;
          inner_error(DiagId::spec_bad_pattern, loc, text, bad, 1, "expected a hex digit");
          return std::nullopt;
        }
        out.push_back(static_cast<std::uint8_t>(byte));
      }
      return out;
    }
    error_at(DiagId::spec_wrong_type, v.source(),
             "pattern must be " + expected + "; got " + type_phrase(v.type()));
    return std::nullopt;
  }

  // ================================================================ [[expect]]
  // Expectations (tile::Expectation): `that = "LEFT == RIGHT"`, loaded after the ops.
  // LEFT is a view of a global tensor through `.sub[...]` steps with constant entries;
  // RIGHT is another such view of the same shape and element size, an integer the
  // left side's element type holds exactly, or `sentinel`. Positions inside the
  // string are exact for a one-line string (see locate_string()).

  static constexpr std::array<std::string_view, 1> kExpectKeys = {"that"};
  static constexpr std::string_view kExpectExample = "a string such as \"B == A\"";

  void load_expectations(const toml::node& n) {
    const toml::array* list = n.as_array();
    if (!list) {
      error_at(DiagId::spec_wrong_type, n.source(),
               "expectations must be an array of tables: write each as [[expect]] (two "
               "brackets); got " +
                   std::string(type_phrase(n.type())));
      return;
    }
    std::size_t index = 0;
    for (const toml::node& e : *list) {
      const std::string where = "[[expect]] " + std::to_string(++index);
      const toml::table* t = e.as_table();
      if (!t) {
        error_at(DiagId::spec_wrong_type, e.source(),
                 where + " must be a table; got " + type_phrase(e.type()));
        continue;
      }
      check_keys(*t, kExpectKeys, where);
      const toml::node* v = t->get("that");
      if (!v) {
        missing(*t, "that", where, kExpectExample);
        continue;
      }
      auto s = get_string(*v, "that", where, kExpectExample);
      if (!s)
        continue;
      if (auto x = expectation(*s, locate_string(*v)))
        b_.expectation(std::move(*x));
    }
  }

  /// The offset of the first `==` of `text` outside brackets and quotes, or npos.
  static std::size_t top_level_equals(std::string_view text) {
    int depth = 0;
    char quote = 0;
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
      const char c = text[i];
      if (quote) {
        quote = c == quote ? 0 : quote;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(' || c == '[') {
        ++depth;
      } else if (c == ')' || c == ']') {
        --depth;
      } else if (depth == 0 && c == '=' && text[i + 1] == '=') {
        return i;
      }
    }
    return std::string_view::npos;
  }

  std::optional<tile::Expectation> expectation(const std::string& s, const StringLoc& loc) {
    const std::string_view text = s;
    const std::size_t eq = top_level_equals(text);
    if (eq == std::string_view::npos) {
      inner_error(DiagId::spec_expect_syntax, loc, text, 0, text.size(),
                  "an expectation is 'LEFT == RIGHT' (\"B == A\", \"B.sub[:, 8:16] == 0\", "
                  "\"B.sub[100:, :] == sentinel\"); this has no '=='");
      return std::nullopt;
    }
    if (std::size_t again = top_level_equals(text.substr(eq + 2));
        again != std::string_view::npos) {
      inner_error(DiagId::spec_expect_syntax, loc, text, eq + 2 + again, 2,
                  "one '==' per expectation; write each equality as its own [[expect]]");
      return std::nullopt;
    }
    std::size_t left_at = 0, right_at = 0;
    const std::string_view left = trim(text.substr(0, eq), &left_at);
    const std::string_view right = trim(text.substr(eq + 2), &right_at);
    right_at += eq + 2;
    if (left.empty() || right.empty()) {
      inner_error(DiagId::spec_expect_syntax, loc, text, eq, 2,
                  std::string("nothing ") + (left.empty() ? "left" : "right") +
                      " of '=='; expected a view such as B.sub[:, 0:8]");
      return std::nullopt;
    }
    tile::Expectation x;
    x.that = tile::Located<std::string>{s, s, loc.pos};
    const build::Text whole{s, loc.pos, loc.exact, 1};
    const build::Text left_text = whole.piece(left_at, left);
    auto lhs = expect_view(left_text);
    if (!lhs)
      return std::nullopt;
    x.lhs = std::move(*lhs);
    if (right == "sentinel") {
      x.rhs = tile::ExpectSentinel{};
    } else if (std::isdigit(static_cast<unsigned char>(right[0])) || right[0] == '-') {
      auto v = parse_integer<std::int64_t>(right);
      if (!v) {
        inner_error(DiagId::spec_expect_syntax, loc, text, right_at, right.size(),
                    "expected a view, an integer or `sentinel` right of '=='");
        return std::nullopt;
      }
      if (!expect_value_bytes(x.lhs.value.dtype, *v)) {
        inner_error(DiagId::spec_expect_value_range, loc, text, right_at, right.size(),
                    std::string(right) + " is no exact value of " +
                        std::string(tile::name(x.lhs.value.dtype)) + ", the element type of " +
                        std::string(left));
        return std::nullopt;
      }
      x.rhs = *v;
    } else {
      const build::Text right_text = whole.piece(right_at, right);
      auto rhs = expect_view(right_text);
      if (!rhs || !b_.expect_same_shape(x.lhs.value, rhs->value, left_text, right_text))
        return std::nullopt;
      x.rhs = std::move(*rhs);
    }
    return x;
  }

  /// One side of an expectation.
  std::optional<tile::Located<tile::View>> expect_view(const build::Text& text) {
    auto v = b_.view(text);
    if (!v || !b_.expect_side(v->value, text))
      return std::nullopt;
    return v;
  }
  // ================================================================ end of [[expect]]

  std::string_view text_;
  std::string file_;
  std::vector<std::string_view> lines_;
  build::Builder b_; // every rule, the kernel and the diagnostics
};

} // namespace

Result<std::unique_ptr<tile::Kernel>> load_spec_text(std::string_view text,
                                                     std::string display_name) {
  Loader loader(text, std::move(display_name));
  return loader.run();
}

Result<std::unique_ptr<tile::Kernel>> load_spec_file(const std::filesystem::path& path) {
  std::error_code ec;
  auto fail = [&](DiagId id, std::string message) {
    Diagnostic d(id, std::move(message));
    d.file = path.string();
    return Result<std::unique_ptr<tile::Kernel>>::failure(std::move(d));
  };
  if (!std::filesystem::exists(path, ec))
    return fail(DiagId::spec_no_such_file, "no such spec file");
  if (std::filesystem::is_directory(path, ec))
    return fail(DiagId::spec_file_is_directory, "is a directory, not a spec file");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  if (in)
    buf << in.rdbuf();
  if (!in || in.bad())
    return fail(DiagId::spec_file_unreadable, "cannot read the spec file");
  return load_spec_text(buf.str(), path.string());
}

} // namespace ptxgen::driver
