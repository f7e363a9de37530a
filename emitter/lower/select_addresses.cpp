// Selection of addresses: a tensor base plus a linear form, its constant
// folded into [reg+imm], its register shared by every equal form.

#include "emitter/lower/lowerer.hpp"

#include <algorithm>
#include <numeric>

namespace ptxgen::lower::impl {

Register Lowerer::tensor_base(const tile::Tensor& t) {
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

Linear Lowerer::thread_linear(const tile::View& v, std::size_t group_axes,
                              const std::optional<tile::Located<ExprPtr>>& pred) const {
  Linear l;
  l.constant = v.offset_bytes;
  for (const auto& t : v.terms)
    l.add(linearize(bind(t.index)), t.stride_bytes);
  if (pred) {
    // An atom that drops its clamp stays one atom (`min(t + 264, 65535)` becomes `t + 264`,
    // not t and a constant): its constant is added in 32 bits before a global address is
    // widened, which ptxas 13.0 makes shorter than a 64-bit offset (the bulk ring's SASS
    // loop: 36 instructions against 37).
    Linear held;
    held.constant = l.constant;
    for (const auto& [atom, coeff] : l.terms)
      held.add_atom(where_holds(atom, pred), coeff);
    l = std::move(held);
  }
  if (group_axes == 2) {
    l.add_atom(tile::make_leaf(ExprKind::warp), v.axes[0].stride_bytes);
    l.add_atom(tile::make_leaf(ExprKind::lane), v.axes[1].stride_bytes);
  }
  recombine_warp_lane(l);
  return l;
}

std::int64_t Lowerer::register_alignment(const tile::Tensor& t, const Linear& l) {
  std::int64_t a = std::min<std::int64_t>(t.align, 16);
  for (const auto& [atom, coeff] : l.terms)
    a = std::gcd(a, coeff < 0 ? -coeff : coeff);
  if (l.folded != 0)
    a = std::gcd(a, l.folded < 0 ? -l.folded : l.folded);
  return a;
}

Register Lowerer::address(const tile::Tensor& t, Linear& l, bool cache_hint) {
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

bool Lowerer::single_thread_cache_hint() const {
  if (k_.block_dim.count() != 1)
    return false;
  return std::any_of(k_.ops.begin(), k_.ops.end(), [](const tile::Op& op) {
    const auto* a = std::get_if<tile::ApplyOp>(&op.body);
    return a && a->cache_policy;
  });
}

Register Lowerer::cache_hint_shared_address(const tile::Tensor& t, const Linear& l) {
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
  const unsigned level = level_of(l);
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

bool Lowerer::needs_wrap32(const Linear& l) const {
  return std::any_of(l.terms.begin(), l.terms.end(), [&](const auto& term) {
    auto b = tile::bounds(*term.first, lb_);
    return term.second < 0 || !b || b->lo < 0 || b->hi > 0xFFFFFFFF;
  });
}

unsigned Lowerer::level_of(const Linear& l) const {
  unsigned level = 0;
  for (const auto& term : l.terms)
    level = std::max(level, level_of(*term.first));
  return level;
}

Register Lowerer::address_register(const tile::Tensor& t, const Linear& l) {
  AddressKey key{t.name, l};
  if (auto it = cache_.address.find(key); it != cache_.address.end())
    return it->second;
  const unsigned level = level_of(l);
  AtLevel at(*this, level);
  std::optional<Register> r;
  if (level > 0)
    r = reduced_address(t, l, level - 1);
  if (!r)
    r = plain_address(t, l);
  remember(&Caches::address, level, key, *r);
  return *r;
}

Register Lowerer::plain_address(const tile::Tensor& t, const Linear& l) {
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
    const bool uniform = global && cta_uniform(l);
    for (const auto& [atom_expr, coeff] : l.terms) {
      Register atom = operand_reg(value(atom_expr));
      if (uniform) {
        acc = wide_add(acc, atom, coeff);
        continue;
      }
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

Register Lowerer::shared_sum32(Register base, const Linear& l) {
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

Operand Lowerer::sum32(const Linear& l) {
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

std::optional<Register> Lowerer::reduced_address(const tile::Tensor& t, const Linear& l,
                                                 std::size_t fi) {
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
  std::vector<std::pair<Register, std::int64_t>> offsets; // register, factor
  for (const auto& [atom, m] : rem_terms) {
    auto off = stage_offset(atom->args[0], *tile::constant_value(*atom->args[1]), m, fi);
    if (!off)
      return std::nullopt;
    offsets.push_back(*off);
  }
  std::optional<Register> acc;
  if (lin > 0 && !shared && !inv.wrap32 && cta_uniform(l)) {
    acc = wide_add(address_register(t, inv), loops_[fi].counter, lin);
  } else if (lin > 0 && !shared && !inv.wrap32) {
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
  for (const auto& [off, factor] : offsets) {
    Register next = reg(RegClass::b32);
    if (factor == 1)
      emit(Binary{BinaryOp::add, ScalarType::u32, next, *acc, off});
    else
      emit(Mad{false, ScalarType::u32, next, off, Immediate{factor}, *acc});
    acc = next;
  }
  return acc;
}

bool Lowerer::cta_uniform(const Linear& l) {
  return std::none_of(l.terms.begin(), l.terms.end(),
                      [](const auto& term) { return tile::uses_thread(*term.first); });
}

Register Lowerer::wide_add(Register base, Register atom, std::int64_t coeff) {
  // Not one mad.wide.u32: ptxas 13.0 gives a CTA-uniform mad.wide with a 64-bit addend
  // on sm_90 a longer sequence than this pair (a bulk ring's loop body: 50 SASS
  // instructions with the mad, 38 with the pair; docs/benchmarks.md).
  Register product = reg(RegClass::b64);
  emit(Binary{BinaryOp::mul_wide, ScalarType::u32, product, atom, Immediate{coeff}});
  Register sum = reg(RegClass::b64);
  emit(Binary{BinaryOp::add, ScalarType::s64, sum, base, product});
  return sum;
}

std::optional<std::pair<Register, std::int64_t>>
Lowerer::stage_offset(const ExprPtr& x, std::int64_t s, std::int64_t m, std::size_t fi) {
  // A ring's stage index scales to every tensor of the ring (stage bytes,
  // barrier bytes): one register of the smallest scale, multiplied at each
  // address by the ratio (a mad instead of the add), advances for all of them.
  const Linear lx = linearize(reduced_operand(x, s));
  for (const auto& r : loops_[fi].node->rotating) {
    const Linear lr = linearize(r.x);
    if (r.s == s && m % r.m == 0 && compare_registers(lr, lx) == 0 && lr.constant == lx.constant)
      return std::pair{r.r, m / r.m};
  }
  Rotating* r = rotating(x, s, m, fi, false);
  if (!r)
    return std::nullopt;
  return std::pair{r->r, std::int64_t{1}};
}

} // namespace ptxgen::lower::impl
