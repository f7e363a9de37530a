#pragma once
// Results that are cached, as a JIT caches its compilations: the whole-launch checks (the
// range proof: the reference, the mbarrier walk and the expectations at every value of the
// declared ranges) and the checked lowering (its PTX and diagnostics) of a kernel, kept in
// memory for the life of the process, so that a second check, emit or run of an unchanged
// kernel pays nothing for them. The cubin has its own cache (driver/ptxas/cubin_cache.hpp).
//
// The key is the kernel's content, never a printed result: api::content_key (its canonical
// TOML and where each part was written, so cached diagnostics keep their positions), then
// what the result depends on besides (the options, the target). The target and the PTX fix
// the cubin's key; the toolkit enters there (ptxas --version). Runs are deterministic
// functions of the key: the checks read the parameters only from the values they are given.
//
// Bounded: past max_cached_results entries of one kind the oldest go first. PTXGEN_NO_CACHE
// (set to anything but "" or "0") turns it off, as it does the cubin cache.

#include "driver/run/range_proof.hpp"
#include "driver/run/spec_files.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace ptxgen::driver {

/// The most results of one kind kept: a fuzz loop's thousands of mutants must not grow the
/// process without bound, and a session's kernels are far fewer.
inline constexpr std::size_t max_cached_results = 512;

/// Whether results are cached (default: unless PTXGEN_NO_CACHE says otherwise).
void set_result_cache_enabled(bool on);
bool result_cache_enabled();
/// Forgets every cached result (tests, and callers that measure a cold run).
void clear_result_cache();

struct ResultCacheCounters {
  std::uint64_t proof_hits = 0, proof_misses = 0; ///< whole-launch checks
  std::uint64_t lower_hits = 0, lower_misses = 0; ///< checked lowerings
};
ResultCacheCounters result_cache_counters();

/// whole_launch_findings(k, options), from the cache when `k`'s content was checked before.
/// check, emit and run share one entry: they all ask with coverage_notes (notes come only
/// with no error, and emit and run keep only errors).
Diagnostics cached_whole_launch_findings(const tile::Kernel& k, const RangeProofOptions& options = {
                                                                    .coverage_notes = true});

/// lower_into(out, k, options, faults) (the module, PTX and diagnostics it leaves in `out`),
/// from the cache when `k`'s content was lowered before with the same options. Options that
/// write elsewhere (dump_loop_form) are never cached.
void cached_lower_into(EmittedSpec& out, const tile::Kernel& k, const lower::LowerOptions& options,
                       FaultSpecs faults = FaultSpecs::refuse);

} // namespace ptxgen::driver
