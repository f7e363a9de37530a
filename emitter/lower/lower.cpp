#include "emitter/lower/lower.hpp"

#include "emitter/lower/abi.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/contract.hpp"

#include <algorithm>
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
      : k_(k), o_(o), layout_(tile::shared_layout(k)) {}

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
    // The block's shape: a launch of another shape fails. A kernel built without
    // set_launch (block_dim not matching block) is a 1-D block of `block` threads.
    const tile::Dim3 b =
        k_.block_dim.count() == k_.block ? k_.block_dim : tile::Dim3{k_.block, 1, 1};
    e.reqntid = {static_cast<std::uint32_t>(b.x), static_cast<std::uint32_t>(b.y),
                 static_cast<std::uint32_t>(b.z)};
    entry_ = &e;
    for (const auto& op : k_.ops)
      std::visit([&](const auto& body) { lower(body); }, op.body);
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
  std::map<ExprPtr, Register, ExprLess> value_cache_; ///< u32 values (leaves included)
  std::map<ExprPtr, Register, ExprLess> pred_cache_;  ///< predicates
  std::map<std::string, Register> base_cache_;        ///< tensor base addresses, by tensor name
  std::optional<Register> dynamic_base_; ///< the `.extern .shared` array's address, once
  std::map<AddressKey, Register, AddressKeyLess> address_cache_; ///< per-thread addresses
  std::map<PolicyKey, Register> policy_cache_;

  Register reg(RegClass c) { return entry_->registers.make(c); }
  void emit(InstructionBody b, std::optional<Guard> g = std::nullopt, std::string comment = {}) {
    entry_->body.push_back(Instruction{g, std::move(b), std::move(comment)});
  }

  // --- values ---------------------------------------------------------------

  /// A leaf's register, defined once (warp and lane from tid, which comes first).
  Register leaf(const ExprPtr& e) {
    if (auto it = value_cache_.find(e); it != value_cache_.end())
      return it->second;
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
    value_cache_.emplace(e, r);
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
    value_cache_.emplace(e, out);
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
    auto b = tile::bounds(e, k_.launch_bounds());
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
    case ExprKind::loop: {
      auto it = value_cache_.find(e);
      if (it == value_cache_.end())
        unreachable("value() of a loop variable outside its loop");
      return it->second;
    }
    case ExprKind::axis:
      unreachable("value() of a repeat-axis leaf (substitute_axes first)");
    case ExprKind::constant: // returned above
    case ExprKind::unary:
    case ExprKind::binary:
    case ExprKind::select:
      break;
    }
    if (auto it = value_cache_.find(e); it != value_cache_.end())
      return it->second;
    Register r = compute(e);
    value_cache_.emplace(e, r);
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

  /// min/max compare as u32 when both operands are in 0..2^32-1 over the
  /// launch, else as s32 (the contract proved them in -2^31..2^31-1 where the
  /// value is used; see check_u32). Registers hold values modulo 2^32 either way.
  ScalarType minmax_type(const Expr& e) const {
    const tile::LaunchBounds lb = k_.launch_bounds();
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
    const tile::LaunchBounds lb = k_.launch_bounds();
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
    if (auto it = pred_cache_.find(e); it != pred_cache_.end())
      return Guard{it->second, false};
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
    pred_cache_.emplace(e, p);
    return Guard{p, false};
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
    if (auto it = base_cache_.find(t.name); it != base_cache_.end())
      return it->second;
    Register r;
    if (t.space == tile::Space::global) {
      Register raw = reg(RegClass::b64);
      emit(Ld{StateSpace::param, ScalarType::u64, {raw}, Address{Symbol{param_symbol(t.name)}, 0}});
      r = reg(RegClass::b64);
      emit(Cvta{StateSpace::global, ScalarType::u64, r, raw});
    } else if (layout_.dynamic) {
      // One base for every shared tensor: each sits at its constant offset,
      // which address() folds into [reg+imm].
      if (!dynamic_base_) {
        dynamic_base_ = reg(RegClass::b32);
        emit(Mov{ScalarType::u32, *dynamic_base_, Symbol{std::string(dynamic_shared_symbol)}});
      }
      r = *dynamic_base_;
    } else {
      r = reg(RegClass::b32);
      emit(Mov{ScalarType::u32, r, Symbol{shared_symbol(t)}});
    }
    base_cache_[t.name] = r;
    return r;
  }

  /// The thread-dependent part of a view's address as a linear form. With
  /// `group_axes` == 2, the first two axes are bound to (warp, lane).
  static Linear thread_linear(const tile::View& v, std::size_t group_axes) {
    Linear l;
    l.constant = v.offset_bytes;
    for (const auto& t : v.terms)
      l.add(linearize(t.index), t.stride_bytes);
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
  Register address(const tile::Tensor& t, Linear& l) {
    if (const auto* placed = layout_.find(t.name); placed && layout_.dynamic)
      l.constant += placed->offset;
    const tile::LaunchBounds lb = k_.launch_bounds();
    bool any_negative = std::any_of(l.terms.begin(), l.terms.end(), [&](const auto& term) {
      auto b = tile::bounds(*term.first, lb);
      return term.second < 0 || !b || b->lo < 0 || b->hi > 0xFFFFFFFF;
    });
    if (any_negative && l.folded == 0) {
      l.folded = l.constant;
      l.constant = 0;
    }
    AddressKey key{t.name, l};
    if (auto it = address_cache_.find(key); it != address_cache_.end())
      return it->second;
    Register base = tensor_base(t);
    Register acc = base;
    bool global = t.space == tile::Space::global;
    if (any_negative) {
      Register sum = sum32(l);
      if (global) {
        Register wide = reg(RegClass::b64);
        emit(Cvt{ScalarType::u64, ScalarType::u32, wide, sum});
        acc = reg(RegClass::b64);
        emit(Binary{BinaryOp::add, ScalarType::s64, acc, base, wide});
      } else {
        acc = reg(RegClass::b32);
        emit(Binary{BinaryOp::add, ScalarType::u32, acc, base, sum});
      }
    } else {
      for (const auto& [atom_expr, coeff] : l.terms) {
        Register atom = operand_reg(value(atom_expr));
        Register next = reg(global ? RegClass::b64 : RegClass::b32);
        emit(Mad{global, ScalarType::u32, next, atom, Immediate{coeff}, acc});
        acc = next;
      }
    }
    address_cache_.emplace(std::move(key), acc);
    return acc;
  }

  /// l.folded + the sum of l's terms, in 32 bits (exact modulo 2^32).
  Register sum32(const Linear& l) {
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
    return std::get<Register>(*acc);
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
    Register dreg = address(*dv.tensor, dl);
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
      Operand v = value(tile::substitute_axes(a.src_size->value, c));
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
  static ExprPtr truth_for(const ExprPtr& e, const Coords& c) {
    ExprPtr s = tile::substitute_axes(e, c);
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
      if (auto it = policy_cache_.find(key); it != policy_cache_.end())
        return it->second;
      Register r = reg(RegClass::b64);
      emit(Ld{
          StateSpace::param, ScalarType::u64, {r}, Address{Symbol{param_symbol(from->param)}, 0}});
      policy_cache_.emplace(std::move(key), r);
      return r;
    }
    const auto& c = std::get<tile::CachePolicyCreate>(p);
    PolicyKey key =
        CreatePolicyKey{c.primary, c.secondary, std::bit_cast<std::uint32_t>(c.fraction)};
    if (auto it = policy_cache_.find(key); it != policy_cache_.end())
      return it->second;
    Register r = reg(RegClass::b64);
    emit(CreatePolicyFractional{r, c.primary, c.secondary, c.fraction});
    policy_cache_.emplace(std::move(key), r);
    return r;
  }

  void lower(const tile::CommitGroupOp&) { emit(CpAsyncCommitGroup{}); }
  void lower(const tile::WaitGroupOp& w) { emit(CpAsyncWaitGroup{w.n}); }
  void lower(const tile::WaitAllOp&) { emit(CpAsyncWaitAll{}); }
  void lower(const tile::CtaSyncOp&) { emit(BarSync{0}); }

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

  /// What lowering a loop body may add to the caches; restored at the loop's end,
  /// since a value first computed in the body is not defined after a loop that
  /// ran zero times.
  struct Caches {
    std::map<ExprPtr, Register, ExprLess> value;
    std::map<ExprPtr, Register, ExprLess> pred;
    std::map<std::string, Register> base;
    std::optional<Register> dynamic_base;
    std::map<AddressKey, Register, AddressKeyLess> address;
    std::map<PolicyKey, Register> policy;
  };

  struct LoopFrame {
    Register counter; ///< the loop variable
    Operand stop;
    Operand step;
    std::string head; ///< the label at the top of the body
    std::string exit; ///< the label after the loop
    Caches saved;
  };
  std::vector<LoopFrame> loops_; ///< the loops open at the current op, innermost last
  unsigned loops_emitted_ = 0;   ///< numbers the loops' labels

  /// `for (v = start; v < stop; v += step)`: start, stop and step once before the
  /// loop, a guard that skips a loop of no iterations, the body under a label,
  /// and at the end the increment and the conditional back edge. The contract
  /// proved the variable's range inside 0..2^31-1, so u32 compares are exact.
  void lower(const tile::ForOp& f) {
    const Operand start = value(f.start.value);
    const Operand stop = value(f.stop.value);
    const Operand step = value(f.step.value);
    const std::string id = f.var.value + "_" + std::to_string(loops_emitted_++);
    LoopFrame frame{reg(RegClass::b32),
                    stop,
                    step,
                    "$L_" + id,
                    "$L_" + id + "_done",
                    Caches{value_cache_, pred_cache_, base_cache_, dynamic_base_, address_cache_,
                           policy_cache_}};
    emit(Mov{ScalarType::u32, frame.counter, start});
    Register skip = reg(RegClass::pred);
    emit(Setp{CompareOp::ge, ScalarType::u32, skip, frame.counter, stop});
    emit(Bra{frame.exit, true}, Guard{skip, false});
    emit(Label{frame.head});
    value_cache_[tile::make_leaf(ExprKind::loop, f.var.value)] = frame.counter;
    loops_.push_back(std::move(frame));
  }

  void lower(const tile::EndOp&) {
    LoopFrame frame = std::move(loops_.back());
    loops_.pop_back();
    emit(Binary{BinaryOp::add, ScalarType::u32, frame.counter, frame.counter, frame.step});
    Register again = reg(RegClass::pred);
    emit(Setp{CompareOp::lt, ScalarType::u32, again, frame.counter, frame.stop});
    emit(Bra{frame.head, true}, Guard{again, false});
    emit(Label{frame.exit});
    value_cache_ = std::move(frame.saved.value);
    pred_cache_ = std::move(frame.saved.pred);
    base_cache_ = std::move(frame.saved.base);
    dynamic_base_ = frame.saved.dynamic_base;
    address_cache_ = std::move(frame.saved.address);
    policy_cache_ = std::move(frame.saved.policy);
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
