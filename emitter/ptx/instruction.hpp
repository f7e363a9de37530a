#pragma once
// Typed PTX instructions: the cp.async family and the plain instructions the lowering needs.

#include "emitter/ptx/opcode.hpp"
#include "emitter/ptx/operand.hpp"
#include "emitter/ptx/types.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxgen::ptx {

/// `@%p` or `@!%p` in front of an instruction: false suppresses it entirely.
struct Guard {
  Register predicate;
  bool negated = false;
};

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
  std::optional<std::variant<Register, Immediate>> cache_policy;
};

struct CpAsyncCommitGroup {}; ///< cp.async.commit_group;
struct CpAsyncWaitGroup {     ///< cp.async.wait_group N;
  std::int64_t n = 0;
};
struct CpAsyncWaitAll {}; ///< cp.async.wait_all;

/// cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr];
struct CpAsyncMbarrierArrive {
  bool noinc = false;
  std::optional<SharedSpace> space; ///< no state space means a generic address
  Address address;
};

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

/// mov.type dst, src;  (src: register, immediate, special register, or a symbol's address)
struct Mov {
  ScalarType type = ScalarType::u32;
  Register dst;
  Operand src;
};

/// ld{.space}{.vN}.type dst | {d0, d1, ...}, [addr];  (ld.param for kernel parameters)
struct Ld {
  StateSpace space = StateSpace::global;
  ScalarType type = ScalarType::u32;
  std::vector<Register> dst; ///< 1, 2 or 4 registers: more than one prints `.v2` / `.v4`
  Address address;
};

/// st{.space}{.vN}.type [addr], src | {s0, s1, ...};
struct St {
  StateSpace space = StateSpace::global;
  ScalarType type = ScalarType::u32;
  Address address;
  std::vector<Operand> src; ///< 1, 2 or 4 operands
};

/// cvta.to.{global,shared}.type dst, src;  (generic -> state-space address)
struct Cvta {
  StateSpace space = StateSpace::global;
  ScalarType type = ScalarType::u64;
  Register dst;
  Operand src;
};

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

struct Binary {
  BinaryOp op = BinaryOp::add;
  ScalarType type = ScalarType::u32;
  Register dst;
  Operand a;
  Operand b;
};

/// mad.lo.type / mad.wide.type dst, a, b, c;
struct Mad {
  bool wide = false;
  ScalarType type = ScalarType::u32;
  Register dst;
  Operand a;
  Operand b;
  Operand c;
};

/// cvt.dtype.stype dst, src;  (integer widening and narrowing)
struct Cvt {
  ScalarType dst_type = ScalarType::u64;
  ScalarType src_type = ScalarType::u32;
  Register dst;
  Operand src;
};

enum class CompareOp : std::uint8_t {
  eq, ///< equal
  ne, ///< not equal
  lt, ///< less (signed)
  le, ///< less or equal (signed)
  gt, ///< greater (signed)
  ge, ///< greater or equal (signed)
  lo, ///< lower (unsigned)
  ls, ///< lower or same (unsigned)
  hi, ///< higher (unsigned)
  hs, ///< higher or same (unsigned)
};
std::string_view name(CompareOp c);

/// setp.cmp.type p, a, b;
struct Setp {
  CompareOp cmp = CompareOp::lt;
  ScalarType type = ScalarType::u32;
  Register dst; ///< pred
  Operand a;
  Operand b;
};

/// selp.type dst, a, b, p;  (p ? a : b)
struct Selp {
  ScalarType type = ScalarType::u32;
  Register dst;
  Operand a;
  Operand b;
  Register predicate;
};

/// bar.sync N;
struct BarSync {
  std::uint32_t barrier = 0;
};

struct Ret {}; ///< ret;

using InstructionBody = std::variant<CpAsync, CpAsyncCommitGroup, CpAsyncWaitGroup, CpAsyncWaitAll,
                                     CpAsyncMbarrierArrive, CreatePolicyFractional, Mov, Ld, St,
                                     Cvta, Unary, Binary, Mad, Cvt, Setp, Selp, BarSync, Ret>;

struct Instruction {
  std::optional<Guard> guard;
  InstructionBody body;
  std::string comment; ///< printed as a trailing `// comment` when not empty
};

} // namespace ptxgen::ptx
