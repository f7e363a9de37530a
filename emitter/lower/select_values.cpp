// Selection of u32 values and predicates: leaves once, expressions cached by
// structure, each at the outermost loop level it does not depend on.

#include "emitter/lower/lowerer.hpp"

#include <bit>

namespace ptxgen::lower::impl {

Register Lowerer::leaf(const ExprPtr& e) {
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

std::optional<ExprPtr> Lowerer::x_only_alias(const Expr& e) const {
  if (e.kind != ExprKind::special)
    return std::nullopt;
  if (e.special == Special::tid_x && k_.block_dim.count() == k_.block_dim.x)
    return tile::make_leaf(ExprKind::tid);
  if (e.special == Special::bid_x && k_.grid_dim.count() == k_.grid_dim.x)
    return tile::make_leaf(ExprKind::bid);
  return std::nullopt;
}

Register Lowerer::linear_index(const ExprPtr& e, Special x, const tile::Dim3& d) {
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

SpecialRegister Lowerer::special_register(Special s) {
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

std::optional<std::int64_t> Lowerer::launch_size(const Expr& e) const {
  if (e.kind != ExprKind::special || tile::per_thread(e.special))
    return std::nullopt;
  auto b = tile::bounds(e, lb_);
  if (!b || b->lo != b->hi)
    return std::nullopt; // bid.x, bid.y, bid.z
  return b->lo;
}

Operand Lowerer::value(const ExprPtr& e) {
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

Register Lowerer::compute(const ExprPtr& e) {
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
    const Operand on = Immediate{g.negated ? 0 : 1}, off = Immediate{g.negated ? 1 : 0};
    emit(Selp{ScalarType::u32, r, on, off, g.predicate});
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

std::optional<std::int64_t> Lowerer::loop_power_of_two_divisor(const Expr& e) const {
  if (at_ == 0 || e.kind != ExprKind::binary || (e.op != ExprOp::div && e.op != ExprOp::rem))
    return std::nullopt;
  auto d = tile::constant_value(*e.args[1]);
  if (!d || !power_of_two(*d) || *d > 0x80000000)
    return std::nullopt;
  return d;
}

ScalarType Lowerer::minmax_type(const Expr& e) const {
  const tile::LaunchBounds& lb = lb_;
  for (const auto& a : e.args) {
    auto b = tile::bounds(*a, lb);
    if (!b || b->lo < 0 || b->hi > std::int64_t{0xFFFFFFFF})
      return ScalarType::s32;
  }
  return ScalarType::u32;
}

std::optional<std::size_t> Lowerer::dominant_operand(const Expr& e) const {
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

Operand Lowerer::typed(const Operand& o, ScalarType t) {
  const auto* imm = std::get_if<Immediate>(&o);
  if (!imm || t != ScalarType::s32)
    return o;
  return Immediate{static_cast<std::int32_t>(static_cast<std::uint32_t>(imm->value))};
}

Lowerer::Arith Lowerer::arith(ExprOp op) {
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

Register Lowerer::operand_reg(const Operand& o) {
  if (const auto* r = std::get_if<Register>(&o))
    return *r;
  Register r = reg(RegClass::b32);
  emit(Mov{ScalarType::u32, r, o});
  return r;
}

CompareOp Lowerer::compare_op(ExprOp op) {
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

Guard Lowerer::predicate(const ExprPtr& e) {
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
    emit(Binary{e->op == ExprOp::logical_and ? BinaryOp::and_ : BinaryOp::or_, ScalarType::pred, p,
                a, b});
  } else if (auto moved = offset_compare(*e, level)) {
    p = reg(RegClass::pred);
    moved->dst = p;
    emit(*moved);
  } else if (e->kind == ExprKind::binary && tile::info(e->op).predicate) {
    ExprOp op = e->op;
    Operand a = value(e->args[0]);
    Operand b = value(e->args[1]);
    if (std::holds_alternative<Immediate>(a)) {
      std::swap(a, b);
      op = tile::info(op).swapped;
    }
    p = reg(RegClass::pred);
    emit(Setp{compare_op(op), ScalarType::u32, p, a, b});
  } else {
    Operand v = value(e);
    p = reg(RegClass::pred);
    emit(Setp{CompareOp::ne, ScalarType::u32, p, v, Immediate{0}});
  }
  remember(&Caches::pred, level, e, p);
  return Guard{p, false};
}

std::optional<Setp> Lowerer::offset_compare(const Expr& e, unsigned level) {
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
    CompareOp cmp = compare_op(side == 1 ? tile::info(e.op).swapped : e.op);
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

CompareOp Lowerer::signed_compare(CompareOp c) {
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
  case CompareOp::equ: // a float comparison has no unsigned form
  case CompareOp::neu:
  case CompareOp::ltu:
  case CompareOp::leu:
  case CompareOp::gtu:
  case CompareOp::geu:
  case CompareOp::num:
  case CompareOp::nan:
    return c;
  }
  unreachable("not a CompareOp");
}

Register Lowerer::materialise(Guard g) {
  if (!g.negated)
    return g.predicate;
  Register p = reg(RegClass::pred);
  emit(Unary{UnaryOp::not_, ScalarType::pred, p, g.predicate});
  return p;
}

} // namespace ptxgen::lower::impl
