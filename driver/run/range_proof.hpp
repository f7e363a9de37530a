#pragma once
// The whole-launch checks over every value a spec declares. The contract proves bounds and
// alignment over the parameters' declared ranges by interval arithmetic; the whole-launch
// checks (the reference's hazard checks, the mbarrier contract's phase walk) are runs. A run
// at one value proves nothing about another, so these checks run at every combination of the
// values of the parameters they can see, after one sound reduction:
//
//  - A parameter no expression of the kernel names cannot change a run: one value stands for
//    all of them.
//  - A parameter p each of whose uses is `e OP p` or `p OP e` with OP a comparison, or
//    min(p, e) / min(e, p), where e does not name p and bounds() gives e at most U over the
//    whole launch: every value of p above U + 1 makes every use evaluate as p = U + 1 does
//    (a comparison with a value above every e decides the same way; the min is e), so the
//    runs for p in lo..min(hi, U + 1) cover lo..hi.
//  - The rest run value by value. When the combinations exceed max_value_runs the spec is
//    refused (check_range_too_wide) naming the widest parameter: never accepted on a sample.
//
// The expectations ([[expect]]) are checked in every run as well. They compare bytes, and
// the hazards' roots do not fix the bytes (a global view or a src_size moves them with no
// hazard changing), so for a kernel with expectations the roots also hold the data
// expressions (global sides, src_size, ignore_src) of every op that writes a tensor the
// expectations read (closed under the data flow: the sources of those ops are read too)
// and the expectations' own indices and slice bounds. The reduction above then keeps the
// expectations' verdicts: values that merge evaluate every one of those expressions alike,
// so the reference writes the same bytes into the tensors read (tensors never alias) and
// the expectations compare the same regions.
//
// A launch of two CTAs or more also has among its roots the global views of every op that
// writes a global tensor, and of every read of such a tensor: which bytes each CTA writes and
// reads decides the races between CTAs (check_cross_cta_race), the values never do.
//
// Soundness rests on the runs being functions of the parameter values: the reference and
// the mbarrier walk read a parameter only from the values they are given
// (ReferenceInput::param_values, Kernel::env_for's `values`).

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace ptxgen::driver {

/// Whether reference_findings verifies the [[expect]] statements too.
enum class ExpectationRuns : bool { skip, check };

/// Runs the independent reference over the kernel (with its test inputs) and
/// reports what it finds as errors at the op they concern: a thread reading
/// shared bytes that a pending copy will write (a missing wait), or that
/// another thread wrote with no cta_sync in between (a missing barrier),
/// copies never waited for, undefined shared bytes reaching a global tensor.
/// These are properties of the whole launch, beyond the per-op contract.
/// Then it verifies the spec's expectations (`[[expect]]`) on the reference's final
/// global tensors, their regions at the same values: each one that fails is an error at
/// its `that` string. One run, at `values` (whole_launch_findings runs it over the ranges).
/// Where the checks do not hold the values (holds_values), the run is without them and the
/// expectations give one check_expectations_unchecked note instead.
/// `values`: the parameters' values, one per Kernel::params entry (empty: the test values).
Diagnostics reference_findings(const tile::Kernel& k,
                               ExpectationRuns expectations = ExpectationRuns::check,
                               std::span<const std::uint64_t> values = {});

/// The most bytes of global tensors the whole-launch checks hold. Above it they run without
/// the values (ReferenceInput::values: the same findings, in memory and time that do not
/// grow with the tensors' bytes), and the expectations, which compare values, are not checked
/// (a check_expectations_unchecked note says so). 256 MiB: every corpus spec fits, a bench
/// spec's 2 GiB tensors do not.
inline constexpr std::uint64_t max_held_global_bytes = std::uint64_t{256} << 20;

/// The bytes of the kernel's global tensors, all together.
std::uint64_t global_bytes(const tile::Kernel& k);

/// Whether the whole-launch checks hold the kernel's values: global_bytes at most
/// max_held_global_bytes.
bool holds_values(const tile::Kernel& k);

/// The most runs of the whole-launch checks one spec may take: the reference runs a corpus
/// spec in well under a millisecond, so 4096 runs stay within a few seconds for the largest.
inline constexpr std::uint64_t max_value_runs = 4096;

/// How one scalar parameter's declared range is covered.
struct ParamCoverage {
  std::size_t index = 0;       ///< into Kernel::params
  tile::Interval range;        ///< declared, else the whole of its type
  bool used = false;           ///< some expression of the kernel names it
  std::int64_t checked_hi = 0; ///< the runs take range.lo..checked_hi (all of it when equal)
  /// Every use compares p with (or takes min with) an expression at most checked_hi - 1.
  bool merged_above = false;

  /// The values run: 1 when unused (the test value stands for all).
  std::uint64_t values() const {
    return used ? static_cast<std::uint64_t>(checked_hi - range.lo) + 1 : 1;
  }
};

/// Which values the whole-launch checks run, per parameter (a u64 too: a cache policy is
/// named by no expression the checks read, but a u64 may also bound a loop).
std::vector<ParamCoverage> plan_values(const tile::Kernel& k);

struct RangeProofOptions {
  bool coverage_notes = false; ///< add one check_param_coverage note per used parameter
  /// Run only at the test values (the behaviour before every-value proofs): a test-only
  /// switch that shows the fuzzer's range-dependent mutants need the proof.
  bool test_values_only = false;
};

/// The reference's findings and the expectations at the test values, then the errors of the
/// reference, the expectations and the mbarrier walk at every other combination the plan
/// covers (the first combination with errors ends it; its errors name the values).
Diagnostics whole_launch_findings(const tile::Kernel& k, const RangeProofOptions& options = {});

/// The combinations of parameter values the plan runs (each a full values vector, one per
/// Kernel::params entry, in odometer order: the first used parameter fastest), or at most
/// `limit` of them: the first, the last and evenly spaced ones between (a stated sample for
/// device runs; the proof itself never samples).
std::vector<std::vector<std::uint64_t>> planned_values(const tile::Kernel& k, std::size_t limit);

/// whole_launch_findings without the run at the test values (for callers that made it):
/// the other combinations' errors, check_range_too_wide, and the coverage notes when asked.
Diagnostics range_findings(const tile::Kernel& k, const RangeProofOptions& options = {});

/// TEST ONLY (docs/fuzzing.md): the DiagIds named by the environment variable
/// PTXGEN_TEST_DISABLE_RULE (comma-separated, parse_diag_id spellings) lose their findings,
/// as if the rule did not exist, so that a fuzz campaign can show it finds the class. Applied
/// where the contract's (lower_into) and the whole-launch checks' findings are gathered.
/// Returns whether some finding was dropped.
bool drop_disabled_rules(Diagnostics& ds);

} // namespace ptxgen::driver
