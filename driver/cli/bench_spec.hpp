#pragma once
// One spec's kernel emitted (as strictly as `check`), assembled for the device and timed with
// bench's method (driver/cuda/bench.hpp): what `ptxgen bench` does per spec and `ptxgen tune`
// per candidate.

#include "driver/cli/arguments.hpp"
#include "driver/cuda/bench.hpp"
#include "driver/ptxas/ptxas.hpp"

#include <string>

namespace ptxgen::cli {

namespace cuda = driver::cuda;

/// One spec's result: what was timed, or why it was not.
struct SpecBench {
  std::string spec;
  std::string problem; ///< set when the spec could not be timed
  cuda::BenchOutcome outcome;
};

/// Emits, assembles for the device and times one spec; `target` is --target ("" for what the
/// ops need). A spec that does not load or breaks its contract is not timed (its diagnostics
/// also go to `printer` as data, when one is given and not text).
SpecBench bench_spec(const std::string& spec, const cuda::BenchOptions& bench,
                     const std::string& target, const cuda::DeviceInfo& device,
                     const driver::PtxasLocation& ptxas, driver::DiagnosticsPrinter* printer);

} // namespace ptxgen::cli
