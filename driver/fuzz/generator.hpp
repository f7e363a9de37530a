#pragma once
// The random spec generator of `ptxgen fuzz`: a seed -> a model of a spec that
// is valid by construction (docs/spec-format.md), printed as TOML; the hooks the shrinker
// uses to make a failing model smaller; invalid mutants that `ptxgen check` must refuse.
//
// Reproducible everywhere: the random numbers come from xoshiro256** seeded through
// splitmix64, and every draw is integer arithmetic on them (never a std:: distribution,
// whose output differs between standard libraries), so a seed gives the same TOML on
// every machine and compiler.
//
// The model is close to the TOML: tensors, parameters, the launch, and ops as ordered
// key = value pairs whose values are TOML text (views and expressions as strings). The
// generator builds them from a few families of kernels (a tile copy at thread or CTA
// scope, a `for` loop, a `pipeline`, mbarriers) whose every choice keeps the spec valid.

#include "driver/fuzz/spec_model.hpp"
#include "driver/run/spec_files.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/support/diagnostic.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::fuzz {

SpecModel generate(std::uint64_t seed, const GenOptions& options);

/// The spec as TOML; the header comment names the seed and the generator.
std::string to_toml(const SpecModel& m);

/// Top-level units the shrinker may drop (ddmin over them), and the model with only
/// `keep`ed units. A unit is an op group (a top-level op, a `for` ... `end` with its body)
/// or an expectation; tensors and parameters that no kept unit names go with them.
std::size_t unit_count(const SpecModel& m);
SpecModel keep_units(const SpecModel& m, const std::vector<bool>& keep);

/// One-step simplifications, most aggressive first (fewer CTAs/threads, a constant for
/// an expression, drop pred/src_size/ignore_src/cache hint/prefetch, no unroll, plainer
/// inits...). They need not all be valid: the shrinker checks each candidate.
std::vector<SpecModel> simplifications(const SpecModel& m);

/// A measure that every simplification makes smaller (for the shrinker's progress).
std::size_t complexity(const SpecModel& m);

/// Invalid specs derived from a valid one: each must be refused by `ptxgen check`
/// (load + contract + reference), by one of `refused_with`.
struct Mutant {
  std::string what;
  std::string toml;
  std::vector<DiagId> refused_with;
};
std::vector<Mutant> mutants(const SpecModel& m, std::uint64_t seed);

} // namespace ptxgen::driver::fuzz
