#include "emitter/lower/lower.hpp"

#include "emitter/lower/abi.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/contract.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

namespace ptxgen::lower {

namespace {

using namespace ptxgen::ptx;
using tile::Expr;
using tile::ExprKind;
using tile::ExprOp;
using tile::ExprPtr;
using tile::Special;

/// A total order on expression trees that agrees with tile::structurally_equal
/// (kinds, ops, constant values, parameter names; spans ignored): caches are
/// keyed by the tree itself, never by its printed text. It is also the order
/// in which address() multiplies a linear form's atoms in:
///  - leaves before compound expressions; constants (by value), then the
///    values uniform across the CTA (parameters by name, bid), then the
///    per-thread ones (lane, tid, warp);
///  - compound expressions by their first operand, then the operator (by its
///    spelling), then the other operands.
/// (On the golden corpus this is the order the former text keys gave.)
int compare(const Expr& a, const Expr& b);

template <class T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : b < a ? 1 : 0;
}

/// A leaf's place in compare()'s order; compound expressions (kCompound) come after every leaf.
constexpr int kCompound = 8;
int leaf_rank(ExprKind k) {
  switch (k) {
  case ExprKind::constant:
    return 0;
  case ExprKind::param:
    return 1;
  case ExprKind::bid:
    return 2;
  case ExprKind::lane:
    return 3;
  case ExprKind::tid:
    return 4;
  case ExprKind::warp:
    return 5;
  case ExprKind::special:
    return 6;
  case ExprKind::loop:
    return 7;
  case ExprKind::axis: // the lowering sees repeat axes only substituted (substitute_axes)
    unreachable("compare() of a repeat-axis leaf");
  case ExprKind::unary:
  case ExprKind::binary:
  case ExprKind::select:
    return kCompound;
  }
  unreachable("not an ExprKind");
}

int compare(const Expr& a, const Expr& b) {
  if (int c = three_way(leaf_rank(a.kind), leaf_rank(b.kind)))
    return c;
  if (leaf_rank(a.kind) != kCompound) { // two leaves of one kind
    if (a.kind == ExprKind::constant)
      return three_way(a.value, b.value);
    if (a.kind == ExprKind::param || a.kind == ExprKind::loop)
      return three_way(a.name, b.name);
    if (a.kind == ExprKind::special)
      return three_way(a.special, b.special);
    return 0;
  }
  if (!a.args.empty() && !b.args.empty())
    if (int c = compare(*a.args[0], *b.args[0]))
      return c;
  if (int c = three_way(tile::op_spelling(a.op), tile::op_spelling(b.op)))
    return c;
  if (int c = three_way(a.op, b.op)) // `-a` and `a - b` are both spelled "-"
    return c;
  if (int c = three_way(a.kind, b.kind))
    return c;
  if (int c = three_way(a.args.size(), b.args.size()))
    return c;
  for (std::size_t i = 1; i < a.args.size(); ++i)
    if (int c = compare(*a.args[i], *b.args[i]))
      return c;
  return 0;
}

struct ExprLess {
  bool operator()(const ExprPtr& a, const ExprPtr& b) const { return compare(*a, *b) < 0; }
};

/// A linear combination of "atoms" (leaves, or sub-expressions that are not
/// linear) with integer coefficients, plus a constant. Address arithmetic is
/// built from it so that constants fold into [reg+imm] and warp/lane pairs
/// that recombine into tid are recombined.
struct Linear {
  /// atom -> coefficient (never 0), in compare()'s order: address() multiplies
  /// them in in this order; structurally equal atoms are one term.
  std::map<ExprPtr, std::int64_t, ExprLess> terms;
  std::int64_t constant = 0;
  /// A constant already added into the address register (see address()).
  std::int64_t folded = 0;
  /// The register part is summed in 32 bits and then widened (see address()).
  bool wrap32 = false;

  void add(const Linear& o, std::int64_t scale) {
    constant += o.constant * scale;
    for (const auto& [atom, coeff] : o.terms)
      add_atom(atom, coeff * scale);
  }
  void add_atom(const ExprPtr& atom, std::int64_t coeff) {
    if (coeff == 0)
      return;
    auto it = terms.try_emplace(atom, 0).first;
    it->second += coeff;
    if (it->second == 0)
      terms.erase(it);
  }
};

/// Orders linear forms by what their address register holds: the terms and
/// `folded` (not `constant`, which the caller folds into [reg+imm]). Forms
/// that compare equal share an address register.
int compare_registers(const Linear& a, const Linear& b) {
  if (int c = three_way(a.folded, b.folded))
    return c;
  if (int c = three_way(a.wrap32, b.wrap32))
    return c;
  if (int c = three_way(a.terms.size(), b.terms.size()))
    return c;
  for (auto i = a.terms.begin(), j = b.terms.begin(); i != a.terms.end(); ++i, ++j) {
    if (int c = compare(*i->first, *j->first))
      return c;
    if (int c = three_way(i->second, j->second))
      return c;
  }
  return 0;
}

Linear linearize(const ExprPtr& e);

/// e = a op b as a linear form, when op keeps it linear (else nullopt: e is an atom).
std::optional<Linear> linearize_binary(ExprOp op, const ExprPtr& a, const ExprPtr& b) {
  Linear l;
  switch (op) {
  case ExprOp::add:
    l.add(linearize(a), 1);
    l.add(linearize(b), 1);
    return l;
  case ExprOp::sub:
    l.add(linearize(a), 1);
    l.add(linearize(b), -1);
    return l;
  case ExprOp::mul:
    if (auto c = tile::constant_value(*b)) {
      l.add(linearize(a), *c);
      return l;
    }
    if (auto c = tile::constant_value(*a)) {
      l.add(linearize(b), *c);
      return l;
    }
    return std::nullopt;
  case ExprOp::shl:
    if (auto c = tile::constant_value(*b); c && *c >= 0 && *c < 31) {
      l.add(linearize(a), std::int64_t{1} << *c);
      return l;
    }
    return std::nullopt;
  // Not linear in their operands: the whole expression is an atom.
  case ExprOp::div:
  case ExprOp::rem:
  case ExprOp::shr:
  case ExprOp::bit_and:
  case ExprOp::bit_or:
  case ExprOp::bit_xor:
  case ExprOp::min:
  case ExprOp::max:
  case ExprOp::lt:
  case ExprOp::le:
  case ExprOp::gt:
  case ExprOp::ge:
  case ExprOp::eq:
  case ExprOp::ne:
  case ExprOp::logical_and:
  case ExprOp::logical_or:
    return std::nullopt;
  // Not binary operators.
  case ExprOp::none:
  case ExprOp::logical_not:
  case ExprOp::neg:
    unreachable("linearize: a binary expression with a unary or no operator");
  }
  unreachable("linearize: not an ExprOp");
}

Linear linearize(const ExprPtr& e) {
  Linear l;
  if (auto c = tile::constant_value(*e)) {
    l.constant = *c;
    return l;
  }
  if (e->kind == ExprKind::binary)
    if (auto b = linearize_binary(e->op, e->args[0], e->args[1]))
      return *b;
  if (e->kind == ExprKind::unary && e->op == ExprOp::neg) {
    l.add(linearize(e->args[0]), -1);
    return l;
  }
  l.add_atom(e, 1);
  return l;
}

/// warp*32c + lane*c == tid*c for every tid >= 0: recombine such pairs.
void recombine_warp_lane(Linear& l) {
  auto w = l.terms.find(tile::make_leaf(ExprKind::warp));
  auto n = l.terms.find(tile::make_leaf(ExprKind::lane));
  if (w == l.terms.end() || n == l.terms.end())
    return;
  const std::int64_t c = n->second;
  if (w->second != 32 * c)
    return;
  l.terms.erase(w);
  l.terms.erase(n);
  l.add_atom(tile::make_leaf(ExprKind::tid), c);
}

class Lowerer {
public:
  Lowerer(const tile::Kernel& k, const LowerOptions& o)
      : k_(k), o_(o), layout_(tile::shared_layout(k)), lb_(k.launch_bounds()) {}

  Module run() {
    Module m;
    m.header_comments = o_.header_comments;
    m.version = o_.version;
    m.target = o_.target;
    Entry e;
    e.name = k_.name;
    for (const auto& p : kernel_params(k_))
      e.params.push_back(
          {p.ptx_name, p.kind == ParamBinding::Kind::u32 ? ScalarType::u32 : ScalarType::u64});
    if (layout_.dynamic)
      e.shared.push_back({std::string(dynamic_shared_symbol),
                          std::max(layout_.align, dynamic_shared_align), 0, SharedKind::dynamic});
    else
      for (const auto& s : layout_.entries)
        e.shared.push_back(
            {shared_symbol(s.decl->tensor), std::max(s.decl->tensor.align, tile::min_shared_align),
             static_cast<std::uint64_t>(s.decl->tensor.size_bytes()), SharedKind::fixed});
    if (!single_thread_cache_hint())
      e.reqntid = std::array<std::uint32_t, 3>{static_cast<std::uint32_t>(k_.block_dim.x),
                                               static_cast<std::uint32_t>(k_.block_dim.y),
                                               static_cast<std::uint32_t>(k_.block_dim.z)};
    entry_ = &e;
    lower_ops(0, k_.ops.size());
    emit(Ret{});
    m.entries.push_back(std::move(e));
    return m;
  }

private:
  /// Where a per-thread address register is reused: the same tensor and the
  /// same linear form (tensor names are unique within a kernel).
  struct AddressKey {
    std::string tensor;
    Linear form;
  };
  struct AddressKeyLess {
    bool operator()(const AddressKey& a, const AddressKey& b) const {
      if (int c = a.tensor.compare(b.tensor))
        return c < 0;
      return compare_registers(a.form, b.form) < 0;
    }
  };
  /// A cache policy's identity: the u64 parameter it is loaded from, or the
  /// exact createpolicy operands, the fraction by its bits (fractions that
  /// differ in any bit get their own register).
  using CreatePolicyKey =
      std::tuple<EvictionPriority, std::optional<EvictionPriority>, std::uint32_t>;
  using PolicyKey = std::variant<std::string, CreatePolicyKey>;

  const tile::Kernel& k_;
  const LowerOptions& o_;
  const tile::SharedLayout layout_;
  Entry* entry_ = nullptr;
  /// The registers already holding a value, valid where the next instruction goes.
  struct Caches {
    std::map<ExprPtr, Register, ExprLess> value; ///< u32 values (leaves included)
    std::map<ExprPtr, Register, ExprLess> pred;  ///< predicates
    std::map<std::string, Register> base;        ///< tensor base addresses, by tensor name
    std::optional<Register> dynamic_base;        ///< the `.extern .shared` array's address, once
    std::map<AddressKey, Register, AddressKeyLess> address; ///< per-thread addresses
    std::map<PolicyKey, Register> policy;
  };
  Caches cache_;
  tile::LaunchBounds lb_; ///< the launch's bounds and the open loops' variables' ranges

