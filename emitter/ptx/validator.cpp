#include "emitter/ptx/validator.hpp"

#include "emitter/ptx/feature.hpp"
#include "emitter/support/overloaded.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <map>
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

std::string type_name(ScalarType t) {
  return "." + std::string(name(t));
}

/// Whether register r may hold a value of type t: the register family must match the
/// type's width (bytes live in 16- or 32-bit registers; an f32 value may live in a .b32
/// register).
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
  unreachable("fits(): not a RegClass value");
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

/// What the instructions of one entry may name: its registers, parameters and shared arrays.
struct EntryScope {
  const Entry& entry;
  std::set<std::string> params;
  std::set<std::string> shared;
  std::set<std::string> labels;
};

/// Checks one instruction: a visitor over its declaration (operand rules, and inside an
/// entry the register and symbol walk), then the kind's semantics().
class Checker {
public:
  /// `target_once`: the targets a feature needs are reported by the module's walk, once per
  /// target for every instruction that needs it (target_below), not here.
  Checker(Target target, PtxVersion version, const EntryScope* scope, bool target_once = false)
      : target_(target), version_(version), scope_(scope), target_once_(target_once) {}

  std::vector<Finding> check(const Instruction& i) {
    current_ = &i;
    reported_sm_ = 0;
    if (i.guard) {
      walk(i.guard->predicate);
      if (i.guard->predicate.cls != RegClass::pred)
        error(DiagId::ptx_register_class,
              "a guard must be a predicate register; " + reg_desc(i.guard->predicate) + " is not");
    }
    describe(i.body, *this);
    std::visit(
        overloaded{
#define PTXGEN_PTX_INSTRUCTION(Kind) [this](const Kind& k) { semantics(k); },
#include "emitter/ptx/instructions.def"
#undef PTXGEN_PTX_INSTRUCTION
        },
        i.body);
    return std::move(findings_);
  }

  // --- the declaration visitor (see instruction.hpp) ---

  void opcode(Mnemonic m) {
    mnemonic_ = spelling(m);
  }
  void qualifier(std::string_view) {}
  void def(Register r, Slot s) {
    register_operand(r, s);
  }
  void defs(std::span<const Register> rs, Slot s) {
    for (Register r : rs)
      register_operand(r, s);
  }
  void reg(Register r, Slot s) {
    register_operand(r, s);
  }
  void negated_reg(Register r, Slot s) {
    register_operand(r, s);
  }
  void use(const Operand& o, Slot s) {
    std::visit(overloaded{
                   [&](const Register& r) { register_operand(r, s); },
                   [&](const Immediate& imm) { immediate_operand(imm, s); },
                   [&](const SpecialRegister&) { special_operand(s); },
                   [&](const Symbol& sym) { symbol_operand(sym, s); },
               },
               o);
  }
  void uses(std::span<const Operand> os, Slot s) {
    for (const Operand& o : os)
      use(o, s);
  }
  void vector(std::span<const Operand> os, Slot s) {
    uses(os, s);
  }
  void address(const Address& a, AddressSlot s) {
    std::visit(overloaded{
                   [&](const Register& r) { address_register(r, s); },
                   [&](const Symbol& sym) { address_symbol(sym, s); },
               },
               a.base);
  }
  void tensor(const std::variant<Register, Symbol>& map, std::span<const Operand> coords,
              Slot map_slot, Slot coord) {
    tensor_map(map, map_slot);
    for (const Operand& c : coords)
      use(c, coord);
  }
  void immediate(std::int64_t) {}
  void float_immediate(float) {}
  void label(const std::string& name) {
    if (scope_ && !scope_->labels.count(name))
      error(DiagId::ptx_undefined_label, std::string(mnemonic_) + " branches to `" + name +
                                             "`, which is not a label of this entry");
  }
  void label_definition(const std::string&) {}
  void sink(Slot) {}
  void missing(std::string_view) {} // semantics() says which rule the AST breaks
  void feature(Feature f);

private:
  void error(DiagId id, std::string message, OpcodePart part = OpcodePart::none) {
    findings_.push_back({Diagnostic(id, std::move(message)), part});
  }

