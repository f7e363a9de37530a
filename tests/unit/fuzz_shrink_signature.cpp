// The fuzz loop's outcome signature (driver/fuzz/loop.hpp): what classifies a finding and
// what shrinking keeps. Statuses per backend, the simulator's fault kind and the error
// DiagIds count; the detail text never does. The class names are written out by hand.

#include "driver/fuzz/loop.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_shrink_signature {

namespace {

using ptxgen::DiagId;
using ptxgen::Severity;
using ptxgen::driver::Backend;
using ptxgen::driver::CaseResult;
using ptxgen::driver::fuzz::BackendOutcome;
using ptxgen::driver::fuzz::is_finding;
using ptxgen::driver::fuzz::Signature;
using ptxgen::driver::fuzz::signature_of;
using Status = CaseResult::Status;

BackendOutcome outcome(Backend b, Status s, std::string detail = {}) {
  BackendOutcome o;
  o.backend = b;
  o.result.status = s;
  o.result.detail = std::move(detail);
  return o;
}

} // namespace

TEST_CASE("a pass on every backend is no finding; any other status is") {
  CHECK_FALSE(is_finding(
      signature_of({outcome(Backend::cuda, Status::pass), outcome(Backend::sim, Status::pass)})));
  const auto s =
      signature_of({outcome(Backend::cuda, Status::pass), outcome(Backend::sim, Status::mismatch)});
  CHECK(is_finding(s));
  CHECK(s.class_name() == "cuda_pass-sim_mismatch");
  CHECK(signature_of({outcome(Backend::sim, Status::unsupported)}).class_name() ==
        "sim_unsupported");
  // No outcome at all (the run did not give one) is not a pass.
  CHECK(is_finding(signature_of({})));
}

TEST_CASE("the detail is not part of the signature; the fault kind and the DiagIds are") {
  const auto a = signature_of({outcome(Backend::sim, Status::mismatch, "element 0 differs")});
  const auto b = signature_of({outcome(Backend::sim, Status::mismatch, "element 7 differs")});
  CHECK(a == b);

  auto race = outcome(Backend::sim, Status::fault);
  race.result.sim_fault = ptxgen::sim::FaultKind::race;
  auto oob = outcome(Backend::sim, Status::fault);
  oob.result.sim_fault = ptxgen::sim::FaultKind::illegal_address;
  CHECK_FALSE(signature_of({race}) == signature_of({oob}));
  CHECK(signature_of({race}).class_name() == "sim_fault-race");

  // Error DiagIds, sorted and unique, from every backend; warnings do not count.
  auto refused = outcome(Backend::sim, Status::invalid);
  refused.result.diagnostics.add({DiagId::spec_file_unreadable, "x"});
  refused.result.diagnostics.add({DiagId::spec_no_such_file, "y"});
  refused.result.diagnostics.add({DiagId::spec_no_such_file, "z"});
  refused.result.diagnostics.add({DiagId::spec_file_is_directory, "w", Severity::warning});
  const auto s = signature_of({refused});
  REQUIRE(s.diagnostics.size() == 2);
  CHECK(s.diagnostics[0] == std::min(DiagId::spec_no_such_file, DiagId::spec_file_unreadable));
  auto other = outcome(Backend::sim, Status::invalid);
  other.result.diagnostics.add({DiagId::spec_no_such_file, "a different message"});
  CHECK_FALSE(signature_of({other}) == s);
  CHECK(signature_of({other}).class_name() == "sim_invalid-spec_no_such_file");
}

TEST_CASE("mutant signatures: always findings, named by their kind") {
  Signature s;
  s.kind = Signature::Kind::false_accept;
  CHECK(is_finding(s));
  CHECK(s.class_name() == "false_accept");
  s.kind = Signature::Kind::wrong_refusal;
  s.diagnostics = {DiagId::spec_no_such_file};
  CHECK(s.class_name() == "wrong_refusal-spec_no_such_file");
}

} // namespace unit_fuzz_shrink_signature
