#pragma once
// The per-op proofs of a cp.async apply (docs/seed-contract.txt): the direction (global to
// shared), chunk_bytes (4, 8 or 16; 16 for `.cg`), the operands (the cache policy exactly
// with the hint, src_size in 0..chunk_bytes, all of them 32-bit safe), a thread-scope dst
// that each thread owns, the shapes ((warp, lane) group axes at CTA scope, the repeat axes
// dst and src agree on, a contiguous chunk axis of chunk_bytes), then each view inside its
// tensor and its chunks aligned. The proofs over the launch that other ops share (bounds,
// alignment, the 32-bit rule) stay the checker's: the apply asks them through the context.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ptxgen::tile {

/// The largest number of cp.async instructions one apply may unroll to per thread.
inline constexpr std::int64_t max_repeats_per_apply = 4096;

/// The names src_size, ignore_src and pred may use for an apply's repeat
/// coordinates: each named repeat axis of the src view (between the group
/// axes and the chunk axis) and its index in the view's axes.
std::map<std::string, std::size_t, std::less<>> repeat_axis_names(const ApplyOp& a);

/// What the apply proofs take from the contract checker.
struct ApplyProofContext {
  const Kernel& kernel;
  /// The launch, the parameters' declared ranges and the open loops' variables.
  const LaunchBounds& bounds;
  Diagnostics& out;
  /// Every byte of the view inside its tensor for every thread, its leading `group_axes`
  /// axes bound to (warp, lane); `why` closes the message; false after reporting.
  std::function<bool(const Located<View>&, std::string_view role, std::size_t group_axes,
                     std::string_view why)>
      in_bounds;
  /// Every chunk of the view starts at a multiple of `chunk` bytes, for every thread.
  std::function<void(const Located<View>&, std::string_view role, std::size_t group_axes,
                     std::int64_t chunk)>
      aligned;
  /// The 32-bit rule for e (its value too) under `lb`, unless e depends on a loop whose
  /// header was refused.
  std::function<void(const Expr& e, const LaunchBounds& lb, const SourcePos& pos,
                     std::uint32_t length, std::string_view what)>
      u32;
  /// True when e depends on a loop whose header was refused (that error says it).
  std::function<bool(const Expr& e)> broken_loop;
};

/// Every rule of the apply but its dst's not being an mbarrier's tensor (the checker's, which
/// knows the barriers).
void check_apply(const ApplyProofContext& c, const ApplyOp& a);

/// A cache policy taken from a parameter names a u64 parameter of the kernel (an apply's and
/// every bulk-family copy's).
void check_policy_param(const Kernel& k, const std::optional<Located<CachePolicy>>& policy,
                        Diagnostics& out);

} // namespace ptxgen::tile