  Register reg(RegClass c) { return entry_->registers.make(c); }

  /// Appends an instruction at level at_: the end of the body when at_ is the
  /// current loop depth, else the end of the preheader of loops_[at_] (hoisted:
  /// before that loop and every loop inside it, on every path).
  void emit(InstructionBody b, std::optional<Guard> g = std::nullopt, std::string comment = {}) {
    Instruction i{g, std::move(b), std::move(comment)};
    if (at_ >= loops_.size()) {
      entry_->body.push_back(std::move(i));
      return;
    }
    const auto at = static_cast<std::ptrdiff_t>(loops_[at_].preheader_end);
    entry_->body.insert(entry_->body.begin() + at, std::move(i));
    for (std::size_t f = at_; f < loops_.size(); ++f)
      ++loops_[f].preheader_end;
  }

  /// Emits at `level` while it lives (levels: 0 outside every loop, n in the
  /// body of loops_[n - 1]).
  class AtLevel {
  public:
    AtLevel(Lowerer& l, unsigned level) : l_(l), saved_(l.at_) { l.at_ = level; }
    ~AtLevel() { l_.at_ = saved_; }
    AtLevel(const AtLevel&) = delete;
    AtLevel& operator=(const AtLevel&) = delete;

  private:
    Lowerer& l_;
    unsigned saved_;
  };

  /// Caches a register defined at `level`: valid from here on, and at the end
  /// of every open loop at or inside that level (a hoisted value outlives the loop).
  template <class Map, class Key>
  void remember(Map Caches::*member, unsigned level, const Key& key, Register r) {
    (cache_.*member).insert_or_assign(key, r);
    for (std::size_t f = level; f < loops_.size(); ++f)
      (loops_[f].saved.*member).insert_or_assign(key, r);
  }

  // --- values ---------------------------------------------------------------

  /// A leaf's register, defined once (warp and lane from tid, which comes first).
  Register leaf(const ExprPtr& e) {
    if (auto it = cache_.value.find(e); it != cache_.value.end())
      return it->second;
    AtLevel at(*this, 0); // launch values: before every loop
    const bool from_tid = e->kind == ExprKind::warp || e->kind == ExprKind::lane;
    const Register tid = from_tid ? leaf(tile::make_leaf(ExprKind::tid)) : Register{};
    if (auto alias = x_only_alias(*e))
      return leaf(*alias);
    if (e->kind == ExprKind::tid && k_.block_dim.count() != k_.block_dim.x)
      return linear_index(e, Special::tid_x, k_.block_dim);
    if (e->kind == ExprKind::bid && k_.grid_dim.count() != k_.grid_dim.x)
      return linear_index(e, Special::bid_x, k_.grid_dim);
    Register r = reg(RegClass::b32);
    switch (e->kind) {
    case ExprKind::tid:
      emit(Mov{ScalarType::u32, r, SpecialRegister::tid_x});
      break;
    case ExprKind::bid:
      emit(Mov{ScalarType::u32, r, SpecialRegister::ctaid_x});
      break;
    case ExprKind::special:
      emit(Mov{ScalarType::u32, r, special_register(e->special)});
      break;
    case ExprKind::loop:
      unreachable("leaf() of a loop variable outside its loop");
    case ExprKind::warp:
      emit(Binary{BinaryOp::shr, ScalarType::u32, r, tid, Immediate{5}});
      break;
    case ExprKind::lane:
      emit(Binary{BinaryOp::and_, ScalarType::b32, r, tid, Immediate{31}});
      break;
    case ExprKind::param:
      emit(Ld{StateSpace::param, ScalarType::u32, {r}, Address{Symbol{param_symbol(e->name)}, 0}});
      break;
    case ExprKind::constant:
    case ExprKind::axis:
    case ExprKind::unary:
    case ExprKind::binary:
    case ExprKind::select:
      unreachable("leaf() of an expression that is not a leaf");
    }
    remember(&Caches::value, 0, e, r);
    return r;
  }

  /// tid.x when the block is x-only is tid (bid.x likewise): the same register.
  std::optional<ExprPtr> x_only_alias(const Expr& e) const {
    if (e.kind != ExprKind::special)
      return std::nullopt;
    if (e.special == Special::tid_x && k_.block_dim.count() == k_.block_dim.x)
      return tile::make_leaf(ExprKind::tid);
    if (e.special == Special::bid_x && k_.grid_dim.count() == k_.grid_dim.x)
      return tile::make_leaf(ExprKind::bid);
    return std::nullopt;
  }

  /// The linear tid (or bid): x + nx * (y + ny * z) from the special registers.
  Register linear_index(const ExprPtr& e, Special x, const tile::Dim3& d) {
    const auto at = [x](int i) { return static_cast<Special>(static_cast<int>(x) + i); };
    Register r = leaf(tile::make_special(at(1))); // y
    if (d.z > 1) {
      Register yz = reg(RegClass::b32);
      emit(Mad{false, ScalarType::u32, yz, leaf(tile::make_special(at(2))), Immediate{d.y}, r});
      r = yz;
    }
    Register out = reg(RegClass::b32);
    emit(Mad{false, ScalarType::u32, out, r, Immediate{d.x}, leaf(tile::make_special(x))});
    remember(&Caches::value, 0, e, out);
    return out;
  }

  static SpecialRegister special_register(Special s) {
    switch (s) {
    case Special::tid_x:
      return SpecialRegister::tid_x;
    case Special::tid_y:
      return SpecialRegister::tid_y;
    case Special::tid_z:
      return SpecialRegister::tid_z;
    case Special::bid_x:
      return SpecialRegister::ctaid_x;
    case Special::bid_y:
      return SpecialRegister::ctaid_y;
    case Special::bid_z:
      return SpecialRegister::ctaid_z;
    case Special::ntid:
    case Special::ntid_x:
    case Special::ntid_y:
    case Special::ntid_z:
    case Special::nbid:
    case Special::nbid_x:
    case Special::nbid_y:
    case Special::nbid_z:
      break; // launch constants: value() gives immediates
    }
    unreachable("special_register() of a launch size");
  }

  /// The launch size a special names (ntid, nbid and their axes), else nullopt.
  std::optional<std::int64_t> launch_size(const Expr& e) const {
    if (e.kind != ExprKind::special || tile::per_thread(e.special))
      return std::nullopt;
    auto b = tile::bounds(e, lb_);
    if (!b || b->lo != b->hi)
      return std::nullopt; // bid.x, bid.y, bid.z
    return b->lo;
  }

