// The simulator's PTX parser: .param, .reg and .shared declarations, and PTX types.

#include "driver/sim/parser_impl.hpp"
#include "driver/sim/simulator.hpp"
#include "emitter/ptx/types.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ptxgen::sim::detail {

namespace {

/// Declares `name` in one of a scope's lists, `scope`, remembering what it shadows in `all`
/// (the scope's `}` restores it); false, with nothing changed, when the scope declares
/// `name` already.
template <class Info>
bool shadow(std::vector<std::pair<std::string, std::optional<Info>>>& scope,
            const std::unordered_map<std::string, Info>& all, const std::string& name) {
  for (const auto& [n, old] : scope)
    if (n == name)
      return false;
  auto it = all.find(name);
  scope.emplace_back(name, it == all.end() ? std::nullopt : std::optional<Info>(it->second));
  return true;
}

} // namespace

std::optional<TypeInfo> parse_type(std::string_view s) {
  // The spelling is the emitter's (one table of PTX type names); what each type means to
  // the simulator's arithmetic is decided here.
  const std::optional<ptx::ScalarType> t = ptx::parse_scalar_type(s);
  if (!t)
    return std::nullopt;
  TypeInfo info;
  info.t.bits = static_cast<std::uint8_t>(ptx::bit_width(*t));
  switch (ptx::family(*t)) {
  case ptx::TypeFamily::pred:
    info.is_pred = true;
    break;
  case ptx::TypeFamily::bits:
    info.is_bits = true;
    break;
  case ptx::TypeFamily::unsigned_:
    break;
  case ptx::TypeFamily::signed_:
    info.t.is_signed = true;
    break;
  case ptx::TypeFamily::float_:
    info.is_float = true; // its ir::Num is set by numeric_type (qualifiers.cpp)
    break;
  }
  return info;
}

std::uint32_t Parser::align_value() {
  const Token& at = peek();
  const std::int64_t a = expect_int("the alignment");
  if (a <= 0 || (a & (a - 1)) != 0 || a > (std::int64_t{1} << 31))
    fail(DiagId::sim_declaration, at, ".align must be a power of two");
  return static_cast<std::uint32_t>(a);
}

ArrayExtent Parser::optional_extent(const Token& name, std::int64_t max, const char* message) {
  ArrayExtent x;
  if (!accept("["))
    return x;
  if (accept("]")) {
    x.unsized = true;
    return x;
  }
  const std::int64_t n = expect_int("the array length");
  if (n <= 0 || n > max)
    fail(DiagId::sim_declaration, name, message);
  x.count = static_cast<std::uint64_t>(n);
  expect("]", "to close the array length");
  return x;
}

std::uint32_t Parser::optional_align() {
  return accept(".align") ? align_value() : 0;
}

TypeInfo Parser::declared_type(std::string_view what, std::string_view example) {
  const Token& ty = expect_ident(what);
  auto t = ty.text.starts_with(".") ? parse_type(ty.text.substr(1)) : std::nullopt;
  if (!t || t->is_pred)
    fail(DiagId::sim_declaration, ty,
         "expected " + std::string(what) + " like " + std::string(example) + ", found `" +
             std::string(ty.text) + "`");
  return *t;
}

