// issue 12, errclass: the stage an error came from (CaseResult::Stage) is part of the fuzz
// loop's outcome signature, so a ptxas rejection and a reference refusal are different
// classes and the shrinker does not drift from one to the other; and compute-sanitizer
// synccheck's "Missing wait" on a kernel with a copy_arrive without noinc is an explained
// outcome (a known false positive of the tool, docs/fuzzing.md), decided from the finding
// kinds and the spec's structure. Class names are written out by hand; the logs are the real
// ones of tests/data/sanitizer/ (and one synthetic mix, named so in its README).

#include "driver/fuzz/loop.hpp"
#include "driver/fuzz/shrink.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/support/temp_dir.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_error_stage {

namespace {

namespace fs = std::filesystem;
using ptxgen::DiagId;
using ptxgen::driver::Backend;
using ptxgen::driver::CaseResult;
using ptxgen::driver::ConformanceOptions;
using ptxgen::driver::cuda::SanitizerFinding;
using ptxgen::driver::cuda::SanitizerReport;
using ptxgen::driver::cuda::SanitizerTool;
using ptxgen::driver::fuzz::BackendOutcome;
using ptxgen::driver::fuzz::Explanation;
using ptxgen::driver::fuzz::is_explained;
using ptxgen::driver::fuzz::is_finding;
using ptxgen::driver::fuzz::Signature;
using ptxgen::driver::fuzz::signature_of;
using Stage = CaseResult::Stage;
using Status = CaseResult::Status;

const fs::path root(PTXGEN_SOURCE_DIR);

BackendOutcome outcome(Backend b, Status s, Stage stage) {
  BackendOutcome o;
  o.backend = b;
  o.result.status = s;
  o.result.stage = stage;
  return o;
}

/// Both backends stopped with an error at `stage` (emit, reference and ptxas are shared
/// by the GPU's and the simulator's outcome in the fuzz loop).
std::vector<BackendOutcome> both(Stage stage, std::optional<DiagId> id = std::nullopt) {
  std::vector<BackendOutcome> v{outcome(Backend::cuda, Status::error, stage),
                                outcome(Backend::sim, Status::error, stage)};
  if (id)
    for (auto& o : v)
      o.result.diagnostics.add({*id, "any wording"});
  return v;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

SanitizerReport synccheck_log(const std::string& file) {
  return ptxgen::driver::cuda::parse_sanitizer_log(SanitizerTool::synccheck,
                                                   read(root / "tests/data/sanitizer" / file));
}

/// A --sanitize synccheck fuzz outcome: the GPU judged by the report (judge_sanitizer, as
/// the conformance run does after the bytes compared equal), the simulator passing.
std::vector<BackendOutcome> synccheck_outcomes(const SanitizerReport& report, bool inc,
                                               Status gpu = Status::pass,
                                               Status sim = Status::pass) {
  auto g = outcome(Backend::cuda, gpu, gpu == Status::pass ? Stage::none : Stage::kernel);
  g.result.copy_arrive_inc = inc;
  ptxgen::driver::judge_sanitizer(g.result, report);
  auto s = outcome(Backend::sim, sim, sim == Status::pass ? Stage::none : Stage::compare);
  s.result.copy_arrive_inc = inc;
  return {g, s};
}

} // namespace

TEST_CASE("an error's stage is part of its class: ptxas and the reference differ") {
  const auto ptxas = signature_of(both(Stage::ptxas));
  const auto reference = signature_of(both(Stage::reference, DiagId::check_read_pending));
  CHECK(ptxas.class_name() == "cuda_error_ptxas-sim_error_ptxas");
  CHECK(reference.class_name() == "cuda_error_reference-sim_error_reference-check_read_pending");
  CHECK_FALSE(ptxas == reference);
  // The same stage without the DiagId is still another outcome.
  CHECK_FALSE(signature_of(both(Stage::reference)) == reference);
  CHECK(signature_of(both(Stage::reference)).class_name() ==
        "cuda_error_reference-sim_error_reference");
  // Other statuses keep their names (their status says the stage).
  CHECK(signature_of({outcome(Backend::sim, Status::mismatch, Stage::compare)}).class_name() ==
        "sim_mismatch");
  CHECK(signature_of({outcome(Backend::cuda, Status::error, Stage::load)}).class_name() ==
        "cuda_error_load");
}

TEST_CASE("the shrinker keeps the stage: it does not drift from ptxas to the reference") {
  // A toy: candidate n >= 5 is rejected by ptxas, a smaller one refused by the
  // reference; both are Status::error. Shrinking 12 towards 0 must stop at 5.
  const auto outcomes_of = [](int n) {
    return n >= 5 ? both(Stage::ptxas) : both(Stage::reference); // no DiagId: the stage alone
  };
  const Signature start = signature_of(outcomes_of(12));
  ptxgen::driver::fuzz::ShrinkProblem<int> p;
  p.unit_count = [](const int&) { return std::size_t{1}; };
  p.keep_units = [](const int& n, const std::vector<bool>&) { return n; };
  p.simplifications = [](const int& n) {
    std::vector<int> v;
    for (int k = 0; k < n; ++k)
      v.push_back(k); // most aggressive first
    return v;
  };
  p.complexity = [](const int& n) { return static_cast<std::size_t>(n); };
  p.still_fails = [&](const std::vector<int>& batch) {
    std::vector<bool> fails;
    for (int n : batch)
      fails.push_back(signature_of(outcomes_of(n)) == start);
    return fails;
  };
  CHECK(ptxgen::driver::fuzz::shrink(12, p).value == 5);
}

TEST_CASE("run_conformance: a ptxas rejection and a reference refusal carry their stages") {
  std::string error;
  auto dir = ptxgen::driver::TempDir::create("ptxgen-test-stage-");
  REQUIRE_MESSAGE(dir, dir.error());
  // A fake ptxas: assembles the empty self-test kernel, rejects any PTX with a cp.async.
  const auto ptxas = dir->path() / "ptxas";
  std::ofstream(ptxas) << "#!/bin/sh\nif grep -q cp.async \"$4\"; then\n"
                       << "  echo \"ptxas error: too much shared data\"; exit 255\nfi\n"
                       << "printf CUBIN > \"$3\"\n";
  fs::permissions(ptxas, fs::perms::owner_all);
  ConformanceOptions o;
  o.backend = Backend::sim;
  o.ptxas = ptxas.string();
  o.jobs = 1;
  auto r = ptxgen::driver::run_conformance({root / "specs/seed/copy_async.toml"}, o, {});
  REQUIRE(r.cases.size() == 1);
  INFO(r.cases[0].detail);
  CHECK(r.cases[0].status == Status::error);
  CHECK(r.cases[0].stage == Stage::ptxas);
  CHECK(r.cases[0].blame == CaseResult::Blame::input);
  CHECK(ptxgen::driver::to_json(r).find("\"stage\": \"ptxas\"") != std::string::npos);

  // Unchecked, the contract lets a race through; the reference refuses it, with its DiagId.
  o.unchecked = true;
  auto ref = ptxgen::driver::run_conformance({root / "specs/races/missing_wait.toml"}, o, {});
  REQUIRE(ref.cases.size() == 1);
  const auto& c = ref.cases[0];
  INFO(c.detail);
  CHECK(c.status == Status::error);
  CHECK(c.stage == Stage::reference);
  REQUIRE_FALSE(c.diagnostics.items().empty());
  const std::string json = ptxgen::driver::to_json(ref);
  CHECK(json.find("\"stage\": \"reference\", \"diag_ids\": [\"check_") != std::string::npos);
  BackendOutcome sim_ref{Backend::sim, c};
  BackendOutcome sim_ptxas{Backend::sim, r.cases[0]};
  CHECK_FALSE(signature_of({sim_ref}) == signature_of({sim_ptxas}));
}

TEST_CASE("the spec's structure: copy_arrive without noinc") {
  const auto inc = ptxgen::driver::emit_spec(root / "specs/mbarrier/single_stage.toml",
                                             ptxgen::lower::LowerOptions{});
  const auto noinc = ptxgen::driver::emit_spec(root / "specs/mbarrier/noinc_double_count.toml",
                                               ptxgen::lower::LowerOptions{});
  const auto plain =
      ptxgen::driver::emit_spec(root / "specs/seed/copy_async.toml", ptxgen::lower::LowerOptions{});
  REQUIRE(inc.kernel);
  REQUIRE(noinc.kernel);
  REQUIRE(plain.kernel);
  CHECK(ptxgen::driver::has_copy_arrive_inc(*inc.kernel));
  CHECK_FALSE(ptxgen::driver::has_copy_arrive_inc(*noinc.kernel));
  CHECK_FALSE(ptxgen::driver::has_copy_arrive_inc(*plain.kernel));
}

TEST_CASE("synccheck's Missing wait on a copy_arrive without noinc is explained, not a finding") {
  // The real log of specs/mbarrier/block_2d.toml (copy_arrive without noinc) on the H200.
  const auto log = synccheck_log("synccheck_mbarrier_block_2d.log");
  REQUIRE(log.checked);
  REQUIRE(log.errors > 0);
  const auto s = signature_of(synccheck_outcomes(log, true));
  CHECK(s.kind == Signature::Kind::sanitizer_explained);
  CHECK(s.explanation == Explanation::synccheck_missing_wait_inc);
  CHECK(s.class_name() == "sanitizer_explained-synccheck_missing_wait_inc");
  CHECK(is_explained(s));
  CHECK_FALSE(is_finding(s));

  // Without the structure (every copy_arrive has noinc), the same log is a finding.
  const auto noinc = signature_of(synccheck_outcomes(log, false));
  CHECK(noinc.kind == Signature::Kind::sanitizer);
  CHECK(is_finding(noinc));
  CHECK_FALSE(is_explained(noinc));
  CHECK(noinc.class_name() == "sanitizer-synccheck_barrier_missing_wait-cuda_fault-sim_pass");

  // Another barrier error (a divergent bar.sync) is never explained.
  const auto div =
      signature_of(synccheck_outcomes(synccheck_log("synccheck_divergent_bar.log"), true));
  CHECK(div.kind == Signature::Kind::sanitizer);
  CHECK(is_finding(div));

  // Missing wait mixed with another barrier error (synthetic log): a finding.
  const auto mixed = signature_of(
      synccheck_outcomes(synccheck_log("synthetic_missing_wait_and_divergent.log"), true));
  CHECK(mixed.kind == Signature::Kind::sanitizer);

  // A real disagreement besides the sanitizer's word is never explained away.
  const auto sim_wrong =
      signature_of(synccheck_outcomes(log, true, Status::pass, Status::mismatch));
  CHECK(is_finding(sim_wrong));
  CHECK_FALSE(is_explained(sim_wrong));
  const auto gpu_wrong = signature_of(synccheck_outcomes(log, true, Status::mismatch));
  CHECK(is_finding(gpu_wrong));
  CHECK_FALSE(is_explained(gpu_wrong));
  // A fault that carries a known ptxas miscompile is the toolchain's, not the tool's.
  auto trapped = synccheck_outcomes(log, true, Status::fault);
  trapped[0].result.traps.push_back({});
  CHECK(is_finding(signature_of(trapped)));
  CHECK_FALSE(is_explained(signature_of(trapped)));
}

TEST_CASE("explained too when synccheck ended the kernel (a GPU fault), as on the H200") {
  // Seen on the H200 (fuzz --seed 1 --count 64 --sanitize synccheck): each flagged case's
  // launch failed (the tool ends the kernel on its finding) while the simulator passed.
  const auto log = synccheck_log("synccheck_mbarrier_block_2d.log");
  const auto s = signature_of(synccheck_outcomes(log, true, Status::fault));
  CHECK(s.class_name() == "sanitizer_explained-synccheck_missing_wait_inc");
  CHECK_FALSE(is_finding(s));
  // Not without the structure, nor when the simulator disagrees.
  CHECK(is_finding(signature_of(synccheck_outcomes(log, false, Status::fault))));
  CHECK(is_finding(signature_of(synccheck_outcomes(log, true, Status::fault, Status::fault))));
}

TEST_CASE("the fuzz report counts explained outcomes apart from findings") {
  ptxgen::driver::fuzz::FuzzReport r;
  r.specs = 3;
  r.passed = 2;
  r.explained = 1;
  r.by_class = {{"pass", 2}};
  r.explained_by_class = {{"sanitizer_explained-synccheck_missing_wait_inc", 1}};
  CHECK(r.finding_count() == 0);
  const std::string json = ptxgen::driver::fuzz::to_json(r);
  CHECK(json.find("\"explained\": 1") != std::string::npos);
  CHECK(json.find(
            "\"explained_by_class\": {\"sanitizer_explained-synccheck_missing_wait_inc\": 1}") !=
        std::string::npos);
  CHECK(json.find("\"findings_total\": 0") != std::string::npos);
}

TEST_CASE("a saved finding names each distinct sanitizer finding with its count") {
  // The real log of block_2d (tests/data/sanitizer): counted here from its lines.
  const std::string log = read(root / "tests/data/sanitizer/synccheck_mbarrier_block_2d.log");
  std::size_t missing = 0;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    missing += line == "========= Barrier error detected. Missing wait." ? 1 : 0;
  REQUIRE(missing > 1);
  const std::string j =
      ptxgen::driver::fuzz::sanitizer_json(synccheck_log("synccheck_mbarrier_block_2d.log"));
  CHECK(j.find("\"findings\": [{\"kind\": \"barrier_missing_wait\", \"message\": \"Barrier "
               "error detected. Missing wait.\", \"at\": \"mbarrier_block_2d+0x") !=
        std::string::npos);
  CHECK(j.find("\"count\": " + std::to_string(missing) + "}]}") != std::string::npos);
  // Two kinds in one log: two entries, each counted once.
  const std::string mixed = ptxgen::driver::fuzz::sanitizer_json(
      synccheck_log("synthetic_missing_wait_and_divergent.log"));
  CHECK(mixed.find("\"kind\": \"barrier_missing_wait\"") != std::string::npos);
  CHECK(mixed.find("\"message\": \"Barrier error detected. Divergent thread(s) in warp.\"") !=
        std::string::npos);
  CHECK(mixed.find("\"count\": 2") == std::string::npos);
  CHECK(ptxgen::driver::fuzz::sanitizer_json(std::nullopt) == "null");
}

} // namespace unit_fuzz_error_stage
