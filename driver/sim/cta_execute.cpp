// The executor's CTA: the interpreter, one instruction's semantics (cta.hpp).

#include "driver/sim/alu.hpp"
#include "driver/sim/cta.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <bit>

namespace ptxgen::sim::exec {

namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

} // namespace

void Cta::step(Thread& t) {
  const ir::Op* ops = e_.ops.data();
  const std::size_t count = e_.ops.size();
  while (true) {
    if (t.pc >= count) {
      exit_thread(t, count > 0 ? ops[count - 1].line : e_.line);
      return;
    }
    const ir::Op& op = ops[t.pc];
    if (++res_.instructions_executed > max_instructions_)
      fault_at(FaultKind::instruction_limit, t, op,
               "the launch executed more than " + std::to_string(l_.max_instructions) +
                   " instructions (a loop that does not end?)");
    if (const std::int32_t k = slot_[t.pc]; k >= 0)
      ++t.iterations[k]; // reached, whether or not its guard lets it run
    ++t.pc;
    if (op.guard >= 0 && (t.regs[op.guard] != 0) == op.guard_neg)
      continue;
    if (l_.observer != nullptr)
      ++l_.observer->executed[t.pc - 1];
    if (!wgt_.empty()) // an entry with wgmma: its register rules (cta_tensor_core.cpp)
      wgmma_registers(t, op);
    if (execute(t, op) == Flow::stop)
      return;
  }
}

Cta::Flow Cta::execute(Thread& t, const ir::Op& op) {
  if (float_form(op))
    return arith(t, op);
  switch (ir::family(op.code)) {
  case ir::Family::async_copy:
    return async_copy_op(t, op);
  case ir::Family::move:
    return move_op(t, op);
  case ir::Family::integer:
    return integer_op(t, op);
  case ir::Family::arith:
    return arith(t, op);
  case ir::Family::hint:
    // nanosleep: the scheduler runs the others anyway; a prefetch of a bad address does not
    // fault either; griddepcontrol: one grid, none before or after it; the fences: see forms.def.
    // fence.proxy.async orders the thread's generic writes so far before its later async-proxy
    // operations, of shared memory (Cta::check_proxy) or global memory (Cta::check_global_proxy),
    // as its state space says (ir::fence_*).
    if (op.code == ir::Code::async_fence && (op.n & ir::fence_shared) != 0) {
      ++t.proxy_fences;
      t.fence_marks.emplace_back(phase_, mb_.clock(t.tid));
    }
    if (op.code == ir::Code::async_fence && (op.n & ir::fence_global) != 0) {
      ++t.global_fences;
      t.gfence_phase = phase_;
      t.gfence_clock = mb_.clock(t.tid);
    }
    if (op.code == ir::Code::mbarrier_init_fence) // its inits so far: published at its next
      t.cl_fenced = t.cl_inits.size();            // cluster arrival (cta_cluster.cpp)
    if (op.code == ir::Code::prefetch_tensormap)
      prefetch_tensormap(t, op);
    return Flow::next;
  case ir::Family::warp:
    return warp_collective(t, op);
  case ir::Family::active_mask:
    return active_mask(t, op);
  case ir::Family::control:
    return control_op(t, op);
  case ir::Family::atomic:
    atomic(t, op);
    return Flow::next;
  case ir::Family::mbarrier:
    return mbarrier_op(t, op);
  case ir::Family::tensor:
    return tensor_op(t, op);
  case ir::Family::pending_count: // the low half of an arrival state (mbarrier.hpp)
    set(t, op.dst[0], raw(t, op.src[0]) & 0xffffffffull);
    return Flow::next;
  case ir::Family::unsupported:
    fault_at(FaultKind::unsupported, t, op, e_.texts[static_cast<std::size_t>(op.n)]);
  }
  return Flow::next;
}