ir::Param Parser::param_decl() {
  expect(".param", "to start a parameter");
  ir::Param p;
  std::uint32_t align = optional_align();
  const Token& ty = peek();
  const TypeInfo t = declared_type("a parameter type", ".u64 or .u32");
  p.type = std::string(ty.text);
  // `.ptr {.global|.shared|.const|.local} {.align N}`: what the pointer points to.
  while (peek().kind == Tok::ident && peek().text.starts_with(".")) {
    const Token& a = next();
    if (a.text == ".ptr" && !p.is_ptr) {
      p.is_ptr = true;
    } else if (p.is_ptr && (a.text == ".global" || a.text == ".shared")) {
      p.ptr_space = a.text == ".global" ? ir::Space::global : ir::Space::shared;
    } else if (p.is_ptr && (a.text == ".const" || a.text == ".local")) {
      p.ptr_space = ir::Space::generic; // not modelled apart: a pointer all the same
    } else if (a.text == ".align") {
      (p.is_ptr ? p.ptr_align : align) = align_value();
    } else {
      fail(DiagId::sim_declaration, a,
           "unexpected parameter attribute `" + std::string(a.text) + "`");
    }
  }
  const Token& nm = expect_ident("the parameter name");
  p.name = std::string(nm.text);
  std::uint64_t elem = t.t.bits / 8, count = 1;
  if (is("[")) {
    next();
    std::int64_t n = expect_int("the array length");
    if (n <= 0 || n > 65536)
      fail(DiagId::sim_declaration, nm, "the array length must be in 1..65536");
    count = static_cast<std::uint64_t>(n);
    expect("]", "to close the array length");
  }
  p.size = static_cast<std::uint32_t>(elem * count);
  p.align = align != 0 ? align : static_cast<std::uint32_t>(elem);
  return p;
}

std::uint32_t Parser::frame_place(ir::Entry& e, const ir::Param& p) {
  const std::uint32_t a = std::max<std::uint32_t>(p.align, 1);
  const std::uint32_t offset = (e.frame_bytes + a - 1) / a * a;
  e.frame_bytes = offset + p.size;
  return offset;
}

void Parser::param(ir::Entry& e) {
  const Token& first = peek();
  ir::Param p = param_decl();
  for (const auto& q : e.params) {
    if (q.name == p.name)
      fail(DiagId::sim_redeclared, first, "parameter `" + p.name + "` is declared twice");
  }
  if (e.is_func) {
    p.offset = frame_place(e, p);
  } else {
    // an array (a tensor map: `.param .align 128 .b8 p[128]`) at its declared alignment
    const std::uint32_t a = std::max<std::uint32_t>(p.align, 1);
    e.param_bytes = (e.param_bytes + a - 1) / a * a;
    p.offset = e.param_bytes;
    e.param_bytes += p.size;
  }
  e.params.push_back(std::move(p));
}

void Parser::local_param(ir::Entry& e) {
  const Token& first = peek();
  ir::Param p = param_decl();
  expect(";", "after the parameter declaration");
  p.offset = frame_place(e, p);
  if (!shadow(scopes_.back().locals, locals_, p.name))
    fail(DiagId::sim_redeclared, first, "`.param " + p.name + "` is declared twice");
  locals_[p.name] = p;
}

void Parser::local_decl(ir::Entry& e) {
  next(); // .local
  const std::uint32_t align = optional_align();
  const TypeInfo t = declared_type("an element type", ".b8");
  const Token& nm = expect_ident("the local array name");
  std::uint64_t count = 1;
  if (accept("[")) {
    std::int64_t n = expect_int("the array length");
    if (n <= 0 || n > (1 << 20))
      fail(DiagId::sim_declaration, nm, "the local array length must be in 1..1048576");
    count = static_cast<std::uint64_t>(n);
    expect("]", "to close the array length");
  }
  expect(";", "after the local declaration");
  for (const auto& q : e.local) {
    if (q.name == nm.text)
      fail(DiagId::sim_redeclared, nm, "local array `" + q.name + "` is declared twice");
  }
  ir::Param bytes; // placed in the frame like a parameter
  bytes.size = static_cast<std::uint32_t>(t.t.bits / 8 * count);
  bytes.align = align != 0 ? align : t.t.bits / 8;
  ir::SharedArray a;
  a.name = std::string(nm.text);
  a.bytes = bytes.size;
  a.align = bytes.align;
  a.offset = frame_place(e, bytes);
  e.local.push_back(std::move(a));
}

void Parser::open_scope() {
  Scope sc;
  sc.id = static_cast<std::uint32_t>(scope_parents_.size());
  scope_parents_.push_back(scopes_.empty() ? sc.id : scopes_.back().id);
  scopes_.push_back(std::move(sc));
}

