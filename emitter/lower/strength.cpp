// Strength reduction's update code: once per pass of a loop, its counter,
// induction and rotating registers advance by additions, compares and selects
// (no multiplication or division in a loop body).

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

/// The register `rot` takes its next value from: one of the same loop, scale
/// and modulus whose x lags rot's by one iteration modulo s (x_rot = x_lead +
/// D with a constant growth g and (D + g) % s == 0, so that rot's next value is
/// lead's current one and rot's next quotient lead's plus (D + g) / s). A
/// pipeline's producer fills the stage its consumer read the iteration before:
/// one mov instead of its own compare, select and add. The lead advances itself.
struct Follow {
  const Rotating* lead = nullptr;
  std::int64_t quotient_delta = 0;
};

/// lead's next value is rot's current one (see Follow), with the lag D + g.
std::optional<std::int64_t> lag(const Rotating& rot, const Rotating& lead) {
  const auto g = tile::constant_value(*rot.growth);
  const auto lg = tile::constant_value(*lead.growth);
  if (&lead == &rot || !rot.x || !lead.x || !g || !lg || *g != *lg || *g % rot.s == 0 || lead.s != rot.s ||
      lead.m != rot.m || (rot.quotient && !lead.quotient))
    return std::nullopt; // a growth that is a multiple of s leaves the register as it is
  const Linear lx = linearize(rot.x);
  const Linear ll = linearize(lead.x);
  if (compare_registers(ll, lx) != 0)
    return std::nullopt;
  const std::int64_t d = lx.constant - ll.constant + *g;
  return d % rot.s == 0 ? std::optional{d} : std::nullopt;
}

/// Who follows whom, in the order of `all`: a register follows the first one it
/// lags that is no follower itself, and a lead never becomes a follower (no
/// chains; of two registers that lag each other, as a 2-stage ring's, the
/// first follows the second).
std::vector<std::optional<Follow>> followers(const std::vector<Rotating>& all) {
  std::vector<std::optional<Follow>> follow(all.size());
  std::vector<bool> lead(all.size(), false);
  for (std::size_t i = 0; i < all.size(); ++i) {
    for (std::size_t j = 0; j < all.size() && !lead[i]; ++j) {
      auto d = follow[j] ? std::nullopt : lag(all[i], all[j]);
      if (!d)
        continue;
      follow[i] = Follow{&all[j], *d / all[i].s};
      lead[j] = true;
      break;
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
  // The followers first: they read their leads' values before the leads advance.
  std::vector<const Rotating*> own;
  const auto follow =
      mult == 1 ? followers(loop.rotating) : std::vector<std::optional<Follow>>(loop.rotating.size());
  for (std::size_t i = 0; i < loop.rotating.size(); ++i) {
    const Rotating& rot = loop.rotating[i];
    const auto& f = follow[i];
    if (!f) {
      own.push_back(&rot);
      continue;
    }
    add(ptx::Mov{ScalarType::u32, rot.r, f->lead->r});
    if (rot.quotient)
      add(Binary{BinaryOp::add, ScalarType::u32, *rot.quotient, *f->lead->quotient,
                 low32(f->quotient_delta)});
  }
  for (const Rotating* rot : own)
    advance_rotating(mult == 1 ? *rot : rotating_times(*rot, mult), regs, out);
  return out;
}

} // namespace ptxgen::lower