  /// "mov's source"
  std::string what(Role r) const {
    return std::string(mnemonic_) + "'s " + std::string(name(r));
  }

  void walk(Register r) {
    if (scope_ && (r.id == 0 || r.id > scope_->entry.registers.count(r.cls)))
      error(DiagId::ptx_unallocated_register,
            "uses " + to_string(r) + ", which the register file never handed out");
  }

  void walk(const Symbol& s, bool param_ok, bool shared_ok) {
    if (!scope_)
      return;
    if ((param_ok && scope_->params.count(s.name)) || (shared_ok && scope_->shared.count(s.name)))
      return;
    const char* expected = param_ok && shared_ok ? "a parameter or shared array"
                           : param_ok            ? "a parameter"
                                                 : "a shared array";
    error(DiagId::ptx_undeclared_symbol, std::string(mnemonic_) + " names `" + s.name +
                                             "`, which is not " + expected + " of this entry");
  }

  void register_operand(Register r, Slot s) {
    walk(r);
    if (!fits(r, s.type))
      error(DiagId::ptx_register_class,
            what(s.role) + ": " + reg_desc(r) + " cannot hold a " + type_name(s.type) + " value");
  }

  void immediate_operand(const Immediate& imm, Slot s) {
    if (s.type != ScalarType::pred)
      return;
    // ptxas takes `mov.pred %p, 0|1`: the one place a predicate may be a constant.
    const bool constant = allows(s.rules, OperandRule::predicate_constant);
    if (!constant || (imm.value != 0 && imm.value != 1))
      error(DiagId::ptx_predicate_operand, what(s.role) +
                                               ": a predicate operand must be a register" +
                                               (constant ? " or the constant 0 or 1" : ""));
  }

  void special_operand(Slot s) {
    // ptxas: "Special register argument not allowed for instruction 'add'".
    if (!allows(s.rules, OperandRule::special_register))
      error(DiagId::ptx_special_register,
            what(s.role) +
                ": ptxas allows special registers only in mov and cvt; copy it into a register "
                "first");
    else if (bit_width(s.type) != 32 || !is_integer(s.type))
      error(DiagId::ptx_special_register_type,
            what(s.role) + ": special registers are 32-bit; the type is " + type_name(s.type));
  }

  void symbol_operand(const Symbol& sym, Slot s) {
    const ScalarType t = s.type;
    if (t != ScalarType::u32 && t != ScalarType::u64 && t != ScalarType::b32 &&
        t != ScalarType::b64 && t != ScalarType::s32 && t != ScalarType::s64)
      error(DiagId::ptx_symbol_type,
            what(s.role) + ": a symbol's address needs a 32- or 64-bit integer type; the type is " +
                type_name(t));
    walk(sym, true, true);
  }

  void address_register(Register r, AddressSlot s) {
    walk(r);
    const bool wide_ok = s.width == AddressWidth::b32_or_b64;
    if (!(r.cls == RegClass::b64 || (wide_ok && r.cls == RegClass::b32)))
      error(DiagId::ptx_address_register,
            what(s.role) + " register must be " +
                (wide_ok ? "a 32- or 64-bit integer register" : "a 64-bit (.b64) register") + "; " +
                reg_desc(r) + " is not");
  }

  void address_symbol(const Symbol& sym, AddressSlot s) {
    switch (s.symbols) {
    case SymbolScope::none:
      error(DiagId::ptx_address_symbol, what(s.role) +
                                            " must be a .global address in a 64-bit register; `" +
                                            sym.name + "` is not a .global variable");
      return;
    case SymbolScope::shared:
      walk(sym, false, true);
      return;
    case SymbolScope::param:
      walk(sym, true, false);
      return;
    }
  }

