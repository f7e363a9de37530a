// Strength reduction's update code: once per pass of a loop, its counter,
// induction and rotating registers advance by additions, compares and selects
// (no multiplication or division in a loop body), or, where one rotating
// register is another's value of the iteration before or its xor, by a copy.

#include "emitter/lower/loop_form.hpp"

namespace ptxgen::lower {

using ptx::Binary;
using ptx::BinaryOp;
using ptx::CompareOp;
using ptx::Immediate;
using ptx::Instruction;
using ptx::InstructionBody;
using ptx::Operand;
using ptx::RegClass;
using ptx::Register;
using ptx::RegisterFile;
using ptx::ScalarType;
using ptx::Selp;
using ptx::Setp;

namespace {

Immediate low32(std::int64_t v) {
  return Immediate{static_cast<std::int64_t>(static_cast<std::uint32_t>(v))};
}

/// An immediate delta `mult` times (64-bit, or modulo 2^32); mult is 1 for registers.
Operand multiplied(const Operand& o, std::int64_t mult, bool wide) {
  if (mult == 1)
    return o;
  const std::int64_t v = std::get<Immediate>(o).value * mult;
  return wide ? Immediate{v} : low32(v);
}

bool zero_operand(const Operand& o) {
  const auto* imm = std::get_if<Immediate>(&o);
  return imm && imm->value == 0;
}

void advance_rotating(const Rotating& rot, RegisterFile& regs, std::vector<Instruction>& out) {
  auto add = [&](InstructionBody b) { out.push_back(Instruction{std::nullopt, std::move(b), {}}); };
  if (rot.mask) {
    if (!zero_operand(rot.delta_op)) {
      add(Binary{BinaryOp::add, ScalarType::u32, rot.r, rot.r, rot.delta_op});
      add(Binary{BinaryOp::and_, ScalarType::b32, rot.r, rot.r, Immediate{rot.m * rot.s - 1}});
    }
    return;
  }
  std::optional<Register> wrap;
  if (!zero_operand(rot.delta_op)) { // else the remainder never changes
    wrap = regs.make(RegClass::pred);
    add(Setp{CompareOp::ge, ScalarType::u32, *wrap, rot.r, rot.wrap_at});
    Register step = regs.make(RegClass::b32);
    add(Selp{ScalarType::u32, step, rot.wrapped_delta, rot.delta_op, *wrap});
    add(Binary{BinaryOp::add, ScalarType::u32, rot.r, rot.r, step});
  }
  if (!rot.quotient)
    return;
  Operand q = rot.quotient_delta;
  if (wrap) {
    Register c = regs.make(RegClass::b32);
    add(Selp{ScalarType::u32, c, rot.quotient_carry, rot.quotient_delta, *wrap});
    q = c;
  }
  if (!zero_operand(q))
    add(Binary{BinaryOp::add, ScalarType::u32, *rot.quotient, *rot.quotient, q});
}

/// rot's update for `mult` iterations of a constant growth: the same
/// register, the deltas of a growth mult times as large.
Rotating rotating_times(const Rotating& rot, std::int64_t mult) {
  Rotating r = rot;
  const std::int64_t astep = *tile::constant_value(*rot.growth) * mult;
  const std::int64_t d = rot.m * (astep % rot.s), ms = rot.m * rot.s;
  r.delta_op = Immediate{d};
  r.wrap_at = Immediate{ms - d};
  r.wrapped_delta = low32(d - ms);
  r.quotient_delta = Immediate{astep / rot.s};
  r.quotient_carry = Immediate{astep / rot.s + 1};
  return r;
}

/// How a rotating register can be had from another of the same loop, scale
/// and modulus whose x differs from its own by a constant D (x = x_lead + D):
///  - lag (D + g) % s == 0 for a constant growth g: rot's next value is lead's
///    current one, its next quotient lead's plus (D + g) / s. A pipeline's
///    producer, S - 1 tiles ahead, fills the stage its consumer read the
///    iteration before: a mov before the lead advances instead of its own
///    compare, select and add (one copy per pass only).
///  - mirror, both masked (s and the scale powers of two), D % s == s / 2: rot
///    is lead's value with the top bit of its range flipped, an xor after the
///    lead advances instead of rot's own add and mask (a 4-stage ring loading
///    2 ahead).
struct Follow {
  const Rotating* lead = nullptr;
  bool mirror = false;
  std::int64_t quotient_delta = 0; ///< lag
};

std::optional<Follow> follow_of(const Rotating& rot, const Rotating& lead, std::int64_t mult) {
  const auto g = tile::constant_value(*rot.growth);
  if (&lead == &rot || !rot.x || !lead.x || lead.s != rot.s || lead.m != rot.m ||
      (g && *g * mult % rot.s == 0))
    return std::nullopt; // a pass that grows x by a multiple of s leaves the register as it is
  const Linear lx = linearize(rot.x);
  const Linear ll = linearize(lead.x);
  if (compare_registers(ll, lx) != 0) // the same terms: the same growth
    return std::nullopt;
  const std::int64_t d = lx.constant - ll.constant;
  if (mult == 1 && g && (!rot.quotient || lead.quotient) && (d + *g) % rot.s == 0)
    return Follow{&lead, false, (d + *g) / rot.s};
  if (rot.mask && lead.mask && ((d % rot.s) + rot.s) % rot.s == rot.s / 2)
    return Follow{&lead, true, 0};
  return std::nullopt;
}

/// Who follows whom, in the order of `all`: a register follows the first one it
/// can that is no follower itself, and a lead never becomes a follower (no
/// chains; of two registers that lag each other, as a 2-stage ring's, the
/// first follows the second).
std::vector<std::optional<Follow>> followers(const std::vector<Rotating>& all, std::int64_t mult) {
  std::vector<std::optional<Follow>> follow(all.size());
  std::vector<bool> lead(all.size(), false);
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = 0; j < all.size() && !lead[i]; ++j) {
      follow[i] = follow[j] ? std::nullopt : follow_of(all[i], all[j], mult);
      if (follow[i]) {
        lead[j] = true;
        break;
      }
    }
  }
  return follow;
}

} // namespace

