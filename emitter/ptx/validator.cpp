#include "emitter/ptx/validator.hpp"

#include "emitter/ptx/feature.hpp"
#include "emitter/support/overloaded.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <variant>

namespace ptxgen::ptx {

namespace {

std::string class_name(RegClass c) {
  return "." + std::string(name(declared_type(c)));
}

std::string reg_desc(Register r) {
  return to_string(r) + " (" + class_name(r.cls) + ")";
}

/// Whether register r may hold a value of type t in a plain instruction: the register
/// family must match the type's width (bytes live in 16- or 32-bit registers; an f32
/// value may live in a .b32 register).
bool fits(Register r, ScalarType t) {
  if (t == ScalarType::pred)
    return r.cls == RegClass::pred;
  switch (r.cls) {
  case RegClass::pred:
    return false;
  case RegClass::b16:
    return bit_width(t) == 16 || bit_width(t) == 8;
  case RegClass::b32:
    return bit_width(t) == 32 || bit_width(t) == 8;
  case RegClass::b64:
    return bit_width(t) == 64;
  case RegClass::f32:
    return t == ScalarType::f32 || t == ScalarType::b32;
  }
  return false;
}

bool is_integer(ScalarType t) {
  return t != ScalarType::pred && t != ScalarType::f16 && t != ScalarType::f32 &&
         t != ScalarType::f64;
}
bool is_bits(ScalarType t) {
  return t == ScalarType::b8 || t == ScalarType::b16 || t == ScalarType::b32 ||
         t == ScalarType::b64;
}
bool is_signed(ScalarType t) {
  return t == ScalarType::s8 || t == ScalarType::s16 || t == ScalarType::s32 ||
         t == ScalarType::s64;
}

class Checker {
public:
  Checker(Target target, PtxVersion version) : target_(target), version_(version) {}

  Diagnostics take() { return std::move(diags_); }

  void error(std::string m) { diags_.error(std::move(m)); }

  void features(const Instruction& i, std::string_view what) {
    for (Feature f : features_used(i)) {
      const FeatureInfo& fi = info(f);
      if (target_.sm < fi.min_sm) {
        error(std::string(what) + " requires sm_" + std::to_string(fi.min_sm) +
              " or later; the target is " + target_.str());
        continue;
      }
      if (version_ < fi.min_version) {
        std::string m = std::string(fi.name) + " requires PTX ISA " + fi.min_version.str() +
                        " or later; the .version is " + version_.str();
        if (f == Feature::shared_cta) {
          if (std::holds_alternative<CpAsync>(i.body))
            m += " (ptxgen follows the PTX ISA manual here; ptxas 13.0 accepts it on cp.async "
                 "from 7.0): write `.shared` instead, or raise the .version";
          else
            m += ": write `.shared` instead, or raise the .version";
        }
        error(std::move(m));
      }
    }
  }

  void guard(const Instruction& i) {
    if (i.guard && i.guard->predicate.cls != RegClass::pred)
      error("a guard must be a predicate register; " + reg_desc(i.guard->predicate) + " is not");
  }

  void operand(const Operand& o, ScalarType t, std::string_view role) {
    if (const auto* r = std::get_if<Register>(&o)) {
      if (!fits(*r, t))
        error(std::string(role) + ": " + reg_desc(*r) + " cannot hold a ." + std::string(name(t)) +
              " value");
    } else if (std::holds_alternative<SpecialRegister>(o)) {
      // ptxas: "Special register argument not allowed for instruction 'add'".
      if (role.rfind("mov", 0) != 0 && role.rfind("cvt", 0) != 0)
        error(std::string(role) + ": ptxas allows special registers only in mov and cvt; "
                                  "copy it into a register first");
      else if (bit_width(t) != 32 || !is_integer(t))
        error(std::string(role) + ": special registers are 32-bit; the type is ." +
              std::string(name(t)));
    } else if (std::holds_alternative<Symbol>(o)) {
      if (t != ScalarType::u32 && t != ScalarType::u64 && t != ScalarType::b32 &&
          t != ScalarType::b64 && t != ScalarType::s32 && t != ScalarType::s64)
        error(std::string(role) +
              ": a symbol's address needs a 32- or 64-bit integer type; "
              "the type is ." +
              std::string(name(t)));
    } else if (t == ScalarType::pred) {
      // ptxas takes `mov.pred %p, 0|1`: the one place a predicate may be a constant.
      const auto* imm = std::get_if<Immediate>(&o);
      bool constant_mov = role == "mov source" && imm && (imm->value == 0 || imm->value == 1);
      if (!constant_mov)
        error(std::string(role) + ": a predicate operand must be a register" +
              (role == "mov source" ? " or the constant 0 or 1" : ""));
    }
  }