Cta::Flow Cta::async_copy_op(Thread& t, const ir::Op& op) {
  switch (op.code) {
  case ir::Code::cp_async:
    issue(t, op);
    return Flow::next;
  case ir::Code::commit_group:
    ++t.open_group; // a commit with no copy since the last one is a real, empty group
    return Flow::next;
  case ir::Code::wait_group: {
    // All but the n newest committed groups complete; uncommitted copies stay pending.
    auto n = static_cast<std::uint64_t>(op.n);
    complete(t, t.open_group > n ? t.open_group - static_cast<std::uint32_t>(n) : 0);
    return Flow::next;
  }
  case ir::Code::wait_all: // commits, then completes everything
    ++t.open_group;
    complete(t, ~0u);
    return Flow::next;
  case ir::Code::bulk_store:
  case ir::Code::bulk_reduce:
    bulk_store_issue(t, op);
    return Flow::next;
  case ir::Code::tensor_store:
  case ir::Code::tensor_reduce:
    tensor_store_issue(t, op);
    return Flow::next;
  case ir::Code::tensormap_replace:
    tensormap_replace(t, op);
    return Flow::next;
  case ir::Code::bulk_commit:
    ++t.bulk_group; // as commit_group: an empty group is a real one
    return Flow::next;
  case ir::Code::bulk_wait:
    bulk_wait(t, op);
    return Flow::next;
  case ir::Code::createpolicy:
    // A policy is a hint; any 64-bit value will do.
    set(t, op.dst[0], 0x1000000000000000ull);
    return Flow::next;
  default:
    unreachable("async_copy_op(): not a cp.async group instruction");
  }
}

Cta::Flow Cta::control_op(Thread& t, const ir::Op& op) {
  switch (op.code) {
  case ir::Code::bar:
  case ir::Code::bar_arrive:
  case ir::Code::bar_red:
    return named_barrier(t, op);
  case ir::Code::cluster_arrive:
    return cluster_arrive(t, op);
  case ir::Code::cluster_wait:
    return cluster_wait(t, op);
  case ir::Code::ret:
    if (!t.calls.empty() && op.n == 0) {
      return_from_call(t);
      return Flow::next;
    }
    exit_thread(t, op.line);
    return Flow::stop;
  case ir::Code::call:
    call(t, op);
    return Flow::next;
  case ir::Code::trap:
    fault_at(FaultKind::trap, t, op, "the kernel trapped");
  case ir::Code::bra: {
    const bool backward = static_cast<std::uint32_t>(op.n) < t.pc;
    t.pc = static_cast<std::uint32_t>(op.n);
    if (backward && t.spin_read) { // a polling loop: let the others run (simulator.hpp)
      t.spin_read = false;
      return Flow::stop;
    }
    return Flow::next;
  }
  default:
    unreachable("control_op(): not a control-flow instruction");
  }
}

Cta::Flow Cta::move_op(Thread& t, const ir::Op& op) {
  const ir::Type ty = op.type;
  const unsigned w = ty.bits;
  auto a = [&] { return get(t, op.src[0], ty); };
  auto b = [&] { return get(t, op.src[1], ty); };
  switch (op.code) {
  case ir::Code::mov:
    set(t, op.dst[0], a() & mask(w));
    return Flow::next;
  case ir::Code::ld:
    load_store(t, op, true);
    return Flow::next;
  case ir::Code::st:
    load_store(t, op, false);
    return Flow::next;
  case ir::Code::cvta:
    set(t, op.dst[0], convert_address(t, op) & mask(w));
    return Flow::next;
  case ir::Code::mapa:
    set(t, op.dst[0], map_address(t, op) & mask(w));
    return Flow::next;
  case ir::Code::cvt:
    set(t, op.dst[0], get(t, op.src[0], op.type2) & mask(w));
    return Flow::next;
  case ir::Code::setp:
    set_compare(t, op, compare(op.cmp, a(), b(), ty.is_signed));
    return Flow::next;
  case ir::Code::selp:
    set(t, op.dst[0], (raw(t, op.src[2]) != 0 ? a() : b()) & mask(w));
    return Flow::next;
  case ir::Code::isspacep: {
    const std::uint64_t v = raw(t, op.src[0]);
    const bool shared = in_shared_window(v);
    const bool local = v >= local_window_base && v - local_window_base < e_.frame_bytes;
    const bool in = op.space == ir::Space::shared  ? shared
                    : op.space == ir::Space::local ? local
                                                   : !shared && !local;
    set(t, op.dst[0], in ? 1 : 0);
    return Flow::next;
  }
  case ir::Code::mov_unpack: {
    const unsigned eb = w / op.vec;
    const std::uint64_t v = raw(t, op.src[0]);
    for (unsigned k = 0; k < op.vec; ++k)
      set(t, op.dst[k], (v >> (k * eb)) & mask(eb));
    return Flow::next;
  }
  case ir::Code::mov_pack: {
    const unsigned eb = w / op.vec;
    std::uint64_t v = 0;
    for (unsigned k = 0; k < op.vec; ++k)
      v |= (raw(t, op.src[k]) & mask(eb)) << (k * eb);
    set(t, op.dst[0], v);
    return Flow::next;
  }
  default:
    unreachable("move_op(): not a move, conversion or load/store instruction");
  }
}

