#pragma once
// The typed opcode of cp.async: every qualifier is an enum, never a string.
//
//   cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::64B,.L2::128B,.L2::256B}

#include <cstdint>
#include <string>
#include <string_view>

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

std::string_view name(CacheOp c);     ///< "ca"
std::string_view name(SharedSpace s); ///< "shared", "shared::cta"
std::string_view name(L2Prefetch p);  ///< "", "L2::64B", "L2::128B", "L2::256B"

/// The canonical spelling, the manual's order:
/// `cp.async.cg.shared::cta.global.L2::cache_hint.L2::128B`.
std::string print(const CpAsyncOpcode& op);

} // namespace ptxgen::ptx