  void dst(Register r, ScalarType t, std::string_view role = "destination") {
    if (!fits(r, t))
      error(std::string(role) + ": " + reg_desc(r) + " cannot hold a ." + std::string(name(t)) +
            " value");
  }

  void address_register(const Address& a, std::string_view role, bool allow32) {
    if (const auto* r = std::get_if<Register>(&a.base)) {
      bool ok = r->cls == RegClass::b64 || (allow32 && r->cls == RegClass::b32);
      if (!ok)
        error(std::string(role) + " address register must be " +
              (allow32 ? "a 32- or 64-bit integer register" : "a 64-bit (.b64) register") + "; " +
              reg_desc(*r) + " is not");
    }
  }

  void cp_async(const CpAsync& c) {
    const char* op = c.opcode.cache_op == CacheOp::ca ? "`.ca`" : "`.cg`";
    if (c.opcode.cache_op == CacheOp::cg && c.cp_size != 16)
      error(std::string(op) + " copies exactly 16 bytes; chunk_bytes is " +
            std::to_string(c.cp_size));
    if (c.opcode.cache_op == CacheOp::ca && c.cp_size != 4 && c.cp_size != 8 && c.cp_size != 16)
      error(std::string(op) + " copies 4, 8 or 16 bytes; chunk_bytes is " +
            std::to_string(c.cp_size));

    // dst: a shared address in a 32- or 64-bit register, or a .shared symbol.
    address_register(c.dst, "cp.async's destination (shared)", true);
    // src: a global address. A 32-bit register would truncate it (ptxas does not check).
    if (std::holds_alternative<Symbol>(c.src.base))
      error("cp.async's source must be a .global address in a 64-bit register; `" +
            std::get<Symbol>(c.src.base).name + "` is not a .global variable");
    else
      address_register(c.src, "cp.async's source (global)", false);

    std::visit(overloaded{
                   [](std::monostate) {},
                   [&](const SrcSize& s) {
                     if (const auto* imm = std::get_if<std::uint32_t>(&s.value)) {
                       if (*imm > c.cp_size)
                         error("src-size immediate must be in 0.." + std::to_string(c.cp_size) +
                               "; it is " + std::to_string(*imm));
                     } else {
                       Register r = std::get<Register>(s.value);
                       if (r.cls != RegClass::b32)
                         error("src-size register must be a 32-bit (.b32/.u32) register; " +
                               reg_desc(r) + " is not");
                     }
                   },
                   [&](const IgnoreSrc& s) {
                     if (s.predicate.cls != RegClass::pred)
                       error("ignore-src must be a predicate register (.pred); " +
                             reg_desc(s.predicate) + " is not");
                   },
               },
               c.zero_fill);

    if (c.opcode.cache_hint && !c.cache_policy)
      error("`.L2::cache_hint` requires a 64-bit cache-policy operand (without it ptxas reads "
            "the last operand as the policy: `16, 8` would be a full copy with policy 8)");
    if (!c.opcode.cache_hint && c.cache_policy)
      error("a cache-policy operand requires `.L2::cache_hint` in the opcode");
    if (c.cache_policy)
      if (const auto* r = std::get_if<Register>(&*c.cache_policy); r && r->cls != RegClass::b64)
        error("the cache-policy operand must be a 64-bit (.b64) register or an immediate; " +
              reg_desc(*r) + " is not");
  }