/// Restores what the closing scope's declarations shadowed, latest first.
void Parser::close_scope() {
  if (scopes_.empty())
    return;
  Scope& sc = scopes_.back();
  for (auto it = sc.regs.rbegin(); it != sc.regs.rend(); ++it) {
    if (it->second)
      regs_[it->first] = *it->second;
    else
      regs_.erase(it->first);
  }
  for (auto it = sc.locals.rbegin(); it != sc.locals.rend(); ++it) {
    if (it->second)
      locals_[it->first] = *it->second;
    else
      locals_.erase(it->first);
  }
  for (auto it = sc.families.rbegin(); it != sc.families.rend(); ++it) {
    if (it->second)
      families_[it->first] = *it->second;
    else
      families_.erase(it->first);
  }
  scopes_.pop_back();
}

void Parser::reg_decl(ir::Entry& e) {
  next(); // .reg
  const Token& ty = expect_ident("the register type");
  if (ty.text.starts_with(".v"))
    fail(DiagId::sim_unsupported_construct, ty, "vector registers are not simulated");
  // The packed and bfloat types (`.f16x2`, `.bf16`) are registers of their width too.
  auto t = ty.text.starts_with(".") ? numeric_type(ty.text.substr(1)) : std::nullopt;
  if (!t && ty.text == ".b128")
    fail(DiagId::sim_unsupported_construct, ty, "128-bit registers are not simulated");
  if (!t)
    fail(DiagId::sim_declaration, ty,
         "expected a register type like .b32, found `" + std::string(ty.text) + "`");
  std::uint8_t bits = t->t.bits;
  do {
    // Inline asm scopes declare names without `%` (`.reg .pred p;`).
    const Token& nm = expect_ident("a register name");
    if (nm.text.starts_with("."))
      fail(DiagId::sim_declaration, nm, "`" + std::string(nm.text) + "` is not a register name");
    std::string name(nm.text);
    if (accept("<")) {
      std::int64_t n = expect_int("the register count");
      expect(">", "to close the register count");
      if (n < 0 || n > 1'000'000)
        fail(DiagId::sim_declaration, nm, "register count out of range");
      if (scopes_.empty())
        open_scope();
      if (!shadow(scopes_.back().families, families_, name))
        fail(DiagId::sim_redeclared, nm, "registers `" + name + "<N>` are declared twice");
      Family f{static_cast<std::uint32_t>(e.reg_mask.size()), static_cast<std::uint32_t>(n), bits};
      families_[name] = f;
      for (std::int64_t k = 0; k < n; ++k)
        add_reg(e, name + std::to_string(k), bits);
    } else {
      // A name is declared once per scope; an inner scope (or a sibling) may
      // declare it again, shadowing the outer one until its `}`.
      if (scopes_.empty())
        open_scope();
      if (!shadow(scopes_.back().regs, regs_, name))
        fail(DiagId::sim_redeclared, nm, "register `" + name + "` is declared twice");
      regs_[name] = RegInfo{add_reg(e, name, bits), bits};
    }
  } while (accept(","));
  expect(";", "after the register declaration");
}

std::uint32_t Parser::add_reg(ir::Entry& e, std::string name, std::uint8_t bits) {
  auto index = static_cast<std::uint32_t>(e.reg_mask.size());
  e.reg_mask.push_back(bits >= 64 ? ~0ull : ((1ull << bits) - 1));
  e.reg_names.push_back(std::move(name));
  return index;
}