  /// The tensor map: its generic address in a 64-bit register (ptxas would also take 32 bits,
  /// which cannot hold a generic address of a 64-bit program, and refuses state-space symbols).
  void tensor_map(const std::variant<Register, Symbol>& map, Slot s) {
    if (const auto* r = std::get_if<Register>(&map)) {
      walk(*r);
      if (r->cls != RegClass::b64)
        error(DiagId::ptx_address_register, what(s.role) +
                                                " must be a generic address in a 64-bit (.b64) "
                                                "register; " +
                                                reg_desc(*r) + " is not");
      return;
    }
    const Symbol& sym = std::get<Symbol>(map);
    walk(sym, true, true);
    error(DiagId::ptx_tensor_map_operand,
          what(s.role) +
              " must be the map's generic address in a 64-bit register (for a "
              "parameter: `mov.b64 %rd, param; cvta.param.u64 %rd, %rd`); `" +
              sym.name + "` is a state-space variable, which ptxas refuses here");
  }

  // --- semantics: the rules about an instruction as a whole, one overload per kind ---

  void semantics(const CpAsync& c);
  void semantics(const CpAsyncCommitGroup&) {}
  void semantics(const CpAsyncWaitGroup& w) {
    wait_group_range(w.n);
  }
  void semantics(const CpAsyncWaitAll&) {}
  void semantics(const CpAsyncMbarrierArrive&) {}
  void semantics(const MbarrierInit& m) {
    // The manual's range for the expected arrival count; ptxas accepts any immediate.
    if (const auto* imm = std::get_if<Immediate>(&m.count);
        imm && (imm->value < 1 || imm->value > max_mbarrier_count))
      error(DiagId::ptx_mbarrier_count_range,
            "mbarrier.init's count must be in 1.." + std::to_string(max_mbarrier_count) +
                "; it is " + std::to_string(imm->value) +
                " (ptxgen follows the PTX ISA manual here; ptxas accepts any immediate)");
  }
  void semantics(const MbarrierArrive&) {}
  void semantics(const MbarrierWait& m) {
    if (const auto* imm = std::get_if<Immediate>(&m.phase);
        imm && m.parity && imm->value != 0 && imm->value != 1)
      error(DiagId::ptx_mbarrier_parity_range, std::string(mnemonic_) +
                                                   ".parity's phase parity must be 0 or 1; it is " +
                                                   std::to_string(imm->value));
  }
  void semantics(const CpAsyncBulkLoad& c) {
    bulk_size(c.size);
    cache_policy_rules(c.cache_hint, c.cache_policy.has_value());
  }
  void semantics(const CpAsyncBulkPeer& c) {
    bulk_size(c.size);
  }
  void semantics(const MbarrierArriveRemote&) {}
  void semantics(const CpAsyncBulkStore& c) {
    bulk_size(c.size);
    cache_policy_rules(c.cache_hint, c.cache_policy.has_value());
  }
  void semantics(const CpReduceAsyncBulk& c) {
    bulk_size(c.size);
    cache_policy_rules(c.cache_hint, c.cache_policy.has_value());
    if (!bulk_red_form(c.op, c.type))
      error(DiagId::ptx_instruction_type, "cp.reduce.async.bulk has no ." +
                                              std::string(name(c.op)) + "." +
                                              std::string(name(c.type)) + " form");
  }
  void semantics(const CpAsyncBulkCommitGroup&) {}
  void semantics(const CpAsyncBulkWaitGroup& w) {
    wait_group_range(w.n);
  }
  void semantics(const CpAsyncBulkPrefetch& p) {
    bulk_size(p.size);
    cache_policy_rules(p.cache_hint, p.cache_policy.has_value());
  }
  void semantics(const CpAsyncBulkTensorLoad& c) {
    coordinate_count(c.rank, c.tensor);
    const std::size_t dims = coordinates(c.rank);
    if (c.im2col_offsets && (dims < 3 || c.im2col_offsets->size() != dims - 2))
      error(DiagId::ptx_tensor_coordinate_count,
            std::string(mnemonic_) + "." + std::string(name(c.rank)) +
                ".im2col takes one offset per spatial dimension (rank 3..5, rank - 2 offsets); "
                "it has " +
                std::to_string(c.im2col_offsets->size()));
    cache_policy_rules(c.cache_hint, c.cache_policy.has_value());
  }
  void semantics(const CpAsyncBulkTensorStore& c) {
    coordinate_count(c.rank, c.tensor);
    cache_policy_rules(c.cache_hint, c.cache_policy.has_value());
  }
  void semantics(const CpReduceAsyncBulkTensor& c) {
    coordinate_count(c.rank, c.tensor);
    cache_policy_rules(c.cache_hint, c.cache_policy.has_value());
  }
  void semantics(const PrefetchTensormap&) {}
  void semantics(const CpAsyncBulkPrefetchTensor& p) {
    coordinate_count(p.rank, p.tensor);
    cache_policy_rules(p.cache_hint, p.cache_policy.has_value());
  }
  void semantics(const MbarrierExpectTx& m) {
    tx_count_range(m.tx_count);
  }
  void semantics(const MbarrierArriveExpectTx& m) {
    tx_count_range(m.tx_count);
  }
  void semantics(const FenceProxyAsync&) {}
  void semantics(const FenceMbarrierInit&) {}
  void semantics(const FenceProxyTensormap&) {}
  void semantics(const TensormapCpFenceproxy&) {}
  void semantics(const TensormapReplace& r) {
    // `ord` names a dimension of a map of rank 1..5, innermost 0.
    if (has_ordinal(r.field))
      if (const auto* i = std::get_if<Immediate>(&r.ordinal); !i || i->value < 0 || i->value > 4)
        error(DiagId::ptx_instruction_type,
              "tensormap.replace's ordinal is an immediate dimension 0..4");
  }
  void semantics(const CreatePolicyFractional& p) {
    if (p.secondary && !allowed_as_secondary(*p.secondary))
      error(DiagId::ptx_createpolicy_secondary,
            "createpolicy's secondary priority must be `.L2::evict_first` or "
            "`.L2::evict_unchanged`; it is `." +
                std::string(name(*p.secondary)) + "`");
    if (!(p.fraction > 0.0f && p.fraction <= 1.0f))
      error(DiagId::ptx_createpolicy_fraction,
            "createpolicy's fraction must be in (0, 1]; it is " + std::to_string(p.fraction));
  }
  void semantics(const Mov&) {}
  void semantics(const Ld& l) {
    vector_count(l.dst.size(), l.space);
  }
  void semantics(const St& s) {
    vector_count(s.src.size(), s.space);
    if (s.space == StateSpace::param)
      error(DiagId::ptx_st_param, "st.param is not used in kernels; store to .global or .shared");
  }
  void semantics(const Cvta& c) {
    // cvta.global: a map slot's generic address (fence.proxy.tensormap's acquire, a tensor
    // copy's map operand).
    if (c.to_generic && c.space != StateSpace::param && c.space != StateSpace::global)
      error(DiagId::ptx_cvta_space,
            "ptxgen converts only a .param or .global address to a generic one "
            "(cvta.param, cvta.global); it is ." +
                std::string(name(c.space)));
    if (!c.to_generic && c.space != StateSpace::global && c.space != StateSpace::shared &&
        c.space != StateSpace::shared_cta && c.space != StateSpace::local)
      error(DiagId::ptx_cvta_space,
            "cvta.to needs .global, .shared or .local; it is ." + std::string(name(c.space)));
    if (c.type != ScalarType::u64 && c.type != ScalarType::u32)
      error(DiagId::ptx_instruction_type,
            "cvta's type must be .u32 or .u64; it is " + type_name(c.type));
  }
  void semantics(const Unary& u) {
    if (u.op == UnaryOp::not_ && !(u.type == ScalarType::pred || is_bits(u.type)))
      error(DiagId::ptx_instruction_type,
            "not needs .pred or .bN; the type is " + type_name(u.type));
    if (u.op == UnaryOp::neg && !is_signed(u.type))
      error(DiagId::ptx_instruction_type, "neg needs a signed type; it is " + type_name(u.type));
  }
  void semantics(const Binary& b);
  void semantics(const Mad& m) {
    if (!is_integer(m.type) || is_bits(m.type))
      error(DiagId::ptx_instruction_type,
            "mad needs a .uN or .sN type; it is " + type_name(m.type));
  }
  void semantics(const Cvt&) {}
  void semantics(const Setp&) {}
  void semantics(const Selp&) {}
  void semantics(const BarSync& b) {
    if (b.barrier > 15)
      error(DiagId::ptx_barrier_range,
            "bar.sync's barrier must be in 0..15; it is " + std::to_string(b.barrier));
  }
  void semantics(const Ret&) {}
  void semantics(const BarrierClusterArrive&) {}
  void semantics(const BarrierClusterWait&) {}
  void semantics(const Mapa&) {}
  void semantics(const NamedBarrier& b) {
    if (b.barrier > 15)
      error(DiagId::ptx_barrier_range,
            "bar.sync's barrier must be in 0..15; it is " + std::to_string(b.barrier));
    if (b.count == 0 || b.count % 32 != 0)
      error(DiagId::ptx_barrier_range,
            "a named barrier's thread count must be a positive multiple of 32; it is " +
                std::to_string(b.count));
  }
  void semantics(const Setmaxnreg& s) {
    if (s.regs < 24 || s.regs > 256 || s.regs % 8 != 0)
      error(DiagId::ptx_setmaxnreg_range,
            "setmaxnreg's register count must be a multiple of 8 in 24..256; it is " +
                std::to_string(s.regs));
  }
  void semantics(const Label& l) {
    label_name(l.name);
    if (current_->guard)
      error(DiagId::ptx_label_guard, "label `" + l.name + "` has a guard; only instructions can");
  }
  void semantics(const Bra& b) {
    label_name(b.target);
  }