Cta::Flow Cta::integer_op(Thread& t, const ir::Op& op) {
  const ir::Type ty = op.type;
  const unsigned w = ty.bits;
  auto a = [&] { return get(t, op.src[0], ty); };
  auto b = [&] { return get(t, op.src[1], ty); };
  auto u32 = [&](std::size_t k) { return get(t, op.src[k], ir::Type{32, false}); };
  auto w32 = [&](std::size_t k) { return static_cast<std::uint32_t>(u32(k)); }; // a 32-bit word
  std::uint64_t v = 0;
  if (op.halves) { // .u16x2 / .s16x2: add, min or max of each half
    const alu::PairOp p = op.code == ir::Code::add   ? alu::PairOp::add
                          : op.code == ir::Code::min ? alu::PairOp::min
                                                     : alu::PairOp::max;
    set(t, op.dst[0], alu::integer_pair(p, ty.is_signed, op.relu, w32(0), w32(1)));
    return Flow::next;
  }
  switch (op.code) {
  case ir::Code::add:
    v = a() + b();
    break;
  case ir::Code::sub:
    v = a() - b();
    break;
  case ir::Code::mul_lo:
    v = a() * b();
    break;
  case ir::Code::mul_hi:
    v = mul_hi(a(), b(), ty);
    break;
  case ir::Code::mul_wide:
    set(t, op.dst[0], (a() * b()) & mask(2 * w));
    return Flow::next;
  case ir::Code::mad_lo:
    v = a() * b() + get(t, op.src[2], ty);
    break;
  case ir::Code::mad_wide: {
    ir::Type wide{static_cast<std::uint8_t>(2 * w), ty.is_signed};
    set(t, op.dst[0], (a() * b() + get(t, op.src[2], wide)) & mask(2 * w));
    return Flow::next;
  }
  case ir::Code::div:
  case ir::Code::rem:
    v = divide(t, op, a(), b());
    break;
  case ir::Code::min:
  case ir::Code::max: {
    bool less =
        ty.is_signed ? static_cast<std::int64_t>(a()) < static_cast<std::int64_t>(b()) : a() < b();
    bool take_a = op.code == ir::Code::min ? less : !less;
    v = take_a ? a() : b();
    if (op.relu && static_cast<std::int64_t>(v) < 0) // .relu.s32: a negative result is 0
      v = 0;
    break;
  }
  case ir::Code::dp4a:
    v = alu::dot4(w32(0), w32(1), w32(2), op.type.is_signed, op.type2.is_signed);
    break;
  case ir::Code::dp2a:
    v = alu::dot2(w32(0), w32(1), w32(2), op.type.is_signed, op.type2.is_signed,
                  static_cast<unsigned>(op.n));
    break;
  case ir::Code::shl: {
    std::uint64_t s = u32(1);
    v = s >= w ? 0 : a() << s;
    break;
  }
  case ir::Code::shr:
    v = shift_right(a(), u32(1), ty);
    break;
  case ir::Code::bfe:
    v = bit_field_extract(a(), u32(1), u32(2), ty);
    break;
  case ir::Code::and_:
    v = a() & b();
    break;
  case ir::Code::or_:
    v = a() | b();
    break;
  case ir::Code::xor_:
    v = a() ^ b();
    break;
  case ir::Code::not_:
    v = ~a();
    break;
  case ir::Code::neg:
    v = 0 - a();
    break;
  case ir::Code::bfind:
    set(t, op.dst[0], find_msb(a(), ty, op.shiftamt));
    return Flow::next;
  default:
    unreachable("integer_op(): not an integer instruction");
  }
  set(t, op.dst[0], v & mask(w));
  return Flow::next;
}

bool Cta::float_form(const ir::Op& op) {
  switch (op.code) {
  case ir::Code::add:
  case ir::Code::sub:
  case ir::Code::min:
  case ir::Code::max:
  case ir::Code::neg:
  case ir::Code::setp:
  case ir::Code::div:
    return op.type.num != ir::Num::integer || op.sat;
  case ir::Code::cvt:
    return op.type.num != ir::Num::integer || op.type2.num != ir::Num::integer || op.sat;
  default:
    return false;
  }
}

