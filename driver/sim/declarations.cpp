// The simulator's PTX parser: .param, .reg and .shared declarations, and PTX types.

#include "driver/sim/parser_impl.hpp"

#include <cctype>
#include <charconv>
#include <map>

namespace ptxgen::sim::detail {

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

void Parser::param(ir::Entry& e) {
  expect(".param", "to start a parameter");
  const Token& ty = expect_ident("the parameter type");
  auto t = parse_type(ty.text.substr(ty.text.empty() ? 0 : 1));
  if (ty.text.empty() || ty.text[0] != '.' || !t || t->is_pred)
    fail(DiagId::sim_declaration, ty,
         "expected a parameter type like .u64 or .u32, found `" + std::string(ty.text) + "`");
  // `.ptr.global.align 16` style attributes are hints (kept for binding checks).
  ir::Param p;
  while (peek().kind == Tok::ident && peek().text.starts_with(".")) {
    const Token& a = next();
    if (a.text.starts_with(".ptr")) {
      p.is_ptr = true;
      for (std::string_view space : {".global", ".shared", ".const", ".local"})
        if (a.text.find(space) != std::string_view::npos)
          p.ptr_space = std::string(space);
    }
    if (a.text.starts_with(".align") || a.text.starts_with(".ptr")) {
      if (peek().kind == Tok::number)
        next();
      continue;
    }
    fail(DiagId::sim_declaration, a,
         "unexpected parameter attribute `" + std::string(a.text) + "`");
  }
  const Token& nm = expect_ident("the parameter name");
  if (is("["))
    fail(DiagId::sim_unsupported_construct, peek(),
         "array parameters are not simulated; use .u64 / .u32 scalars");
  p.name = std::string(nm.text);
  p.type = std::string(ty.text);
  p.size = t->t.bits / 8;
  e.param_bytes = (e.param_bytes + p.size - 1) / p.size * p.size;
  p.offset = e.param_bytes;
  e.param_bytes += p.size;
  for (const auto& q : e.params) {
    if (q.name == p.name)
      fail(DiagId::sim_redeclared, nm, "parameter `" + p.name + "` is declared twice");
  }
  e.params.push_back(std::move(p));
}

void Parser::reg_decl(ir::Entry& e) {
  next(); // .reg
  const Token& ty = expect_ident("the register type");
  if (ty.text.starts_with(".v"))
    fail(DiagId::sim_unsupported_construct, ty, "vector registers are not simulated");
  auto t = ty.text.starts_with(".") ? parse_type(ty.text.substr(1)) : std::nullopt;
  if (!t)
    fail(DiagId::sim_declaration, ty,
         "expected a register type like .b32, found `" + std::string(ty.text) + "`");
  std::uint8_t bits = t->t.bits;
  do {
    const Token& nm = expect_ident("a register name");
    if (!nm.text.starts_with("%"))
      fail(DiagId::sim_declaration, nm, "register names start with `%`");
    std::string name(nm.text);
    if (accept("<")) {
      std::int64_t n = expect_int("the register count");
      expect(">", "to close the register count");
      if (n < 0 || n > 1'000'000)
        fail(DiagId::sim_declaration, nm, "register count out of range");
      if (families_.count(name) != 0)
        fail(DiagId::sim_redeclared, nm, "registers `" + name + "<N>` are declared twice");
      Family f{static_cast<std::uint32_t>(e.reg_mask.size()), static_cast<std::uint32_t>(n), bits};
      families_[name] = f;
      for (std::int64_t k = 0; k < n; ++k)
        add_reg(e, name + std::to_string(k), bits);
    } else {
      if (regs_.count(name) != 0)
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
  const Token& kw = next(); // .shared
  std::uint64_t align = 0;
  if (accept(".align")) {
    std::int64_t a = expect_int("the alignment");
    if (a <= 0 || (a & (a - 1)) != 0)
      fail(DiagId::sim_declaration, kw, ".align must be a power of two");
    align = static_cast<std::uint64_t>(a);
  }
  const Token& ty = expect_ident("the element type");
  auto t = ty.text.starts_with(".") ? parse_type(ty.text.substr(1)) : std::nullopt;
  if (!t || t->is_pred)
    fail(DiagId::sim_declaration, ty,
         "expected an element type like .b8, found `" + std::string(ty.text) + "`");
  const Token& nm = expect_ident("the shared array name");
  std::uint64_t elem = t->t.bits / 8;
  std::uint64_t count = 1;
  bool unsized = false;
  if (accept("[")) {
    if (accept("]")) {
      unsized = true;
    } else {
      std::int64_t n = expect_int("the array length");
      if (n <= 0)
        fail(DiagId::sim_declaration, nm, "shared array length must be positive");
      count = static_cast<std::uint64_t>(n);
      expect("]", "to close the array length");
    }
  }
  expect(";", "after the shared declaration");
  if (unsized != is_extern)
    fail(is_extern ? DiagId::sim_unsupported_construct : DiagId::sim_declaration, nm,
         is_extern ? "a sized `.extern .shared` array is not simulated; write `name[]`"
                   : "an unsized shared array `" + std::string(nm.text) +
                         "[]` must be declared `.extern`");
  if (e.has_extern_shared)
    fail(DiagId::sim_unsupported_construct, nm,
         "a shared array after the `.extern .shared` one is not simulated (the dynamic "
         "array must come last)");
  if (align == 0)
    align = elem;
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