  /// A PTX identifier: a letter then letters, digits, `_`, `$`; or `_`, `$`, `%` then at
  /// least one of those.
  void label_name(const std::string& n) {
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    auto follower = [&](char c) {
      return letter(c) || (c >= '0' && c <= '9') || c == '_' || c == '$';
    };
    bool ok = !n.empty() &&
              (letter(n[0]) || (n.size() > 1 && (n[0] == '_' || n[0] == '$' || n[0] == '%')));
    for (std::size_t k = 1; ok && k < n.size(); ++k)
      ok = follower(n[k]);
    if (!ok)
      error(DiagId::ptx_label_name,
            "`" + n + "` is not a PTX identifier for a label (e.g. `$L_loop`)");
  }

  void wait_group_range(std::int64_t n) {
    if (n < 0 || n > max_wait_group)
      error(DiagId::ptx_wait_group_range,
            std::string(mnemonic_) + " N must be in 0.." + std::to_string(max_wait_group) +
                "; it is " + std::to_string(n) +
                " (ptxgen is stricter than ptxas, which accepts any integer: N counts pending "
                "groups, so a negative or huge N is a bug)");
  }

  /// A bulk size immediate: whole 16-byte granules, at most max_bulk_bytes (ptxas's rules).
  void bulk_size(const Operand& size) {
    const auto* imm = std::get_if<Immediate>(&size);
    if (!imm)
      return;
    if (imm->value < 0 || imm->value > max_bulk_bytes)
      error(DiagId::ptx_bulk_size_range, std::string(mnemonic_) + "'s size must be in 0.." +
                                             std::to_string(max_bulk_bytes) + "; it is " +
                                             std::to_string(imm->value));
    else if (imm->value % bulk_granule != 0)
      error(DiagId::ptx_bulk_size_multiple,
            std::string(mnemonic_) + "'s size must be a multiple of " +
                std::to_string(bulk_granule) + " bytes; it is " + std::to_string(imm->value));
  }

