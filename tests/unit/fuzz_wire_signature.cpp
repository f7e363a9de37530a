// issue 12, fuzz-wire: compute-sanitizer in the fuzz loop's outcome signature
// (driver/fuzz/loop.hpp). A valid spec the sanitizer flags is a class of its own, told
// apart by the tool and its finding kinds (never the messages); with racecheck, a race
// only the simulator or only racecheck sees is a disagreement class. The outcomes are
// built by hand, the class names written out by hand.

#include "driver/fuzz/loop.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_wire_signature {

namespace {

using ptxgen::driver::Backend;
using ptxgen::driver::CaseResult;
using ptxgen::driver::cuda::SanitizerFinding;
using ptxgen::driver::cuda::SanitizerReport;
using ptxgen::driver::cuda::SanitizerTool;
using ptxgen::driver::fuzz::BackendOutcome;
using ptxgen::driver::fuzz::is_finding;
using ptxgen::driver::fuzz::Signature;
using ptxgen::driver::fuzz::signature_of;
using Status = CaseResult::Status;
using Kind = SanitizerFinding::Kind;

/// A GPU outcome with a sanitizer report of `errors` errors, `warnings` warnings and
/// one finding per kind (each with `message`).
BackendOutcome gpu(Status s, SanitizerTool tool, std::size_t errors, std::size_t warnings,
                   std::vector<Kind> kinds, bool checked = true, std::string message = "m") {
  BackendOutcome o;
  o.backend = Backend::cuda;
  o.result.status = s;
  SanitizerReport r;
  r.tool = tool;
  r.checked = checked;
  r.errors = errors;
  r.warnings = warnings;
  for (Kind k : kinds)
    r.findings.push_back({k, message, "k+0x10", "(0,0,0)"});
  o.result.sanitizer = r;
  return o;
}

BackendOutcome sim(Status s, bool race = false) {
  BackendOutcome o;
  o.backend = Backend::sim;
  o.result.status = s;
  if (race) {
    o.result.sim_fault = ptxgen::sim::FaultKind::race;
    o.result.sim_race = ptxgen::sim::Race{};
  }
  return o;
}

} // namespace

TEST_CASE("a clean sanitizer report and a pass everywhere is no finding") {
  for (SanitizerTool t : ptxgen::driver::cuda::all_sanitizer_tools) {
    const auto s = signature_of({gpu(Status::pass, t, 0, 0, {}), sim(Status::pass)});
    CHECK(s.kind == Signature::Kind::backends);
    CHECK_FALSE(is_finding(s));
  }
}

TEST_CASE("a valid spec the sanitizer flags is a sanitizer finding, by tool and kinds") {
  const auto mem = signature_of(
      {gpu(Status::fault, SanitizerTool::memcheck, 2, 0, {Kind::memory_access, Kind::api_error}),
       sim(Status::pass)});
  CHECK(mem.kind == Signature::Kind::sanitizer);
  CHECK(is_finding(mem));
  CHECK(mem.class_name() == "sanitizer-memcheck_memory_access+api_error-cuda_fault-sim_pass");
  // A kernel fault without the sanitizer's findings is the plain backends class.
  BackendOutcome plain;
  plain.backend = Backend::cuda;
  plain.result.status = Status::fault;
  const auto kernel = signature_of({plain, sim(Status::pass)});
  CHECK(kernel.kind == Signature::Kind::backends);
  CHECK(kernel.class_name() == "cuda_fault-sim_pass");
  CHECK_FALSE(kernel == mem);
  // The kinds are sorted and unique; the messages do not count.
  const auto again =
      signature_of({gpu(Status::fault, SanitizerTool::memcheck, 3, 0,
                        {Kind::api_error, Kind::memory_access, Kind::api_error}, true, "other"),
                    sim(Status::pass)});
  CHECK(again == mem);
  // Another tool, or another kind, is another signature.
  const auto sync = signature_of(
      {gpu(Status::fault, SanitizerTool::synccheck, 1, 0, {Kind::barrier}), sim(Status::pass)});
  CHECK(sync.class_name() == "sanitizer-synccheck_barrier-cuda_fault-sim_pass");
  const auto init =
      signature_of({gpu(Status::fault, SanitizerTool::initcheck, 1, 0, {Kind::uninitialized}),
                    sim(Status::pass)});
  CHECK_FALSE(init == sync);
  // Errors counted past the print limit, with no finding printed, still flag the case.
  const auto counted =
      signature_of({gpu(Status::fault, SanitizerTool::memcheck, 5, 0, {}), sim(Status::pass)});
  CHECK(counted.kind == Signature::Kind::sanitizer);
  CHECK(counted.class_name() == "sanitizer-memcheck-cuda_fault-sim_pass");
  // On the GPU alone (--backend cuda) as well.
  CHECK(signature_of({gpu(Status::fault, SanitizerTool::memcheck, 1, 0, {Kind::memory_access})})
            .kind == Signature::Kind::sanitizer);
}

