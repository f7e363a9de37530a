// advance_instructions() (emitter/lower/loop_form.hpp), strength reduction's
// update code, on loops built here: the counter and every induction register
// advance by an add, a rotating register by compare, select and add (or add
// and mask), its quotient by the carry; `mult` copies per pass scale the deltas.

#include "emitter/lower/loop_form.hpp"
#include "emitter/ptx/printer.hpp"

#include <string>

#include <doctest/doctest.h>

namespace ptxgen::unit_lower_strength {
namespace {

using namespace ptx;
using lower::Induction;
using lower::Loop;
using lower::Rotating;

Register r32(std::uint32_t id) {
  return Register{RegClass::b32, id};
}

/// A register file whose next b32 register is %r<next>.
RegisterFile strength_regs(std::uint32_t next) {
  RegisterFile regs;
  while (regs.count(RegClass::b32) + 1 < next)
    regs.make(RegClass::b32);
  return regs;
}

std::string strength_text(const std::vector<Instruction>& is) {
  std::string s;
  for (const auto& i : is)
    s += ptx::print(i) + "\n";
  return s;
}

/// 16 * (x % 3) for an x growing by `growth` per iteration, with its deltas
/// for one iteration worked out from Rotating's definition:
/// d = 16 * (growth % 3), wrap at 48 - d, wrapped delta d - 48 modulo 2^32.
Rotating stage_offset(Register r, std::int64_t growth) {
  Rotating rot;
  rot.s = 3;
  rot.m = 16;
  rot.growth = tile::make_constant(growth);
  rot.r = r;
  const std::int64_t d = 16 * (growth % 3);
  rot.delta_op = Immediate{d};
  rot.wrap_at = Immediate{48 - d};
  rot.wrapped_delta = Immediate{(std::int64_t{1} << 32) + d - 48};
  rot.quotient_delta = Immediate{growth / 3};
  rot.quotient_carry = Immediate{growth / 3 + 1};
  return rot;
}

Loop counted(std::int64_t step) {
  Loop l;
  l.counter = r32(1);
  l.start = Immediate{0};
  l.step = Immediate{step};
  return l;
}

TEST_CASE("strength: one iteration adds each delta and rotates with compare and select") {
  Loop l = counted(1);
  l.inductions.push_back(Induction{"S", {}, r32(2), Immediate{64}, ScalarType::u32});
  l.inductions.push_back(
      Induction{"A", {}, Register{RegClass::b64, 3}, Register{RegClass::b64, 4}, ScalarType::s64});
  l.rotating.push_back(stage_offset(r32(5), 1));
  RegisterFile regs = strength_regs(6);
  CHECK(strength_text(lower::advance_instructions(l, 1, regs)) ==
        "add.u32 %r1, %r1, 1;\n"
        "add.u32 %r2, %r2, 64;\n"
        "add.s64 %rd3, %rd3, %rd4;\n"
        "setp.ge.u32 %p1, %r5, 32;\n"
        "selp.u32 %r6, 4294967264, 16, %p1;\n"
        "add.u32 %r5, %r5, %r6;\n");
}

TEST_CASE("strength: two copies per pass advance by twice the step") {
  Loop l = counted(1);
  l.inductions.push_back(Induction{"S", {}, r32(2), Immediate{64}, ScalarType::u32});
  l.inductions.push_back(
      Induction{"A", {}, Register{RegClass::b64, 3}, Immediate{1024}, ScalarType::s64});
  // 16 * (i % 3) with i / 3: two iterations grow i by 2, so d = 32, wrap at 16,
  // wrapped delta -16; the quotient grows by 0, or 1 where the remainder wrapped.
  Rotating rot = stage_offset(r32(5), 1);
  rot.quotient = r32(7);
  l.rotating.push_back(rot);
  // 4 * (i % 8), a power of two: (r + 4*2) & 31.
  Rotating masked;
  masked.s = 8;
  masked.m = 4;
  masked.growth = tile::make_constant(1);
  masked.r = r32(10);
  masked.mask = true;
  l.rotating.push_back(masked);
  RegisterFile regs = strength_regs(11);
  CHECK(strength_text(lower::advance_instructions(l, 2, regs)) ==
        "add.u32 %r1, %r1, 2;\n"
        "add.u32 %r2, %r2, 128;\n"
        "add.s64 %rd3, %rd3, 2048;\n"
        "setp.ge.u32 %p1, %r5, 16;\n"
        "selp.u32 %r11, 4294967280, 32, %p1;\n"
        "add.u32 %r5, %r5, %r11;\n"
        "selp.u32 %r12, 1, 0, %p1;\n"
        "add.u32 %r7, %r7, %r12;\n"
        "add.u32 %r10, %r10, 8;\n"
        "and.b32 %r10, %r10, 31;\n");
}

TEST_CASE("strength: a remainder that never changes costs nothing, its quotient one add") {
  Loop l = counted(3);
  // x grows by 3 per iteration: x % 3 stays, x / 3 grows by 1.
  Rotating rot = stage_offset(r32(5), 3);
  rot.quotient = r32(6);
  l.rotating.push_back(rot);
  RegisterFile regs = strength_regs(7);
  CHECK(strength_text(lower::advance_instructions(l, 1, regs)) == "add.u32 %r1, %r1, 3;\n"
                                                                  "add.u32 %r6, %r6, 1;\n");
  CHECK(regs.count(RegClass::pred) == 0);
}

TEST_CASE("strength: a register one iteration behind another modulo s takes its value") {
  // A 3-stage ring's producer stage 16 * ((k + 2) % 3) with (k + 2) / 3, and
  // its consumer's 16 * (k % 3) with k / 3: (k + 1 + 2) % 3 == k % 3 and
  // (k + 1 + 2) / 3 == k / 3 + 1, so the producer's next values are the
  // consumer's current ones (the consumer still advances itself).
  Loop l = counted(1);
  const auto k = tile::make_leaf(tile::ExprKind::loop, "k");
  Rotating producer = stage_offset(r32(2), 1);
  producer.x = tile::make_binary(tile::ExprOp::add, k, tile::make_constant(2));
  producer.quotient = r32(3);
  Rotating consumer = stage_offset(r32(4), 1);
  consumer.x = k;
  consumer.quotient = r32(5);
  l.rotating.push_back(producer);
  l.rotating.push_back(consumer);
  RegisterFile regs = strength_regs(6);
  CHECK(strength_text(lower::advance_instructions(l, 1, regs)) ==
        "add.u32 %r1, %r1, 1;\n"
        "mov.u32 %r2, %r4;\n"
        "add.u32 %r3, %r5, 1;\n"
        "setp.ge.u32 %p1, %r4, 32;\n"
        "selp.u32 %r6, 4294967264, 16, %p1;\n"
        "add.u32 %r4, %r4, %r6;\n"
        "selp.u32 %r7, 1, 0, %p1;\n"
        "add.u32 %r5, %r5, %r7;\n");
  // k + 1 is one iteration ahead of k: the other way round, k's registers
  // take k + 1's (the same quotient: (k + 1) / 3).
  l.rotating[0].x = tile::make_binary(tile::ExprOp::add, k, tile::make_constant(1));
  CHECK(strength_text(lower::advance_instructions(l, 1, regs)) ==
        "add.u32 %r1, %r1, 1;\n"
        "mov.u32 %r4, %r2;\n"
        "mov.u32 %r5, %r3;\n"
        "setp.ge.u32 %p2, %r2, 32;\n"
        "selp.u32 %r8, 4294967264, 16, %p2;\n"
        "add.u32 %r2, %r2, %r8;\n"
        "selp.u32 %r9, 1, 0, %p2;\n"
        "add.u32 %r3, %r3, %r9;\n");
  // k + 3 and k are no iteration apart (the same remainder, quotients one
  // apart): each advances itself.
  l.rotating[0].x = tile::make_binary(tile::ExprOp::add, k, tile::make_constant(3));
  CHECK(strength_text(lower::advance_instructions(l, 1, regs)).find("mov") == std::string::npos);
  // Two copies per pass: no register holds the value two iterations back.
  l.rotating[0].x = producer.x;
  CHECK(strength_text(lower::advance_instructions(l, 2, regs)).find("mov") == std::string::npos);
}

TEST_CASE("strength: of two registers that lag each other, the first follows the second") {
  // A 2-stage ring: 8 * ((k + 1) % 2) and 8 * (k % 2), each one iteration
  // behind the other; one of them advances, the other takes its value.
  Loop l = counted(1);
  const auto k = tile::make_leaf(tile::ExprKind::loop, "k");
  Rotating ahead;
  ahead.x = tile::make_binary(tile::ExprOp::add, k, tile::make_constant(1));
  ahead.s = 2;
  ahead.m = 8;
  ahead.growth = tile::make_constant(1);
  ahead.r = r32(2);
  ahead.delta_op = Immediate{8};
  ahead.mask = true;
  Rotating now = ahead;
  now.x = k;
  now.r = r32(3);
  l.rotating.push_back(ahead);
  l.rotating.push_back(now);
  RegisterFile regs = strength_regs(4);
  CHECK(strength_text(lower::advance_instructions(l, 1, regs)) == "add.u32 %r1, %r1, 1;\n"
                                                                  "mov.u32 %r2, %r3;\n"
                                                                  "add.u32 %r3, %r3, 8;\n"
                                                                  "and.b32 %r3, %r3, 15;\n");
}

TEST_CASE("strength: a masked register half the ring away is the other's xor") {
  // A 4-stage ring loading 2 ahead: 8 * ((i + 2) % 4) is 8 * (i % 4) with bit 4
  // flipped, taken after the consumer's register advances; two copies per pass too.
  Loop l = counted(1);
  const auto i = tile::make_leaf(tile::ExprKind::loop, "i");
  Rotating ahead;
  ahead.x = tile::make_binary(tile::ExprOp::add, i, tile::make_constant(2));
  ahead.s = 4;
  ahead.m = 8;
  ahead.growth = tile::make_constant(1);
  ahead.r = r32(2);
  ahead.delta_op = Immediate{8};
  ahead.mask = true;
  Rotating now = ahead;
  now.x = i;
  now.r = r32(3);
  l.rotating.push_back(ahead);
  l.rotating.push_back(now);
  RegisterFile regs = strength_regs(4);
  CHECK(strength_text(lower::advance_instructions(l, 1, regs)) == "add.u32 %r1, %r1, 1;\n"
                                                                  "add.u32 %r3, %r3, 8;\n"
                                                                  "and.b32 %r3, %r3, 31;\n"
                                                                  "xor.b32 %r2, %r3, 16;\n");
  CHECK(strength_text(lower::advance_instructions(l, 2, regs)) == "add.u32 %r1, %r1, 2;\n"
                                                                  "add.u32 %r3, %r3, 16;\n"
                                                                  "and.b32 %r3, %r3, 31;\n"
                                                                  "xor.b32 %r2, %r3, 16;\n");
  // Four copies per pass leave both registers as they are: no xor either.
  CHECK(strength_text(lower::advance_instructions(l, 4, regs)) == "add.u32 %r1, %r1, 4;\n");
}

} // namespace
} // namespace ptxgen::unit_lower_strength
