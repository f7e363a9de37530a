#pragma once
// Two outputs of the CPU reference compared whole (tests/unit/reference_affine.cpp: the fast
// path against the naive one; reference_replay.cpp: CTAs replayed against every CTA checked;
// reference_launch.cpp: the input taken against copied).

#include "driver/reference/reference.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/toml/reader_spec.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace reference_test {

/// "" when both outputs agree (bytes, definedness, findings with their texts), else what
/// differs first.
inline std::string difference(const ptxgen::driver::ReferenceOutput& a,
                              const ptxgen::driver::ReferenceOutput& b) {
  if (a.global != b.global)
    return "global bytes";
  if (a.defined != b.defined)
    return "definedness";
  if (a.problems != b.problems)
    return "problems: " + std::to_string(a.problems.size()) + " and " +
           std::to_string(b.problems.size()) +
           (b.problems.empty() ? "" : ", the second's first: " + b.problems.front());
  if (a.problem_ops != b.problem_ops)
    return "problem ops";
  if (a.findings.size() != b.findings.size())
    return "finding count";
  for (std::size_t i = 0; i < a.findings.size(); ++i) {
    const auto& f = a.findings[i];
    const auto& n = b.findings[i];
    if (f.id != n.id || f.op != n.op || f.message != n.message || f.severity != n.severity)
      return "finding " + std::to_string(i) + ": '" + f.message + "' and '" + n.message + "'";
  }
  return "";
}

/// The corpus both comparisons walk: specs/ with its races/ and faults/ (every spec the
/// reference runs on). False, with `err`, when they cannot be listed.
inline bool corpus_specs(std::vector<std::filesystem::path>& specs, std::string& err) {
  using ptxgen::driver::SpecWalk;
  for (auto [dir, walk] : {std::pair{PTXGEN_SOURCE_DIR "/specs", SpecWalk::valid_and_faults},
                           std::pair{PTXGEN_SOURCE_DIR "/specs/races", SpecWalk::every}}) {
    auto found = ptxgen::driver::expand_spec_arguments({dir}, walk);
    if (!found) {
      err = found.error();
      return false;
    }
    specs.insert(specs.end(), found->begin(), found->end());
  }
  return true;
}

/// Calls f(spec path, kernel) for every spec of the corpus (corpus_specs) that loads; false,
/// with `err`, when the corpus cannot be listed.
template <class F>
bool each_corpus_kernel(std::string& err, F&& f) {
  std::vector<std::filesystem::path> specs;
  if (!corpus_specs(specs, err))
    return false;
  for (const auto& spec : specs) {
    auto loaded = ptxgen::driver::load_spec_file(spec);
    if (loaded)
      f(spec, static_cast<const ptxgen::tile::Kernel&>(**loaded.value));
  }
  return true;
}

} // namespace reference_test
