// One cause, one error: the contract reports a mistake once, at the op that makes it, and
// not again through the proofs and phase counts that depend on it. The specs are the pinned
// invalid specs (tools/check_invalid_spec.sh checks their first error; here every error).
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/contract.hpp"

#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_contract_one_cause {

namespace {

using ptxgen::DiagId;
namespace tile = ptxgen::tile;

/// The errors check_contract reports for specs/invalid/NAME.toml.
std::vector<ptxgen::Diagnostic> contract_errors(const std::string& name) {
  auto k = ptxgen::driver::load_spec_file(PTXGEN_SOURCE_DIR "/specs/invalid/" + name + ".toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k);
  std::vector<ptxgen::Diagnostic> out;
  const ptxgen::Diagnostics all = tile::check_contract(**k);
  for (const auto& d : all.items())
    if (d.severity == ptxgen::Severity::error)
      out.push_back(d);
  return out;
}

std::string all_text(const std::vector<ptxgen::Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds)
    s += d.message + "\n";
  return s;
}

} // namespace

TEST_CASE("contract: a loop whose step can be 0 is one error, not also its body's bounds") {
  const auto errors = contract_errors("loop_step_0");
  INFO(all_text(errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].id == DiagId::contract_loop_step);
}

TEST_CASE("contract: a loop whose stop has no bound is one error per header field") {
  const auto errors = contract_errors("loop_step_unbounded");
  INFO(all_text(errors));
  REQUIRE(!errors.empty());
  for (const auto& d : errors)
    CHECK(d.id == DiagId::contract_loop_range);
}

TEST_CASE("contract: a wrong parity is one error, without a reuse at the next arrival") {
  const auto errors = contract_errors("mbarrier_wrong_parity");
  INFO(all_text(errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].id == DiagId::contract_mbarrier_parity);
}

TEST_CASE("contract: an unmet arrival count is reported once, at the wait that hangs") {
  const auto errors = contract_errors("mbarrier_arrivals_short");
  INFO(all_text(errors));
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].id == DiagId::contract_mbarrier_count);
}

} // namespace unit_contract_one_cause
