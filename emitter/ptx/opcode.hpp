#pragma once
// The typed opcode of cp.async: every qualifier is an enum, never a string.
//
//   cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B,.L2::128B,.L2::256B}

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::ptx {

/// The cache operator: where the copied line may be cached.
enum class CacheOp : std::uint8_t {
  ca, ///< cache at all levels, L1 included; copies 4, 8 or 16 bytes
  cg, ///< cache in L2 only, bypassing L1; copies exactly 16 bytes
};

/// The destination state space.
enum class SharedSpace : std::uint8_t {
  shared,     ///< `.shared`
  shared_cta, ///< `.shared::cta` (PTX 7.8 by the manual)
};

/// The optional L2 prefetch size. A hint, never a larger copy.
enum class L2Prefetch : std::uint8_t {
  none, ///< no prefetch qualifier
  b64,  ///< `.L2::64B`
  b128, ///< `.L2::128B`
  b256, ///< `.L2::256B`
};

struct CpAsyncOpcode {
  CacheOp cache_op = CacheOp::ca;
  SharedSpace dst_space = SharedSpace::shared;
  bool cache_hint = false; ///< `.L2::cache_hint`: a 64-bit cache-policy operand is then required
  L2Prefetch prefetch = L2Prefetch::none;
  bool operator==(const CpAsyncOpcode&) const = default;
};

/// The qualifier groups of a cp.async opcode, for pointing at one in the text the user
/// wrote (`ptxgen instr`'s caret) and for saying which one a validator rule is about.
enum class OpcodePart : std::uint8_t {
  none,       ///< not about one qualifier (an operand, or the instruction as a whole)
  cache_op,   ///< `.ca` / `.cg`
  dst_space,  ///< `.shared` / `.shared::cta`
  src_space,  ///< `.global`
  cache_hint, ///< `.L2::cache_hint`
  prefetch,   ///< `.L2::64B` / `.L2::128B` / `.L2::256B`
};
inline constexpr std::size_t opcode_part_count = 6;

/// Where each qualifier group sits in an opcode's text: 0-based offset of its dot and
/// length with the dot; length 0 when the group is absent (or for OpcodePart::none).
struct OpcodeLayout {
  struct Span {
    std::size_t offset = 0;
    std::size_t length = 0;
  };
  std::array<Span, opcode_part_count> spans{};
  Span& at(OpcodePart p) { return spans[static_cast<std::size_t>(p)]; }
  const Span& at(OpcodePart p) const { return spans[static_cast<std::size_t>(p)]; }
};

std::string_view name(CacheOp c);     ///< "ca"
std::string_view name(SharedSpace s); ///< "shared", "shared::cta"
std::string_view name(L2Prefetch p);  ///< "", "L2::64B", "L2::128B", "L2::256B"

/// The qualifiers after `cp.async`, without dots, in the manual's order.
std::vector<std::string_view> qualifiers(const CpAsyncOpcode& op);

/// The canonical spelling, the manual's order:
/// `cp.async.cg.shared::cta.global.L2::cache_hint.L2::128B`.
std::string print(const CpAsyncOpcode& op);

} // namespace ptxgen::ptx