  void body(const Instruction& i) {
    std::visit(
        overloaded{
            [&](const CpAsync& c) {
              require_sm80("cp.async");
              features(i, "cp.async");
              cp_async(c);
            },
            [&](const CpAsyncCommitGroup&) {
              require_sm80("cp.async.commit_group");
              features(i, "cp.async.commit_group");
            },
            [&](const CpAsyncWaitAll&) {
              require_sm80("cp.async.wait_all");
              features(i, "cp.async.wait_all");
            },
            [&](const CpAsyncWaitGroup& w) {
              require_sm80("cp.async.wait_group");
              features(i, "cp.async.wait_group");
              if (w.n < 0 || w.n > max_wait_group)
                error("cp.async.wait_group N must be in 0.." + std::to_string(max_wait_group) +
                      "; it is " + std::to_string(w.n) +
                      " (ptxgen is stricter than ptxas, which accepts any integer: N counts "
                      "pending groups, so a negative or huge N is a bug)");
            },
            [&](const CpAsyncMbarrierArrive& m) {
              require_sm80("cp.async.mbarrier.arrive");
              features(i, "cp.async.mbarrier.arrive");
              address_register(m.address, "cp.async.mbarrier.arrive's", true);
            },
            [&](const CreatePolicyFractional& p) {
              require_sm80("createpolicy");
              features(i, "createpolicy");
              if (p.dst.cls != RegClass::b64)
                error("createpolicy's destination must be a 64-bit (.b64) register; " +
                      reg_desc(p.dst) + " is not");
              if (p.secondary && *p.secondary != EvictionPriority::evict_first &&
                  *p.secondary != EvictionPriority::evict_unchanged)
                error("createpolicy's secondary priority must be `.L2::evict_first` or "
                      "`.L2::evict_unchanged`; it is `." +
                      std::string(name(*p.secondary)) + "`");
              if (!(p.fraction > 0.0f && p.fraction <= 1.0f))
                error("createpolicy's fraction must be in (0, 1]; it is " +
                      std::to_string(p.fraction));
            },
            [&](const Mov& m) {
              dst(m.dst, m.type);
              operand(m.src, m.type, "mov source");
            },
            [&](const Ld& l) {
              vector_count(l.dst.size(), l.space, "ld");
              for (Register r : l.dst)
                dst(r, l.type, "ld destination");
              address_register(l.address, "ld", l.space != StateSpace::global);
            },
            [&](const St& s) {
              vector_count(s.src.size(), s.space, "st");
              if (s.space == StateSpace::param)
                error("st.param is not used in kernels; store to .global or .shared");
              for (const Operand& o : s.src)
                operand(o, s.type, "st source");
              address_register(s.address, "st", s.space != StateSpace::global);
            },
            [&](const Cvta& c) {
              if (c.space != StateSpace::global && c.space != StateSpace::shared &&
                  c.space != StateSpace::shared_cta && c.space != StateSpace::local)
                error("cvta.to needs .global, .shared or .local; it is ." +
                      std::string(name(c.space)));
              if (c.type != ScalarType::u64 && c.type != ScalarType::u32)
                error("cvta's type must be .u32 or .u64; it is ." + std::string(name(c.type)));
              dst(c.dst, c.type);
              operand(c.src, c.type, "cvta source");
            },
            [&](const Unary& u) {
              if (u.op == UnaryOp::not_ && !(u.type == ScalarType::pred || is_bits(u.type)))
                error("not needs .pred or .bN; the type is ." + std::string(name(u.type)));
              if (u.op == UnaryOp::neg && !is_signed(u.type))
                error("neg needs a signed type; it is ." + std::string(name(u.type)));
              dst(u.dst, u.type);
              operand(u.src, u.type, "operand");
            },
            [&](const Binary& b) { binary(b); },
            [&](const Mad& m) {
              if (!is_integer(m.type) || is_bits(m.type))
                error("mad needs a .uN or .sN type; it is ." + std::string(name(m.type)));
              dst(m.dst, m.wide ? wide(m.type) : m.type);
              operand(m.a, m.type, "mad a");
              operand(m.b, m.type, "mad b");
              operand(m.c, m.wide ? wide(m.type) : m.type, "mad c");
            },
            [&](const Cvt& c) {
              dst(c.dst, c.dst_type);
              operand(c.src, c.src_type, "cvt source");
            },
            [&](const Setp& s) {
              if (s.dst.cls != RegClass::pred)
                error("setp's destination must be a predicate; " + reg_desc(s.dst) + " is not");
              operand(s.a, s.type, "setp a");
              operand(s.b, s.type, "setp b");
            },
            [&](const Selp& s) {
              dst(s.dst, s.type);
              operand(s.a, s.type, "selp a");
              operand(s.b, s.type, "selp b");
              if (s.predicate.cls != RegClass::pred)
                error("selp's selector must be a predicate; " + reg_desc(s.predicate) + " is not");
            },
            [&](const BarSync& b) {
              if (b.barrier > 15)
                error("bar.sync's barrier must be in 0..15; it is " + std::to_string(b.barrier));
            },
            [&](const Ret&) {},
        },
        i.body);
  }

private:
  static ScalarType wide(ScalarType t) {
    switch (t) {
    case ScalarType::u16:
      return ScalarType::u32;
    case ScalarType::s16:
      return ScalarType::s32;
    case ScalarType::u32:
      return ScalarType::u64;
    case ScalarType::s32:
      return ScalarType::s64;
    default:
      return t;
    }
  }

