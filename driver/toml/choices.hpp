#pragma once
// `ptxgen tune`'s grid of choices: a spec's TOML with values replaced at dotted key paths
// (`kernel.ctas_per_sm`, `param.n.value`, `tensor.tile.shape`, `op.2.stages`: an [[op]] by
// its index), every combination of the values given, each written out as a spec of its own.
// Syntax only: whether a candidate is a valid kernel is the builder's and the contract's.

#include "emitter/support/result.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxgen::toml_choices {

/// One `--choose KEY=V1,V2,...`: a key path and its values, each a TOML value's text.
struct Choice {
  std::string key;
  std::vector<std::string> values;
};

/// Parses `KEY=V1,V2,...` (commas inside [ ] or quotes belong to a value: `block=[32,1,1],64`).
Fallible<Choice> parse_choice(std::string_view text);

/// A spec with one value of each choice.
struct Candidate {
  std::vector<std::pair<std::string, std::string>> chosen; ///< key, value text, in choice order
  std::string toml;                                        ///< the spec with them in place
};

/// The most candidates one grid may have.
inline constexpr std::size_t max_candidates = 4096;

/// Every combination of the choices' values applied to `spec_text` (the first choice varies
/// slowest). Fails, naming the choice, on a key path that names nothing the spec has (every
/// segment but the last must exist; the last may be new in an existing table), on a value that
/// is not TOML, on bad TOML in the spec, and on more than max_candidates combinations.
Fallible<std::vector<Candidate>> expand_choices(std::string_view spec_text, const std::string& file,
                                                const std::vector<Choice>& choices);

} // namespace ptxgen::toml_choices
