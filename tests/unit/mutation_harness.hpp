#pragma once
// Helpers of the mutation tests (tests/unit/mutation_*.cpp): ptxgen's PTX for
// a spec, exact textual mutations that fail loudly when they stop applying,
// and a run of mutated PTX on the simulator through the conformance check.

#include "driver/ptxas/ptxas.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/spec_files.hpp"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include <doctest/doctest.h>

namespace ptxgen::test::mutation {

namespace fs = std::filesystem;
using ptxgen::driver::CaseResult;

inline fs::path spec_path(const std::string& relative) {
  return fs::path(PTXGEN_SOURCE_DIR) / "specs" / relative;
}

/// ptxgen's PTX for `spec`, exactly as the conformance run would emit it.
inline std::string emitted_ptx(const fs::path& spec) {
  ptxgen::lower::LowerOptions options; // sm_80, as run_conformance lowers
  auto e = ptxgen::driver::emit_spec(spec, options);
  INFO(e.diagnostics.format_all());
  REQUIRE(e.ok());
  REQUIRE(!e.ptx.empty());
  return e.ptx;
}

inline std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

/// Replaces every occurrence of `from` by `to`, requiring exactly `expected`
/// occurrences, so a mutation that silently stops applying (the emitter's
/// output changed) fails loudly instead of testing unmodified PTX.
inline std::string mutate(const std::string& ptx, const std::string& from, const std::string& to,
                          std::size_t expected = 1) {
  INFO("mutation `" << from << "` -> `" << to << "` in:\n" << ptx);
  REQUIRE(count_of(ptx, from) == expected);
  std::string out = ptx;
  for (auto at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
    out.replace(at, from.size(), to);
  REQUIRE(out != ptx);
  REQUIRE(count_of(out, from) == count_of(to, from) * expected);
  return out;
}

/// Removes the one whole line that contains `needle`.
inline std::string drop_line(const std::string& ptx, const std::string& needle) {
  INFO("dropping the line with `" << needle << "` in:\n" << ptx);
  REQUIRE(count_of(ptx, needle) == 1);
  auto at = ptx.find(needle);
  auto begin = ptx.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  auto end = ptx.find('\n', at);
  std::string out = ptx.substr(0, begin) + ptx.substr(end + 1);
  REQUIRE(count_of(out, needle) == 0);
  REQUIRE(out.size() < ptx.size());
  return out;
}

/// Where ptxas is found (it often is not: then the mutants are only simulated).
inline const std::optional<ptxgen::driver::PtxasLocation>& ptxas() {
  static const auto location = []() -> std::optional<ptxgen::driver::PtxasLocation> {
    auto found = ptxgen::driver::locate_ptxas("");
    if (!found)
      return std::nullopt;
    return *found;
  }();
  return location;
}

/// Runs `ptx` as the spec's kernel on the simulator, through the conformance
/// check. Where ptxas exists, the PTX must also assemble: a mutant is a kernel
/// the real toolchain takes, so only the execution check can catch it.
inline CaseResult run_on_sim(const fs::path& spec, const std::string& ptx) {
  if (ptxas()) {
    ptxgen::driver::AssembleOptions ao;
    ao.target = ptxgen::ptx::Target{80, false};
    ao.verbose = false;
    ao.keep_cubin = false;
    auto assembled = ptxgen::driver::assemble(ptxas()->path, ptx, ao);
    INFO(assembled.describe());
    CHECK(assembled.ok());
  }
  ptxgen::driver::ConformanceOptions o;
  o.backend = ptxgen::driver::Backend::sim;
  o.jobs = 1;
  o.ptx_override = ptx;
  auto report = ptxgen::driver::run_conformance({spec}, o, {});
  REQUIRE(report.cases.size() == 1);
  const CaseResult& c = report.cases.front();
  INFO("status " << ptxgen::driver::name(c.status) << ": " << c.detail);
  // A mutation must be caught by the run itself, never by a broken setup.
  REQUIRE(c.status != CaseResult::Status::invalid);
  REQUIRE(c.status != CaseResult::Status::error);
  return c;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The run ended in a simulator fault of this kind (typed, not read from the detail text).
inline bool fault_of_kind(const CaseResult& c, ptxgen::sim::FaultKind kind) {
  return c.status == CaseResult::Status::fault && c.sim_fault == kind;
}

/// Replaces only the `n`-th (0-based) of exactly `expected` occurrences of `from` by `to`.
inline std::string mutate_nth(const std::string& ptx, const std::string& from,
                              const std::string& to, std::size_t n, std::size_t expected) {
  INFO("mutation #" << n << " `" << from << "` -> `" << to << "` in:\n" << ptx);
  REQUIRE(count_of(ptx, from) == expected);
  REQUIRE(n < expected);
  auto at = ptx.find(from);
  for (std::size_t k = 0; k < n; ++k)
    at = ptx.find(from, at + 1);
  std::string out = ptx;
  out.replace(at, from.size(), to);
  REQUIRE(out != ptx);
  return out;
}

/// Removes the whole line holding the `n`-th (0-based) of exactly `expected` occurrences of
/// `needle`.
inline std::string drop_nth_line(const std::string& ptx, const std::string& needle, std::size_t n,
                                 std::size_t expected) {
  INFO("dropping line #" << n << " with `" << needle << "` in:\n" << ptx);
  REQUIRE(count_of(ptx, needle) == expected);
  REQUIRE(n < expected);
  auto at = ptx.find(needle);
  for (std::size_t k = 0; k < n; ++k)
    at = ptx.find(needle, at + 1);
  auto begin = ptx.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  auto end = ptx.find('\n', at);
  std::string out = ptx.substr(0, begin) + ptx.substr(end + 1);
  REQUIRE(count_of(out, needle) == expected - 1);
  return out;
}

} // namespace ptxgen::test::mutation