  void binary(const Binary& b) {
    std::string t(name(b.type));
    switch (b.op) {
    case BinaryOp::and_:
    case BinaryOp::or_:
    case BinaryOp::xor_:
      if (b.type != ScalarType::pred && !is_bits(b.type))
        error("and/or/xor need .pred or .bN; the type is ." + t);
      break;
    case BinaryOp::shl:
      if (!is_bits(b.type))
        error("shl needs a .bN type; it is ." + t);
      break;
    case BinaryOp::mul_wide:
      if (bit_width(b.type) != 16 && bit_width(b.type) != 32)
        error("mul.wide needs a 16- or 32-bit source type; it is ." + t);
      [[fallthrough]];
    default:
      if (b.type == ScalarType::pred)
        error("arithmetic on .pred is not allowed");
      break;
    }
    ScalarType dt = b.op == BinaryOp::mul_wide ? wide(b.type) : b.type;
    dst(b.dst, dt);
    operand(b.a, b.type, "first operand");
    // Shift amounts are always .u32.
    bool shift = b.op == BinaryOp::shl || b.op == BinaryOp::shr;
    operand(b.b, shift ? ScalarType::u32 : b.type, "second operand");
  }

  void vector_count(std::size_t n, StateSpace space, std::string_view what) {
    if (n != 1 && n != 2 && n != 4)
      error(std::string(what) + " moves 1, 2 or 4 values (.v2/.v4); it has " + std::to_string(n));
    if (n != 1 && space == StateSpace::param)
      error(std::string(what) + ".param moves one value");
  }

  void require_sm80(std::string_view what) {
    if (target_.sm < 80)
      error(std::string(what) + " requires sm_80 or later; the target is " + target_.str());
  }