  /// `.L2::cache_hint` and the cache-policy operand come together (ptxas refuses either alone
  /// on the bulk forms: "Arguments mismatch").
  void cache_policy_rules(bool cache_hint, bool has_policy) {
    if (cache_hint && !has_policy)
      error(DiagId::ptx_cache_hint_without_policy,
            "`.L2::cache_hint` requires a 64-bit cache-policy operand after the others");
    if (!cache_hint && has_policy)
      error(DiagId::ptx_policy_without_cache_hint,
            "a cache-policy operand requires `.L2::cache_hint` in the opcode");
  }

  void coordinate_count(TensorRank rank, const TensorOperand& t) {
    if (t.coords.size() != coordinates(rank))
      error(DiagId::ptx_tensor_coordinate_count,
            std::string(mnemonic_) + "." + std::string(name(rank)) + " takes " +
                std::to_string(coordinates(rank)) + " coordinates, one per dimension; it has " +
                std::to_string(t.coords.size()));
  }

  /// The manual's tx-count range; ptxas takes any immediate (docs/ptx-rules.md).
  void tx_count_range(const Operand& tx) {
    if (const auto* imm = std::get_if<Immediate>(&tx);
        imm && (imm->value < 0 || imm->value > max_tx_count))
      error(DiagId::ptx_tx_count_range,
            std::string(mnemonic_) + "'s txCount must be in 0.." + std::to_string(max_tx_count) +
                "; it is " + std::to_string(imm->value) +
                " (ptxgen follows the PTX ISA manual's tx-count range; ptxas accepts any "
                "immediate)");
  }

