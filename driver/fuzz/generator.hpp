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
// The model is typed (spec_model.hpp): tensors, parameters, the launch, and ops whose
// fields are enums, integers, views and expressions. to_toml() prints it as written (the one
// place that spells the model's TOML), build_kernel() builds it through the emitter's
// builder and spec_toml() prints that kernel with the kernel-to-TOML printer. The
// generator builds them from a few families of kernels (a tile copy at thread or CTA
// scope, a `for` loop, a `pipeline`, mbarriers) whose every choice keeps the spec valid.

#include "driver/fuzz/gen_rng.hpp"
#include "driver/fuzz/spec_model.hpp"
#include "driver/run/spec_files.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/support/result.hpp"
#include "emitter/tile/kernel.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::fuzz {

SpecModel generate(std::uint64_t seed, const GenOptions& options);

/// The spec as TOML; the header comment names the seed and the generator.
std::string to_toml(const SpecModel& m);

/// The model built through the emitter's builder (build::Builder, which holds every rule a
/// kernel keeps): the kernel, or the builder's diagnostics, each at line N of
/// NAME.generated for the model's N-th declaration, op or expectation. A generated model is
/// accepted by construction; the diagnostics of one that is not say why.
Result<std::unique_ptr<tile::Kernel>> build_kernel(const SpecModel& m);

/// The spec the fuzz loop runs: the model built by build_kernel() and printed by the
/// kernel-to-TOML printer (api::to_spec_toml) under to_toml()'s header comment. A model the
/// builder refuses (a generator bug; a shrinker's candidate) is printed by to_toml(), so that
/// the run refuses it with the same DiagIds and the finding says why.
std::string spec_toml(const SpecModel& m);

/// The comment line that opens a spec: the generator, its version, the seed, the family.
std::string header_comment(const SpecModel& m);

/// The spellings to_toml() and build_kernel() share: a createpolicy call
/// ("createpolicy(evict_last, 0.5)"), a pattern as "0x" and hex digits.
std::string spelling(const PolicyCreate& call);
std::string hex_spelling(const ModelPattern& p);

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

/// One kind of invalid edit of a valid model: what it breaks, the one DiagId `ptxgen
/// check` (load + contract + reference) must refuse the edited spec with, and the typed
/// edit itself, which returns false where it does not apply to the model. `rng` picks
/// among the model's parts (which apply, which tensor).
struct MutationRule {
  std::string_view what;
  DiagId refused_with;
  bool (*edit)(SpecModel& m, Rng& rng);
};
/// Every rule, in the order mutants() applies them.
std::span<const MutationRule> mutation_rules();

/// An invalid spec derived from a valid one by one rule.
struct Mutant {
  std::string what; ///< the rule's
  SpecModel model;  ///< the edited model
  std::string toml; ///< to_toml(model)
  DiagId refused_with;
  std::size_t rule = 0; ///< its index in mutation_rules()
};
std::vector<Mutant> mutants(const SpecModel& m, std::uint64_t seed);

} // namespace ptxgen::driver::fuzz
