#pragma once
// The upper limits of a kernel's declarations and ops that no hardware rule sets:
// ptxgen's own bounds, so that hostile sizes fail with a diagnostic instead of an
// overflow or an hour of unrolling. The kernel builder (emitter/builder/) checks them
// for every front door, the spec files' and the C++ API's.
// The launch limits (grid, block) and the shared-memory sizes are the hardware's:
// emitter/ptx/feature.hpp.

#include <cstddef>
#include <cstdint>

namespace ptxgen::tile {

/// Bytes of one global tensor (1 TiB); beyond it: spec_tensor_too_large.
inline constexpr std::int64_t kMaxGlobalBytes = std::int64_t{1} << 40;
/// A tensor's `align`, in bytes (a power of two); beyond it: spec_bad_align.
inline constexpr std::int64_t kMaxAlign = 4096;
/// Bytes of a fill op's pattern; an empty one or a longer one: spec_bad_pattern.
inline constexpr std::size_t kMaxPatternBytes = 256;
/// Body copies per back edge of a `for` or of a pipeline's steady-state loop;
/// beyond it: spec_loop_unroll_range.
inline constexpr std::int64_t kMaxUnroll = 64;

} // namespace ptxgen::tile