std::optional<RegInfo> Parser::find_reg(std::string_view name) const {
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

void Parser::shared_decl(ir::Entry& e, bool is_extern) {
  next(); // .shared
  std::uint64_t align = optional_align();
  const TypeInfo t = declared_type("an element type", ".b8");
  const Token& nm = expect_ident("the shared array name");
  std::uint64_t elem = t.t.bits / 8;
  const auto [count, unsized] = optional_extent(nm, std::numeric_limits<std::int64_t>::max(),
                                                "shared array length must be positive");
  expect(";", "after the shared declaration");
  // ptxas compiles a whole program: a sized `.extern .shared` array resolves to nothing, and it
  // drops the qualifier ("ignoring extern qualifier"), making it a static array of that size
  // (XLA's test copy of a Triton TMA kernel declares `global_smem[24600]` so).
  if (is_extern && !unsized)
    is_extern = false;
  if (unsized && !is_extern)
    fail(DiagId::sim_declaration, nm,
         "an unsized shared array `" + std::string(nm.text) + "[]` must be declared `.extern`");
  if (align == 0)
    align = elem;
  if (e.has_extern_shared && !is_extern) {
    // nvcc declares `.extern .shared` at module scope and the static arrays in
    // the entry: the static ones come first, the dynamic bytes after them all.
    if (!e.ops.empty())
      fail(DiagId::sim_unsupported_construct, nm,
           "a static shared array declared after instructions that use the `.extern .shared` "
           "one is not simulated");
    std::uint64_t end = 0, ext_align = 1;
    for (const auto& q : e.shared) {
      if (q.name == std::string_view(nm.text))
        fail(DiagId::sim_redeclared, nm, "shared array `" + q.name + "` is declared twice");
      if (q.is_extern)
        ext_align = std::max(ext_align, q.align);
      else
        end = std::max(end, q.offset + q.bytes);
    }
    ir::SharedArray a;
    a.name = std::string(nm.text);
    a.align = align;
    a.bytes = elem * count;
    a.offset = (end + align - 1) / align * align;
    const std::uint64_t dynamic = (a.offset + a.bytes + ext_align - 1) / ext_align * ext_align;
    for (auto& q : e.shared) {
      if (q.is_extern)
        q.offset = dynamic;
    }
    auto first_extern = std::find_if(e.shared.begin(), e.shared.end(),
                                     [](const ir::SharedArray& q) { return q.is_extern; });
    e.shared.insert(first_extern, std::move(a));
    e.shared_bytes = dynamic;
    return;
  }
  if (e.has_extern_shared) {
    // Every `.extern .shared` array names the same dynamic bytes.
    const ir::SharedArray& first = e.shared.back();
    if (first.offset % align != 0)
      fail(DiagId::sim_unsupported_construct, nm,
           "this `.extern .shared` array needs a larger alignment than the first one");
    ir::SharedArray a = first;
    a.name = std::string(nm.text);
    a.align = align;
    for (const auto& q : e.shared) {
      if (q.name == a.name)
        fail(DiagId::sim_redeclared, nm, "shared array `" + a.name + "` is declared twice");
    }
    e.shared.push_back(std::move(a));
    return;
  }
  ir::SharedArray a;
  a.name = std::string(nm.text);
  a.align = align;
  a.bytes = is_extern ? 0 : elem * count;
  a.is_extern = is_extern;
  a.offset = (e.shared_bytes + align - 1) / align * align;
  for (const auto& q : e.shared) {
    if (q.name == a.name)
      fail(DiagId::sim_redeclared, nm, "shared array `" + a.name + "` is declared twice");
  }
  e.shared_bytes = a.offset + a.bytes;
  e.has_extern_shared = is_extern;
  e.shared.push_back(std::move(a));
}

} // namespace ptxgen::sim::detail

