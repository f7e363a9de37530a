#pragma once
// Typed PTX instructions: the cp.async family and the plain instructions the lowering needs
// (the sm_90 bulk-copy family is declared in bulk.hpp).
//
// Each instruction kind is declared once: its struct, followed by
// `describe(const Kind&, V& v)`, which tells a visitor v the kind's mnemonic and
// qualifiers, its operands in printed order (each with its role, its type and
// what the validator may allow there) and the feature-table rows it uses.
// instructions.def lists the kinds. The printer, the validator's operand,
// register and symbol walks and features_used() are visitors over describe();
// the validator's rules that are not about one operand are in its semantics().
//
// A visitor V implements every call below (there is no default, so a visitor
// that misses an operand kind does not compile):
//   opcode(Mnemonic m)                         the mnemonic (mnemonics.def): ld, mul_lo, cp_async
//   qualifier(std::string_view q)              one `.q` after the root, in printed order
//   def(Register, Slot)                        a register the instruction writes
//   defs(std::span<const Register>, Slot)      1, 2 or 4 written registers (`{a, b}` for more)
//   use(const Operand&, Slot)                  a value operand that is read
//   uses(std::span<const Operand>, Slot)       1, 2 or 4 read operands (`{a, b}` for more)
//   reg(Register, Slot)                        a read operand that must be a register
//   negated_reg(Register, Slot)                the same, printed `!%p`
//   address(const Address&, AddressSlot)       a memory operand `[base+offset]`
//   tensor(const std::variant<Register, Symbol>& map, std::span<const Operand> coords,
//          Slot map, Slot coord)               a tensor operand `[map, {c0, c1, ...}]`
//   immediate(std::int64_t)                    an integer literal operand
//   float_immediate(float)                     a float literal operand (its exact bits)
//   label(const std::string&)                  a branch target, a label of the entry
//   label_definition(const std::string&)       the instruction defines this label (`name:`)
//   sink(Slot)                                 a result the instruction discards (`_`)
//   missing(std::string_view placeholder)      an operand the AST lacks (printed as a token
//                                              ptxas refuses; the validator reports it)
//   feature(Feature)                           a feature-table row the instruction uses

#include "emitter/ptx/bulk.hpp"
#include "emitter/ptx/declaration.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/mnemonic.hpp"
#include "emitter/ptx/opcode.hpp"
#include "emitter/ptx/operand.hpp"
#include "emitter/ptx/tensormap.hpp"
#include "emitter/ptx/types.hpp"
#include "emitter/support/overloaded.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxgen::ptx {

/// The src-size operand: copy this many bytes and zero the rest of cp-size.
struct SrcSize {
  std::variant<Register, std::uint32_t> value; ///< a u32 register or an immediate
};

/// The ignore-src operand: when true, zero all cp-size bytes and read nothing.
struct IgnoreSrc {
  Register predicate;
  bool negated = false; ///< `!%p`
};

/// cp.async.{ca,cg}.shared{::cta}.global... [dst], [src], cp-size{, src-size | , ignore-src}{,
/// policy};
struct CpAsync {
  CpAsyncOpcode opcode;
  Address dst;
  Address src;
  std::uint32_t cp_size = 16;
  std::variant<std::monostate, SrcSize, IgnoreSrc> zero_fill; ///< the two forms exclude each other
  /// The 64-bit cache policy: present exactly when opcode.cache_hint is set.
  CachePolicy cache_policy;
};