  Target target_;
  PtxVersion version_;
  Diagnostics diags_;
};

// Only the first sm_80 message matters per instruction; drop duplicates of the same text.
Diagnostics dedupe(Diagnostics in) {
  Diagnostics out;
  std::set<std::string> seen;
  for (const auto& d : in.items())
    if (seen.insert(d.message).second)
      out.add(d);
  return out;
}

} // namespace

Diagnostics validate(const Instruction& i, Target target, PtxVersion version) {
  Checker c(target, version);
  c.guard(i);
  c.body(i);
  return dedupe(c.take());
}

Diagnostics validate_target_version(Target target, PtxVersion version) {
  Diagnostics d;
  if (!is_known_target(target))
    d.error("ptxas 13.0 does not know the target " + target.str() +
            "; expected e.g. sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120");
  if (!is_known_version(version))
    d.error("PTX ISA " + version.str() +
            " does not exist for ptxas 13.0; expected 7.0-7.8, 8.0-8.8 or 9.0");
  else if (is_known_target(target) && version < min_version_for_target(target))
    d.error(target.str() + " requires PTX ISA " + min_version_for_target(target).str() +
            " or later; the .version is " + version.str());
  return d;
}

PtxVersion required_version(const Module& m) {
  PtxVersion v = min_version_for_target(m.target);
  for (const Entry& e : m.entries)
    for (const Instruction& i : e.body)
      for (Feature f : features_used(i))
        v = std::max(v, info(f).min_version);
  return v;
}

Diagnostics validate(const Module& m) {
  Diagnostics out;
  const PtxVersion version = m.version ? *m.version : required_version(m);
  out.append(validate_target_version(m.target, version));
  if (m.address_size != 64)
    out.error("ptxgen emits 64-bit addressing; .address_size is " + std::to_string(m.address_size));
  std::set<std::string> entry_names;
  for (const Entry& e : m.entries) {
    if (e.name.empty())
      out.error("an entry needs a name");
    else if (!entry_names.insert(e.name).second)
      out.error("entry `" + e.name + "` is defined twice");
    std::set<std::string> params, shared;
    for (const Param& p : e.params)
      if (!params.insert(p.name).second)
        out.error("parameter `" + p.name + "` of `" + e.name + "` is declared twice");
    for (const SharedArray& s : e.shared) {
      if (!shared.insert(s.name).second || params.count(s.name))
        out.error("`" + s.name + "` in `" + e.name + "` is declared twice");
      if (s.align == 0 || (s.align & (s.align - 1)) != 0)
        out.error("shared array `" + s.name + "` needs a power-of-two alignment; it is " +
                  std::to_string(s.align));
      if (s.bytes == 0)
        out.error("shared array `" + s.name + "` has zero bytes");
    }
    auto check_register = [&](Register r, std::size_t index) {
      if (r.id == 0 || r.id > e.registers.count(r.cls))
        out.error("instruction " + std::to_string(index + 1) + " of `" + e.name + "` uses " +
                  to_string(r) + ", which the register file never handed out");
    };
    for (std::size_t k = 0; k < e.body.size(); ++k) {
      const Instruction& i = e.body[k];
      Diagnostics d = validate(i, m.target, version);
      for (const auto& item : d.items()) {
        Diagnostic x = item;
        x.message = "`" + e.name + "` instruction " + std::to_string(k + 1) + ": " + x.message;
        out.add(std::move(x));
      }
      // Symbols must name this entry's parameters (ld.param) or shared arrays.
      auto check_symbol = [&](const Symbol& s, bool shared_only) {
        bool ok = shared.count(s.name) || (!shared_only && params.count(s.name));
        if (!ok)
          out.error("`" + e.name + "` instruction " + std::to_string(k + 1) + ": `" + s.name +
                    "` is not " +
                    (shared_only ? "a shared array"
                                 : "a parameter or shared "
                                   "array") +
                    " of this entry");
      };
      auto visit_operand = [&](const Operand& o) {
        if (const auto* r = std::get_if<Register>(&o))
          check_register(*r, k);
        if (const auto* s = std::get_if<Symbol>(&o))
          check_symbol(*s, false);
      };
      auto visit_address = [&](const Address& a, bool shared_only) {
        if (const auto* r = std::get_if<Register>(&a.base))
          check_register(*r, k);
        else
          check_symbol(std::get<Symbol>(a.base), shared_only);
      };
      if (i.guard)
        check_register(i.guard->predicate, k);
      std::visit(overloaded{
                     [&](const CpAsync& c) {
                       visit_address(c.dst, true);
                       if (std::holds_alternative<Register>(c.src.base))
                         visit_address(c.src, false);
                       if (const auto* s = std::get_if<SrcSize>(&c.zero_fill))
                         if (const auto* r = std::get_if<Register>(&s->value))
                           check_register(*r, k);
                       if (const auto* s = std::get_if<IgnoreSrc>(&c.zero_fill))
                         check_register(s->predicate, k);
                       if (c.cache_policy)
                         if (const auto* r = std::get_if<Register>(&*c.cache_policy))
                           check_register(*r, k);
                     },
                     [&](const CpAsyncMbarrierArrive& mb) { visit_address(mb.address, true); },
                     [&](const CreatePolicyFractional& p) { check_register(p.dst, k); },
                     [&](const Mov& x) {
                       check_register(x.dst, k);
                       visit_operand(x.src);
                     },
                     [&](const Ld& x) {
                       for (Register r : x.dst)
                         check_register(r, k);
                       if (x.space == StateSpace::param) {
                         if (const auto* s = std::get_if<Symbol>(&x.address.base);
                             s && !params.count(s->name))
                           out.error("`" + e.name + "` instruction " + std::to_string(k + 1) +
                                     ": ld.param reads `" + s->name +
                                     "`, which is not a parameter of this entry");
                         else if (!s)
                           visit_address(x.address, false);
                       } else {
                         visit_address(x.address, true);
                       }
                     },
                     [&](const St& x) {
                       visit_address(x.address, true);
                       for (const Operand& o : x.src)
                         visit_operand(o);
                     },
                     [&](const Cvta& x) {
                       check_register(x.dst, k);
                       visit_operand(x.src);
                     },
                     [&](const Unary& x) {
                       check_register(x.dst, k);
                       visit_operand(x.src);
                     },
                     [&](const Binary& x) {
                       check_register(x.dst, k);
                       visit_operand(x.a);
                       visit_operand(x.b);
                     },
                     [&](const Mad& x) {
                       check_register(x.dst, k);
                       visit_operand(x.a);
                       visit_operand(x.b);
                       visit_operand(x.c);
                     },
                     [&](const Cvt& x) {
                       check_register(x.dst, k);
                       visit_operand(x.src);
                     },
                     [&](const Setp& x) {
                       check_register(x.dst, k);
                       visit_operand(x.a);
                       visit_operand(x.b);
                     },
                     [&](const Selp& x) {
                       check_register(x.dst, k);
                       visit_operand(x.a);
                       visit_operand(x.b);
                       check_register(x.predicate, k);
                     },
                     [](const auto&) {},
                 },
                 i.body);
    }
  }
  return out;
}

} // namespace ptxgen::ptx