  void vector_count(std::size_t n, StateSpace space) {
    if (n != 1 && n != 2 && n != 4)
      error(DiagId::ptx_vector_count, std::string(mnemonic_) +
                                          " moves 1, 2 or 4 values (.v2/.v4); it has " +
                                          std::to_string(n));
    else if (n != 1 && space == StateSpace::param && mnemonic_ != "ld")
      // ld.param.v2.b64 reads a by-value array (a tensor map's 16-byte pieces): ptxas 13.0
      // takes it.
      error(DiagId::ptx_vector_count, std::string(mnemonic_) + ".param moves one value");
  }

  Target target_;
  PtxVersion version_;
  const EntryScope* scope_;
  const Instruction* current_ = nullptr;
  std::string_view mnemonic_;
  bool target_once_ = false;
  int reported_sm_ = 0; ///< the highest sm_ a target message of this instruction named
  std::vector<Finding> findings_;
};

void Checker::feature(Feature f) {
  const FeatureInfo& fi = info(f);
  if (target_.sm < fi.min_sm) {
    if (target_once_)
      return;
    // One message per target the instruction needs: a row needing the same sm as one
    // already reported adds nothing.
    if (fi.min_sm > reported_sm_)
      error(DiagId::ptx_feature_target,
            std::string(fi.name) + " requires sm_" + std::to_string(fi.min_sm) +
                " or later; the target is " + target_.str(),
            fi.part);
    reported_sm_ = std::max(reported_sm_, fi.min_sm);
    return;
  }
  if (fi.arch_specific && !target_.arch_specific) {
    if (!target_once_)
      error(DiagId::ptx_feature_target,
            std::string(fi.name) + " requires the arch-specific target sm_" +
                std::to_string(std::max(fi.min_sm, target_.sm)) + "a; the target is " +
                target_.str(),
            fi.part);
    return;
  }
  if (version_ < fi.min_version) {
    std::string m = std::string(fi.name) + " requires PTX ISA " + fi.min_version.str() +
                    " or later; the .version is " + version_.str();
    if (f == Feature::shared_cta) {
      if (std::holds_alternative<CpAsync>(current_->body))
        m += " (ptxgen follows the PTX ISA manual here; ptxas 13.0 accepts it on cp.async "
             "from 7.0): write `.shared` instead, or raise the .version";
      else
        m += ": write `.shared` instead, or raise the .version";
    }
    error(DiagId::ptx_feature_version, std::move(m), fi.part);
  }
}

void Checker::semantics(const CpAsync& c) {
  if (c.opcode.cache_op == CacheOp::cg && c.cp_size != 16)
    error(DiagId::ptx_cg_size,
          "`.cg` copies exactly 16 bytes; chunk_bytes is " + std::to_string(c.cp_size),
          OpcodePart::cache_op);
  if (c.opcode.cache_op == CacheOp::ca && c.cp_size != 4 && c.cp_size != 8 && c.cp_size != 16)
    error(DiagId::ptx_ca_size,
          "`.ca` copies 4, 8 or 16 bytes; chunk_bytes is " + std::to_string(c.cp_size),
          OpcodePart::cache_op);
  if (const auto* s = std::get_if<SrcSize>(&c.zero_fill))
    if (const auto* imm = std::get_if<std::uint32_t>(&s->value); imm && *imm > c.cp_size)
      error(DiagId::ptx_src_size_range, "src-size immediate must be in 0.." +
                                            std::to_string(c.cp_size) + "; it is " +
                                            std::to_string(*imm));
  if (c.opcode.cache_hint && !c.cache_policy)
    error(DiagId::ptx_cache_hint_without_policy,
          "`.L2::cache_hint` requires a 64-bit cache-policy operand (without it ptxas reads the "
          "last operand as the policy: `16, 8` would be a full copy with policy 8)",
          OpcodePart::cache_hint);
  if (!c.opcode.cache_hint && c.cache_policy)
    error(DiagId::ptx_policy_without_cache_hint,
          "a cache-policy operand requires `.L2::cache_hint` in the opcode");
}

