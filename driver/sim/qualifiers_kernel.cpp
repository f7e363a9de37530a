// The simulator's PTX parser: the qualifiers of the named barriers' reductions (bar.red), the
// warp reductions (redux.sync), setmaxnreg and the math functions (ex2, sqrt, ...).

#include "driver/sim/parser_impl.hpp"
#include "emitter/ptx/opcode_words.hpp"
#include "emitter/ptx/qualifier.hpp"
#include "emitter/ptx/types.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <iterator>

namespace ptxgen::sim::detail {
namespace {

using ptx::Qualifier;

bool word_is(const ptx::OpcodeWord& q, Qualifier w) {
  return q.qualifier == w;
}

/// bar.red's operation: `.and` -> Vote::all, `.or` -> any, `.popc` -> ballot (its count).
std::optional<ir::Vote> reduction(const ptx::OpcodeWord& q) {
  if (word_is(q, Qualifier::and_))
    return ir::Vote::all;
  if (word_is(q, Qualifier::or_))
    return ir::Vote::any;
  if (word_is(q, Qualifier::popc))
    return ir::Vote::ballot;
  return std::nullopt;
}

/// redux.sync's operations, and whether each takes .b32 (the bitwise ones) or .u32/.s32.
std::optional<std::pair<ir::Atomic, bool>> warp_reduction(const ptx::OpcodeWord& q) {
  static constexpr std::pair<Qualifier, std::pair<ir::Atomic, bool>> ops[] = {
      {Qualifier::add, {ir::Atomic::add, false}}, {Qualifier::min, {ir::Atomic::min, false}},
      {Qualifier::max, {ir::Atomic::max, false}}, {Qualifier::and_, {ir::Atomic::and_, true}},
      {Qualifier::or_, {ir::Atomic::or_, true}},  {Qualifier::xor_, {ir::Atomic::xor_, true}}};
  const auto* row = std::find_if(std::begin(ops), std::end(ops),
                                 [&](const auto& r) { return word_is(q, r.first); });
  if (row == std::end(ops))
    return std::nullopt;
  return row->second;
}

/// Which math function a form computes, and what PTX gives it: rounded forms (rcp, sqrt), f64
/// (rcp, sqrt, rsqrt), the 16-bit types (ex2, tanh).
struct MathForms {
  bool rounded = false;
  bool f64 = false;
  bool half = false;
};

MathForms math_forms(ir::Code c) {
  switch (c) {
  case ir::Code::rcp:
  case ir::Code::sqrt:
    return {true, true, false};
  case ir::Code::rsqrt:
    return {false, true, false};
  case ir::Code::ex2:
  case ir::Code::tanh:
    return {false, false, true};
  default:
    return {};
  }
}

} // namespace

void Parser::kernel_qualifiers(const QualifierInput& in) {
  auto [f, op, d, opc, quals] = in;
  // By `in`, not by the structured binding (clang 14 cannot capture one).
  auto not_simulated = [&in](std::string_view why) {
    throw Unsupported{DiagId::sim_unsupported_form,
                      quote(in.opc.text) + " is not simulated (" + std::string(why) + ")"};
  };
  auto type_of = [](ptx::ScalarType t) { return *parse_type(ptx::name(t)); };
  switch (f.quals) {
  case Quals::bar_red: { // .op{.aligned}.type
    const auto r = quals.empty() ? std::nullopt : reduction(quals.front());
    const bool aligned = quals.size() == 3 && word_is(quals[1], Qualifier::aligned);
    if (!r || quals.size() != (aligned ? 3u : 2u))
      fail(DiagId::sim_qualifier, opc, "expected bar.red.popc.u32 or bar.red.{and,or}.pred");
    const ptx::ScalarType want =
        *r == ir::Vote::ballot ? ptx::ScalarType::u32 : ptx::ScalarType::pred;
    if (ptx::parse_scalar_type(quals.back().text) != want)
      fail(DiagId::sim_qualifier, opc,
           quote(opc.text) + ": .popc takes .u32, .and and .or take .pred");
    op.vote = *r;
    d.type = type_of(want);
    break;
  }
  case Quals::redux: { // .op.type
    const auto r = quals.size() == 2 ? warp_reduction(quals[0]) : std::nullopt;
    if (!r)
      not_simulated("only redux.sync.{add,min,max}.{u32,s32} and .{and,or,xor}.b32");
    const std::optional<ptx::ScalarType> t = ptx::parse_scalar_type(quals[1].text);
    const bool ok = r->second ? t == ptx::ScalarType::b32
                              : t == ptx::ScalarType::u32 || t == ptx::ScalarType::s32;
    if (!ok)
      fail(DiagId::sim_qualifier, opc,
           quote(opc.text) + ": .and .or .xor take .b32, .add .min .max .u32 or .s32");
    op.atomic = r->first;
    d.type = type_of(*t);
    break;
  }
  case Quals::setmaxnreg: // .inc|.dec .sync .aligned .u32
    if (quals.size() != 4 ||
        !(word_is(quals[0], Qualifier::inc) || word_is(quals[0], Qualifier::dec)) ||
        !word_is(quals[1], Qualifier::sync) || !word_is(quals[2], Qualifier::aligned) ||
        ptx::parse_scalar_type(quals[3].text) != ptx::ScalarType::u32)
      fail(DiagId::sim_qualifier, opc, "expected setmaxnreg.{inc,dec}.sync.aligned.u32");
    d.type = type_of(ptx::ScalarType::u32);
    break;
  case Quals::math: { // {.approx|.rnd}{.ftz}.type
    if (quals.empty())
      fail(DiagId::sim_qualifier, opc, quote(opc.text) + " needs a type");
    bool approx = false;
    for (const ptx::OpcodeWord& q : quals.first(quals.size() - 1)) {
      const auto r = ptx::parse_rounding(q.text);
      if (word_is(q, Qualifier::approx) && !approx && op.round == ir::Round::none)
        approx = true;
      else if (r && !ptx::integral(*r) && !approx && op.round == ir::Round::none)
        op.round = *r;
      else if (word_is(q, Qualifier::ftz) && !op.ftz)
        op.ftz = true;
      else
        not_simulated("`." + std::string(q.text) + "`");
    }
    d.type = checked_type(f, opc, quals.back().text);
    const MathForms forms = math_forms(op.code);
    const ir::Num num = d.type.t.num;
    // Forms PTX lacks, or has only for older targets (`sqrt.f32`): not simulated, never an
    // error here (ptxas is the judge of what exists).
    if (!approx && !forms.rounded)
      not_simulated("only the .approx form");
    if (!approx && !(num == ir::Num::f32 || num == ir::Num::f64))
      not_simulated("the rounded forms: .f32, .f64");
    if ((num == ir::Num::f64 && !forms.f64) ||
        (num != ir::Num::f32 && num != ir::Num::f64 && !forms.half))
      not_simulated("this type");
    // Round::none now means .approx (alu::math_op).
    break;
  }
  default:
    unreachable("kernel_qualifiers(): not a kernel math or barrier grammar");
  }
  op.type = d.type.t;
}

} // namespace ptxgen::sim::detail