std::vector<Instruction> advance_instructions(const Loop& loop, std::int64_t mult,
                                              RegisterFile& regs) {
  std::vector<Instruction> out;
  out.push_back(Instruction{std::nullopt,
                            Binary{BinaryOp::add, ScalarType::u32, loop.counter, loop.counter,
                                   multiplied(loop.step, mult, false)},
                            {}});
  for (const auto& iv : loop.inductions)
    out.push_back(Instruction{std::nullopt,
                              Binary{BinaryOp::add, iv.type, iv.r, iv.r,
                                     multiplied(iv.delta, mult, iv.type == ScalarType::s64)},
                              {}});
  auto add = [&](InstructionBody b) { out.push_back(Instruction{std::nullopt, std::move(b), {}}); };
  // Lagging followers first (they read their leads' values before the leads
  // advance), mirrors last (they read the advanced values).
  const auto follow = followers(loop.rotating, mult);
  for (std::size_t i = 0; i < loop.rotating.size(); ++i) {
    const auto& f = follow[i];
    const Rotating& rot = loop.rotating[i];
    if (!f || f->mirror)
      continue;
    add(ptx::Mov{ScalarType::u32, rot.r, f->lead->r});
    if (rot.quotient && f->quotient_delta == 0)
      add(ptx::Mov{ScalarType::u32, *rot.quotient, *f->lead->quotient});
    else if (rot.quotient)
      add(Binary{BinaryOp::add, ScalarType::u32, *rot.quotient, *f->lead->quotient,
                 low32(f->quotient_delta)});
  }
  for (std::size_t i = 0; i < loop.rotating.size(); ++i)
    if (!follow[i])
      advance_rotating(mult == 1 ? loop.rotating[i] : rotating_times(loop.rotating[i], mult), regs,
                       out);
  for (std::size_t i = 0; i < loop.rotating.size(); ++i)
    if (const auto& f = follow[i]; f && f->mirror) {
      const Rotating& rot = loop.rotating[i];
      add(Binary{BinaryOp::xor_, ScalarType::b32, rot.r, f->lead->r, Immediate{rot.m * rot.s / 2}});
    }
  return out;
}

} // namespace ptxgen::lower