TEST_CASE("a known ptxas miscompile in a faulting case's SASS names its class") {
  BackendOutcome trapped;
  trapped.backend = Backend::cuda;
  trapped.result.status = Status::fault;
  trapped.result.traps.push_back({ptxgen::driver::sass::TrapId::ldgsts_unwritten_uniform});
  trapped.result.traps.push_back({ptxgen::driver::sass::TrapId::ldgsts_unwritten_uniform});
  const auto s = signature_of({trapped, sim(Status::pass)});
  CHECK(s.class_name() == "cuda_fault-sim_pass-trap_ldgsts_unwritten_uniform");
  BackendOutcome plain;
  plain.backend = Backend::cuda;
  plain.result.status = Status::fault;
  CHECK_FALSE(signature_of({plain, sim(Status::pass)}) == s);
}

TEST_CASE("a report the sanitizer did not finish is no sanitizer class") {
  // judge_sanitizer made the case an environment error; its status classifies it.
  const auto s = signature_of(
      {gpu(Status::error, SanitizerTool::racecheck, 0, 0, {}, false), sim(Status::fault, true)});
  CHECK(s.kind == Signature::Kind::backends);
  CHECK(s.class_name() == "cuda_error-sim_fault-race");
  CHECK_FALSE(s.sanitizer_tool.has_value());
}

TEST_CASE("racecheck against the simulator's race detector") {
  // Both see the race: a sanitizer finding (the race is real).
  const auto both = signature_of(
      {gpu(Status::fault, SanitizerTool::racecheck, 1, 0, {Kind::race}), sim(Status::fault, true)});
  CHECK(both.kind == Signature::Kind::sanitizer);
  CHECK(both.class_name() == "sanitizer-racecheck_race-cuda_fault-sim_fault-race");
  // Only the simulator: racecheck checked the case and saw none.
  const auto sim_only = signature_of(
      {gpu(Status::pass, SanitizerTool::racecheck, 0, 0, {}), sim(Status::fault, true)});
  CHECK(sim_only.kind == Signature::Kind::race_sim_only);
  CHECK(is_finding(sim_only));
  CHECK(sim_only.class_name() == "race_sim_only-racecheck-cuda_pass-sim_fault-race");
  // Only racecheck, errors or warnings alike, where the simulator passed.
  const auto checker_only = signature_of(
      {gpu(Status::fault, SanitizerTool::racecheck, 1, 0, {Kind::race}), sim(Status::pass)});
  CHECK(checker_only.kind == Signature::Kind::race_racecheck_only);
  CHECK(checker_only.class_name() == "race_racecheck_only-racecheck_race-cuda_fault-sim_pass");
  const auto warning_only = signature_of(
      {gpu(Status::pass, SanitizerTool::racecheck, 0, 1, {Kind::race_warning}), sim(Status::pass)});
  CHECK(warning_only.kind == Signature::Kind::race_racecheck_only);
  CHECK(is_finding(warning_only));
  // The simulator gave no verdict (unsupported): no disagreement, the sanitizer's finding.
  const auto unsupported = signature_of(
      {gpu(Status::fault, SanitizerTool::racecheck, 1, 0, {Kind::race}), sim(Status::unsupported)});
  CHECK(unsupported.kind == Signature::Kind::sanitizer);
  // Another tool does not look for races: a simulator race with a clean memcheck is the
  // plain backends class.
  const auto memcheck = signature_of(
      {gpu(Status::pass, SanitizerTool::memcheck, 0, 0, {}), sim(Status::fault, true)});
  CHECK(memcheck.kind == Signature::Kind::backends);
  CHECK(memcheck.class_name() == "cuda_pass-sim_fault-race");
}

} // namespace unit_fuzz_wire_signature