namespace ptxgen::sim::detail {

std::optional<std::uint64_t> literal_bits(std::string_view text, bool minus, const TypeInfo& t) {
  const bool float_bits = text.size() > 2 && text[0] == '0' &&
                          (text[1] == 'f' || text[1] == 'F' || text[1] == 'd' || text[1] == 'D');
  if (!t.is_float || t.t.bits == 16) {
    // integers, and the raw bits of a 0f/0d literal or of a 16-bit float written in hex
    auto v = float_bits ? parse_int("0x" + std::string(text.substr(2))) : parse_int(text);
    if (!v)
      return std::nullopt;
    return static_cast<std::uint64_t>(minus ? negate_mod64(*v) : *v);
  }
  std::optional<double> d = parse_float(text);
  if (!d) {
    if (auto v = parse_int(text))
      d = static_cast<double>(*v);
    else
      return std::nullopt;
  }
  const double x = minus ? -*d : *d;
  if (t.t.bits == 64) {
    std::uint64_t b = 0;
    std::memcpy(&b, &x, sizeof b);
    return b;
  }
  const auto f = static_cast<float>(x);
  std::uint32_t b = 0;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

/// One initialiser: a literal, or a `{...}` list of them (nested lists flattened, as PTX
/// lays out arrays of arrays and vectors). A symbol's address (`sym`, `generic(sym)`,
/// `sym+N`) sets `broken`.
void Parser::initializer(const TypeInfo& t, std::vector<std::uint64_t>& values, std::string& broken,
                         const std::string& name) {
  if (accept("{")) {
    if (!is("}")) {
      do {
        initializer(t, values, broken, name);
      } while (accept(","));
    }
    expect("}", "to close the initialiser");
    return;
  }
  const bool minus = accept("-");
  const Token& v = peek();
  const std::optional<std::uint64_t> bits =
      v.kind == Tok::number ? literal_bits(v.text, minus, t) : std::nullopt;
  if (!bits && broken.empty())
    broken = "the initialiser of `" + name + "` (`" + std::string(v.text) +
             "`) is not simulated: only integer and float literals";
  // the rest of the element (a symbol's address: generic(sym), sym+N)
  int depth = 0;
  while (peek().kind != Tok::end && !(depth == 0 && (is(",") || is("}") || is(";")))) {
    depth += is("(") ? 1 : is(")") ? -1 : 0;
    next();
  }
  values.push_back(bits.value_or(0));
}

/// Past the `;` of a declaration, `{...}` initialisers included.
void Parser::skip_declaration() {
  int depth = 0;
  while (peek().kind != Tok::end) {
    if (is("{"))
      ++depth;
    if (is("}") && --depth < 0)
      return; // the enclosing block's: not this declaration's
    if (depth == 0 && accept(";"))
      return;
    next();
  }
}

/// `.global|.const {.align N} {.vN} .type name{[N]...}{ = value | = {v, ...}};` at module
/// scope or, with `function` set, inside that function (visible there only). The values
/// are integer and float literals; a symbol's address in an initialiser marks the variable
/// broken (an instruction that uses it does not run).
void Parser::data_decl(ir::Module& m, const std::string& function) {
  next(); // .global / .const
  std::uint64_t align = optional_align();
  std::uint64_t lanes = 1;
  if (is(".v2") || is(".v4") || is(".v8"))
    lanes = static_cast<std::uint64_t>(next().text[2] - '0');
  if (align == 0)
    align = optional_align();
  const TypeInfo t = declared_type("a variable type", ".b8 or .u32");
  const Token& nm = expect_ident("the variable name");
  const std::uint64_t elem = t.t.bits / 8;
  std::uint64_t count = lanes;
  bool unsized = false;
  while (is("[")) { // name[N][M]...: arrays of arrays
    const auto x =
        optional_extent(nm, std::int64_t{1} << 24, "the array length must be in 1..16777216");
    unsized = unsized || x.unsized;
    count *= x.count;
    if (count > (std::uint64_t{1} << 24))
      fail(DiagId::sim_declaration, nm, "the array has more than 16777216 elements");
  }
  ir::Data d;
  d.name = std::string(nm.text);
  d.function = function;
  std::vector<std::uint64_t> values;
  if (accept("="))
    initializer(t, values, d.broken, d.name);
  expect(";", "after the variable declaration");
  if (unsized)
    count = std::max<std::uint64_t>((values.size() + lanes - 1) / lanes * lanes, 1);
  d.init.assign(elem * count, 0);
  for (std::size_t k = 0; k < values.size() && k < count; ++k) {
    for (std::uint64_t b = 0; b < elem; ++b)
      d.init[k * elem + b] = static_cast<std::uint8_t>(values[k] >> (8 * b));
  }
  if (align == 0)
    align = elem * lanes;
  std::uint64_t next_free = module_data_base;
  if (!m.data.empty())
    next_free = m.data.back().address + std::max<std::size_t>(m.data.back().init.size(), 1);
  d.address = (next_free + align - 1) / align * align;
  for (const auto& q : m.data) {
    if (q.name == d.name && q.function == d.function) // ptxas refuses the file; the first stays
      return;
  }
  m.data.push_back(std::move(d));
}

} // namespace ptxgen::sim::detail
