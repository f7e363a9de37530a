// Selection of induction and rotating registers: an address affine in a loop
// variable, or an `x % s` / `x / s` that grows with it, becomes a register the
// loop advances (advance_instructions()); no division in a loop body.

#include "emitter/lower/lowerer.hpp"

namespace ptxgen::lower::impl {

void Lowerer::advance(std::size_t fi, std::int64_t mult) {
  for (auto& i : advance_instructions(*loops_[fi].node, mult, entry_->registers))
    emit(std::move(i.body));
}

std::optional<Register> Lowerer::rotating_value(const Expr& e, unsigned level) {
  if (level > 0 && e.kind == ExprKind::binary && e.op == ExprOp::mul)
    return scaled_rotating_value(e, level);
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

std::optional<Register> Lowerer::scaled_rotating_value(const Expr& e, unsigned level) {
  for (std::size_t i = 0; i < 2; ++i) {
    const Expr& rem = *e.args[i];
    const auto m = tile::constant_value(*e.args[1 - i]);
    if (!m || *m < 2 || rem.kind != ExprKind::binary || rem.op != ExprOp::rem ||
        level_of(rem) != level)
      continue;
    const auto s = tile::constant_value(*rem.args[1]);
    if (!s || !rotating_form(rem.args[0], *s, *m, level - 1))
      continue;
    if (Rotating* r = rotating(rem.args[0], *s, *m, level - 1, false))
      return r->r;
  }
  return std::nullopt;
}

Rotating* Lowerer::rotating(const ExprPtr& given, std::int64_t s, std::int64_t m, std::size_t fi,
                            bool quotient) {
  const ExprPtr x = quotient ? given : reduced_operand(given, s);
  const Linear lx = linearize(x);
  for (auto& r : loops_[fi].node->rotating) {
    const Linear lr = linearize(r.x);
    // x / s does not depend on m: a quotient joins the register of any scale.
    if (r.s != s || (!quotient && r.m != m) || compare_registers(lr, lx) != 0 ||
        lr.constant != lx.constant)
      continue;
    if (quotient && !r.quotient) {
      if (r.mask && r.m != m)
        continue;
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
  loops_[fi].node->rotating.push_back(std::move(rot));
  if (quotient)
    add_quotient(loops_[fi].node->rotating.back(), fi);
  return &loops_[fi].node->rotating.back();
}

ExprPtr Lowerer::reduced_operand(const ExprPtr& x, std::int64_t s) const {
  const std::int64_t c = linearize(x).constant;
  if (c < s)
    return x;
  ExprPtr r = tile::make_binary(ExprOp::sub, x, tile::make_constant(c - c % s));
  auto b = tile::bounds(*r, lb_);
  return b && b->lo >= 0 ? r : x;
}

Operand Lowerer::scaled_remainder(const ExprPtr& x, std::int64_t s, std::int64_t m) {
  const unsigned level = level_of(*x);
  if (level > 0 && rotating_form(x, s, m, level - 1))
    if (Rotating* r = rotating(x, s, m, level - 1, false))
      return r->r;
  return value(tile::make_binary(ExprOp::mul,
                                 tile::make_binary(ExprOp::rem, x, tile::make_constant(s)),
                                 tile::make_constant(m)));
}

void Lowerer::add_quotient(Rotating& r, std::size_t fi) {
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

ExprPtr Lowerer::at_start(const ExprPtr& x, std::size_t fi) const {
  const std::string& var = loops_[fi].var;
  const ExprPtr start = loops_[fi].start;
  return tile::substitute(x, [&](const Expr& e) -> ExprPtr {
    return e.kind == ExprKind::loop && e.name == var ? start : nullptr;
  });
}

std::optional<ExprPtr> Lowerer::growth(const ExprPtr& x, std::size_t fi) const {
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

bool Lowerer::rotating_form(const ExprPtr& x, std::int64_t s, std::int64_t m,
                            std::size_t fi) const {
  constexpr std::int64_t kLimit = std::int64_t{1} << 31;
  if (s < 2 || m < 1 || m > kLimit / s)
    return false;
  auto b = tile::bounds(*x, lb_);
  return growth(x, fi).has_value() && b && b->lo >= 0 && b->hi < kLimit;
}

std::optional<Register> Lowerer::induction(const tile::Tensor& t, const Linear& inv,
                                           std::int64_t lin, std::size_t fi) {
  Linear form = inv;
  form.add_atom(tile::make_leaf(ExprKind::loop, loops_[fi].var), lin);
  for (const auto& iv : loops_[fi].node->inductions)
    if (iv.tensor == t.name && compare_registers(iv.form, form) == 0)
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
  Induction iv{t.name, form, reg(wide ? RegClass::b64 : RegClass::b32), Operand{},
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
  loops_[fi].node->inductions.push_back(iv);
  return iv.r;
}

} // namespace ptxgen::lower::impl
