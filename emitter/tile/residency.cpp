#include "emitter/tile/residency.hpp"

#include <algorithm>

namespace ptxgen::tile {

namespace {

std::int64_t round_up(std::int64_t v, std::int64_t unit) {
  return unit <= 1 ? v : (v + unit - 1) / unit * unit;
}

/// A CTA's threads as the SM counts them: whole warps.
std::int64_t warp_threads(std::int64_t threads) {
  return round_up(threads, 32);
}

} // namespace

std::int64_t least_shared_bytes(const SharedLayout& l) {
  if (l.dynamic)
    return l.total;
  std::int64_t bytes = 0;
  for (const auto& e : l.entries)
    bytes += e.decl->tensor.size_bytes();
  return bytes;
}

std::int64_t most_shared_bytes(const SharedLayout& l) {
  return l.dynamic ? l.total : l.static_bound;
}

std::int64_t sm_shared_taken(std::int64_t shared_bytes, const ptx::SmLimits& sm) {
  return round_up(shared_bytes, sm.shared_alloc_unit) + sm.reserved_shared_per_cta;
}

std::int64_t ctas_that_fit(const CtaFootprint& cta, const ptx::SmLimits& sm) {
  std::int64_t n = sm.max_ctas;
  if (cta.threads > 0)
    n = std::min(n, sm.max_threads / warp_threads(cta.threads));
  if (const std::int64_t taken = sm_shared_taken(cta.shared_bytes, sm); taken > 0)
    n = std::min(n, sm.shared_bytes / taken);
  return n;
}

std::optional<std::string> residency_problem(std::int64_t n, const CtaFootprint& cta,
                                             const ptx::SmLimits& sm) {
  if (n > sm.max_ctas)
    return "the SM holds at most " + std::to_string(sm.max_ctas) + " CTAs";
  if (n * warp_threads(cta.threads) > sm.max_threads)
    return std::to_string(n) + " CTAs of " + std::to_string(cta.threads) + " threads need " +
           std::to_string(n * warp_threads(cta.threads)) + " threads; the SM holds " +
           std::to_string(sm.max_threads);
  if (const std::int64_t need = n * sm_shared_taken(cta.shared_bytes, sm); need > sm.shared_bytes)
    return std::to_string(n) + " CTAs of " + std::to_string(cta.shared_bytes) +
           " shared bytes take " + std::to_string(need) + " bytes of the SM's shared memory (" +
           std::to_string(sm.reserved_shared_per_cta) + " reserved per CTA); it has " +
           std::to_string(sm.shared_bytes);
  return std::nullopt;
}

std::int64_t shared_bytes_for_residency(std::int64_t n, const CtaFootprint& cta,
                                        const ptx::SmLimits& sm) {
  if (ctas_that_fit(cta, sm) <= n)
    return cta.shared_bytes;
  // The least allocation A with (n + 1) * (A + reserved) > SM shared: A is in allocation units,
  // so the bytes asked for are the unit boundary below it plus one.
  const std::int64_t per_cta = sm.shared_bytes / (n + 1) + 1 - sm.reserved_shared_per_cta;
  const std::int64_t unit = std::max<std::int64_t>(sm.shared_alloc_unit, 1);
  const std::int64_t bytes = round_up(per_cta, unit) - unit + 1;
  return std::max(cta.shared_bytes, bytes);
}

} // namespace ptxgen::tile
