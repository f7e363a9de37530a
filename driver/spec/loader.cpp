#include "driver/spec/loader.hpp"

#include "driver/reference/expect.hpp"
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
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include <toml++/toml.h>

namespace ptxgen::driver {
namespace {

using tile::SourcePos;

constexpr std::int64_t kMaxGrid = ptx::max_grid_dims[0];   // CUDA's gridDim.x limit
constexpr std::int64_t kMaxBlock = ptx::max_block_threads; // CUDA's threads per block
// ptxgen's own upper limits, shared with the C++ API's builder (emitter/tile/limits.hpp).
using tile::kMaxAlign;
using tile::kMaxGlobalBytes;
using tile::kMaxPatternBytes;
using tile::kMaxUnroll;

constexpr std::array<std::string_view, 5> kTopKeys = {"kernel", "tensor", "param", "op", "expect"};
constexpr std::array<std::string_view, 6> kKernelKeys = {"name", "grid",           "block",
                                                         "abi",  "dynamic_shared", "expect"};
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
// The ops a pipeline's [[op.body]] (its consumer) may hold.
constexpr std::array<std::string_view, 2> kPipelineBodyKinds = {"copy", "fill"};
constexpr std::array<std::string_view, 10> kApplyKeys = {
    "op",    "opcode",   "dst",        "src",  "chunk_bytes",
    "scope", "src_size", "ignore_src", "pred", "cache_policy"};
constexpr std::array<std::string_view, 1> kBareKeys = {"op"};
constexpr std::array<std::string_view, 2> kWaitGroupKeys = {"op", "n"};
constexpr std::array<std::string_view, 3> kFillKeys = {"op", "dst", "pattern"};
constexpr std::array<std::string_view, 3> kCopyKeys = {"op", "dst", "src"};
// Names the expression grammar gives a meaning of its own: a tensor or parameter
// of that name would be shadowed or would shadow.
constexpr std::array<std::string_view, 12> kReservedNames = {
    "tid", "warp",         "lane",   "bid", "ntid", "nbid",
    "T",   "if_then_else", "uint32", "min", "max",  "clamp"};
// Per-axis launch limits (CUDA's): grid x up to 2^31-1, y and z up to 65535;
// block x and y up to 1024, z up to 64, and 1024 threads in all.
constexpr std::array<std::int64_t, 3> kMaxGridDims = ptx::max_grid_dims;
constexpr std::array<std::int64_t, 3> kMaxBlockDims = ptx::max_block_dims;

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
  Loader(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {
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
    kernel_->file = file_;
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
      std::string desc(e.description());
      // toml++ says "Error while parsing value: could not determine value type".
      constexpr std::string_view prefix = "Error while parsing ";
      if (desc.rfind(prefix, 0) == 0) {
        std::size_t colon = desc.find(": ");
        if (colon != std::string::npos)
          desc = desc.substr(colon + 2) + " (while parsing " +
                 desc.substr(prefix.size(), colon - prefix.size()) + ")";
      }
      toml::source_position at = e.source().begin;
      // toml++ reports a redefined key at its value; point at the key itself.
      if (desc.find("cannot redefine") != std::string::npos)
        at.column = first_non_blank_column(at.line);
      add_error(DiagId::spec_toml_syntax, at, 1, "invalid TOML: " + desc);
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
    check_loops_closed();
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

  void add(Diagnostic d) { diags_.add(std::move(d)); }

  void add_error(DiagId id, const toml::source_position& p, std::uint32_t length,
                 std::string message) {
    add(make_diag(Severity::error, id, p, length, std::move(message)));
  }

  /// An error underlining `r` when it lies on one line, else its first character.
  void error_at(DiagId id, const toml::source_region& r, std::string message) {
    std::uint32_t length = 1;
    if (r.begin.line == r.end.line && r.end.column > r.begin.column)
      length = byte_column(r.end) - byte_column(r.begin);
    add_error(id, r.begin, length, std::move(message));
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
    std::vector<Diagnostic> items = diags_.items();
    std::stable_sort(items.begin(), items.end(), [](const Diagnostic& a, const Diagnostic& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    Diagnostics sorted;
    for (auto& d : items)
      sorted.add(std::move(d));
    if (sorted.has_errors())
      return Result<std::unique_ptr<tile::Kernel>>::failure(std::move(sorted));
    Result<std::unique_ptr<tile::Kernel>> r;
    r.value = std::move(kernel_);
    r.diagnostics = std::move(sorted);
    return r;
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
    error_at(DiagId::spec_missing_key, t.source(),
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

  /// `key` as a name checked for being an identifier the expression grammar does not own.
  bool check_name(const toml::key& k, std::string_view what) {
    std::string_view name = k.str();
    if (!is_identifier(name)) {
      error_at(DiagId::spec_bad_name, k.source(),
               std::string(what) + " name " + squote(name) +
                   " is not an identifier (letters, digits and '_', not starting "
                   "with a digit)");
      return false;
    }
    if (contains(kReservedNames, name)) {
      error_at(DiagId::spec_reserved_name, k.source(),
               std::string(what) + " name " + squote(name) + " is reserved in index expressions (" +
                   join(kReservedNames) + ")");
      return false;
    }
    return true;
  }

  // ---------------------------------------------------------------- [kernel]

  void load_kernel(const toml::table& root) {
    const toml::node* n = root.get("kernel");
    if (!n) {
      add_error(DiagId::spec_missing_key, {1, 1}, 1,
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
      if (auto s = get_string(*v, "name", where, "a string (an identifier)")) {
        if (!is_identifier(*s))
          error_at(DiagId::spec_bad_name, v->source(),
                   "kernel name " + squote(*s) +
                       " is not an identifier (letters, digits and '_', not "
                       "starting with a digit)");
        else
          kernel_->name = *s;
      }
    } else {
      missing(*t, "name", where, "an identifier such as \"copy_async\"");
    }

    tile::Dim3 grid{1, 1, 1}, block{kernel_->block, 1, 1};
    if (const toml::node* v = t->get("grid"))
      if (auto g = get_dims(*v, "grid", DiagId::spec_grid_range, kMaxGridDims, kMaxGrid))
        grid = *g;
    if (const toml::node* v = t->get("block")) {
      if (auto b = get_dims(*v, "block", DiagId::spec_block_range, kMaxBlockDims, kMaxBlock))
        block = *b;
    } else {
      missing(*t, "block", where, "the number of threads per CTA, 1..1024, or [x, y, z]");
    }
    kernel_->set_launch(grid, block);
    load_must_fault(*t);
  }

  /// [kernel]'s `expect = "fault"`: what the run of a spec that breaks the contract must show.
  void load_must_fault(const toml::table& t) {
    const toml::node* v = t.get("expect");
    if (!v)
      return;
    auto s = get_string(*v, "expect", "[kernel]", "the string \"fault\"");
    if (!s)
      return;
    if (*s == tile::kMustFaultValue)
      kernel_->must_fault = pos_of(v->source().begin);
    else
      error_at(DiagId::spec_expect_run, v->source(),
               "[kernel] expect must be \"fault\" (a spec that breaks the contract on purpose "
               "and must fault when run); got " +
                   squote(*s));
  }

  /// [kernel]'s `abi = [...]` (the PTX parameter order: every global tensor and
  /// scalar parameter once) and `dynamic_shared = N` (a foreign kernel's dynamic
  /// shared bytes); after the tensors and parameters are loaded.
  void load_binding(const toml::table& root) {
    const toml::table* t = root.get("kernel") ? root.get("kernel")->as_table() : nullptr;
    if (!t)
      return;
    if (const toml::node* v = t->get("dynamic_shared")) {
      const std::int64_t max = ptx::max_dynamic_shared_bytes_any_target();
      if (auto n = get_int(*v, "dynamic_shared", "[kernel]", "an integer (bytes)")) {
        if (*n < 0 || *n > max)
          error_at(DiagId::spec_dynamic_shared_range, v->source(),
                   "dynamic_shared must be in 0.." + std::to_string(max) + " bytes; got " +
                       std::to_string(*n));
        else
          kernel_->dynamic_shared = *n;
      }
    }
    const toml::node* v = t->get("abi");
    if (!v)
      return;
    const toml::array* a = v->as_array();
    if (!a) {
      wrong_type(*v, "abi", "[kernel]", "an array of tensor and parameter names");
      return;
    }
    std::vector<std::string> wanted; // the default order: what abi must list
    for (const auto& b : lower::kernel_params(*kernel_))
      wanted.push_back(b.name);
    std::vector<std::string> order;
    for (const toml::node& e : *a) {
      auto name = get_string(e, "abi", "[kernel]", "an array of tensor and parameter names");
      if (!name)
        return;
      if (std::find(wanted.begin(), wanted.end(), *name) == wanted.end()) {
        const bool shared = kernel_->find_tensor(*name) != nullptr;
        error_at(DiagId::spec_abi_unknown_name, e.source(),
                 squote(*name) +
                     (shared ? " is a shared tensor, not a kernel parameter"
                             : " is not a global tensor or a parameter of the spec") +
                     "; abi lists " + join_names(wanted));
        return;
      }
      if (std::find(order.begin(), order.end(), *name) != order.end()) {
        error_at(DiagId::spec_abi_duplicate_name, e.source(),
                 squote(*name) + " is listed twice in abi");
        return;
      }
      order.push_back(*name);
    }
    std::vector<std::string> left;
    for (const auto& w : wanted)
      if (std::find(order.begin(), order.end(), w) == order.end())
        left.push_back(w);
    if (!left.empty()) {
      error_at(DiagId::spec_abi_missing_name, v->source(),
               "abi does not list " + join_names(left) +
                   ": it must name every global tensor and parameter once, in PTX order");
      return;
    }
    kernel_->abi = std::move(order);
  }

  static std::string join_names(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
      out += (i ? ", " : "") + squote(names[i]);
    return out;
  }

  /// `grid` or `block`: an integer N (x = N) or an array [x], [x, y] or [x, y, z],
  /// each axis within `max_each`, the product at most `max_total`.
  std::optional<tile::Dim3> get_dims(const toml::node& v, std::string_view key, DiagId range_id,
                                     const std::array<std::int64_t, 3>& max_each,
                                     std::int64_t max_total) {
    const std::string what = key == "grid" ? "CTAs" : "threads per CTA";
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
    static constexpr const char* kAxis[] = {"x", "y", "z"};
    const bool scalar = v.is_integer();
    std::int64_t total = 1;
    for (std::size_t i = 0; i < 3; ++i) {
      if (d[i] < 1 || d[i] > max_each[i]) {
        error_at(range_id, v.source(),
                 std::string(key) + (scalar ? "" : std::string(".") + kAxis[i]) +
                     " must be in 1.." + std::to_string(max_each[i]) +
                     (scalar && key == "block" ? " threads" : "") + "; got " +
                     std::to_string(d[i]));
        return std::nullopt;
      }
      total *= d[i];
    }
    if (total > max_total) {
      error_at(range_id, v.source(),
               std::string(key) + " has " + std::to_string(total) + " " + what +
                   " in all; at most " + std::to_string(max_total));
      return std::nullopt;
    }
    return tile::Dim3{d[0], d[1], d[2]};
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
    for (auto [k, v] : in_file_order(*all)) {
      param_names_.emplace(k->str());
      load_param(*k, *v);
    }
  }

  void load_param(const toml::key& k, const toml::node& n) {
    const std::string where = "[param." + std::string(k.str()) + "]";
    const toml::table* t = n.as_table();
    if (!t) {
      error_at(DiagId::spec_wrong_type, n.source(),
               "parameter " + squote(k.str()) + " must be a table with dtype and value; got " +
                   type_phrase(n.type()));
      return;
    }
    bool ok = check_name(k, "parameter");
    check_keys(*t, kParamKeys, where);

    tile::ScalarParam p;
    p.name = std::string(k.str());
    p.pos = pos_of(t->source().begin);

    if (const toml::node* v = t->get("dtype")) {
      if (auto s = get_string(*v, "dtype", where, "\"u32\" or \"u64\"")) {
        if (*s == "u32" || *s == "uint32")
          p.is_u64 = false;
        else if (*s == "u64" || *s == "uint64")
          p.is_u64 = true;
        else {
          constexpr std::array<std::string_view, 4> types = {"u32", "u64", "uint32", "uint64"};
          error_at(DiagId::spec_param_dtype, v->source(),
                   "parameter dtype must be \"u32\" or \"u64\"; got " + squote(*s) +
                       did_you_mean(*s, types));
          ok = false;
        }
      } else {
        ok = false;
      }
    } else {
      missing(*t, "dtype", where, "\"u32\" or \"u64\"");
      ok = false;
    }
    const std::uint64_t type_max =
        p.is_u64 ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t{0xffffffffu};
    const std::string type_name = p.is_u64 ? "u64" : "u32";

    bool have_value = false;
    const toml::node* value_node = t->get("value");
    if (value_node) {
      if (const auto* i = value_node->as_integer()) {
        if (i->get() < 0 || static_cast<std::uint64_t>(i->get()) > type_max) {
          error_at(DiagId::spec_param_value, value_node->source(),
                   "value " + std::to_string(i->get()) + " does not fit " + type_name + " (0.." +
                       std::to_string(type_max) + ")");
          ok = false;
        } else {
          p.value = static_cast<std::uint64_t>(i->get());
          have_value = true;
        }
      } else if (const auto* s = value_node->as_string(); s && p.is_u64) {
        // TOML integers stop at 2^63-1; a u64 (a cache policy) may need the top bit.
        if (auto u = parse_integer<std::uint64_t>(s->get())) {
          p.value = *u;
          have_value = true;
        } else {
          error_at(DiagId::spec_param_value, value_node->source(),
                   "a u64 value string must be a decimal or 0x "
                   "hexadecimal integer below 2^64; got " +
                       squote(s->get()));
          ok = false;
        }
      } else {
        wrong_type(*value_node, "value", where,
                   p.is_u64 ? "an integer (or a \"0x...\" string)" : "an integer");
        ok = false;
      }
    } else {
      missing(*t, "value", where, "the integer the test runs pass");
      ok = false;
    }

    if (const toml::node* v = t->get("range")) {
      const toml::array* a = v->as_array();
      if (!a || a->size() != 2 || !(*a)[0].is_integer() || !(*a)[1].is_integer()) {
        error_at(DiagId::spec_param_range, v->source(),
                 "range in " + where + " must be [lo, hi], two integers");
        ok = false;
      } else {
        const std::int64_t lo = (*a)[0].as_integer()->get();
        const std::int64_t hi = (*a)[1].as_integer()->get();
        if (lo > hi) {
          error_at(DiagId::spec_param_range, v->source(),
                   "range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                       "] is empty; expected lo <= hi");
          ok = false;
        } else if (lo < 0 || static_cast<std::uint64_t>(hi) > type_max) {
          error_at(DiagId::spec_param_range, v->source(),
                   "range [" + std::to_string(lo) + ", " + std::to_string(hi) + "] does not fit " +
                       type_name + " (0.." + std::to_string(type_max) + ")");
          ok = false;
        } else {
          p.range = tile::Interval{lo, hi};
          if (have_value && (p.value < static_cast<std::uint64_t>(lo) ||
                             p.value > static_cast<std::uint64_t>(hi))) {
            error_at(DiagId::spec_param_outside_range, value_node->source(),
                     "value " + std::to_string(p.value) + " is outside the declared range [" +
                         std::to_string(lo) + ", " + std::to_string(hi) + "]");
            ok = false;
          }
        }
      }
    }

    if (ok) {
      param_u64_[p.name] = p.is_u64;
      kernel_->params.push_back(std::move(p));
    }
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
    for (auto [k, v] : in_file_order(*all)) {
      if (!load_tensor(*k, *v))
        broken_tensors_.emplace(k->str());
    }
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

  /// The tensor's shape; nullopt (after errors) when it is missing or malformed.
  std::optional<std::vector<std::int64_t>> tensor_shape(const toml::table& t,
                                                        const std::string& where) {
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
    if (a->empty()) {
      error_at(DiagId::spec_bad_shape, shape_node->source(),
               "shape must have at least one dimension");
      return std::nullopt;
    }
    std::vector<std::int64_t> shape;
    bool ok = true;
    for (const toml::node& e : *a) {
      const auto* i = e.as_integer();
      if (!i) {
        error_at(DiagId::spec_wrong_type, e.source(),
                 "a shape dimension must be a positive integer; got " +
                     std::string(type_phrase(e.type())));
        ok = false;
      } else if (i->get() < 1) {
        error_at(DiagId::spec_bad_shape, e.source(),
                 "a shape dimension must be at least 1; got " + std::to_string(i->get()));
        ok = false;
      } else {
        shape.push_back(i->get());
      }
    }
    if (!ok)
      return std::nullopt;
    return shape;
  }

  bool load_tensor(const toml::key& k, const toml::node& n) {
    const std::string where = "[tensor." + std::string(k.str()) + "]";
    const toml::table* t = n.as_table();
    if (!t) {
      error_at(DiagId::spec_wrong_type, n.source(),
               "tensor " + squote(k.str()) + " must be a table with space, shape and dtype; got " +
                   type_phrase(n.type()));
      return false;
    }
    bool ok = check_name(k, "tensor");
    if (param_names_.count(k.str()) != 0) {
      error_at(DiagId::spec_name_clash, k.source(),
               "tensor " + squote(k.str()) + " has the name of a parameter");
      ok = false;
    }
    check_keys(*t, kTensorKeys, where);

    auto decl = std::make_unique<tile::TensorDecl>();
    decl->tensor.name = std::string(k.str());
    decl->pos = pos_of(t->source().begin);

    bool have_space = false;
    if (const toml::node* v = t->get("space")) {
      if (auto s = get_string(*v, "space", where, "\"global\" or \"shared\"")) {
        if (*s == "global") {
          decl->tensor.space = tile::Space::global;
          have_space = true;
        } else if (*s == "shared") {
          decl->tensor.space = tile::Space::shared;
          have_space = true;
        } else {
          constexpr std::array<std::string_view, 2> spaces = {"global", "shared"};
          error_at(DiagId::spec_unknown_space, v->source(),
                   "space must be \"global\" or \"shared\"; got " + squote(*s) +
                       did_you_mean(*s, spaces));
          ok = false;
        }
      } else {
        ok = false;
      }
    } else {
      missing(*t, "space", where, "\"global\" or \"shared\"");
      ok = false;
    }
    const bool shared = decl->tensor.space == tile::Space::shared;

    const std::optional<tile::DType> dtype = tensor_dtype(*t, where);
    const bool have_dtype = dtype.has_value();
    if (dtype)
      decl->tensor.dtype = *dtype;
    ok = ok && have_dtype;

    const toml::node* shape_node = t->get("shape");
    std::optional<std::vector<std::int64_t>> shape = tensor_shape(*t, where);
    const bool have_shape = shape.has_value();
    if (shape)
      decl->tensor.shape = std::move(*shape);
    ok = ok && have_shape;

    decl->tensor.align = shared ? tile::default_shared_align : tile::default_global_align;
    if (const toml::node* v = t->get("align")) {
      if (auto a = get_int(*v, "align", where, "an integer (a power of two)")) {
        const std::int64_t lo = shared ? tile::min_shared_align : 1;
        if (*a < lo || *a > kMaxAlign || (*a & (*a - 1)) != 0) {
          error_at(DiagId::spec_bad_align, v->source(),
                   "align of a " + std::string(shared ? "shared" : "global") +
                       " tensor must be a power of two in " + std::to_string(lo) + ".." +
                       std::to_string(kMaxAlign) + "; got " + std::to_string(*a));
          ok = false;
        } else {
          decl->tensor.align = static_cast<std::uint32_t>(*a);
        }
      } else {
        ok = false;
      }
    }

    if (const toml::node* v = t->get("layout")) {
      if (auto s = get_string(*v, "layout", where, "\"default\"")) {
        if (*s != "default") {
          error_at(DiagId::spec_bad_layout, v->source(),
                   "only the row-major \"default\" layout is supported; got " + squote(*s));
          ok = false;
        }
      } else {
        ok = false;
      }
    }

    if (const toml::node* v = t->get("init")) {
      if (have_space && shared) {
        error_at(DiagId::spec_global_only_key, key_of(*t, "init")->source(),
                 "init is only for global tensors; shared memory starts undefined (fill it "
                 "with a fill op)");
        ok = false;
      } else if (auto s = get_string(*v, "init", where,
                                     "\"zero\", \"arange % M\", \"random(SEED)\" or "
                                     "\"constant(V)\"")) {
        if (auto init = parse_init(*s, *v))
          decl->init = *init;
        else
          ok = false;
      } else {
        ok = false;
      }
    }

    if (const toml::node* v = t->get("output")) {
      if (have_space && shared) {
        error_at(DiagId::spec_global_only_key, key_of(*t, "output")->source(),
                 "output is only for global tensors; shared memory is not compared after a run");
        ok = false;
      } else if (auto b = get_bool(*v, "output", where)) {
        decl->output = *b;
      } else {
        ok = false;
      }
    }

    if (have_shape && have_dtype && have_space)
      ok = check_size(decl->tensor, *shape_node) && ok;

    if (!ok)
      return false;
    kernel_->tensors.push_back(std::move(decl));
    return true;
  }

  /// Element count and byte size within the limits; shared tensors also in total.
  bool check_size(const tile::Tensor& t, const toml::node& shape_node) {
    const bool shared = t.space == tile::Space::shared;
    // Shared: what a CTA can have on any target; the contract checks the target's own limit.
    const std::int64_t max_shared = ptx::max_dynamic_shared_bytes_any_target();
    const std::int64_t limit = shared ? max_shared : kMaxGlobalBytes;
    const std::int64_t elem = tile::size_bytes(t.dtype);
    std::int64_t bytes = elem;
    for (std::int64_t d : t.shape) {
      if (d > limit / bytes) {
        std::string shape;
        for (std::size_t i = 0; i < t.shape.size(); ++i)
          shape += (i ? ", " : "") + std::to_string(t.shape[i]);
        error_at(DiagId::spec_tensor_too_large, shape_node.source(),
                 "tensor " + squote(t.name) + " of shape [" + shape + "] and " +
                     std::to_string(elem) + "-byte elements is larger than the " +
                     (shared ? std::to_string(max_shared) +
                                   " bytes of shared memory a CTA can have on any target"
                             : std::string("2^40 bytes allowed for a global tensor")));
        return false;
      }
      bytes *= d;
    }
    if (shared) {
      const std::int64_t a = t.align;
      const std::int64_t start = (shared_bytes_ + a - 1) / a * a;
      if (start + bytes > max_shared) {
        error_at(DiagId::spec_shared_total_too_large, shape_node.source(),
                 "shared tensors need " + std::to_string(start + bytes) + " bytes together with " +
                     squote(t.name) + " (" + std::to_string(bytes) + " bytes at offset " +
                     std::to_string(start) + "); a CTA has at most " + std::to_string(max_shared) +
                     " bytes of shared memory on any target");
        return false;
      }
      shared_bytes_ = start + bytes;
    }
    return true;
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

  const tile::Tensor* find_tensor(std::string_view name) const {
    for (const auto& d : kernel_->tensors)
      if (d->tensor.name == name)
        return &d->tensor;
    return nullptr;
  }

  bool is_param(std::string_view name) const { return param_names_.count(name) != 0; }

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

  void load_op(const toml::table& t, const std::string& where) {
    const toml::node* kind_node = t.get("op");
    if (!kind_node) {
      error_at(DiagId::spec_missing_key, t.source(),
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
        if (auto i = get_int(*v, "n", where_kind, "an integer (groups left pending)")) {
          if (*i < 0 || *i > ptx::max_wait_group) {
            error_at(DiagId::contract_wait_group_range, v->source(),
                     "wait_group n must be in 0.." + std::to_string(ptx::max_wait_group) +
                         "; it is " + std::to_string(*i) +
                         " (ptxgen is stricter than ptxas, which accepts any "
                         "integer)");
            ok = false;
          } else {
            w.n = *i;
          }
        } else {
          ok = false;
        }
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
      load_end(t, op);
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
    if (ok)
      kernel_->ops.push_back(std::move(op));
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
    if (barrier && barrier->value.tensor->space != tile::Space::shared) {
      error_at(DiagId::spec_mbarrier_operand, t.get("barrier")->source(),
               "an mbarrier lives in shared memory; '" + barrier->value.tensor->name +
                   "' is a global tensor");
      ok = false;
    }
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

  /// A `for` whose var is live for the ops up to its `end`. `index` is the
  /// ForOp's index in kernel_->ops, or npos for a rejected `for` (its `end`
  /// is then consumed silently).
  struct OpenLoop {
    std::string var;
    std::size_t index = static_cast<std::size_t>(-1);
    tile::SourcePos pos;
  };

  bool is_loop_var(std::string_view name) const {
    return std::any_of(loops_.begin(), loops_.end(),
                       [&](const OpenLoop& l) { return l.var == name; });
  }

  /// The names expressions may use here: parameters and the live loop variables.
  tile::ExprNames expr_names() const {
    tile::ExprNames n;
    n.is_param = [this](std::string_view x) { return is_param(x); };
    if (!loops_.empty())
      n.is_loop = [this](std::string_view x) { return is_loop_var(x); };
    return n;
  }

  /// The first leaf of e that differs between the threads of a CTA, else nullptr.
  static const tile::Expr* per_thread_leaf(const tile::Expr& e) {
    switch (e.kind) {
    case tile::ExprKind::tid:
    case tile::ExprKind::warp:
    case tile::ExprKind::lane:
      return &e;
    case tile::ExprKind::special:
      return tile::per_thread(e.special) ? &e : nullptr;
    case tile::ExprKind::constant:
    case tile::ExprKind::bid:
    case tile::ExprKind::param:
    case tile::ExprKind::axis:
    case tile::ExprKind::loop:
    case tile::ExprKind::unary:
    case tile::ExprKind::binary:
    case tile::ExprKind::select:
      break;
    }
    for (const auto& a : e.args)
      if (const tile::Expr* hit = per_thread_leaf(*a))
        return hit;
    return nullptr;
  }

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
    const StringLoc loc = locate_string(v);
    auto r = tile::parse_expr(s->get(), expr_names());
    if (!r) {
      add_inner(with_suggestions(r.diagnostics, s->get()), loc);
      return std::nullopt;
    }
    if (const tile::Expr* t = per_thread_leaf(**r)) {
      Diagnostics ds;
      ds.add(ptxgen::error_at(DiagId::spec_loop_bound_per_thread, s->get(), t->offset, t->length,
                              std::string(key) +
                                  " of a loop must be the same for every thread "
                                  "of a CTA; '" +
                                  s->get().substr(t->offset, t->length) +
                                  "' differs between threads (use bid, nbid, parameters, "
                                  "constants or enclosing loop variables)"));
      add_inner(ds, loc);
      return std::nullopt;
    }
    return tile::Located<tile::ExprPtr>{std::move(*r), s->get(), loc.pos};
  }

  /// Why `name` cannot name a loop variable (not an identifier, reserved, a
  /// parameter, a tensor or the variable of an enclosing loop); empty when it can.
  std::string loop_name_clash(const std::string& name) const {
    if (!is_identifier(name))
      return "is not an identifier (letters, digits and '_', not starting with a digit)";
    if (contains(kReservedNames, name))
      return "is reserved in expressions (" + join(kReservedNames) + ")";
    if (is_param(name))
      return "is a kernel parameter";
    if (find_tensor(name))
      return "is a tensor";
    if (is_loop_var(name))
      return "is the variable of an enclosing loop";
    return {};
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
    if (u && (*u < 1 || *u > kMaxUnroll)) {
      error_at(DiagId::spec_loop_unroll_range, v->source(),
               "unroll must be in 1.." + std::to_string(kMaxUnroll) + "; got " +
                   std::to_string(*u));
      return false;
    }
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
    const std::string clash = loop_name_clash(*name);
    if (!clash.empty()) {
      const StringLoc loc = locate_string(*v);
      Diagnostics ds;
      ds.add(ptxgen::error_at(DiagId::spec_loop_var_name, *name, 0,
                              static_cast<std::uint32_t>(name->size()),
                              "loop variable " + squote(*name) + " " + clash));
      add_inner(ds, loc);
      return std::nullopt;
    }
    return tile::Located<std::string>{*name, *name, locate_string(*v).pos};
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
    OpenLoop open{var ? var->value : std::string(), static_cast<std::size_t>(-1), op.pos};
    if (ok) {
      f.var = std::move(*var);
      open.index = kernel_->ops.size();
      op.body = std::move(f);
      kernel_->ops.push_back(std::move(op));
    }
    loops_.push_back(std::move(open));
  }

  void load_end(const toml::table& t, tile::Op& op) {
    if (loops_.empty()) {
      error_at(DiagId::spec_loop_stray_end, t.source(),
               "`end` without a `for`: every op = \"end\" closes the innermost open loop");
      return;
    }
    const OpenLoop open = loops_.back();
    loops_.pop_back();
    if (open.index == static_cast<std::size_t>(-1))
      return; // its `for` was rejected and reported
    std::get<tile::ForOp>(kernel_->ops[open.index].body).end = kernel_->ops.size();
    op.body = tile::EndOp{open.index};
    kernel_->ops.push_back(std::move(op));
  }

  /// Reports every `for` still open at the end of the ops.
  void check_loops_closed() {
    for (const OpenLoop& l : loops_)
      add_error(DiagId::spec_loop_unclosed, {l.pos.line, l.pos.column}, 1,
                "this `for` has no matching op = \"end\"");
    loops_.clear();
  }

  // ---------------------------------------------------------------- pipeline

  /// OpenLoop::index of a variable with no ForOp (a pipeline's, while its ops load).
  static constexpr std::size_t kNoOp = static_cast<std::size_t>(-1);

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
    const std::size_t open = loops_.size();
    loops_.push_back(OpenLoop{var ? var->value : std::string(), kNoOp, pos});
    loops_.push_back(OpenLoop{p.stage_var, kNoOp, pos});
    ok = pipeline_loads(t, where, p) && ok;
    ok = pipeline_body(t, where, p) && ok;
    loops_.erase(loops_.begin() + static_cast<std::ptrdiff_t>(open), loops_.end());
    if (!ok)
      return;
    p.sync_before = tile::pipeline_needs_sync(p, kernel_->ops, !loops_.empty());
    for (tile::Op& o : tile::expand_pipeline(p, kernel_->ops.size(), kernel_->launch_bounds()))
      kernel_->ops.push_back(std::move(o));
  }

  /// stages (required), step (1 if given) and unroll of a pipeline.
  bool pipeline_scalars(const toml::table& t, const std::string& where, tile::Pipeline& p) {
    bool ok = true;
    if (const toml::node* v = t.get("stages")) {
      auto s = get_int(*v, "stages", where, "an integer, the shared buffers of the ring");
      if (s && (*s < tile::kMinPipelineStages || *s > tile::kMaxPipelineStages)) {
        error_at(DiagId::spec_pipeline_stages, v->source(),
                 "stages must be in " + std::to_string(tile::kMinPipelineStages) + ".." +
                     std::to_string(tile::kMaxPipelineStages) + "; got " + std::to_string(*s) +
                     (*s == 1 ? " (one stage cannot overlap a tile's load with the consumer of "
                                "the previous one: write the loop with op = \"for\")"
                              : ""));
        s.reset();
      }
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
    std::string clash = loop_name_clash(name);
    if (clash.empty() && name == var)
      clash = "is the pipeline's tile variable";
    if (clash.empty())
      return name;
    const std::string message = "stage variable " + squote(name) + " " + clash;
    if (v) {
      Diagnostics ds;
      ds.add(ptxgen::error_at(DiagId::spec_loop_var_name, name, 0,
                              static_cast<std::uint32_t>(name.size()), message));
      add_inner(ds, locate_string(*v));
    } else {
      error_at(DiagId::spec_loop_var_name, t.get("op")->source(),
               message + "; name it otherwise with stage_var = \"s\"");
    }
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
        if (s && *s != "apply")
          error_at(DiagId::spec_pipeline_load_op, k->source(),
                   "a pipeline's [[op.load]] is a cp.async apply; op " + squote(*s) +
                       " belongs in [[op.body]] (the consumer) or outside the pipeline");
        if (!s || *s != "apply") {
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
      if (!uses_any_loop_var(a.dst.value, {p.var.value, p.stage_var})) {
        error_at(DiagId::spec_pipeline_load_stage, lt->get("dst")->source(),
                 "the load's dst does not depend on the stage: every tile would land in the "
                 "same shared bytes, refilled while they are read; index the ring with '" +
                     p.stage_var + "' (or '" + p.var.value + " % " + std::to_string(p.stages) +
                     "')");
        ok = false;
        continue;
      }
      p.loads.push_back(tile::Op{std::move(a), pos_of(lt->source().begin)});
    }
    return ok;
  }

  /// True when a runtime index of `v` uses a loop variable named in `names`.
  static bool uses_any_loop_var(const tile::View& v, std::initializer_list<std::string> names) {
    std::function<bool(const tile::Expr&)> uses = [&](const tile::Expr& e) {
      if (e.kind == tile::ExprKind::loop &&
          std::find(names.begin(), names.end(), e.name) != names.end())
        return true;
      return std::any_of(e.args.begin(), e.args.end(),
                         [&](const tile::ExprPtr& a) { return uses(*a); });
    };
    return std::any_of(v.terms.begin(), v.terms.end(),
                       [&](const tile::RuntimeTerm& t) { return uses(*t.index); });
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
      if (name && !contains(kPipelineBodyKinds, name->get())) {
        error_at(DiagId::spec_pipeline_body_op, kind->source(),
                 "a pipeline's consumer ([[op.body]]) holds only copy and fill ops; not " +
                     squote(name->get()) +
                     " (the pipeline writes its own commits, waits and barriers, and a "
                     "cp.async in the consumer would join the pipeline's groups)");
        ok = false;
        continue;
      }
      if (!bt) {
        error_at(DiagId::spec_wrong_type, e.source(),
                 w + " must be a table; got " + type_phrase(e.type()));
        ok = false;
        continue;
      }
      const std::size_t before = kernel_->ops.size();
      load_op(*bt, w);
      if (kernel_->ops.size() == before) {
        ok = false;
        continue;
      }
      p.body.push_back(std::move(kernel_->ops.back()));
      kernel_->ops.pop_back();
    }
    return ok;
  }

  /// The tensor name a view string starts with ("A" in `A.sub[tid, :]`).
  static std::string_view leading_name(std::string_view s) {
    s = trim(s);
    std::size_t n = 0;
    while (n < s.size() && is_ident_char(s[n]))
      ++n;
    return s.substr(0, n);
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
    // A view on a tensor whose declaration was rejected: that error is enough.
    if (broken_tensors_.count(leading_name(*s)) != 0)
      return std::nullopt;
    const StringLoc loc = locate_string(*v);
    auto r = tile::parse_view(
        *s, [this](std::string_view n) { return find_tensor(n); }, expr_names());
    if (!r) {
      add_inner(with_suggestions(r.diagnostics, *s), loc);
      return std::nullopt;
    }
    return tile::Located<tile::View>{std::move(*r), *s, loc.pos};
  }

  /// Diagnostics of a view or expression string `text`, with "did you mean" added to an
  /// unknown tensor or name: the parsers do not know the spec's tensors and parameters.
  Diagnostics
  with_suggestions(const Diagnostics& inner, std::string_view text,
                   const std::map<std::string, std::size_t, std::less<>>* axes = nullptr) const {
    Diagnostics out;
    for (Diagnostic d : inner.items()) {
      const bool tensor = d.id == DiagId::view_unknown_tensor;
      if ((tensor || d.id == DiagId::expr_unknown_name) && d.line == 1 && d.column >= 1 &&
          d.column - 1 < text.size()) {
        std::string_view word = text.substr(d.column - 1, d.length);
        std::vector<std::string_view> names;
        if (tensor) {
          for (const auto& t : kernel_->tensors)
            names.push_back(t->tensor.name);
          names.insert(names.end(), broken_tensors_.begin(), broken_tensors_.end());
        } else {
          names.assign(kReservedNames.begin(), kReservedNames.end());
          names.insert(names.end(), param_names_.begin(), param_names_.end());
          if (axes)
            for (const auto& [name, index] : *axes)
              names.push_back(name);
        }
        d.message += did_you_mean(word, names);
      }
      out.add(std::move(d));
    }
    return out;
  }

  /// The first parameter leaf of e whose name is also one of `axes`, else nullptr.
  static const tile::Expr*
  param_named_like_axis(const tile::Expr& e,
                        const std::map<std::string, std::size_t, std::less<>>& axes) {
    if (e.kind == tile::ExprKind::param && axes.count(e.name))
      return &e;
    for (const auto& a : e.args)
      if (const tile::Expr* hit = param_named_like_axis(*a, axes))
        return hit;
    return nullptr;
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
    const StringLoc loc = locate_string(v);
    std::function<bool(std::string_view)> is_axis; // none: the message does not offer axes
    if (!axes.empty())
      is_axis = [&axes](std::string_view n) { return axes.find(n) != axes.end(); };
    tile::ExprNames names = expr_names();
    names.is_axis = is_axis;
    auto r = tile::parse_expr(s->get(), names);
    if (!r) {
      add_inner(with_suggestions(r.diagnostics, s->get(), &axes), loc);
      return std::nullopt;
    }
    if (const tile::Expr* clash = param_named_like_axis(**r, axes)) {
      Diagnostics ds;
      ds.add(ptxgen::error_at(DiagId::spec_axis_shadows_param, s->get(), clash->offset,
                              clash->length,
                              "'" + clash->name +
                                  "' is both a kernel parameter and a repeat axis of the src view; "
                                  "rename one of them"));
      add_inner(ds, loc);
      return std::nullopt;
    }
    return tile::Located<tile::ExprPtr>{std::move(*r), s->get(), loc.pos};
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

  struct PolicyParamError {
    DiagId id;
    std::string message;
  };

  /// Why `name` cannot be a cache policy; nullopt when it is a declared u64 parameter.
  std::optional<PolicyParamError> check_policy_param(std::string_view name) const {
    if (!is_identifier(name))
      return PolicyParamError{DiagId::spec_bad_cache_policy,
                              "expected a parameter name after \"param:\"; got " + squote(name)};
    auto it = param_u64_.find(name);
    if (it == param_u64_.end()) {
      if (is_param(name))
        return std::nullopt; // declared but rejected: its own error says why
      return PolicyParamError{DiagId::contract_policy_param_unknown,
                              "unknown parameter " + squote(name) + " for the cache policy" +
                                  did_you_mean(name, u64_param_names()) +
                                  " (declare it as [param." + std::string(name) +
                                  "] with dtype = \"u64\")"};
    }
    if (!it->second)
      return PolicyParamError{DiagId::contract_policy_param_not_u64,
                              "cache policy parameter " + squote(name) +
                                  " is u32; a cache policy is a 64-bit operand (dtype = \"u64\")"};
    return std::nullopt;
  }

  /// The accepted u64 parameters, the candidates for a misspelt cache-policy parameter.
  std::vector<std::string_view> u64_param_names() const {
    std::vector<std::string_view> out;
    for (const auto& [name, is_u64] : param_u64_)
      if (is_u64)
        out.push_back(name);
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
      if (auto err = check_policy_param(name)) {
        inner_error(err->id, loc, text, offset_of(name), name.size(), err->message);
        return std::nullopt;
      }
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
      if (auto err = check_policy_param(*s)) {
        error_at(err->id, p->source(), err->message);
        return std::nullopt;
      }
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
      if (a->empty() || a->size() > kMaxPatternBytes) {
        error_at(DiagId::spec_bad_pattern, v.source(),
                 "a pattern must have 1.." + std::to_string(kMaxPatternBytes) + " bytes; got " +
                     std::to_string(a->size()));
        return std::nullopt;
      }
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
      if ((text.size() - 2) / 2 > kMaxPatternBytes) {
        inner_error(DiagId::spec_bad_pattern, loc, text, 0, text.size(),
                    "a pattern must have at most " + std::to_string(kMaxPatternBytes) + " bytes");
        return std::nullopt;
      }
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
        kernel_->expectations.push_back(std::move(*x));
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
    auto lhs = expect_view(left, left_at, loc);
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
      auto rhs = expect_view(right, right_at, loc);
      if (!rhs)
        return std::nullopt;
      const tile::View& l = x.lhs.value;
      const tile::View& r = rhs->value;
      // Two whole tensors need the same byte size (compared byte for byte); views the
      // same shape and element size (compared element by element).
      const bool whole = l.steps.empty() && r.steps.empty();
      const bool fits =
          whole ? view_bytes(l) == view_bytes(r)
                : l.shape() == r.shape() && tile::size_bytes(l.dtype) == tile::size_bytes(r.dtype);
      if (!fits) {
        inner_error(DiagId::spec_expect_shape_mismatch, loc, text, right_at, right.size(),
                    std::string(right) + " is " + shape_text(r) + " but " + std::string(left) +
                        " is " + shape_text(l) +
                        (whole ? "; two whole tensors need the same byte size"
                               : "; both sides need the same shape and element size"));
        return std::nullopt;
      }
      x.rhs = std::move(*rhs);
    }
    return x;
  }

  static std::int64_t view_bytes(const tile::View& v) {
    std::int64_t n = tile::size_bytes(v.dtype);
    for (std::int64_t s : v.shape())
      n *= s;
    return n;
  }

  static std::string shape_text(const tile::View& v) {
    std::string s = "[";
    const auto shape = v.shape();
    for (std::size_t i = 0; i < shape.size(); ++i)
      s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "] of " + std::string(tile::name(v.dtype));
  }

  /// The first leaf of `e` that is not a constant (tid, bid, a parameter...), else nullptr.
  static const tile::Expr* nonconstant_leaf(const tile::Expr& e) {
    switch (e.kind) {
    case tile::ExprKind::constant:
      return nullptr;
    case tile::ExprKind::tid:
    case tile::ExprKind::warp:
    case tile::ExprKind::lane:
    case tile::ExprKind::bid:
    case tile::ExprKind::param:
    case tile::ExprKind::axis:
    case tile::ExprKind::loop:
    case tile::ExprKind::special:
      return &e;
    case tile::ExprKind::unary:
    case tile::ExprKind::binary:
    case tile::ExprKind::select:
      for (const tile::ExprPtr& a : e.args)
        if (const tile::Expr* leaf = nonconstant_leaf(*a))
          return leaf;
      return nullptr;
    }
    unreachable("nonconstant_leaf(): not an ExprKind");
  }

  /// One side of an expectation: `text` starts at byte `offset` of the string at `loc`.
  std::optional<tile::Located<tile::View>> expect_view(std::string_view text, std::size_t offset,
                                                       const StringLoc& loc) {
    StringLoc at = loc;
    if (loc.exact)
      at.pos.column += static_cast<std::uint32_t>(offset);
    if (broken_tensors_.count(leading_name(text)) != 0)
      return std::nullopt; // its declaration's error is enough
    auto r = tile::parse_view(
        text, [this](std::string_view n) { return find_tensor(n); }, expr_names());
    if (!r) {
      add_inner(with_suggestions(r.diagnostics, text), at);
      return std::nullopt;
    }
    const tile::View& v = *r;
    const std::string_view name = leading_name(text);
    if (v.tensor->space != tile::Space::global) {
      inner_error(DiagId::spec_expect_not_global, at, text, 0, name.size(),
                  squote(name) + " is a shared tensor; expectations are about global "
                                 "tensors, whose bytes outlive the kernel");
      return std::nullopt;
    }
    for (const tile::ViewStep& step : v.steps) {
      if (const auto* sub = std::get_if<tile::SubStep>(&step)) {
        for (const tile::SubEntry& e : sub->entries) {
          const tile::Expr* leaf = e.is_slice ? nullptr : nonconstant_leaf(*e.index);
          if (!leaf)
            continue;
          const bool inside = leaf->length > 0 && leaf->offset + leaf->length <= text.size();
          inner_error(DiagId::spec_expect_index_not_constant, at, text,
                      inside ? leaf->offset : e.offset, inside ? leaf->length : e.length,
                      "an expectation's indices are constants: it is about the whole "
                      "launch's result, not one thread's, CTA's or iteration's");
          return std::nullopt;
        }
        continue;
      }
      const std::string_view method = std::holds_alternative<tile::RearrangeStep>(step)
                                          ? std::string_view(".rearrange")
                                          : std::string_view(".view");
      const std::size_t where = text.find(method);
      inner_error(DiagId::spec_expect_view_step, at, text,
                  where == std::string_view::npos ? 0 : where,
                  where == std::string_view::npos ? name.size() : method.size(),
                  "expectations take .sub[...] views only (the checker replays them "
                  "element by element on its own); write the region with .sub[...]");
      return std::nullopt;
    }
    return tile::Located<tile::View>{std::move(*r), std::string(text), at.pos};
  }
  // ================================================================ end of [[expect]]

  std::string_view text_;
  std::string file_;
  std::vector<std::string_view> lines_;
  Diagnostics diags_;
  std::unique_ptr<tile::Kernel> kernel_ = std::make_unique<tile::Kernel>();
  std::set<std::string, std::less<>> param_names_;     // every [param.*] key, valid or not
  std::vector<OpenLoop> loops_;                        // the `for`s open at the current op
  std::map<std::string, bool, std::less<>> param_u64_; // accepted parameters: is it u64?
  std::set<std::string, std::less<>> broken_tensors_;  // declared but rejected
  std::int64_t shared_bytes_ = 0;                      // shared tensors so far, aligned
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