  /// The u32 value of e: an immediate when constant, else a register.
  Operand value(const ExprPtr& e) {
    if (auto c = tile::constant_value(*e))
      return Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(*c))};
    if (auto n = launch_size(*e))
      return Immediate{*n};
    switch (e->kind) {
    case ExprKind::tid:
    case ExprKind::bid:
    case ExprKind::warp:
    case ExprKind::lane:
    case ExprKind::param:
    case ExprKind::special:
      return leaf(e);
    case ExprKind::loop:
      return loops_[frame_index(e->name)].counter;
    case ExprKind::axis:
      unreachable("value() of a repeat-axis leaf (substitute_axes first)");
    case ExprKind::constant: // returned above
    case ExprKind::unary:
    case ExprKind::binary:
    case ExprKind::select:
      break;
    }
    if (auto it = cache_.value.find(e); it != cache_.value.end())
      return it->second;
    const unsigned level = level_of(*e);
    AtLevel at(*this, level);
    if (auto r = rotating_value(*e, level))
      return *r;
    Register r = compute(e);
    remember(&Caches::value, level, e, r);
    return r;
  }

  /// Emits the instructions for a non-leaf e. Operands first, then the result
  /// register: registers are numbered in order of definition.
  Register compute(const ExprPtr& e) {
    Register r;
    if (e->kind == ExprKind::select) {
      Guard g = predicate(e->args[0]);
      Operand a = value(e->args[1]);
      Operand b = value(e->args[2]);
      if (g.negated)
        std::swap(a, b);
      r = reg(RegClass::b32);
      emit(Selp{ScalarType::u32, r, a, b, g.predicate});
    } else if (tile::info(e->op).predicate) {
      Guard g = predicate(e);
      r = reg(RegClass::b32);
      emit(Selp{ScalarType::u32, r, Immediate{g.negated ? 0 : 1}, Immediate{g.negated ? 1 : 0},
                g.predicate});
    } else if (e->kind == ExprKind::unary && e->op == ExprOp::neg) {
      Register x = operand_reg(value(e->args[0]));
      r = reg(RegClass::b32);
      emit(Binary{BinaryOp::sub, ScalarType::u32, r, Immediate{0}, x});
    } else if (auto side = dominant_operand(*e)) {
      r = operand_reg(value(e->args[*side]));
    } else if (auto d = loop_power_of_two_divisor(*e)) {
      // In a loop, x / 2^n and x % 2^n are a shift and a mask (the u32
      // division by 2^n they replace): no division instruction in a loop body.
      Register x = operand_reg(value(e->args[0]));
      r = reg(RegClass::b32);
      if (e->op == ExprOp::div)
        emit(Binary{BinaryOp::shr, ScalarType::u32, r, x,
                    Immediate{std::countr_zero(static_cast<std::uint64_t>(*d))}});
      else
        emit(Binary{BinaryOp::and_, ScalarType::b32, r, x, Immediate{*d - 1}});
    } else if (e->kind == ExprKind::binary) {
      Arith op = arith(e->op);
      Operand a = value(e->args[0]);
      Operand b = value(e->args[1]);
      if (e->op == ExprOp::min || e->op == ExprOp::max) {
        op.type = minmax_type(*e);
        a = typed(a, op.type);
        b = typed(b, op.type);
      }
      if (std::holds_alternative<Immediate>(a)) {
        if (op.commutative)
          std::swap(a, b);
        else
          a = operand_reg(a);
      }
      r = reg(RegClass::b32);
      emit(Binary{op.op, op.type, r, a, b});
    } else {
      unreachable("compute() of an expression with no u32 lowering");
    }
    return r;
  }

  /// The divisor of `x / 2^n` or `x % 2^n` computed inside a loop, else nullopt.
  std::optional<std::int64_t> loop_power_of_two_divisor(const Expr& e) const {
    if (at_ == 0 || e.kind != ExprKind::binary || (e.op != ExprOp::div && e.op != ExprOp::rem))
      return std::nullopt;
    auto d = tile::constant_value(*e.args[1]);
    if (!d || !power_of_two(*d) || *d > 0x80000000)
      return std::nullopt;
    return d;
  }

  /// min/max compare as u32 when both operands are in 0..2^32-1 over the
  /// launch, else as s32 (the contract proved them in -2^31..2^31-1 where the
  /// value is used; see check_u32). Registers hold values modulo 2^32 either way.
  ScalarType minmax_type(const Expr& e) const {
    const tile::LaunchBounds& lb = lb_;
    for (const auto& a : e.args) {
      auto b = tile::bounds(*a, lb);
      if (!b || b->lo < 0 || b->hi > std::int64_t{0xFFFFFFFF})
        return ScalarType::s32;
    }
    return ScalarType::u32;
  }

  /// For min/max whose operands' ranges do not overlap, the operand that is
  /// always the result (max(x, 0) with x >= 0 is x); nullopt otherwise.
  std::optional<std::size_t> dominant_operand(const Expr& e) const {
    if (e.kind != ExprKind::binary || (e.op != ExprOp::min && e.op != ExprOp::max))
      return std::nullopt;
    const tile::LaunchBounds& lb = lb_;
    auto a = tile::bounds(*e.args[0], lb);
    auto b = tile::bounds(*e.args[1], lb);
    if (!a || !b)
      return std::nullopt;
    const bool a_le_b = a->hi <= b->lo, b_le_a = b->hi <= a->lo;
    if (e.op == ExprOp::min && (a_le_b || b_le_a))
      return a_le_b ? 0 : 1;
    if (e.op == ExprOp::max && (a_le_b || b_le_a))
      return b_le_a ? 0 : 1;
    return std::nullopt;
  }

  /// An immediate as the type reads it: a constant's s32 spelling for s32.
  static Operand typed(const Operand& o, ScalarType t) {
    const auto* imm = std::get_if<Immediate>(&o);
    if (!imm || t != ScalarType::s32)
      return o;
    return Immediate{static_cast<std::int32_t>(static_cast<std::uint32_t>(imm->value))};
  }

  /// How a u32 arithmetic operator is lowered.
  struct Arith {
    BinaryOp op;
    ScalarType type;
    bool commutative; ///< an immediate first operand may swap to second place
  };
  static Arith arith(ExprOp op) {
    switch (op) {
    case ExprOp::add:
      return {BinaryOp::add, ScalarType::u32, true};
    case ExprOp::sub:
      return {BinaryOp::sub, ScalarType::u32, false};
    case ExprOp::mul:
      return {BinaryOp::mul_lo, ScalarType::u32, true};
    case ExprOp::div:
      return {BinaryOp::div, ScalarType::u32, false};
    case ExprOp::rem:
      return {BinaryOp::rem, ScalarType::u32, false};
    case ExprOp::shl:
      return {BinaryOp::shl, ScalarType::b32, false};
    case ExprOp::shr:
      return {BinaryOp::shr, ScalarType::u32, false};
    case ExprOp::bit_and:
      return {BinaryOp::and_, ScalarType::b32, true};
    case ExprOp::bit_or:
      return {BinaryOp::or_, ScalarType::b32, true};
    case ExprOp::bit_xor:
      return {BinaryOp::xor_, ScalarType::b32, true};
    // The type is u32 or s32 (see minmax_type()).
    case ExprOp::min:
      return {BinaryOp::min, ScalarType::u32, true};
    case ExprOp::max:
      return {BinaryOp::max, ScalarType::u32, true};
    // Predicates are lowered by predicate(), neg by compute(); none is no operator.
    case ExprOp::lt:
    case ExprOp::le:
    case ExprOp::gt:
    case ExprOp::ge:
    case ExprOp::eq:
    case ExprOp::ne:
    case ExprOp::logical_and:
    case ExprOp::logical_or:
    case ExprOp::logical_not:
    case ExprOp::neg:
    case ExprOp::none:
      break;
    }
    unreachable("arith() of an operator that is not u32 arithmetic");
  }

  /// An operand in a register (moves an immediate into one).
  Register operand_reg(const Operand& o) {
    if (const auto* r = std::get_if<Register>(&o))
      return *r;
    Register r = reg(RegClass::b32);
    emit(Mov{ScalarType::u32, r, o});
    return r;
  }

  /// The unsigned comparison for a comparison operator (operands are proven in 0..2^32-1).
  static CompareOp compare_op(ExprOp op) {
    switch (op) {
    case ExprOp::lt:
      return CompareOp::lo;
    case ExprOp::le:
      return CompareOp::ls;
    case ExprOp::gt:
      return CompareOp::hi;
    case ExprOp::ge:
      return CompareOp::hs;
    case ExprOp::eq:
      return CompareOp::eq;
    case ExprOp::ne:
      return CompareOp::ne;
    case ExprOp::none:
    case ExprOp::add:
    case ExprOp::sub:
    case ExprOp::mul:
    case ExprOp::div:
    case ExprOp::rem:
    case ExprOp::shl:
    case ExprOp::shr:
    case ExprOp::bit_and:
    case ExprOp::bit_or:
    case ExprOp::bit_xor:
    case ExprOp::min:
    case ExprOp::max:
    case ExprOp::logical_and:
    case ExprOp::logical_or:
    case ExprOp::logical_not:
    case ExprOp::neg:
      break;
    }
    unreachable("compare_op() of an operator that is not a comparison");
  }

  /// The comparison with its operands swapped: a < b == b > a.
  static CompareOp swapped(CompareOp c) {
    switch (c) {
    case CompareOp::eq:
    case CompareOp::ne:
      return c;
    case CompareOp::lt:
      return CompareOp::gt;
    case CompareOp::le:
      return CompareOp::ge;
    case CompareOp::gt:
      return CompareOp::lt;
    case CompareOp::ge:
      return CompareOp::le;
    case CompareOp::lo:
      return CompareOp::hi;
    case CompareOp::ls:
      return CompareOp::hs;
    case CompareOp::hi:
      return CompareOp::lo;
    case CompareOp::hs:
      return CompareOp::ls;
    }
    unreachable("not a CompareOp");
  }

  /// e as a guard: a predicate register, possibly negated (so `!c` costs nothing).
  Guard predicate(const ExprPtr& e) {
    if (e->kind == ExprKind::unary && e->op == ExprOp::logical_not) {
      Guard g = predicate(e->args[0]);
      g.negated = !g.negated;
      return g;
    }
    if (auto it = cache_.pred.find(e); it != cache_.pred.end())
      return Guard{it->second, false};
    const unsigned level = level_of(*e);
    AtLevel at(*this, level);
    Register p;
    if (auto c = tile::constant_value(*e)) {
      p = reg(RegClass::pred);
      emit(Mov{ScalarType::pred, p, Immediate{*c != 0 ? 1 : 0}});
    } else if (e->kind == ExprKind::binary &&
               (e->op == ExprOp::logical_and || e->op == ExprOp::logical_or)) {
      Register a = materialise(predicate(e->args[0]));
      Register b = materialise(predicate(e->args[1]));
      p = reg(RegClass::pred);
      emit(Binary{e->op == ExprOp::logical_and ? BinaryOp::and_ : BinaryOp::or_, ScalarType::pred,
                  p, a, b});
    } else if (auto moved = offset_compare(*e, level)) {
      p = reg(RegClass::pred);
      moved->dst = p;
      emit(*moved);
    } else if (e->kind == ExprKind::binary && tile::info(e->op).predicate) {
      CompareOp cmp = compare_op(e->op);
      Operand a = value(e->args[0]);
      Operand b = value(e->args[1]);
      if (std::holds_alternative<Immediate>(a)) {
        std::swap(a, b);
        cmp = swapped(cmp);
      }
      p = reg(RegClass::pred);
      emit(Setp{cmp, ScalarType::u32, p, a, b});
    } else {
      Operand v = value(e);
      p = reg(RegClass::pred);
      emit(Setp{CompareOp::ne, ScalarType::u32, p, v, Immediate{0}});
    }
    remember(&Caches::pred, level, e, p);
    return Guard{p, false};
  }

  /// In a loop, `v + c cmp x` (v the innermost loop's variable, x invariant in
  /// that loop, either side) as `v cmp x - c` with x - c hoisted: one
  /// instruction less per iteration. Signed when x - c may be negative (v is
  /// in 0..2^31-1); nullopt when x - c may leave s32, or e is not of that form.
  /// The predicate register is filled in by the caller (Setp::dst).
  std::optional<Setp> offset_compare(const Expr& e, unsigned level) {
    if (level == 0 || e.kind != ExprKind::binary || !tile::info(e.op).predicate ||
        e.op == ExprOp::logical_and || e.op == ExprOp::logical_or)
      return std::nullopt;
    const ExprPtr var = tile::make_leaf(ExprKind::loop, loops_[level - 1].var);
    for (int side = 0; side < 2; ++side) {
      const ExprPtr& lhs = e.args[static_cast<std::size_t>(side)];
      const ExprPtr& rhs = e.args[static_cast<std::size_t>(1 - side)];
      const Linear l = linearize(lhs);
      if (l.constant == 0 || l.terms.size() != 1 || l.terms.begin()->second != 1 ||
          compare(*l.terms.begin()->first, *var) != 0 || level_of(*rhs) >= level)
        continue;
      const ExprPtr moved = tile::make_binary(ExprOp::sub, rhs, tile::make_constant(l.constant));
      auto b = tile::bounds(*moved, lb_);
      if (!b || b->lo < -(std::int64_t{1} << 31) || b->hi > 0x7FFFFFFF)
        return std::nullopt;
      CompareOp cmp = compare_op(e.op);
      if (side == 1)
        cmp = swapped(cmp);
      ScalarType type = ScalarType::u32;
      if (b->lo < 0) {
        type = ScalarType::s32;
        cmp = signed_compare(cmp);
      }
      Operand x = typed(value(moved), type);
      Register v = loops_[level - 1].counter;
      return Setp{cmp, type, Register{}, v, x};
    }
    return std::nullopt;
  }

  /// lo/ls/hi/hs as lt/le/gt/ge (eq and ne unchanged).
  static CompareOp signed_compare(CompareOp c) {
    switch (c) {
    case CompareOp::lo:
      return CompareOp::lt;
    case CompareOp::ls:
      return CompareOp::le;
    case CompareOp::hi:
      return CompareOp::gt;
    case CompareOp::hs:
      return CompareOp::ge;
    case CompareOp::eq:
    case CompareOp::ne:
    case CompareOp::lt:
    case CompareOp::le:
    case CompareOp::gt:
    case CompareOp::ge:
      return c;
    }
    unreachable("not a CompareOp");
  }

  Register materialise(Guard g) {
    if (!g.negated)
      return g.predicate;
    Register p = reg(RegClass::pred);
    emit(Unary{UnaryOp::not_, ScalarType::pred, p, g.predicate});
    return p;
  }

  // --- addresses --------------------------------------------------------------

  Register tensor_base(const tile::Tensor& t) {
    if (auto it = cache_.base.find(t.name); it != cache_.base.end())
      return it->second;
    AtLevel at(*this, 0);
    Register r;
    if (t.space == tile::Space::global) {
      Register raw = reg(RegClass::b64);
      emit(Ld{StateSpace::param, ScalarType::u64, {raw}, Address{Symbol{param_symbol(t.name)}, 0}});
      r = reg(RegClass::b64);
      emit(Cvta{StateSpace::global, ScalarType::u64, r, raw});
    } else if (layout_.dynamic) {
      // One base for every shared tensor: each sits at its constant offset,
      // which address() folds into [reg+imm].
      if (!cache_.dynamic_base) {
        Register d = reg(RegClass::b32);
        emit(Mov{ScalarType::u32, d, Symbol{std::string(dynamic_shared_symbol)}});
        cache_.dynamic_base = d;
        for (auto& f : loops_)
          f.saved.dynamic_base = d;
      }
      r = *cache_.dynamic_base;
    } else {
      r = reg(RegClass::b32);
      emit(Mov{ScalarType::u32, r, Symbol{shared_symbol(t)}});
    }
    remember(&Caches::base, 0, t.name, r);
    return r;
  }

  /// The thread-dependent part of a view's address as a linear form. With
  /// `group_axes` == 2, the first two axes are bound to (warp, lane).
  Linear thread_linear(const tile::View& v, std::size_t group_axes) const {
    Linear l;
    l.constant = v.offset_bytes;
    for (const auto& t : v.terms)
      l.add(linearize(bind(t.index)), t.stride_bytes);
    if (group_axes == 2) {
      l.add_atom(tile::make_leaf(ExprKind::warp), v.axes[0].stride_bytes);
      l.add_atom(tile::make_leaf(ExprKind::lane), v.axes[1].stride_bytes);
    }
    recombine_warp_lane(l);
    return l;
  }

  /// The largest power of two (up to 16) that divides the register part of
  /// the address for every thread.
  static std::int64_t register_alignment(const tile::Tensor& t, const Linear& l) {
    std::int64_t a = std::min<std::int64_t>(t.align, 16);
    for (const auto& [atom, coeff] : l.terms)
      a = std::gcd(a, coeff < 0 ? -coeff : coeff);
    if (l.folded != 0)
      a = std::gcd(a, l.folded < 0 ? -l.folded : l.folded);
    return a;
  }

  /// A register holding base(t) + the non-constant part of l; the constant
  /// part is left in l.constant for the caller to fold into [reg+imm].
  /// When a coefficient is negative (`127 - tid`), the non-constant part alone
  /// would be negative, so the constant goes into the register instead: the
  /// register then holds the true offset, which the contract proved lies in
  /// 0..size-1, and no address arithmetic relies on wrapping.
  ///
  /// The same holds when an atom itself may be negative or leave 32 bits
  /// (`tid < 1 ? -1 : 0` inside an index): its register holds the value
  /// modulo 2^32, which `mad.wide.u32` would widen to a huge offset.
  ///
  /// `cache_hint`: the address is the shared destination of a `.L2::cache_hint`
  /// cp.async (see cache_hint_shared_address()).
  Register address(const tile::Tensor& t, Linear& l, bool cache_hint = false) {
    if (const auto* placed = layout_.find(t.name); placed && layout_.dynamic)
      l.constant += placed->offset;
    l.wrap32 = needs_wrap32(l);
    if (l.wrap32 && l.folded == 0) {
      l.folded = l.constant;
      l.constant = 0;
    }
    if (cache_hint && t.space == tile::Space::shared)
      return cache_hint_shared_address(t, l);
    return address_register(t, l);
  }

  /// A one-thread CTA with a `.L2::cache_hint` cp.async gets no `.reqntid`: with it,
  /// ptxas knows %tid is 0, every address term is uniform, and a loop's rotating or
  /// induction register plus the shared base becomes the LDGSTS `[R+UR]` form that
  /// ptxas 13.0 miscompiles (see cache_hint_shared_address(); found by `ptxgen fuzz`).
  bool single_thread_cache_hint() const {
    if (k_.block_dim.count() != 1)
      return false;
    return std::any_of(k_.ops.begin(), k_.ops.end(), [](const tile::Op& op) {
      const auto* a = std::get_if<tile::ApplyOp>(&op.body);
      return a && a->cache_policy;
    });
  }

  /// The shared destination address of a `.L2::cache_hint` cp.async: the CTA-uniform
  /// part first (base, loop and rotating terms, hoisted as usual), then the per-thread
  /// terms multiplied onto it at the copy, so that the register's last definition is a
  /// mad with a per-thread factor. ptxas 13.0 miscompiles such a copy when it can fold a
  /// uniform addend of the address into the LDGSTS's `[R+UR]` operand (`add(symbol, x)`
  /// from nvcc, `add(per-thread, rotating stage offset)` from a pipeline): the
  /// instruction's uniform registers are then never written and the GPU raises
  /// ILLEGAL_INSTRUCTION (the trap ldgsts_unwritten_uniform, driver/sass/traps.hpp;
  /// found by `ptxgen fuzz`, docs/fuzzing.md). Costs one mad per per-thread term at the
  /// copy instead of one add, and only on cache-hint copies.
  Register cache_hint_shared_address(const tile::Tensor& t, const Linear& l) {
    Linear uniform = l;
    uniform.terms.clear();
    std::vector<std::pair<ExprPtr, std::int64_t>> thread_terms;
    for (const auto& [atom, coeff] : l.terms) {
      if (tile::uses_thread(*atom))
        thread_terms.emplace_back(atom, coeff);
      else
        uniform.terms.emplace(atom, coeff);
    }
    // Only the base is uniform: the usual form is already `mad(per-thread, c, base)`.
    if (thread_terms.empty() || (uniform.terms.empty() && uniform.folded == 0))
      return address_register(t, l);
    Register acc = address_register(t, uniform);
    unsigned level = 0;
    for (const auto& term : l.terms)
      level = std::max(level, level_of(*term.first));
    AtLevel at(*this, level);
    for (const auto& [atom, coeff] : thread_terms) {
      Register factor = operand_reg(value(atom));
      Register next = reg(RegClass::b32);
      emit(Mad{false, ScalarType::u32, next, factor,
               Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(coeff))}, acc});
      acc = next;
    }
    // Later uses of the same address (a readback) take this register; the copy never
    // takes one made before it (the `add` form this avoids).
    remember(&Caches::address, level, AddressKey{t.name, l}, acc);
    return acc;
  }

  /// A form whose terms may be negative or leave 32 bits is summed in 32 bits (see address()).
  bool needs_wrap32(const Linear& l) const {
    return std::any_of(l.terms.begin(), l.terms.end(), [&](const auto& term) {
      auto b = tile::bounds(*term.first, lb_);
      return term.second < 0 || !b || b->lo < 0 || b->hi > 0xFFFFFFFF;
    });
  }

  /// address() of a form whose folded constant and wrap32 are decided. Inside
  /// loops, the part that does not depend on the innermost loop the form
  /// depends on is hoisted (computed before that loop), and the loop's
  /// variable and `X % S` terms are induction and rotating registers
  /// advanced once per iteration (strength reduction, see induction()).
  Register address_register(const tile::Tensor& t, const Linear& l) {
    AddressKey key{t.name, l};
    if (auto it = cache_.address.find(key); it != cache_.address.end())
      return it->second;
    unsigned level = 0;
    for (const auto& term : l.terms)
      level = std::max(level, level_of(*term.first));
    AtLevel at(*this, level);
    std::optional<Register> r;
    if (level > 0)
      r = reduced_address(t, l, level - 1);
    if (!r)
      r = plain_address(t, l);
    remember(&Caches::address, level, key, *r);
    return *r;
  }

  /// base + the terms, each multiplied in (or, for wrap32, summed in 32 bits and widened).
  Register plain_address(const tile::Tensor& t, const Linear& l) {
    Register base = tensor_base(t);
    Register acc = base;
    bool global = t.space == tile::Space::global;
    if (l.wrap32 && !global) {
      acc = shared_sum32(base, l);
    } else if (l.wrap32) {
      Register sum = operand_reg(sum32(l));
      Register wide = reg(RegClass::b64);
      emit(Cvt{ScalarType::u64, ScalarType::u32, wide, sum});
      acc = reg(RegClass::b64);
      emit(Binary{BinaryOp::add, ScalarType::s64, acc, base, wide});
    } else {
      for (const auto& [atom_expr, coeff] : l.terms) {
        Register atom = operand_reg(value(atom_expr));
        Register next = reg(global ? RegClass::b64 : RegClass::b32);
        emit(Mad{global, ScalarType::u32, next, atom, Immediate{coeff}, acc});
        acc = next;
      }
      if (l.folded != 0) { // an induction register's first value (see induction())
        Register next = reg(global ? RegClass::b64 : RegClass::b32);
        emit(Binary{
            BinaryOp::add, global ? ScalarType::s64 : ScalarType::u32, next, acc,
            Immediate{global ? l.folded
                             : static_cast<std::int64_t>(static_cast<std::uint32_t>(l.folded))}});
        acc = next;
      }
    }
    return acc;
  }

  /// base + l.folded + the sum of l's terms for a shared address, in 32 bits (shared
  /// addresses are 32-bit, so this is exact modulo 2^32 as sum32 + add would be). The
  /// symbol's register is the first mad's addend, never an `add` operand: ptxas 13.0
  /// miscompiles a `.L2::cache_hint` cp.async whose shared address is `add(symbol, x)`
  /// into an LDGSTS whose uniform registers are never written (the trap
  /// ldgsts_unwritten_uniform, driver/sass/traps.hpp; found by `ptxgen fuzz`, seed 1013).
  Register shared_sum32(Register base, const Linear& l) {
    Register acc = base;
    for (const auto& [atom_expr, coeff] : l.terms) {
      Register atom = operand_reg(value(atom_expr));
      Register next = reg(RegClass::b32);
      emit(Mad{false, ScalarType::u32, next, atom,
               Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(coeff))}, acc});
      acc = next;
    }
    if (l.folded != 0) {
      Register next = reg(RegClass::b32);
      emit(Binary{BinaryOp::add, ScalarType::u32, next, acc,
                  Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(l.folded))}});
      acc = next;
    }
    return acc;
  }

  /// l.folded + the sum of l's terms, in 32 bits (exact modulo 2^32).
  Operand sum32(const Linear& l) {
    auto u32 = [](std::int64_t v) {
      return Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(v))};
    };
    std::optional<Operand> acc;
    if (l.folded != 0)
      acc = u32(l.folded);
    for (const auto& [atom_expr, coeff] : l.terms) {
      Register atom = operand_reg(value(atom_expr));
      Register next = reg(RegClass::b32);
      if (!acc)
        emit(Binary{BinaryOp::mul_lo, ScalarType::u32, next, atom, u32(coeff)});
      else
        emit(Mad{false, ScalarType::u32, next, atom, u32(coeff), *acc});
      acc = next;
    }
    return acc ? *acc : Operand{Immediate{0}};
  }

  /// Calls f(coords, constant byte offset) for every coordinate of the axes
  /// from `first` on, in row-major order.
  template <class F>
  static void for_each_coord(const tile::View& v, std::size_t first, std::size_t end, F&& f) {
    std::vector<std::int64_t> c(v.axes.size(), 0);
    for (;;) {
      std::int64_t off = 0;
      for (std::size_t i = first; i < end; ++i)
        off += c[i] * v.axes[i].stride_bytes;
      f(c, off);
      std::size_t i = end;
      while (i > first) {
        --i;
        if (++c[i] < v.axes[i].size)
          break;
        c[i] = 0;
        if (i == first)
          return;
      }
      if (end == first)
        return;
    }
  }

  // --- ops ----------------------------------------------------------------------

  void lower(const tile::ApplyOp& a) {
    const tile::View& dv = a.dst.value;
    const tile::View& sv = a.src.value;
    // Unchecked kernels may lack the group axes; bind none then.
    const std::size_t group_axes =
        a.scope == tile::Scope::cta && dv.rank() >= 3 && sv.rank() >= 3 ? 2 : 0;
    Linear dl = thread_linear(dv, group_axes);
    Linear sl = thread_linear(sv, group_axes);
    Register dreg = address(*dv.tensor, dl, a.cache_policy.has_value());
    Register sreg = address(*sv.tensor, sl);

    const std::size_t rank = dv.rank();
    // Repeat coordinates walk the axes between the group axes and the chunk axis.
    std::vector<std::pair<std::int64_t, std::int64_t>> offsets;           // (dst, src) per repeat
    std::vector<std::map<std::string, std::int64_t, std::less<>>> coords; // named axes per repeat
    const auto names = tile::repeat_axis_names(a);
    for_each_coord(dv, group_axes, rank - 1,
                   [&](const std::vector<std::int64_t>& c, std::int64_t d) {
                     std::int64_t s = 0;
                     for (std::size_t i = group_axes; i + 1 < rank; ++i)
                       s += c[i] * sv.axes[i].stride_bytes;
                     offsets.emplace_back(d, s);
                     coords.emplace_back();
                     for (const auto& [name, axis] : names)
                       if (axis < c.size()) // an unchecked kernel's dst may be shorter
                         coords.back()[name] = c[axis];
                   });
    // The operands of repeat 0 (all repeats when they name no axis), then the policy.
    auto zero_fill = zero_fill_operand(a, coords[0]);
    std::optional<std::variant<Register, Immediate>> policy;
    if (a.cache_policy)
      policy = cache_policy(a.cache_policy->value);
    RepeatGuard guard = pred_guard(a, coords[0]);
    for (std::size_t r = 0; r < offsets.size(); ++r) {
      if (r > 0) { // a repeat's own values where they name its axes (cached otherwise)
        zero_fill = zero_fill_operand(a, coords[r]);
        guard = pred_guard(a, coords[r]);
      }
      if (guard.skip)
        continue;
      CpAsync cp;
      cp.opcode = a.opcode.value;
      cp.dst = Address{dreg, dl.constant + offsets[r].first};
      cp.src = Address{sreg, sl.constant + offsets[r].second};
      cp.cp_size = static_cast<std::uint32_t>(a.chunk_bytes.value);
      cp.zero_fill = zero_fill;
      cp.cache_policy = policy;
      emit(cp, guard.guard, offsets.size() > 1 ? "repeat " + std::to_string(r) : std::string{});
    }
  }

  using Coords = std::map<std::string, std::int64_t, std::less<>>;

  /// src_size or ignore_src for one repeat (its axes substituted, so constant-folded).
  /// An ignore_src that names axes and folds to a constant needs no operand when
  /// false and is src_size 0 when true (both zero the whole chunk).
  std::variant<std::monostate, SrcSize, IgnoreSrc> zero_fill_operand(const tile::ApplyOp& a,
                                                                     const Coords& c) {
    if (a.src_size) {
      Operand v = value(tile::substitute_axes(bind(a.src_size->value), c));
      if (const auto* imm = std::get_if<Immediate>(&v))
        return SrcSize{static_cast<std::uint32_t>(imm->value)};
      return SrcSize{std::get<Register>(v)};
    }
    if (a.ignore_src) {
      ExprPtr e = truth_for(a.ignore_src->value, c);
      if (auto k = tile::constant_value(*e); k && e != a.ignore_src->value) {
        if (*k == 0)
          return std::monostate{};
        return SrcSize{std::uint32_t{0}};
      }
      Guard g = predicate(e);
      return IgnoreSrc{g.predicate, g.negated};
    }
    return std::monostate{};
  }

  /// A condition for one repeat: its axes substituted and, when that changed
  /// it, constant `&&` / `||` operands folded (tile::fold_truth).
  ExprPtr truth_for(const ExprPtr& e, const Coords& c) const {
    ExprPtr s = tile::substitute_axes(bind(e), c);
    return s == e ? e : tile::fold_truth(s);
  }

  /// pred for one repeat: no guard when constant true; `skip` when it names axes
  /// and folds to false (the copy is not emitted: a false guard does nothing).
  struct RepeatGuard {
    bool skip = false;
    std::optional<Guard> guard;
  };
  RepeatGuard pred_guard(const tile::ApplyOp& a, const Coords& c) {
    if (!a.pred)
      return {};
    ExprPtr p = truth_for(a.pred->value, c);
    auto k = tile::constant_value(*p);
    if (k && *k != 0)
      return {};
    if (k && p != a.pred->value)
      return {true, std::nullopt};
    return {false, predicate(p)};
  }

  std::variant<Register, Immediate> cache_policy(const tile::CachePolicy& p) {
    if (const auto* from = std::get_if<tile::CachePolicyFromParam>(&p)) {
      PolicyKey key = from->param;
      if (auto it = cache_.policy.find(key); it != cache_.policy.end())
        return it->second;
      AtLevel at(*this, 0);
      Register r = reg(RegClass::b64);
      emit(Ld{
          StateSpace::param, ScalarType::u64, {r}, Address{Symbol{param_symbol(from->param)}, 0}});
      remember(&Caches::policy, 0, key, r);
      return r;
    }
    const auto& c = std::get<tile::CachePolicyCreate>(p);
    PolicyKey key =
        CreatePolicyKey{c.primary, c.secondary, std::bit_cast<std::uint32_t>(c.fraction)};
    if (auto it = cache_.policy.find(key); it != cache_.policy.end())
      return it->second;
    AtLevel at(*this, 0);
    Register r = reg(RegClass::b64);
    emit(CreatePolicyFractional{r, c.primary, c.secondary, c.fraction});
    remember(&Caches::policy, 0, key, r);
    return r;
  }

  void lower(const tile::CommitGroupOp&) { emit(CpAsyncCommitGroup{}); }
  void lower(const tile::WaitGroupOp& w) { emit(CpAsyncWaitGroup{w.n}); }
  void lower(const tile::WaitAllOp&) { emit(CpAsyncWaitAll{}); }
  void lower(const tile::CtaSyncOp&) { emit(BarSync{0}); }

  // ---------------------------------------------------------------- mbarriers

  /// The barrier's 32-bit shared address: a base register and the constant folded in.
  Address barrier_address(const tile::Located<tile::View>& b) {
    const tile::View& v = b.value;
    Linear l = thread_linear(v, 0);
    Register base = address(*v.tensor, l);
    return Address{base, l.constant};
  }

  /// Thread 0 of the CTA initialises the barrier (the contract requires a cta_sync after it).
  void lower(const tile::MbarrierInitOp& m) {
    const Address a = barrier_address(m.barrier);
    const Guard first = predicate(
        tile::make_binary(ExprOp::eq, tile::make_leaf(ExprKind::tid), tile::make_constant(0)));
    emit(MbarrierInit{SharedSpace::shared, a, Immediate{m.count.value}}, first);
  }
  void lower(const tile::CopyArriveOp& m) {
    emit(CpAsyncMbarrierArrive{m.noinc, SharedSpace::shared, barrier_address(m.barrier)});
  }
  /// The state is not needed (waits use the parity): the sink `_`.
  void lower(const tile::MbarrierArriveOp& m) {
    const Address a = barrier_address(m.barrier);
    std::optional<Guard> g;
    if (m.pred)
      g = predicate(bind(m.pred->value));
    emit(MbarrierArrive{SharedSpace::shared, std::nullopt, a}, g);
  }
  /// A spin loop on the phase's parity: test_wait below sm_90, try_wait (which suspends the
  /// thread in hardware for a while) from sm_90 on.
  void lower(const tile::MbarrierWaitOp& m) {
    const Address a = barrier_address(m.barrier);
    const Operand parity = value(bind(m.parity.value));
    const MbarrierWaitKind kind = o_.target.sm >= info(Feature::mbarrier_try_wait_parity).min_sm
                                      ? MbarrierWaitKind::try_
                                      : MbarrierWaitKind::test;
    const std::string head = "$L_mbw_" + std::to_string(waits_emitted_++);
    emit(Label{head});
    const Register done = reg(RegClass::pred);
    emit(MbarrierWait{kind, true, SharedSpace::shared, done, a, parity});
    emit(Bra{head, false}, Guard{done, true});
  }
  unsigned waits_emitted_ = 0; ///< numbers the mbarrier waits' labels

  static StateSpace space_of(const tile::Tensor& t) {
    return t.space == tile::Space::global ? StateSpace::global : StateSpace::shared;
  }

  /// The widest access (16, 8, 4, 2 or 1 bytes) at byte `i` of a run of
  /// `run` bytes whose address is reg + `off` with reg aligned to `align`.
  static std::int64_t widest(std::int64_t off, std::int64_t run, std::int64_t align) {
    for (std::int64_t w : {16, 8, 4, 2}) {
      if (w <= run && w <= align && ((off % w) + w) % w == 0)
        return w;
    }
    return 1;
  }

  // --- loops ----------------------------------------------------------------
  //
  // A loop is lowered as an expert writes it: what does not depend on its
  // variable is computed before it (emit() at a lower level inserts into that
  // loop's preheader), addresses affine in the variable are induction
  // registers and `X % S` / `X / S` rotating registers, all advanced once per
  // iteration by advance(); `unroll` copies the body.

  /// A register that holds an address (or, for a wrap32 global form, its 32-bit
  /// offset) at the loop variable's current value, advanced by `delta` per iteration.
  struct Induction {
    AddressKey key; ///< the form it holds
    Register r;
    Operand delta;
    ScalarType type; ///< u32 (32-bit) or s64 (a global address)
  };

  /// m * (x % s) for x = inv + a*k (a >= 1, inv invariant in the loop, x in
  /// 0..2^31-1), and optionally x / s, advanced per iteration by d = m *
  /// ((a*step) % s): `p = r >= m*s - d; r += p ? d - m*s : d` (and the
  /// quotient by (a*step) / s, plus 1 where p), no predicated write; for
  /// powers of two `r = (r + d) & (m*s - 1)`.
  struct Rotating {
    ExprPtr x;
    std::int64_t s = 0;
    std::int64_t m = 1;
    ExprPtr growth; ///< x's increase per iteration (see growth())
    Register r;
    ExprPtr delta;         ///< d, as an expression (constant when the step is)
    Operand delta_op;      ///< d
    Operand wrap_at;       ///< m*s - d
    Operand wrapped_delta; ///< d - m*s (modulo 2^32)
    std::optional<Register> quotient;
    Operand quotient_delta; ///< (a*step) / s
    Operand quotient_carry; ///< (a*step) / s + 1
    bool mask = false;      ///< m*s is a power of two: `and` instead of compare and select
  };

  struct LoopFrame {
    std::string var;
    ExprPtr start; ///< bound (see bind())
    ExprPtr step;
    Operand start_op;
    Operand step_op;
    Register counter;              ///< the loop variable
    std::size_t preheader_end = 0; ///< where emit() inserts what is hoisted to before this loop
    Caches saved;                  ///< the caches valid at the preheader's end
    /// The first copy of the body is lowered: a new loop-carried register now would
    /// miss the advances already emitted (every copy asks for the same ones).
    bool sealed = false;
    std::vector<Induction> inductions;
    std::vector<Rotating> rotating;
  };
  std::vector<LoopFrame> loops_; ///< the loops open at the current op, innermost last
  unsigned at_ = 0;              ///< the level emit() writes at (see emit())
  unsigned loops_emitted_ = 0;   ///< numbers the loops' labels
  /// The variables of fully unrolled loops, at the copy being lowered.
  std::map<std::string, std::int64_t, std::less<>> bound_;
  /// In copy u of an unrolled body with a constant step, the variable is
  /// v + u*step (the counter advances once per pass): the offsets by variable.
  std::map<std::string, std::int64_t, std::less<>> offset_;

  void lower_ops(std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      if (const auto* f = std::get_if<tile::ForOp>(&k_.ops[i].body)) {
        lower_loop(*f, i);
        i = f->end;
        continue;
      }
      std::visit([&](const auto& body) { lower(body); }, k_.ops[i].body);
    }
  }
  void lower(const tile::ForOp&) { unreachable("a for op outside lower_ops()"); }
  void lower(const tile::EndOp&) { unreachable("an end op outside lower_ops()"); }

  /// e with the variables of fully unrolled loops replaced by their values, and the
  /// launch sizes (ntid, nbid and their axes) by theirs: constants fold and divide.
  ExprPtr bind(const ExprPtr& e) const {
    return tile::substitute(e, [&](const Expr& x) -> ExprPtr {
      if (auto n = launch_size(x)) // ntid, nbid and their axes: the launch is fixed
        return tile::make_constant(*n);
      if (x.kind != ExprKind::loop)
        return nullptr;
      if (auto it = bound_.find(x.name); it != bound_.end())
        return tile::make_constant(it->second);
      if (auto it = offset_.find(x.name); it != offset_.end())
        return tile::make_binary(ExprOp::add, tile::make_leaf(ExprKind::loop, x.name),
                                 tile::make_constant(it->second));
      return nullptr;
    });
  }

  std::size_t frame_index(std::string_view var) const {
    for (std::size_t i = loops_.size(); i-- > 0;)
      if (loops_[i].var == var)
        return i;
    unreachable("a loop variable outside its loop");
  }

  /// The innermost loop level e depends on (0: none; n: the variable of loops_[n - 1]).
  unsigned level_of(const Expr& e) const {
    if (e.kind == ExprKind::loop)
      return static_cast<unsigned>(frame_index(e.name)) + 1;
    unsigned l = 0;
    for (const auto& a : e.args)
      l = std::max(l, level_of(*a));
    return l;
  }

  /// `for (v = start; v < stop; v += step)`. start, stop and step are evaluated
  /// once (hoisted as far as they go); the contract proved the variable in
  /// 0..2^31-1, so u32 compares are exact. A constant trip count of 0 emits
  /// nothing; an unroll of at least a constant trip count, straight-line code.
  void lower_loop(const tile::ForOp& f, std::size_t index) {
    const ExprPtr start = bind(f.start.value);
    const ExprPtr stop = bind(f.stop.value);
    const ExprPtr step = bind(f.step.value);
    std::optional<std::int64_t> trip;
    auto c0 = tile::constant_value(*start), c1 = tile::constant_value(*stop),
         c2 = tile::constant_value(*step);
    if (c0 && c1 && c2 && *c2 > 0)
      trip = *c1 <= *c0 ? 0 : (*c1 - *c0 + *c2 - 1) / *c2;
    if (trip && f.unroll >= *trip) {
      for (std::int64_t u = 0; u < *trip; ++u) {
        bound_[f.var.value] = *c0 + u * *c2;
        lower_ops(index + 1, f.end);
      }
      bound_.erase(f.var.value);
      return;
    }
    const Operand stop_op = value(stop);
    const std::size_t fi = open_loop(f, start, step);
    const std::string id = "$L_" + f.var.value + "_" + std::to_string(loops_emitted_++);
    const std::int64_t n = unroll_factor(f, step);
    if (n == 1) {
      counted_loop(index, fi, {start}, stop, stop_op, id, id + "_done");
    } else {
      // The unrolled loop runs while n more iterations remain: v < limit with
      // limit = max(stop, (n-1)*step) - (n-1)*step (no wrap below 0).
      const ExprPtr d = tile::make_binary(ExprOp::mul, step, tile::make_constant(n - 1));
      const ExprPtr limit =
          tile::make_binary(ExprOp::sub, tile::make_binary(ExprOp::max, stop, d), d);
      const Operand limit_op = value(limit);
      const bool full = trip && *trip >= n;
      counted_loop(index, fi, {start, full}, limit, limit_op, id, id + "_rem", n);
      if (trip) {
        for (std::int64_t u = 0; u < *trip % n; ++u)
          body_copy(index, fi);
      } else {
        counted_loop(index, fi, {}, stop, stop_op, id + "_tail", id + "_done");
      }
    }
    close_loop();
  }

  /// The unroll factor actually used: 1 when (unroll-1)*step could leave 0..2^31-1.
  std::int64_t unroll_factor(const tile::ForOp& f, const ExprPtr& step) const {
    if (f.unroll <= 1)
      return 1;
    auto b = tile::bounds(*step, lb_);
    constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 1;
    if (!b || b->hi > kLimit / (f.unroll - 1))
      return 1;
    return f.unroll;
  }

  /// Opens loops_[fi]: its counter starts at `start` (after the preheader).
  std::size_t open_loop(const tile::ForOp& f, const ExprPtr& start, const ExprPtr& step) {
    LoopFrame frame;
    frame.var = f.var.value;
    frame.start = start;
    frame.step = step;
    frame.start_op = value(start);
    frame.step_op = value(step);
    frame.counter = reg(RegClass::b32);
    frame.preheader_end = entry_->body.size();
    frame.saved = cache_;
    // The variable's range, as the contract computes it.
    constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 1;
    auto lo = tile::bounds(*start, lb_);
    auto hi = tile::bounds(*bind(f.stop.value), lb_);
    lb_.loops[f.var.value] =
        lo && hi ? tile::Interval{lo->lo, std::max(lo->lo, hi->hi - 1)} : tile::Interval{0, kLimit};
    loops_.push_back(std::move(frame));
    at_ = static_cast<unsigned>(loops_.size());
    emit(Mov{ScalarType::u32, loops_.back().counter, loops_.back().start_op});
    return loops_.size() - 1;
  }

  void close_loop() {
    cache_ = std::move(loops_.back().saved);
    lb_.loops.erase(loops_.back().var);
    loops_.pop_back();
    at_ = static_cast<unsigned>(loops_.size());
  }

  /// How a counted loop is entered: the variable's value there (nullptr:
  /// unknown), or known to run at least once.
  struct LoopEntry {
    ExprPtr value;
    bool runs = false;
  };

  /// `while (v < limit)`, `copies` bodies per back edge: a skip to `exit` unless
  /// the loop is known to run or its entry value is provably below `limit`,
  /// the bodies under label `head`, and the conditional back edge.
  void counted_loop(std::size_t index, std::size_t fi, const LoopEntry& entry, const ExprPtr& limit,
                    const Operand& limit_op, const std::string& head, const std::string& exit,
                    std::int64_t copies = 1) {
    bool may_skip = !entry.runs;
    if (may_skip && entry.value) {
      auto a = tile::bounds(*entry.value, lb_);
      auto b = tile::bounds(*limit, lb_);
      may_skip = !a || !b || a->hi >= b->lo;
    }
    const Register counter = loops_[fi].counter;
    if (may_skip) {
      Register skip = reg(RegClass::pred);
      emit(Setp{CompareOp::ge, ScalarType::u32, skip, counter, limit_op});
      emit(Bra{exit, true}, Guard{skip, false});
    }
    emit(Label{head});
    const auto* step = std::get_if<Immediate>(&loops_[fi].step_op);
    if (copies > 1 && step) {
      // One pass: copy u with v + u*step, then one advance by copies*step.
      const auto& f = std::get<tile::ForOp>(k_.ops[index].body);
      for (std::int64_t u = 0; u < copies; ++u) {
        offset_[loops_[fi].var] = u * step->value;
        lower_ops(index + 1, f.end);
      }
      offset_.erase(loops_[fi].var);
      loops_[fi].sealed = true;
      advance(fi, copies);
      cache_ = loops_[fi].saved;
    } else {
      for (std::int64_t u = 0; u < copies; ++u)
        body_copy(index, fi);
    }
    Register again = reg(RegClass::pred);
    emit(Setp{CompareOp::lt, ScalarType::u32, again, counter, limit_op});
    emit(Bra{head, true}, Guard{again, false});
    if (may_skip)
      emit(Label{exit});
  }

  /// One copy of the loop body, then the advance to the next iteration; the
  /// values of this iteration are forgotten.
  void body_copy(std::size_t index, std::size_t fi) {
    const auto& f = std::get<tile::ForOp>(k_.ops[index].body);
    lower_ops(index + 1, f.end);
    loops_[fi].sealed = true;
    advance(fi);
    cache_ = loops_[fi].saved;
  }

  /// v += step (times `mult`, for a constant step), and every induction and
  /// rotating register of the loop with it.
  void advance(std::size_t fi, std::int64_t mult = 1) {
    LoopFrame& f = loops_[fi];
    emit(Binary{BinaryOp::add, ScalarType::u32, f.counter, f.counter,
                times(f.step_op, mult, false)});
    for (const auto& iv : f.inductions)
      emit(Binary{BinaryOp::add, iv.type, iv.r, iv.r,
                  times(iv.delta, mult, iv.type == ScalarType::s64)});
    for (const auto& rot : f.rotating) {
      if (mult == 1) {
        advance(rot);
        continue;
      }
      // The same update for a step of mult*step (a constant).
      Rotating r = rot;
      const std::int64_t astep = *tile::constant_value(*rot.growth) * mult;
      const std::int64_t d = rot.m * (astep % rot.s), ms = rot.m * rot.s;
      r.delta_op = Immediate{d};
      r.wrap_at = Immediate{ms - d};
      r.wrapped_delta = as_u32(d - ms);
      r.quotient_delta = Immediate{astep / rot.s};
      r.quotient_carry = Immediate{astep / rot.s + 1};
      advance(r);
    }
  }

  static Immediate as_u32(std::int64_t v) {
    return Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(v))};
  }

  /// An immediate delta `mult` times (64-bit, or modulo 2^32); mult is 1 for registers.
  static Operand times(const Operand& o, std::int64_t mult, bool wide) {
    if (mult == 1)
      return o;
    const std::int64_t v = std::get<Immediate>(o).value * mult;
    return wide ? Immediate{v} : as_u32(v);
  }

  void advance(const Rotating& rot) {
    if (rot.mask) {
      if (!is_zero(rot.delta_op)) {
        emit(Binary{BinaryOp::add, ScalarType::u32, rot.r, rot.r, rot.delta_op});
        emit(Binary{BinaryOp::and_, ScalarType::b32, rot.r, rot.r, Immediate{rot.m * rot.s - 1}});
      }
      return;
    }
    std::optional<Register> wrap;
    if (!is_zero(rot.delta_op)) { // else the remainder never changes
      wrap = reg(RegClass::pred);
      emit(Setp{CompareOp::ge, ScalarType::u32, *wrap, rot.r, rot.wrap_at});
      Register step = reg(RegClass::b32);
      emit(Selp{ScalarType::u32, step, rot.wrapped_delta, rot.delta_op, *wrap});
      emit(Binary{BinaryOp::add, ScalarType::u32, rot.r, rot.r, step});
    }
    if (!rot.quotient)
      return;
    Operand q = rot.quotient_delta;
    if (wrap) {
      Register c = reg(RegClass::b32);
      emit(Selp{ScalarType::u32, c, rot.quotient_carry, rot.quotient_delta, *wrap});
      q = c;
    }
    if (!is_zero(q))
      emit(Binary{BinaryOp::add, ScalarType::u32, *rot.quotient, *rot.quotient, q});
  }

  static bool is_zero(const Operand& o) {
    const auto* imm = std::get_if<Immediate>(&o);
    return imm && imm->value == 0;
  }
  static bool power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

  /// The rotating register for `x % s` or `x / s` at `level` (loops_[level - 1]'s
  /// variable), when x qualifies (see Rotating); nullopt otherwise.
  std::optional<Register> rotating_value(const Expr& e, unsigned level) {
    if (level == 0 || e.kind != ExprKind::binary || (e.op != ExprOp::rem && e.op != ExprOp::div))
      return std::nullopt;
    auto s = tile::constant_value(*e.args[1]);
    if (!s)
      return std::nullopt;
    const bool quotient = e.op == ExprOp::div;
    if (quotient && power_of_two(*s))
      return std::nullopt; // a shift of x: compute()
    Rotating* r = rotating(e.args[0], *s, 1, level - 1, quotient);
    if (!r)
      return std::nullopt;
    return quotient ? *r->quotient : r->r;
  }

  /// Finds or makes loops_[fi]'s rotating register m * (x % s) (with x / s when
  /// `quotient`); nullptr when x does not qualify or the loop is sealed.
  Rotating* rotating(const ExprPtr& given, std::int64_t s, std::int64_t m, std::size_t fi,
                     bool quotient) {
    const ExprPtr x = quotient ? given : reduced_operand(given, s);
    const Linear lx = linearize(x);
    for (auto& r : loops_[fi].rotating) {
      const Linear lr = linearize(r.x);
      if (r.s != s || r.m != m || compare_registers(lr, lx) != 0 || lr.constant != lx.constant)
        continue;
      if (quotient && !r.quotient) {
        if (loops_[fi].sealed || r.mask)
          return nullptr;
        add_quotient(r, fi);
      }
      return &r;
    }
    if (loops_[fi].sealed || !rotating_form(x, s, m, fi))
      return nullptr;
    AtLevel at(*this, static_cast<unsigned>(fi));
    Rotating rot;
    rot.x = x;
    rot.s = s;
    rot.m = m;
    rot.mask = !quotient && power_of_two(s) && power_of_two(m);
    rot.growth = *growth(x, fi);
    const ExprPtr sc = tile::make_constant(s);
    const ExprPtr mc = tile::make_constant(m);
    const ExprPtr astep = rot.growth;
    rot.delta = tile::make_binary(ExprOp::mul, tile::make_binary(ExprOp::rem, astep, sc), mc);
    rot.delta_op = value(rot.delta);
    const ExprPtr ms = tile::make_constant(m * s);
    rot.wrap_at = value(tile::make_binary(ExprOp::sub, ms, rot.delta));
    rot.wrapped_delta = value(tile::make_binary(ExprOp::sub, rot.delta, ms));
    const Operand first = scaled_remainder(at_start(x, fi), s, m);
    rot.r = reg(RegClass::b32);
    emit(Mov{ScalarType::u32, rot.r, first});
    loops_[fi].rotating.push_back(std::move(rot));
    if (quotient)
      add_quotient(loops_[fi].rotating.back(), fi);
    return &loops_[fi].rotating.back();
  }

  /// x with its constant c >= s reduced modulo s, where that keeps it >= 0
  /// (x % s is the same: `(v + 4) % 3` and `(v + 1) % 3` share one register).
  ExprPtr reduced_operand(const ExprPtr& x, std::int64_t s) const {
    const std::int64_t c = linearize(x).constant;
    if (c < s)
      return x;
    ExprPtr r = tile::make_binary(ExprOp::sub, x, tile::make_constant(c - c % s));
    auto b = tile::bounds(*r, lb_);
    return b && b->lo >= 0 ? r : x;
  }

  /// m * (x % s): a rotating register of the loop x depends on where it
  /// qualifies (an inner loop's first value from an outer loop's variable), else computed.
  Operand scaled_remainder(const ExprPtr& x, std::int64_t s, std::int64_t m) {
    const unsigned level = level_of(*x);
    if (level > 0 && rotating_form(x, s, m, level - 1))
      if (Rotating* r = rotating(x, s, m, level - 1, false))
        return r->r;
    return value(tile::make_binary(ExprOp::mul,
                                   tile::make_binary(ExprOp::rem, x, tile::make_constant(s)),
                                   tile::make_constant(m)));
  }

  void add_quotient(Rotating& r, std::size_t fi) {
    AtLevel at(*this, static_cast<unsigned>(fi));
    const ExprPtr sc = tile::make_constant(r.s);
    const ExprPtr astep = r.growth;
    const ExprPtr qd = tile::make_binary(ExprOp::div, astep, sc);
    r.quotient_delta = value(qd);
    r.quotient_carry = value(tile::make_binary(ExprOp::add, qd, tile::make_constant(1)));
    const Operand first = value(tile::make_binary(ExprOp::div, at_start(r.x, fi), sc));
    r.quotient = reg(RegClass::b32);
    emit(Mov{ScalarType::u32, *r.quotient, first});
  }

  /// x with loops_[fi]'s variable replaced by the loop's start.
  ExprPtr at_start(const ExprPtr& x, std::size_t fi) const {
    const std::string& var = loops_[fi].var;
    const ExprPtr start = loops_[fi].start;
    return tile::substitute(x, [&](const Expr& e) -> ExprPtr {
      return e.kind == ExprKind::loop && e.name == var ? start : nullptr;
    });
  }

  /// How much x grows per iteration of loops_[fi], when x = inv + a*v + sum
  /// c*(X / S) with a >= 0 for the loop's variable v, inv invariant in the loop,
  /// each c >= 1, S a constant and X = inv' + a'*v with a'*step a multiple of S
  /// (step constant): then X / S grows by exactly a'*step / S per iteration
  /// (X >= 0), so `(t / nbid) % 3` over `t += nbid` rotates like `i % 3`.
  /// nullopt when x has another form or does not grow.
  std::optional<ExprPtr> growth(const ExprPtr& x, std::size_t fi) const {
    const LoopFrame& f = loops_[fi];
    const ExprPtr var = tile::make_leaf(ExprKind::loop, f.var);
    const auto step = tile::constant_value(*f.step);
    ExprPtr g = tile::make_constant(0);
    bool grows = false;
    for (const auto& [atom, coeff] : linearize(x).terms) {
      if (compare(*atom, *var) == 0) {
        if (coeff < 1)
          return std::nullopt;
        g = tile::make_binary(ExprOp::add, g,
                              tile::make_binary(ExprOp::mul, f.step, tile::make_constant(coeff)));
        grows = true;
        continue;
      }
      if (level_of(*atom) <= fi)
        continue; // invariant in this loop
      auto divisor = atom->kind == ExprKind::binary && atom->op == ExprOp::div
                         ? tile::constant_value(*atom->args[1])
                         : std::nullopt;
      if (!divisor || *divisor < 1 || !step || coeff < 1)
        return std::nullopt;
      const auto inner = growth(atom->args[0], fi);
      const auto lo = tile::bounds(*atom->args[0], lb_);
      if (!inner || !lo || lo->lo < 0)
        return std::nullopt;
      const std::int64_t per = tile::constant_value(**inner).value_or(0);
      if (per < 1 || per % *divisor != 0)
        return std::nullopt;
      g = tile::make_binary(ExprOp::add, g, tile::make_constant(coeff * (per / *divisor)));
      grows = true;
    }
    if (!grows)
      return std::nullopt;
    if (auto c = tile::constant_value(*g))
      return tile::make_constant(*c);
    return g;
  }

  /// x grows per iteration of loops_[fi] (growth()), x in 0..2^31-1 over the
  /// loop, and m*s in 2..2^31.
  bool rotating_form(const ExprPtr& x, std::int64_t s, std::int64_t m, std::size_t fi) const {
    constexpr std::int64_t kLimit = std::int64_t{1} << 31;
    if (s < 2 || m < 1 || m > kLimit / s)
      return false;
    auto b = tile::bounds(*x, lb_);
    return growth(x, fi).has_value() && b && b->lo >= 0 && b->hi < kLimit;
  }

  /// The address register of a form that depends on loops_[fi]'s variable v
  /// (and on no loop inside it): base(inv) + lin*v + sum of m * (x % s), with
  /// base(inv) hoisted, lin*v an induction register (32-bit forms) or one
  /// mad.wide from the counter (64-bit ones) and the remainders rotating byte
  /// offsets (shared memory). nullopt when the form has another
  /// kind of term in v, or the registers cannot be made (a sealed loop).
  std::optional<Register> reduced_address(const tile::Tensor& t, const Linear& l, std::size_t fi) {
    const ExprPtr var = tile::make_leaf(ExprKind::loop, loops_[fi].var);
    const bool shared = t.space == tile::Space::shared;
    Linear inv = l;
    inv.terms.clear();
    std::int64_t lin = 0;
    std::vector<std::pair<ExprPtr, std::int64_t>> rem_terms;
    for (const auto& [atom, coeff] : l.terms) {
      if (compare(*atom, *var) == 0)
        lin = coeff;
      else if (level_of(*atom) <= fi)
        inv.terms.emplace(atom, coeff);
      else if (shared && coeff >= 1 && atom->kind == ExprKind::binary && atom->op == ExprOp::rem &&
               tile::constant_value(*atom->args[1]) &&
               rotating_form(atom->args[0], *tile::constant_value(*atom->args[1]), coeff, fi))
        rem_terms.emplace_back(atom, coeff);
      else
        return std::nullopt;
    }
    std::vector<Register> offsets;
    for (const auto& [atom, m] : rem_terms) {
      Rotating* r = rotating(atom->args[0], *tile::constant_value(*atom->args[1]), m, fi, false);
      if (!r)
        return std::nullopt;
      offsets.push_back(r->r);
    }
    std::optional<Register> acc;
    if (lin > 0 && !shared && !inv.wrap32) {
      // A 64-bit induction register costs two SASS adds (IADD3, IMAD.X) per
      // iteration; one mad.wide.u32 from the counter (IMAD.WIDE.U32) onto the
      // hoisted base is one, and exact (v < 2^31, lin < 2^32).
      acc = reg(RegClass::b64);
      emit(Mad{true, ScalarType::u32, *acc, loops_[fi].counter, Immediate{lin},
               address_register(t, inv)});
    } else if (lin != 0)
      acc = induction(t, inv, lin, fi);
    else
      acc = address_register(t, inv);
    if (!acc)
      return std::nullopt;
    if (lin != 0 && !shared && inv.wrap32) { // the induction register is the 32-bit offset
      Register wide = reg(RegClass::b64);
      emit(Cvt{ScalarType::u64, ScalarType::u32, wide, *acc});
      acc = reg(RegClass::b64);
      emit(Binary{BinaryOp::add, ScalarType::s64, *acc, tensor_base(t), wide});
    }
    for (Register off : offsets) {
      Register next = reg(RegClass::b32);
      emit(Binary{BinaryOp::add, ScalarType::u32, next, *acc, off});
      acc = next;
    }
    return acc;
  }

  /// loops_[fi]'s induction register for base(inv) + lin*v: set before the
  /// loop to its value at v = start, advanced by lin*step per iteration. A
  /// global form that is not wrap32 holds the 64-bit address (lin > 0 there);
  /// otherwise a 32-bit register holds the address (shared) or the offset
  /// (global), exact modulo 2^32.
  std::optional<Register> induction(const tile::Tensor& t, const Linear& inv, std::int64_t lin,
                                    std::size_t fi) {
    Linear form = inv;
    form.add_atom(tile::make_leaf(ExprKind::loop, loops_[fi].var), lin);
    AddressKey key{t.name, form};
    for (const auto& iv : loops_[fi].inductions)
      if (!AddressKeyLess{}(iv.key, key) && !AddressKeyLess{}(key, iv.key))
        return iv.r;
    if (loops_[fi].sealed)
      return std::nullopt;
    const bool global = t.space == tile::Space::global;
    const bool wide = global && !inv.wrap32;
    // The value at v = start: v's term replaced by start's linear form (its
    // constant into the register, where the form's register part goes).
    Linear first = inv;
    const Linear s0 = linearize(loops_[fi].start);
    for (const auto& [atom, coeff] : s0.terms)
      first.add_atom(atom, coeff * lin);
    first.folded += s0.constant * lin;
    first.wrap32 = inv.wrap32 || needs_wrap32(first);
    Operand init;
    if (!wide && global) {
      AtLevel at(*this, static_cast<unsigned>(fi));
      init = sum32(first);
    } else {
      init = address_register(t, first);
    }
    AtLevel at(*this, static_cast<unsigned>(fi));
    Induction iv{key, reg(wide ? RegClass::b64 : RegClass::b32), Operand{},
                 wide ? ScalarType::s64 : ScalarType::u32};
    emit(Mov{wide ? ScalarType::u64 : ScalarType::u32, iv.r, init});
    const Operand step = loops_[fi].step_op;
    if (const auto* step_imm = std::get_if<Immediate>(&step)) {
      const std::int64_t d = lin * step_imm->value;
      iv.delta = Immediate{wide ? d : static_cast<std::int64_t>(static_cast<std::uint32_t>(d))};
    } else if (wide) {
      Register d = reg(RegClass::b64);
      emit(Binary{BinaryOp::mul_wide, ScalarType::u32, d, step, Immediate{lin}});
      iv.delta = d;
    } else {
      Register d = reg(RegClass::b32);
      emit(Binary{BinaryOp::mul_lo, ScalarType::u32, d, step,
                  Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(lin))}});
      iv.delta = d;
    }
    loops_[fi].inductions.push_back(iv);
    return iv.r;
  }

  void lower(const tile::FillOp& f) {
    const tile::View& v = f.dst.value;
    Linear l = thread_linear(v, 0);
    Register base = address(*v.tensor, l);
    const std::int64_t align = register_alignment(*v.tensor, l);
    const std::int64_t elem = tile::size_bytes(v.dtype);
    // Byte k of the view (row-major, element by element) gets pattern[k % size].
    std::map<std::int64_t, std::uint8_t> bytes;
    std::int64_t k = 0;
    for_each_coord(v, 0, v.rank(), [&](const std::vector<std::int64_t>&, std::int64_t off) {
      for (std::int64_t b = 0; b < elem; ++b, ++k)
        bytes.emplace(l.constant + off + b,
                      f.pattern[static_cast<std::size_t>(k) % f.pattern.size()]);
    });
    for (auto it = bytes.begin(); it != bytes.end();) {
      std::int64_t start = it->first;
      std::int64_t run = 0;
      for (auto j = it; j != bytes.end() && j->first == start + run; ++j)
        ++run;
      std::int64_t w = widest(start, run, align);
      std::vector<std::uint8_t> chunk;
      for (std::int64_t b = 0; b < w; ++b, ++it)
        chunk.push_back(it->second);
      store_constant(space_of(*v.tensor), Address{base, start}, chunk);
    }
  }

  void store_constant(StateSpace space, Address addr, const std::vector<std::uint8_t>& bytes) {
    auto word = [&](std::size_t at, std::size_t n) {
      std::uint64_t x = 0;
      for (std::size_t i = 0; i < n; ++i)
        x |= std::uint64_t{bytes[at + i]} << (8 * i);
      return static_cast<std::int64_t>(x);
    };
    const std::size_t n = bytes.size();
    St st;
    st.space = space;
    st.address = addr;
    if (n >= 8) {
      st.type = ScalarType::u32;
      for (std::size_t i = 0; i < n; i += 4)
        st.src.push_back(Immediate{word(i, 4)});
    } else {
      st.type = n == 4 ? ScalarType::u32 : n == 2 ? ScalarType::u16 : ScalarType::u8;
      st.src.push_back(Immediate{word(0, n)});
    }
    emit(st);
  }

  void lower(const tile::CopyOp& c) {
    const tile::View& dv = c.dst.value;
    const tile::View& sv = c.src.value;
    Linear dl = thread_linear(dv, 0);
    Linear sl = thread_linear(sv, 0);
    Register dreg = address(*dv.tensor, dl);
    Register sreg = address(*sv.tensor, sl);
    const std::int64_t dalign = register_alignment(*dv.tensor, dl);
    const std::int64_t salign = register_alignment(*sv.tensor, sl);
    const std::int64_t elem = tile::size_bytes(dv.dtype);
    // (dst byte offset -> src byte offset) for every byte, in dst order.
    std::map<std::int64_t, std::int64_t> pairs;
    for_each_coord(dv, 0, dv.rank(), [&](const std::vector<std::int64_t>& coord, std::int64_t d) {
      std::int64_t s = 0;
      for (std::size_t i = 0; i < coord.size(); ++i)
        s += coord[i] * sv.axes[i].stride_bytes;
      for (std::int64_t b = 0; b < elem; ++b)
        pairs.emplace(dl.constant + d + b, sl.constant + s + b);
    });
    for (auto it = pairs.begin(); it != pairs.end();) {
      const std::int64_t d0 = it->first;
      const std::int64_t s0 = it->second;
      std::int64_t run = 0;
      for (auto j = it; j != pairs.end() && j->first == d0 + run && j->second == s0 + run; ++j)
        ++run;
      std::int64_t w = std::min(widest(d0, run, dalign), widest(s0, run, salign));
      copy_chunk(space_of(*dv.tensor), Address{dreg, d0}, space_of(*sv.tensor), Address{sreg, s0},
                 w);
      std::advance(it, w);
    }
  }

  void copy_chunk(StateSpace dspace, Address dst, StateSpace sspace, Address src, std::int64_t w) {
    Ld ld;
    ld.space = sspace;
    ld.address = src;
    St st;
    st.space = dspace;
    st.address = dst;
    if (w >= 4) {
      ld.type = st.type = ScalarType::b32;
      for (std::int64_t i = 0; i < w / 4; ++i)
        ld.dst.push_back(reg(RegClass::b32));
    } else {
      ld.type = st.type = w == 2 ? ScalarType::b16 : ScalarType::b8;
      ld.dst.push_back(reg(RegClass::b16));
    }
    for (const auto& r : ld.dst)
      st.src.push_back(r);
    emit(ld);
    emit(st);
  }
};

} // namespace

