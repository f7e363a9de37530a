// `ctas_per_sm` (emitter/tile/residency): the SM arithmetic against a naive model written
// here, which places CTAs on an SM one at a time until a resource runs out.

#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/target.hpp"
#include "emitter/tile/residency.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tile_residency {

using namespace ptxgen;

namespace {

/// The CUDA occupancy calculator's rules, spelled out: an SM takes CTAs while its CTA slots,
/// threads (whole warps) and shared memory (per CTA: bytes rounded up to the allocation unit,
/// plus the per-CTA reservation) last.
long naive_fit(long threads, long shared, const ptx::SmLimits& sm) {
  long ctas = 0, used_threads = 0, used_shared = 0;
  const long warps = (threads + 31) / 32;
  long alloc = shared;
  while (alloc % sm.shared_alloc_unit != 0)
    ++alloc;
  alloc += sm.reserved_shared_per_cta;
  for (;;) {
    if (ctas + 1 > sm.max_ctas || used_threads + warps * 32 > sm.max_threads ||
        used_shared + alloc > sm.shared_bytes)
      return ctas;
    ++ctas;
    used_threads += warps * 32;
    used_shared += alloc;
  }
}

ptx::SmLimits sm90() {
  return ptx::sm_limits(*ptx::Target::parse("sm_90"));
}

} // namespace

TEST_CASE("residency: sm_90's SM as the programming guide gives it") {
  const auto sm = sm90();
  CHECK(sm.shared_bytes == 228 * 1024);
  CHECK(sm.reserved_shared_per_cta == 1024);
  CHECK(sm.max_ctas == 32);
  CHECK(sm.max_threads == 2048);
  CHECK(ptx::sm_limits(*ptx::Target::parse("sm_80")).shared_bytes == 164 * 1024);
  CHECK(ptx::max_ctas_per_sm_any_target() == 32);
}

TEST_CASE("residency: ctas_that_fit counts as the naive model does") {
  for (const char* target : {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_120"}) {
    const auto sm = ptx::sm_limits(*ptx::Target::parse(target));
    for (long threads : {1L, 32L, 33L, 96L, 128L, 256L, 1024L})
      for (long shared : {0L, 1L, 127L, 4096L, 16384L, 49152L, 65536L, 100000L}) {
        CAPTURE(target);
        CAPTURE(threads);
        CAPTURE(shared);
        CHECK(tile::ctas_that_fit({threads, shared}, sm) == naive_fit(threads, shared, sm));
      }
  }
}

TEST_CASE("residency: the padding gives exactly N where the SM allows it, and is the least") {
  const auto sm = sm90();
  // The shapes: one 16 KiB bulk tile per CTA (128 threads) and a 32 KiB TMA box.
  for (long shared : {0L, 1024L, 16384L, 32768L})
    for (long threads : {32L, 128L, 256L})
      for (long n = 1; n <= 32; ++n) {
        CAPTURE(shared);
        CAPTURE(threads);
        CAPTURE(n);
        const tile::CtaFootprint cta{threads, shared};
        if (naive_fit(threads, shared, sm) < n) {
          CHECK(tile::residency_problem(n, cta, sm).has_value());
          continue;
        }
        CHECK_FALSE(tile::residency_problem(n, cta, sm).has_value());
        const long padded = tile::shared_bytes_for_residency(n, cta, sm);
        CHECK(padded >= shared);
        const long got = naive_fit(threads, padded, sm);
        if (padded == shared) {
          CHECK(got <= n); // something else already keeps the (n+1)th out
          continue;
        }
        CHECK(got <= n);
        CHECK(naive_fit(threads, padded - 1, sm) > n); // the least such padding
        // It keeps exactly n unless the padding that shuts out n+1 also shuts out n.
        if (got < n)
          CHECK(tile::residency_problem(n, {threads, padded}, sm).has_value());
      }
  // 64 KiB per CTA, as hand-written kernels with 48 KiB more dynamic shared memory had it:
  // 3 CTAs of 16 KiB tiles.
  const long padded = tile::shared_bytes_for_residency(3, {128, 16384}, sm);
  CHECK(naive_fit(128, padded, sm) == 3);
  CHECK(padded > 16384);
}

} // namespace unit_tile_residency