namespace {

/// Whether `num` packs two elements (the packed cvt forms, alu::convert_packed).
bool packed(ir::Num num) {
  return num == ir::Num::f16x2 || num == ir::Num::bf16x2 || num == ir::Num::e4m3x2 ||
         num == ir::Num::e5m2x2;
}

alu::MathOp math_function(ir::Code c) {
  switch (c) {
  case ir::Code::ex2:
    return alu::MathOp::ex2;
  case ir::Code::lg2:
    return alu::MathOp::lg2;
  case ir::Code::rcp:
    return alu::MathOp::rcp;
  case ir::Code::sqrt:
    return alu::MathOp::sqrt;
  case ir::Code::rsqrt:
    return alu::MathOp::rsqrt;
  case ir::Code::sin:
    return alu::MathOp::sin;
  case ir::Code::cos:
    return alu::MathOp::cos;
  case ir::Code::tanh:
    return alu::MathOp::tanh;
  default:
    unreachable("math_function(): not a math instruction");
  }
}

} // namespace

Cta::Flow Cta::arith(Thread& t, const ir::Op& op) {
  const unsigned w = op.type.bits;
  auto r = [&](std::size_t k) { return raw(t, op.src[k]); };
  auto u32 = [&](std::size_t k) { return static_cast<std::uint32_t>(r(k)); };
  const alu::FloatMode m{op.round == ir::Round::none ? ir::Round::rn : op.round, op.ftz, op.sat,
                         op.nan};
  auto fp = [&](alu::FloatOp f) { return alu::float_op(f, op.type.num, m, r(0), r(1), r(2)); };
  const bool integer = op.type.num == ir::Num::integer;
  std::uint64_t v = 0;
  switch (op.code) {
  case ir::Code::prmt:
    v = alu::prmt(u32(0), u32(1), u32(2), op.prmt);
    break;
  case ir::Code::bfi:
    v = alu::bfi(r(0), r(1), u32(2), u32(3), w);
    break;
  case ir::Code::shf:
    v = alu::shf(u32(0), u32(1), u32(2), op.left, op.clamp);
    break;
  case ir::Code::lop3:
    v = alu::lop3(u32(0), u32(1), u32(2), static_cast<std::uint8_t>(op.n));
    break;
  case ir::Code::popc:
    v = alu::popc(r(0), w);
    break;
  case ir::Code::clz:
    v = alu::clz(r(0), w);
    break;
  case ir::Code::brev:
    v = alu::brev(r(0), w);
    break;
  case ir::Code::abs: {
    const auto a = static_cast<std::int64_t>(get(t, op.src[0], op.type));
    v = integer ? static_cast<std::uint64_t>(a < 0 ? 0 - a : a) : fp(alu::FloatOp::abs);
    break;
  }
  case ir::Code::add:
  case ir::Code::sub:
    v = integer ? alu::add_sat_s32(u32(0), u32(1), op.code == ir::Code::sub)
                : fp(op.code == ir::Code::add ? alu::FloatOp::add : alu::FloatOp::sub);
    break;
  case ir::Code::fmul:
    v = fp(alu::FloatOp::mul);
    break;
  case ir::Code::div:
    v = op.round == ir::Round::none ? alu::divide_approx(op.full, op.ftz, r(0), r(1))
                                    : fp(alu::FloatOp::div);
    break;
  case ir::Code::fma:
    v = fp(alu::FloatOp::fma);
    break;
  case ir::Code::min:
    v = fp(alu::FloatOp::min);
    break;
  case ir::Code::max:
    v = fp(alu::FloatOp::max);
    break;
  case ir::Code::neg:
    v = fp(alu::FloatOp::neg);
    break;
  case ir::Code::setp:
    set_compare(t, op, alu::float_compare(op.cmp, op.type.num, op.ftz, r(0), r(1)));
    return Flow::next;
  case ir::Code::cvt:
    if (op.to_tf32)
      v = alu::to_tf32(r(0), op.ties_away, op.round, op.satfinite);
    else
      v = packed(op.type.num) || packed(op.type2.num) ? alu::convert_packed(op, r(0), r(1))
                                                      : alu::convert(op.type, op.type2, op, r(0));
    break;
  case ir::Code::ex2:
  case ir::Code::lg2:
  case ir::Code::rcp:
  case ir::Code::sqrt:
  case ir::Code::rsqrt:
  case ir::Code::sin:
  case ir::Code::cos:
  case ir::Code::tanh:
    v = alu::math_op(math_function(op.code), op.type.num, op.round, op.ftz, r(0));
    break;
  default:
    unreachable("arith(): not an alu instruction");
  }
  set(t, op.dst[0], v & mask(op.code == ir::Code::setp ? 1 : w));
  return Flow::next;
}