template <class V>
void describe(const CpAsync& c, V& v) {
  v.opcode(Mnemonic::cp_async);
  for (std::string_view q : qualifiers(c.opcode))
    v.qualifier(q);
  v.address(c.dst, {Role::dst_address, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.address(c.src, {Role::src_address, AddressWidth::b64, SymbolScope::none});
  v.immediate(c.cp_size);
  std::visit(overloaded{
                 [](std::monostate) {},
                 [&v](const SrcSize& s) {
                   if (const auto* r = std::get_if<Register>(&s.value))
                     v.reg(*r, {Role::src_size, ScalarType::u32});
                   else
                     v.immediate(std::get<std::uint32_t>(s.value));
                 },
                 [&v](const IgnoreSrc& s) {
                   const Slot slot{Role::ignore_src, ScalarType::pred};
                   if (s.negated)
                     v.negated_reg(s.predicate, slot);
                   else
                     v.reg(s.predicate, slot);
                 },
             },
             c.zero_fill);
  // The hint trap: with `.L2::cache_hint` ptxas reads the last operand as the policy, so
  // the policy is always printed; a missing one prints a token ptxas refuses.
  describe_cache_policy(c.opcode.cache_hint, c.cache_policy, v);
  v.feature(Feature::cp_async);
  if (c.opcode.cache_hint)
    v.feature(Feature::cp_async_cache_hint);
  if (c.opcode.prefetch != L2Prefetch::none)
    v.feature(Feature::cp_async_prefetch);
  if (std::holds_alternative<IgnoreSrc>(c.zero_fill))
    v.feature(Feature::cp_async_ignore_src);
  if (c.opcode.dst_space == SharedSpace::shared_cta)
    v.feature(Feature::shared_cta);
}

struct CpAsyncCommitGroup {}; ///< cp.async.commit_group;

template <class V>
void describe(const CpAsyncCommitGroup&, V& v) {
  v.opcode(Mnemonic::cp_async_commit_group);
  v.feature(Feature::cp_async);
}
struct CpAsyncWaitGroup { ///< cp.async.wait_group N;
  std::int64_t n = 0;
};

template <class V>
void describe(const CpAsyncWaitGroup& w, V& v) {
  v.opcode(Mnemonic::cp_async_wait_group);
  v.immediate(w.n);
  v.feature(Feature::cp_async);
}
struct CpAsyncWaitAll {}; ///< cp.async.wait_all;

template <class V>
void describe(const CpAsyncWaitAll&, V& v) {
  v.opcode(Mnemonic::cp_async_wait_all);
  v.feature(Feature::cp_async);
}

/// cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr];
struct CpAsyncMbarrierArrive {
  bool noinc = false;
  std::optional<SharedSpace> space; ///< no state space means a generic address
  Address address;
};

template <class V>
void describe(const CpAsyncMbarrierArrive& m, V& v) {
  v.opcode(Mnemonic::cp_async_mbarrier_arrive);
  if (m.noinc)
    v.qualifier("noinc");
  if (m.space)
    v.qualifier(name(*m.space));
  v.qualifier("b64");
  v.address(m.address, {Role::address, AddressWidth::b32_or_b64, SymbolScope::shared});
  v.feature(Feature::cp_async_mbarrier_arrive);
  if (m.space == SharedSpace::shared_cta)
    v.feature(Feature::shared_cta);
}

/// mbarrier.init{.shared{::cta}}.b64 [addr], count;  (phase 0, `count` arrivals expected)
struct MbarrierInit {
  std::optional<SharedSpace> space; ///< no state space means a generic address
  Address address;                  ///< the 8-byte mbarrier object in shared memory
  Operand count;                    ///< a .u32 register or an immediate in 1..2^20-1
};

template <class V>
void describe(const MbarrierInit& m, V& v) {
  v.opcode(Mnemonic::mbarrier_init);
  describe_mbarrier_space(m.space, v);
  describe_mbarrier_address(m.space, m.address, v);
  v.use(m.count, {Role::source, ScalarType::u32});
  v.feature(Feature::mbarrier_init);
}

/// mbarrier.arrive{.shared{::cta}}.b64 state | _, [addr];  (one arrival on the current phase)
struct MbarrierArrive {
  std::optional<SharedSpace> space; ///< no state space means a generic address
  std::optional<Register> state;    ///< the .b64 phase state; none prints the sink `_`
  Address address;                  ///< the 8-byte mbarrier object
};

template <class V>
void describe(const MbarrierArrive& m, V& v) {
  v.opcode(Mnemonic::mbarrier_arrive);
  describe_mbarrier_space(m.space, v);
  describe_mbarrier_state(m.state, v);
  describe_mbarrier_address(m.space, m.address, v);
  v.feature(Feature::mbarrier_arrive);
  if (!m.state)
    v.feature(Feature::mbarrier_arrive_sink);
}

/// Which mbarrier wait: test_wait only tests; try_wait may suspend the thread a while.
enum class MbarrierWaitKind : std::uint8_t {
  test, ///< mbarrier.test_wait
  try_, ///< mbarrier.try_wait (sm_90)
};

/// mbarrier.{test,try}_wait{.parity}{.shared{::cta}}.b64 p, [addr], state | parity;
/// p becomes true when the phase named by `state` (an arrive's .b64 result) or, with
/// `.parity`, by its parity (a .b32 0 or 1) has completed.
struct MbarrierWait {
  MbarrierWaitKind kind = MbarrierWaitKind::test;
  bool parity = false;
  std::optional<SharedSpace> space; ///< no state space means a generic address
  Register dst;                     ///< .pred
  Address address;
  Operand phase; ///< .b64 state, or with `.parity` a .b32 register or immediate 0/1
};

template <class V>
void describe(const MbarrierWait& m, V& v) {
  v.opcode(m.kind == MbarrierWaitKind::test ? Mnemonic::mbarrier_test_wait
                                            : Mnemonic::mbarrier_try_wait);
  if (m.parity)
    v.qualifier("parity");
  describe_mbarrier_space(m.space, v);
  v.def(m.dst, {Role::destination, ScalarType::pred});
  describe_mbarrier_address(m.space, m.address, v);
  v.use(m.phase, {Role::source, m.parity ? ScalarType::b32 : ScalarType::b64});
  switch (m.kind) {
  case MbarrierWaitKind::test:
    v.feature(m.parity ? Feature::mbarrier_test_wait_parity : Feature::mbarrier_test_wait);
    break;
  case MbarrierWaitKind::try_:
    v.feature(m.parity ? Feature::mbarrier_try_wait_parity : Feature::mbarrier_try_wait);
    break;
  }
}

/// L2 eviction priorities for createpolicy.
enum class EvictionPriority : std::uint8_t {
  evict_last,      ///< `.L2::evict_last`
  evict_normal,    ///< `.L2::evict_normal`
  evict_first,     ///< `.L2::evict_first`
  evict_unchanged, ///< `.L2::evict_unchanged` (secondary only)
};
std::string_view name(EvictionPriority p); ///< "L2::evict_last"
/// The inverse of name() without its `L2::` prefix, as specs spell it: "evict_last".
std::optional<EvictionPriority> parse_eviction_priority(std::string_view spelling);
/// The spellings parse_eviction_priority() accepts, in enum order (for suggestions).
std::span<const std::string_view> eviction_priority_spellings();
/// createpolicy's rule: only evict_first and evict_unchanged may be a secondary priority.
bool allowed_as_secondary(EvictionPriority p);

/// createpolicy.fractional.L2::primary{.L2::secondary}.b64 dst{, fraction};
struct CreatePolicyFractional {
  Register dst; ///< b64
  EvictionPriority primary = EvictionPriority::evict_last;
  std::optional<EvictionPriority> secondary;
  float fraction = 1.0f; ///< in (0, 1]; printed only when not 1
};

template <class V>
void describe(const CreatePolicyFractional& p, V& v) {
  v.opcode(Mnemonic::createpolicy_fractional);
  v.qualifier(name(p.primary));
  if (p.secondary)
    v.qualifier(name(*p.secondary));
  v.qualifier("b64");
  v.def(p.dst, {Role::destination, ScalarType::b64});
  if (p.fraction != 1.0f)
    v.float_immediate(p.fraction);
  v.feature(Feature::createpolicy);
}

/// mov.type dst, src;  (src: register, immediate, special register, or a symbol's address)
struct Mov {
  ScalarType type = ScalarType::u32;
  Register dst;
  Operand src;
};

template <class V>
void describe(const Mov& m, V& v) {
  v.opcode(Mnemonic::mov);
  v.qualifier(name(m.type));
  v.def(m.dst, {Role::destination, m.type});
  v.use(m.src,
        {Role::source, m.type, OperandRule::special_register | OperandRule::predicate_constant});
}

/// ld{.space}{.vN}.type dst | {d0, d1, ...}, [addr];  (ld.param for kernel parameters)
struct Ld {
  StateSpace space = StateSpace::global;
  ScalarType type = ScalarType::u32;
  std::vector<Register> dst; ///< 1, 2 or 4 registers: more than one prints `.v2` / `.v4`
  Address address;
};

/// `.v2` / `.v4` for a vector of n values; "" for one (or a count the validator refuses).
constexpr std::string_view vector_qualifier(std::size_t n) {
  return n == 2 ? "v2" : n == 4 ? "v4" : "";
}

template <class V>
void describe(const Ld& l, V& v) {
  v.opcode(Mnemonic::ld);
  v.qualifier(name(l.space));
  if (!vector_qualifier(l.dst.size()).empty())
    v.qualifier(vector_qualifier(l.dst.size()));
  v.qualifier(name(l.type));
  v.defs(l.dst, {Role::destination, l.type});
  v.address(l.address,
            {Role::address,
             l.space == StateSpace::global ? AddressWidth::b64 : AddressWidth::b32_or_b64,
             l.space == StateSpace::param ? SymbolScope::param : SymbolScope::shared});
  if (l.space == StateSpace::shared_cluster)
    v.feature(Feature::dsmem);
}

/// st{.space}{.vN}.type [addr], src | {s0, s1, ...};
struct St {
  StateSpace space = StateSpace::global;
  ScalarType type = ScalarType::u32;
  Address address;
  std::vector<Operand> src; ///< 1, 2 or 4 operands
};

template <class V>
void describe(const St& s, V& v) {
  v.opcode(Mnemonic::st);
  v.qualifier(name(s.space));
  if (!vector_qualifier(s.src.size()).empty())
    v.qualifier(vector_qualifier(s.src.size()));
  v.qualifier(name(s.type));
  v.address(s.address,
            {Role::address,
             s.space == StateSpace::global ? AddressWidth::b64 : AddressWidth::b32_or_b64,
             SymbolScope::shared});
  v.uses(s.src, {Role::source, s.type});
  if (s.space == StateSpace::shared_cluster)
    v.feature(Feature::dsmem);
}

/// cvta.to.{global,shared}.type dst, src;  (generic -> state-space address), or with
/// `to_generic`, cvta.param.type dst, src;  (a kernel parameter's address -> generic: what a
/// tensor instruction takes for a map passed as a parameter)
struct Cvta {
  StateSpace space = StateSpace::global;
  ScalarType type = ScalarType::u64;
  Register dst;
  Operand src;
  bool to_generic = false;
};

template <class V>
void describe(const Cvta& c, V& v) {
  v.opcode(Mnemonic::cvta);
  if (!c.to_generic)
    v.qualifier("to");
  v.qualifier(name(c.space));
  v.qualifier(name(c.type));
  v.def(c.dst, {Role::destination, c.type});
  v.use(c.src, {Role::source, c.type});
  if (c.to_generic && c.space == StateSpace::param)
    v.feature(Feature::cvta_param);
}

enum class UnaryOp : std::uint8_t {
  not_, ///< not.type (pred or bN)
  neg,  ///< neg.type (signed)
};

struct Unary {
  UnaryOp op = UnaryOp::not_;
  ScalarType type = ScalarType::pred;
  Register dst;
  Operand src;
};

template <class V>
void describe(const Unary& u, V& v) {
  v.opcode(u.op == UnaryOp::not_ ? Mnemonic::not_ : Mnemonic::neg);
  v.qualifier(name(u.type));
  v.def(u.dst, {Role::destination, u.type});
  v.use(u.src, {Role::source, u.type});
}

enum class BinaryOp : std::uint8_t {
  add,      ///< add.type
  sub,      ///< sub.type
  mul_lo,   ///< mul.lo.type
  mul_wide, ///< mul.wide.type (dst twice the width of the sources)
  div,      ///< div.type
  rem,      ///< rem.type
  min,      ///< min.type
  max,      ///< max.type
  shl,      ///< shl.bN
  shr,      ///< shr.type (arithmetic for signed types)
  and_,     ///< and.type (bN or pred)
  or_,      ///< or.type (bN or pred)
  xor_,     ///< xor.type (bN or pred)
};

/// Mnemonic::add, Mnemonic::mul_lo, Mnemonic::and_, ...
Mnemonic mnemonic(BinaryOp op);

struct Binary {
  BinaryOp op = BinaryOp::add;
  ScalarType type = ScalarType::u32;
  Register dst;
  Operand a;
  Operand b;
};

template <class V>
void describe(const Binary& b, V& v) {
  v.opcode(mnemonic(b.op));
  v.qualifier(name(b.type));
  v.def(b.dst, {Role::destination, b.op == BinaryOp::mul_wide ? widened(b.type) : b.type});
  v.use(b.a, {Role::first, b.type});
  // Shift amounts are always .u32.
  const bool shift = b.op == BinaryOp::shl || b.op == BinaryOp::shr;
  v.use(b.b, {Role::second, shift ? ScalarType::u32 : b.type});
}

/// mad.lo.type / mad.wide.type dst, a, b, c;
struct Mad {
  bool wide = false;
  ScalarType type = ScalarType::u32;
  Register dst;
  Operand a;
  Operand b;
  Operand c;
};

template <class V>
void describe(const Mad& m, V& v) {
  v.opcode(m.wide ? Mnemonic::mad_wide : Mnemonic::mad_lo);
  v.qualifier(name(m.type));
  const ScalarType result = m.wide ? widened(m.type) : m.type;
  v.def(m.dst, {Role::destination, result});
  v.use(m.a, {Role::first, m.type});
  v.use(m.b, {Role::second, m.type});
  v.use(m.c, {Role::third, result});
}

/// cvt.dtype.stype dst, src;  (integer widening and narrowing)
struct Cvt {
  ScalarType dst_type = ScalarType::u64;
  ScalarType src_type = ScalarType::u32;
  Register dst;
  Operand src;
};

template <class V>
void describe(const Cvt& c, V& v) {
  v.opcode(Mnemonic::cvt);
  v.qualifier(name(c.dst_type));
  v.qualifier(name(c.src_type));
  v.def(c.dst, {Role::destination, c.dst_type});
  v.use(c.src, {Role::source, c.src_type, OperandRule::special_register});
}

/// setp.cmp.type p, a, b;
struct Setp {
  CompareOp cmp = CompareOp::lt;
  ScalarType type = ScalarType::u32;
  Register dst; ///< pred
  Operand a;
  Operand b;
};

template <class V>
void describe(const Setp& s, V& v) {
  v.opcode(Mnemonic::setp);
  v.qualifier(name(s.cmp));
  v.qualifier(name(s.type));
  v.def(s.dst, {Role::destination, ScalarType::pred});
  v.use(s.a, {Role::first, s.type});
  v.use(s.b, {Role::second, s.type});
}

/// selp.type dst, a, b, p;  (p ? a : b)
struct Selp {
  ScalarType type = ScalarType::u32;
  Register dst;
  Operand a;
  Operand b;
  Register predicate;
};

template <class V>
void describe(const Selp& s, V& v) {
  v.opcode(Mnemonic::selp);
  v.qualifier(name(s.type));
  v.def(s.dst, {Role::destination, s.type});
  v.use(s.a, {Role::first, s.type});
  v.use(s.b, {Role::second, s.type});
  v.reg(s.predicate, {Role::selector, ScalarType::pred});
}

/// bar.sync N;
struct BarSync {
  std::uint32_t barrier = 0;
};

template <class V>
void describe(const BarSync& b, V& v) {
  v.opcode(Mnemonic::bar_sync);
  v.immediate(b.barrier);
}

/// barrier.cluster.arrive{.relaxed};  the thread's arrival on its cluster's barrier, with
/// release semantics unless `.relaxed` (then its earlier memory accesses are not ordered by
/// it). Every sm_90 launch is a cluster, of one CTA unless the launch asks for more.
struct BarrierClusterArrive {
  bool relaxed = false;
};

template <class V>
void describe(const BarrierClusterArrive& b, V& v) {
  v.opcode(Mnemonic::barrier_cluster_arrive);
  if (b.relaxed)
    v.qualifier(spelling(Qualifier::relaxed));
  v.feature(Feature::barrier_cluster);
  if (b.relaxed)
    v.feature(Feature::barrier_cluster_relaxed);
}

/// barrier.cluster.wait;  waits (with acquire semantics) until every thread of the cluster
/// has arrived on the barrier's current phase.
struct BarrierClusterWait {};

template <class V>
void describe(const BarrierClusterWait&, V& v) {
  v.opcode(Mnemonic::barrier_cluster_wait);
  v.feature(Feature::barrier_cluster);
}

/// mapa.shared::cluster.u32 d, a, rank;  the `.shared::cluster` address of the location that
/// the executing CTA's shared address `a` names in the shared memory of CTA `rank` of its
/// cluster (distributed shared memory: ld/st.shared::cluster then access it).
struct Mapa {
  Register dst;
  Register src;
  Operand rank; ///< a u32 register or immediate
};

template <class V>
void describe(const Mapa& m, V& v) {
  v.opcode(Mnemonic::mapa);
  v.qualifier(name(StateSpace::shared_cluster));
  v.qualifier(name(ScalarType::u32));
  v.def(m.dst, {Role::destination, ScalarType::u32});
  v.use(Operand{m.src}, {Role::source, ScalarType::u32});
  v.use(m.rank, {Role::source, ScalarType::u32});
  v.feature(Feature::dsmem);
}

/// bar.sync id, count; / bar.arrive id, count;  the named barrier `id` of `count` threads
/// (a multiple of 32: the hardware counts whole warps). bar.arrive goes on without waiting.
struct NamedBarrier {
  std::uint32_t barrier = 1;
  std::uint32_t count = 32;
  bool arrive = false;
};

template <class V>
void describe(const NamedBarrier& b, V& v) {
  v.opcode(b.arrive ? Mnemonic::bar_arrive : Mnemonic::bar_sync);
  v.immediate(b.barrier);
  v.immediate(b.count);
}

/// setmaxnreg.{inc,dec}.sync.aligned.u32 N;  the executing warpgroup's registers per thread
/// become N (24..256, a multiple of 8); sm_90a only.
struct Setmaxnreg {
  bool inc = false;
  std::uint32_t regs = 24;
};

template <class V>
void describe(const Setmaxnreg& s, V& v) {
  v.opcode(Mnemonic::setmaxnreg);
  v.qualifier(spelling(s.inc ? Qualifier::inc : Qualifier::dec));
  v.qualifier(spelling(Qualifier::sync));
  v.qualifier(spelling(Qualifier::aligned));
  v.qualifier(name(ScalarType::u32));
  v.immediate(s.regs);
  v.feature(Feature::setmaxnreg);
}

struct Ret {}; ///< ret;

template <class V>
void describe(const Ret&, V& v) {
  v.opcode(Mnemonic::ret);
}

/// `$L_name:` defines a label of the entry at this point (a pseudo-instruction).
struct Label {
  std::string name; ///< `$L_loop`: a PTX identifier, unique in its entry
};

template <class V>
void describe(const Label& l, V& v) {
  v.label_definition(l.name);
}

/// bra{.uni} $L_name;  (guard it with `@%p` for a conditional branch)
struct Bra {
  std::string target; ///< a Label of the same entry
  bool uni = false;   ///< `.uni`: every active thread takes the same path
};

template <class V>
void describe(const Bra& b, V& v) {
  v.opcode(Mnemonic::bra);
  if (b.uni)
    v.qualifier("uni");
  v.label(b.target);
}

/// Every kind of instructions.def, in its order.
using InstructionBody = VariantOfRest<void
#define PTXGEN_PTX_INSTRUCTION(Kind) , Kind
#include "emitter/ptx/instructions.def"
#undef PTXGEN_PTX_INSTRUCTION
                                      >::type;

/// Describes whichever kind `body` holds to v: one overload per kind of instructions.def.
template <class V>
void describe(const InstructionBody& body, V& v) {
  std::visit(
      overloaded{
#define PTXGEN_PTX_INSTRUCTION(Kind) [&v](const Kind& k) { describe(k, v); },
#include "emitter/ptx/instructions.def"
#undef PTXGEN_PTX_INSTRUCTION
      },
      body);
}

struct Instruction {
  std::optional<Guard> guard;
  InstructionBody body;
  std::string comment; ///< printed as a trailing `// comment` when not empty
};

/// The features one instruction uses, as its declaration lists them (base feature first).
std::vector<Feature> features_used(const Instruction& i);

} // namespace ptxgen::ptx
