#pragma once
// STUB of slice fuzz-gen's interface (PLAN12.md), for the fuzz loop until the real
// generator lands: it is deleted (with generator_stub.cpp) before that branch is merged.
// A spec of 1-3 independent copy groups (global -> shared by cp.async, back by a copy).

#include "emitter/support/diagnostic.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ptxgen::driver::fuzz {

/// The generator's version, recorded with each finding.
inline constexpr int generator_version = 0;

struct GenOptions {};

struct ModelOp {
  bool cg = false;
  unsigned chunk = 16;    ///< bytes
  unsigned elem_size = 4; ///< bytes: 1 int8, 2 float16, 4 float32
};

struct SpecModel {
  std::uint64_t seed = 0;
  unsigned block = 32;
  std::vector<ModelOp> ops; ///< one copy group each (the units)
};

SpecModel generate(std::uint64_t seed, const GenOptions& options);
std::string to_toml(const SpecModel& m);
std::size_t unit_count(const SpecModel& m);
SpecModel keep_units(const SpecModel& m, const std::vector<bool>& keep);
std::vector<SpecModel> simplifications(const SpecModel& m);
std::size_t complexity(const SpecModel& m);

struct Mutant {
  std::string what;
  std::string toml;
  std::vector<DiagId> refused_with;
};
std::vector<Mutant> mutants(const SpecModel& m, std::uint64_t seed);

} // namespace ptxgen::driver::fuzz