std::uint64_t Cta::find_msb(std::uint64_t a, ir::Type ty, bool shiftamt) {
  const unsigned w = ty.bits;
  a &= mask(w);
  if (ty.is_signed && (a >> (w - 1) & 1) != 0)
    a = ~a & mask(w);
  if (a == 0)
    return 0xffffffffull;
  const auto pos = static_cast<unsigned>(std::bit_width(a)) - 1;
  return shiftamt ? w - 1 - pos : pos;
}

std::uint64_t Cta::mul_hi(std::uint64_t a, std::uint64_t b, ir::Type ty) {
  if (ty.is_signed)
    return static_cast<std::uint64_t>(
        static_cast<i128>(static_cast<std::int64_t>(a)) * static_cast<std::int64_t>(b) >> ty.bits);
  return static_cast<std::uint64_t>(static_cast<u128>(a) * b >> ty.bits);
}

std::uint64_t Cta::divide(const Thread& t, const ir::Op& op, std::uint64_t a,
                          std::uint64_t b) const {
  if (b == 0)
    fault_at(FaultKind::undefined_behavior, t, op,
             "integer division by zero (the result is unspecified in PTX)");
  bool div = op.code == ir::Code::div;
  if (!op.type.is_signed)
    return div ? a / b : a % b;
  auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
  if (sb == -1)
    return div ? 0 - a : 0; // avoids INT64_MIN / -1
  return static_cast<std::uint64_t>(div ? sa / sb : sa % sb);
}

std::uint64_t Cta::shift_right(std::uint64_t a, std::uint64_t s, ir::Type ty) {
  if (ty.is_signed)
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(a) >>
                                      std::min<std::uint64_t>(s, 63));
  return s >= ty.bits ? 0 : a >> s;
}

std::uint64_t Cta::bit_field_extract(std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                     ir::Type ty) {
  const std::uint64_t msb = ty.bits - 1u, pos = b & 0xff, len = c & 0xff;
  if (len == 0)
    return 0;
  const std::uint64_t sbit = ty.is_signed ? (a >> std::min(pos + len - 1, msb)) & 1 : 0;
  std::uint64_t d = 0;
  for (std::uint64_t i = 0; i <= msb; ++i) {
    std::uint64_t bit = i < len && pos + i <= msb ? (a >> (pos + i)) & 1 : sbit;
    d |= bit << i;
  }
  return d;
}

void Cta::set_compare(Thread& t, const ir::Op& op, bool r) {
  auto combine = [&](bool x) {
    const bool c = raw(t, op.src[2]) != 0;
    switch (op.bop) {
    case ir::BoolOp::none:
      return x;
    case ir::BoolOp::and_:
      return x && c;
    case ir::BoolOp::or_:
      return x || c;
    case ir::BoolOp::xor_:
      return x != c;
    }
    unreachable("set_compare(): a BoolOp without a case");
  };
  // both results come from the operands as read before either is written: q may be c
  const bool p = combine(r);
  const bool q = combine(!r);
  set(t, op.dst[0], p ? 1 : 0);
  if (op.pred_dst >= 0)
    set(t, static_cast<std::uint32_t>(op.pred_dst), q ? 1 : 0);
}

bool Cta::compare(ir::Cmp cmp, std::uint64_t a, std::uint64_t b, bool is_signed) {
  auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
  switch (cmp) {
  case ir::Cmp::eq:
    return a == b;
  case ir::Cmp::ne:
    return a != b;
  case ir::Cmp::lt:
    return is_signed ? sa < sb : a < b;
  case ir::Cmp::le:
    return is_signed ? sa <= sb : a <= b;
  case ir::Cmp::gt:
    return is_signed ? sa > sb : a > b;
  case ir::Cmp::ge:
    return is_signed ? sa >= sb : a >= b;
  case ir::Cmp::lo:
    return a < b;
  case ir::Cmp::ls:
    return a <= b;
  case ir::Cmp::hi:
    return a > b;
  case ir::Cmp::hs:
    return a >= b;
  case ir::Cmp::equ: // float comparisons: the decoder takes them only with float types
  case ir::Cmp::neu:
  case ir::Cmp::ltu:
  case ir::Cmp::leu:
  case ir::Cmp::gtu:
  case ir::Cmp::geu:
  case ir::Cmp::num:
  case ir::Cmp::nan:
    break;
  }
  return false;
}

} // namespace ptxgen::sim::exec