Result<ptx::Module> lower(const tile::Kernel& k, const LowerOptions& options) {
  Diagnostics ds = options.unchecked
                       ? Diagnostics{}
                       : tile::check_contract(k, options.run_target.value_or(options.target));
  if (ds.has_errors())
    return Result<ptx::Module>::failure(std::move(ds));
  ptx::Module m = Lowerer(k, options).run();
  Diagnostics valid = ptx::validate(m);
  // Errors here come from the target or PTX version the options ask for, or
  // from a gap in the contract: reported at the kernel rather than printed as
  // bad PTX. `--unchecked` emits it anyway: one warning, the findings as notes.
  const bool emit_anyway = options.unchecked && valid.has_errors();
  if (emit_anyway) {
    Diagnostic w(DiagId::lower_unchecked_invalid_ptx,
                 "--unchecked: emitting PTX that breaks the PTX rules in the notes below",
                 Severity::warning);
    w.file = k.file;
    ds.add(std::move(w));
  }
  for (auto d : valid.items()) {
    if (d.file.empty())
      d.file = k.file;
    if (emit_anyway)
      d.severity = Severity::note;
    ds.add(std::move(d));
  }
  if (ds.has_errors())
    return Result<ptx::Module>::failure(std::move(ds));
  Result<ptx::Module> r;
  r.value = std::move(m);
  r.diagnostics = std::move(ds); // warnings, if any
  return r;
}

} // namespace ptxgen::lower
