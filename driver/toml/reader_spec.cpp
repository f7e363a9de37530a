// The TOML reader: the document, diagnostics, field access, [kernel], [param.*] and
// [tensor.*].

#include "driver/toml/reader_spec.hpp"

#include "driver/toml/reader.hpp"

#include <string>
#include <string_view>
#include <utility>

namespace ptxgen::driver::toml_reader {

namespace {

/// The declaration [SECTION.NAME] starts with (its name and where the name is), and the
/// table's name for diagnostics.
template <class Decl>
std::pair<Decl, std::string> declared(const toml::key& k, const build::At& name_at,
                                      std::string_view section) {
  Decl d;
  d.name = std::string(k.str());
  d.name_at = name_at;
  return {std::move(d), "[" + std::string(section) + "." + std::string(k.str()) + "]"};
}

} // namespace

/// The 1-based column (in characters, as toml++ counts) of the first
/// non-blank character of 1-based `line`.
toml::source_index Loader::first_non_blank_column(toml::source_index line) const {
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
bool Loader::conflicts_with_rest(toml::source_index line) const {
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
bool Loader::refuse_deep_keys() {
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

Result<std::unique_ptr<tile::Kernel>> Loader::run() {
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

  check_keys(root, kTopKeys, {});
  load_kernel(root);
  if (const toml::node* n = root.get("param"))
    load_section(*n, "param", "parameters", &Loader::load_param);
  if (const toml::node* n = root.get("tensor"))
    load_section(*n, "tensor", "tensors", &Loader::load_tensor);
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

/// toml++ counts columns in code points; diagnostics count bytes.
std::uint32_t Loader::byte_column(const toml::source_position& p) const {
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

Diagnostic Loader::make_diag(Severity s, DiagId id, const toml::source_position& p,
                             std::uint32_t length, std::string message) const {
  Diagnostic d(id, std::move(message), s);
  d.file = file_;
  d.line = p.line;
  d.column = byte_column(p);
  d.length = std::max<std::uint32_t>(length, 1);
  d.source_line = line_text(p.line);
  return d;
}

/// Diagnostics from a parser of a string value (line 1, columns within the string).
void Loader::add_inner(const Diagnostics& inner, const StringLoc& loc) {
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

Result<std::unique_ptr<tile::Kernel>> Loader::finish() {
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

StringLoc Loader::locate_string(const toml::node& n) const {
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

/// Reports every key of `t` not in `allowed` (`where` empty: the top level).
void Loader::check_keys(const toml::table& t, std::span<const std::string_view> allowed,
                        const std::string& where) {
  for (auto [k, v] : in_file_order(t)) {
    (void)v;
    if (std::find(allowed.begin(), allowed.end(), k->str()) == allowed.end())
      b_.unknown_key(k->str(), at(k->source()), allowed, where);
  }
}

void Loader::load_kernel(const toml::table& root) {
  const toml::node* n = root.get("kernel");
  if (!n) {
    b_.missing(build::At{pos_of({1, 1}), 1}, "the spec has no [kernel] table (name, grid, block)");
    return;
  }
  const toml::table* t = n->as_table();
  if (!t) {
    type_error(*n, "'kernel' must be a table ([kernel] with name, grid, block); got " +
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
  if (const toml::node* v = t->get("expect"))
    if (auto s = get_string(*v, "expect", where, "the string \"fault\""))
      b_.expect_run(*s, at(v->source()));
}

/// [kernel]'s `abi = [...]` (the PTX parameter order: every global tensor and
/// scalar parameter once), `dynamic_shared = N` (a foreign kernel's dynamic
/// shared bytes) and `ctas_per_sm = N` (the residency); after the tensors and parameters
/// are loaded.
void Loader::load_binding(const toml::table& root) {
  const toml::table* t = root.get("kernel") ? root.get("kernel")->as_table() : nullptr;
  if (!t)
    return;
  if (const toml::node* v = t->get("dynamic_shared"))
    if (auto n = get_int(*v, "dynamic_shared", "[kernel]", "an integer (bytes)"))
      b_.dynamic_shared(*n, at(v->source()));
  if (const toml::node* v = t->get("ctas_per_sm"))
    if (auto n = get_int(*v, "ctas_per_sm", "[kernel]", "an integer (CTAs per SM)"))
      b_.ctas_per_sm(*n, at(v->source()));
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
std::optional<tile::Dim3> Loader::get_dims(const toml::node& v, build::LaunchPart part) {
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

void Loader::load_section(const toml::node& n, std::string_view section, std::string_view what,
                          void (Loader::*load)(const toml::key&, const toml::node&)) {
  const toml::table* all = n.as_table();
  if (!all) {
    type_error(n, "'" + std::string(section) + "' must be a table of " + std::string(what) + " ([" +
                      std::string(section) + ".NAME]); got " + std::string(type_phrase(n.type())));
    return;
  }
  for (auto [k, v] : in_file_order(*all))
    (this->*load)(*k, *v);
}

/// A parameter's dtype: u64 or not; nullopt after an error.
std::optional<bool> Loader::param_is_u64(const toml::table& t, const std::string& where) {
  const toml::node* v = nullptr;
  auto s = required_string(t, "dtype", where, "\"u32\" or \"u64\"", "\"u32\" or \"u64\"", v);
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

void Loader::load_param(const toml::key& k, const toml::node& n) {
  auto [d, where] = declared<build::ParamDecl>(k, at(k.source()), "param");
  const toml::table* t = n.as_table();
  if (!t) {
    type_error(n, "parameter " + squote(k.str()) + " must be a table with dtype and value; got " +
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

/// The tensor's dtype; nullopt (after an error) when it is missing or unknown.
std::optional<tile::DType> Loader::tensor_dtype(const toml::table& t, const std::string& where) {
  const toml::node* v = nullptr;
  auto s = required_string(t, "dtype", where, "an element type such as \"float16\"",
                           "a dtype name such as \"float16\"", v);
  if (!s)
    return std::nullopt;
  return b_.dtype(*s, at(v->source()));
}

/// The tensor's shape as written (its integer dimensions); `complete` false when a
/// dimension is not an integer (reported).
std::optional<std::vector<build::Dim>>
Loader::tensor_shape(const toml::table& t, const std::string& where, bool& complete) {
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
    type_error(e, "a shape dimension must be a positive integer; got " +
                      std::string(type_phrase(e.type())));
    complete = false;
  }
  return shape;
}

/// The tensor's space; nullopt (after an error) when it is missing or unknown.
std::optional<tile::Space> Loader::tensor_space(const toml::table& t, const std::string& where) {
  const toml::node* v = nullptr;
  auto s =
      required_string(t, "space", where, "\"global\" or \"shared\"", "\"global\" or \"shared\"", v);
  if (!s)
    return std::nullopt;
  if (*s == "global")
    return tile::Space::global;
  if (*s == "shared")
    return tile::Space::shared;
  constexpr std::array<std::string_view, 2> spaces = {"global", "shared"};
  error_at(DiagId::spec_unknown_space, v->source(),
           "space must be \"global\" or \"shared\"; got " + squote(*s) + did_you_mean(*s, spaces));
  return std::nullopt;
}

void Loader::load_tensor(const toml::key& k, const toml::node& n) {
  auto [d, where] = declared<build::TensorDecl>(k, at(k.source()), "tensor");
  const toml::table* t = n.as_table();
  if (!t) {
    type_error(n, "tensor " + squote(k.str()) +
                      " must be a table with space, shape and dtype; got " + type_phrase(n.type()));
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
  if (const toml::node* v = t->get("swizzle")) {
    d.swizzle_at = at(v->source());
    d.swizzle = swizzle_word(*v, where);
    d.syntax_ok = d.swizzle.has_value() && d.syntax_ok;
  }
  if (const toml::node* v = t->get("map"))
    d.map = load_tensor_map(*v, d.name);
  if (const toml::node* v = t->get("init")) {
    d.init_at = at(key_of(*t, "init")->source());
    // Shared memory has no init (the builder says so): nothing to read.
    if (!shared)
      if (auto s = get_string(*v, "init", where,
                              "\"zero\", \"arange % M\", \"random(SEED)\" or "
                              "\"constant(V)\""))
        d.init = b_.init(text_of(*v, *s));
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

} // namespace ptxgen::driver::toml_reader

namespace ptxgen::driver {

using toml_reader::Loader;

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
