#pragma once
// Expectations (`[[expect]] that = "..."`, tile::Expectation): what a spec means its
// kernel to do, verified on the reference's final global tensors before any device
// run, so that a spec describing the wrong kernel fails instead of being "conformant".
//
// It works from the bytes alone: it takes the final bytes of every global tensor (the
// reference's output) and their initial bytes (the spec's init), never the emitter's affine
// form of a view or the lowering. Each side is a view of any steps (`.sub`, `.rearrange`,
// dtype views, chained); its slice bounds are evaluated at the run's parameter values (they
// may name parameters: `B.sub[0:k_tiles]`), and then it is mapped to its tensor's bytes by
// the reference's own view code, as an op's operand is (naive_view.hpp's plan and replay,
// affine_view.hpp's form where the view has one), coordinate by coordinate, row-major over
// the left side's shape; an empty region compares nothing and holds:
//  - `L == R`        element c of L holds the same bytes as element c of R (both final);
//  - `L == V`        every element of L holds the integer V in L's element type
//                    (expect_value_bytes(): little-endian, exact);
//  - `L == sentinel` every element of L holds the bytes it started with (its tensor's init).
// A failed expectation names its first differing element (view coordinate, tensor
// coordinate, actual and expected value) and how many elements differ.

#include "emitter/support/diagnostic.hpp"
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace ptxgen::driver {

/// Bytes per global tensor name (as ReferenceOutput::global and ReferenceInput::global).
using GlobalBytes = std::map<std::string, std::vector<std::uint8_t>>;

/// The verdict on one expectation.
struct ExpectationResult {
  std::size_t index = 0;      ///< into Kernel::expectations
  std::int64_t elements = 0;  ///< elements compared
  std::int64_t differing = 0; ///< elements whose bytes differ
  /// The first differing element, described; or why the expectation could not be
  /// evaluated (a missing tensor, an index outside its axis). Empty when it holds.
  std::string first;

  bool held() const { return differing == 0 && first.empty(); }
};

/// Verifies every expectation of `k`: one result per expectation, in order.
/// `initial`: each global tensor's bytes before the kernel; `final_bytes`: after it;
/// `values`: the run's parameter values, one per Kernel::params entry (empty: the test
/// values), at which the sides' indices and slice bounds are evaluated.
std::vector<ExpectationResult> check_expectations(const tile::Kernel& k, const GlobalBytes& initial,
                                                  const GlobalBytes& final_bytes,
                                                  std::span<const std::uint64_t> values = {});

/// The expectations that did not hold, as errors (DiagId::check_expectation_failed)
/// at the left side of their `that` string in the spec.
Diagnostics expectation_diagnostics(const tile::Kernel& k,
                                    const std::vector<ExpectationResult>& results);

/// The integer `v` as one element of `dtype` (little-endian), or nullopt when the type
/// cannot hold it exactly (integers: outside the type's range, the untyped bN types
/// taking signed and unsigned values; floats: not representable). The loader refuses
/// such integers; the checker compares against these bytes.
std::optional<std::vector<std::uint8_t>> expect_value_bytes(tile::DType dtype, std::int64_t v);

/// An element's little-endian bytes as a value of `dtype`, for messages: "-3", "1.5",
/// "0x00ff" (the untyped bN types in hex).
std::string describe_element(tile::DType dtype, std::span<const std::uint8_t> bytes);

} // namespace ptxgen::driver