void Checker::semantics(const Binary& b) {
  const std::string t = type_name(b.type);
  switch (b.op) {
  case BinaryOp::and_:
  case BinaryOp::or_:
  case BinaryOp::xor_:
    if (b.type != ScalarType::pred && !is_bits(b.type))
      error(DiagId::ptx_instruction_type, "and/or/xor need .pred or .bN; the type is " + t);
    return;
  case BinaryOp::shl:
    if (!is_bits(b.type))
      error(DiagId::ptx_instruction_type, "shl needs a .bN type; it is " + t);
    return;
  case BinaryOp::mul_wide:
    if (bit_width(b.type) != 16 && bit_width(b.type) != 32)
      error(DiagId::ptx_instruction_type, "mul.wide needs a 16- or 32-bit source type; it is " + t);
    break;
  case BinaryOp::add:
  case BinaryOp::sub:
  case BinaryOp::mul_lo:
  case BinaryOp::div:
  case BinaryOp::rem:
  case BinaryOp::min:
  case BinaryOp::max:
  case BinaryOp::shr:
    break;
  }
  if (b.type == ScalarType::pred)
    error(DiagId::ptx_instruction_type,
          std::string(spelling(mnemonic(b.op))) + " on .pred is not allowed");
}

Diagnostics diagnostics_of(std::vector<Finding> findings, const std::string& prefix = {}) {
  Diagnostics out;
  for (Finding& f : findings) {
    f.diagnostic.message = prefix + f.diagnostic.message;
    out.add(std::move(f.diagnostic));
  }
  return out;
}

/// The entry's own declarations: unique parameters, shared arrays and labels.
void validate_declarations(const Entry& e, EntryScope& scope, Diagnostics& out) {
  for (const Param& p : e.params)
    if (!scope.params.insert(p.name).second)
      out.error(DiagId::ptx_duplicate_name,
                "parameter `" + p.name + "` of `" + e.name + "` is declared twice");
  int dynamic_arrays = 0;
  for (const SharedArray& s : e.shared) {
    if (!scope.shared.insert(s.name).second || scope.params.count(s.name))
      out.error(DiagId::ptx_duplicate_name,
                "`" + s.name + "` in `" + e.name + "` is declared twice");
    if (s.align == 0 || (s.align & (s.align - 1)) != 0)
      out.error(DiagId::ptx_shared_align, "shared array `" + s.name +
                                              "` needs a power-of-two alignment; it is " +
                                              std::to_string(s.align));
    switch (s.kind) {
    case SharedKind::fixed:
      if (s.bytes == 0)
        out.error(DiagId::ptx_shared_empty, "shared array `" + s.name + "` has zero bytes");
      break;
    case SharedKind::dynamic:
      if (s.bytes != 0)
        out.error(DiagId::ptx_shared_extern_sized, "`.extern .shared` array `" + s.name +
                                                       "` is sized at launch; it has " +
                                                       std::to_string(s.bytes) + " bytes");
      if (++dynamic_arrays == 2)
        out.error(DiagId::ptx_shared_extern_twice,
                  "`" + e.name + "` declares more than one `.extern .shared` array");
      break;
    }
  }
  // Labels are declared where they are defined; a branch may jump forward to one.
  for (const Instruction& i : e.body)
    if (const auto* l = std::get_if<Label>(&i.body); l && !scope.labels.insert(l->name).second)
      out.error(DiagId::ptx_duplicate_label,
                "label `" + l->name + "` is defined twice in `" + e.name + "`");
}

} // namespace

std::vector<Finding> check(const Instruction& i, Target target, PtxVersion version) {
  return Checker(target, version, nullptr).check(i);
}

