#pragma once
// `ctas_per_sm = N`: how many CTAs of a kernel one SM holds, from the target's SM limits
// (ptx::SmLimits), and the shared memory a launch asks for so that no more than N fit. The
// contract refuses a residency the SM cannot hold; the launch pads its dynamic shared memory.

#include "emitter/ptx/feature.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace ptxgen::tile {

/// What one CTA of a kernel takes from an SM.
struct CtaFootprint {
  std::int64_t threads = 0;      ///< per CTA
  std::int64_t shared_bytes = 0; ///< static and dynamic together, per CTA
};

/// The fewest shared bytes a kernel of this layout takes per CTA: a dynamic layout's total;
/// static arrays at their sizes alone (ptxas may pack them tighter than the layout's bound).
std::int64_t least_shared_bytes(const SharedLayout& l);
/// The most: a dynamic layout's total, else the static arrays' bound.
std::int64_t most_shared_bytes(const SharedLayout& l);

/// The shared memory one CTA takes from the SM: its bytes in allocation units, plus the
/// system's reservation.
std::int64_t sm_shared_taken(std::int64_t shared_bytes, const ptx::SmLimits& sm);

/// How many CTAs of this footprint fit on one SM by threads, shared memory and the CTA limit
/// (registers are ptxas's and not counted).
std::int64_t ctas_that_fit(const CtaFootprint& cta, const ptx::SmLimits& sm);

/// Why `n` CTAs of this footprint cannot be resident together; nullopt when they can.
std::optional<std::string> residency_problem(std::int64_t n, const CtaFootprint& cta,
                                             const ptx::SmLimits& sm);

/// The shared bytes per CTA (at least cta.shared_bytes) with which at most `n` fit on one SM:
/// cta.shared_bytes when threads, shared memory or the CTA limit already stop the (n+1)th,
/// else the least allocation that leaves no room for it.
std::int64_t shared_bytes_for_residency(std::int64_t n, const CtaFootprint& cta,
                                        const ptx::SmLimits& sm);

} // namespace ptxgen::tile