Diagnostics validate(const Instruction& i, Target target, PtxVersion version) {
  return diagnostics_of(check(i, target, version));
}

Diagnostics validate_target_version(Target target, PtxVersion version) {
  Diagnostics d;
  if (!is_known_target(target))
    d.error(DiagId::ptx_unknown_target,
            "ptxas 13.0 does not know the target " + target.str() +
                "; expected e.g. sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120");
  if (!is_known_version(version))
    d.error(DiagId::ptx_unknown_version,
            "PTX ISA " + version.str() +
                " does not exist for ptxas 13.0; expected 7.0-7.8, 8.0-8.8 or 9.0");
  else if (is_known_target(target) && version < min_version_for_target(target))
    d.error(DiagId::ptx_target_version, target.str() + " requires PTX ISA " +
                                            min_version_for_target(target).str() +
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

namespace {

/// An arch-specific instruction (tensormap.replace) on a target without the `a` suffix: one
/// error, at the first instruction that needs it.
void arch_target_below(const Module& m, Diagnostics& out) {
  if (m.target.arch_specific)
    return;
  for (const Entry& e : m.entries)
    for (std::size_t k = 0; k < e.body.size(); ++k)
      for (Feature f : features_used(e.body[k]))
        if (const FeatureInfo& fi = info(f); fi.arch_specific) {
          out.error(DiagId::ptx_feature_target,
                    "`" + e.name + "` instruction " + std::to_string(k + 1) + ": " +
                        std::string(fi.name) + " requires the arch-specific target sm_" +
                        std::to_string(std::max(fi.min_sm, m.target.sm)) + "a; the target is " +
                        m.target.str());
          return;
        }
}

/// A target below what instructions need is one cause however many instructions share it:
/// one error per target needed, at the first instruction that needs it, counting the rest.
void target_below(const Module& m, Diagnostics& out) {
  struct Need {
    std::string first; ///< "`entry` instruction K: cp.async"
    std::size_t count = 0;
  };
  std::map<int, Need> needs; // by the sm needed
  for (const Entry& e : m.entries)
    for (std::size_t k = 0; k < e.body.size(); ++k) {
      std::set<int> sms;
      for (Feature f : features_used(e.body[k]))
        if (const FeatureInfo& fi = info(f);
            m.target.sm < fi.min_sm && sms.insert(fi.min_sm).second) {
          Need& n = needs[fi.min_sm];
          if (n.count++ == 0)
            n.first = "`" + e.name + "` instruction " + std::to_string(k + 1) + ": " +
                      std::string(fi.name);
        }
    }
  arch_target_below(m, out);
  for (const auto& [sm, n] : needs)
    out.error(DiagId::ptx_feature_target,
              n.first + " requires sm_" + std::to_string(sm) + " or later; the target is " +
                  m.target.str() +
                  (n.count > 1 ? " (" + std::to_string(n.count) + " instructions need sm_" +
                                     std::to_string(sm) + ")"
                               : ""));
}

} // namespace

Diagnostics validate(const Module& m) {
  Diagnostics out;
  const PtxVersion version = m.version ? *m.version : required_version(m);
  out.append(validate_target_version(m.target, version));
  if (m.address_size != 64)
    out.error(DiagId::ptx_address_size,
              "ptxgen emits 64-bit addressing; .address_size is " + std::to_string(m.address_size));
  std::set<std::string> entry_names;
  for (const Entry& e : m.entries) {
    if (e.name.empty())
      out.error(DiagId::ptx_entry_name, "an entry needs a name");
    else if (!entry_names.insert(e.name).second)
      out.error(DiagId::ptx_duplicate_name, "entry `" + e.name + "` is defined twice");
    EntryScope scope{e, {}, {}, {}};
    validate_declarations(e, scope, out);
    for (std::size_t k = 0; k < e.body.size(); ++k)
      out.append(diagnostics_of(Checker(m.target, version, &scope, true).check(e.body[k]),
                                "`" + e.name + "` instruction " + std::to_string(k + 1) + ": "));
  }
  target_below(m, out);
  return out;
}

} // namespace ptxgen::ptx
