// Mutation tests of pipelined PTX (issue 10): specs/pipeline/unrolled_3stage.toml
// is a hand-unrolled 3-stage cp.async pipeline over 5 K tiles (a ring of 3
// shared stages of 64 rows x 16 bytes, 1024 bytes each; thread t copies row t
// and reads row (t + 1) % 64). Its emitted PTX is broken in the ways
// pipelines go wrong, and the simulator must catch each break as a race: a
// wait that leaves one group too many pending (S-1 instead of S-2), a dropped
// barrier, a copy or a read at another stage's offset, and a dropped empty
// commit in the tail. Dropping the LAST empty commit is harmless (no wait
// follows it) and must still pass: the check is not trigger-happy.
//
// The emitted PTX, step by step (what the mutations count on):
//   prologue: copy tile 0 -> stage 0, commit; copy tile 1 -> stage 1, commit
//   step k = 0..4: wait_group 1; bar.sync 0; [k <= 2: copy tile k+2 -> stage
//   (k+2) % 3]; commit (empty for k >= 3); read stage k % 3 -> B tile k.
// so 5 `wait_group 1`, 5 `bar.sync 0`, 7 commits (the 6th and 7th empty).
//
// specs/pipeline/loop_3stage.toml is the same pipeline with steps 0..2 as a
// real PTX loop; its back edge's bound is changed by one either way (one trip
// too many loads past A; one too few leaves the tail reading a pending tile).

#include "mutation_harness.hpp"

#include <cstddef>
#include <iterator>
#include <optional>
#include <regex>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_mutation_pipeline {

namespace {

using namespace ptxgen::test::mutation;
using ptxgen::sim::FaultKind;
using ptxgen::sim::RaceKind;

constexpr std::size_t steps = 5, commits = 7;

/// Replaces the one match of `pattern` (ECMAScript) by `replacement` ($1 ...):
/// the mutations name registers by pattern, not by the numbers the lowering
/// happens to give them.
std::string mutate_regex(const std::string& ptx, const std::string& pattern,
                         const std::string& replacement) {
  INFO("mutation /" << pattern << "/ -> `" << replacement << "` in:\n" << ptx);
  const std::regex re(pattern);
  REQUIRE(std::distance(std::sregex_iterator(ptx.begin(), ptx.end(), re), std::sregex_iterator()) ==
          1);
  std::string out = std::regex_replace(ptx, re, replacement);
  REQUIRE(out != ptx);
  return out;
}

fs::path pipeline_spec() {
  return spec_path("pipeline/unrolled_3stage.toml");
}

/// The race kind a run ended with, or none.
std::optional<RaceKind> race_kind(const CaseResult& c) {
  if (!c.sim_race)
    return std::nullopt;
  return c.sim_race->kind;
}

} // namespace

TEST_CASE("pipeline mutation: the unmutated unrolled 3-stage pipeline passes") {
  auto spec = pipeline_spec();
  auto c = run_on_sim(spec, emitted_ptx(spec));
  CHECK(c.status == CaseResult::Status::pass);
}

TEST_CASE("pipeline mutation: wait_group S-1 (2) instead of S-2 (1), at any step, is a race") {
  auto spec = pipeline_spec();
  const auto ptx = emitted_ptx(spec);
  for (std::size_t step = 0; step < steps; ++step) {
    CAPTURE(step);
    // Step k then finds tile k among the 2 newest groups, still pending,
    // when it reads stage k % 3.
    auto c = run_on_sim(
        spec, mutate_nth(ptx, "cp.async.wait_group 1;", "cp.async.wait_group 2;", step, steps));
    INFO(c.detail);
    CHECK(fault_of_kind(c, FaultKind::race));
    CHECK(race_kind(c) == RaceKind::read_in_flight);
  }
}

TEST_CASE("pipeline mutation: a dropped barrier, at any step, is a race") {
  auto spec = pipeline_spec();
  const auto ptx = emitted_ptx(spec);
  for (std::size_t step = 0; step < steps; ++step) {
    CAPTURE(step);
    // The step's one barrier both publishes tile k and separates the last
    // read of stage (k+2) % 3 (step k-1) from its refill.
    auto c = run_on_sim(spec, drop_nth_line(ptx, "bar.sync 0;", step, steps));
    INFO(c.detail);
    CHECK(fault_of_kind(c, FaultKind::race));
  }
}

TEST_CASE("pipeline mutation: a copy into another stage is a race with that stage's copy") {
  auto spec = pipeline_spec();
  // Step 0 copies tile 2 into stage 1 (offset 1024) instead of stage 2, where
  // the thread's own copy of tile 1 is still pending.
  auto ptx = mutate_regex(emitted_ptx(spec), R"((cp\.async\.cg\.shared\.global \[%r\d+)\+2048\])",
                          "$1+1024]");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(fault_of_kind(c, FaultKind::race));
  CHECK(race_kind(c) == RaceKind::pending_copies);
}

TEST_CASE("pipeline mutation: a read of another stage is a race with that stage's refill") {
  auto spec = pipeline_spec();
  // Step 2 reads stage 1 instead of stage 2; step 2 also refills stage 1 with
  // tile 4 (its copy comes just before the read): thread 0 reads row 1 of
  // stage 1, then thread 1 refills that row with no barrier between.
  auto ptx = mutate_regex(emitted_ptx(spec), R"((ld\.shared\.v4\.b32 \{[^}]*\}, \[%r\d+)\+2048\])",
                          "$1+1024]");
  auto c = run_on_sim(spec, ptx);
  INFO(c.detail);
  CHECK(fault_of_kind(c, FaultKind::race));
  CHECK(race_kind(c) == RaceKind::write_after_read);
}

TEST_CASE("pipeline mutation: a dropped empty commit in the tail is a race") {
  auto spec = pipeline_spec();
  // Without step 3's empty group, step 4's wait_group 1 leaves tile 4's group
  // (the newest) pending while step 4 reads it.
  auto c = run_on_sim(
      spec, drop_nth_line(emitted_ptx(spec), "cp.async.commit_group;", commits - 2, commits));
  INFO(c.detail);
  CHECK(fault_of_kind(c, FaultKind::race));
  CHECK(race_kind(c) == RaceKind::read_in_flight);
}

TEST_CASE("pipeline mutation: dropping the last empty commit (no wait follows) still passes") {
  auto spec = pipeline_spec();
  auto c = run_on_sim(
      spec, drop_nth_line(emitted_ptx(spec), "cp.async.commit_group;", commits - 1, commits));
  CHECK(c.status == CaseResult::Status::pass);
}

namespace {

/// `ptx` with the bound of the loop's back edge changed from `from` to `to`:
/// the `setp.lt.u32 %p, %counter, from;` just before `bra.uni <label>;` (found
/// by its place, not its register numbers, which the lowering may change).
std::string back_edge_bound(const std::string& ptx, const std::string& label,
                            const std::string& from, const std::string& to) {
  INFO("the back edge to " << label << " in:\n" << ptx);
  const std::string branch = "bra.uni " + label + ";";
  REQUIRE(count_of(ptx, branch) == 1);
  const auto branch_at = ptx.find(branch);
  const auto line_end = ptx.rfind('\n', branch_at);
  REQUIRE(line_end != std::string::npos);
  const auto line_begin = ptx.rfind('\n', line_end - 1) + 1;
  std::string setp = ptx.substr(line_begin, line_end - line_begin);
  const std::string tail = ", " + from + ";";
  REQUIRE(setp.find("setp.lt.u32") != std::string::npos);
  REQUIRE(setp.size() > tail.size());
  REQUIRE(setp.compare(setp.size() - tail.size(), tail.size(), tail) == 0);
  setp.replace(setp.size() - tail.size(), tail.size(), ", " + to + ";");
  return ptx.substr(0, line_begin) + setp + ptx.substr(line_end);
}

fs::path loop_spec() {
  return spec_path("pipeline/loop_3stage.toml");
}

} // namespace

TEST_CASE("pipeline mutation (loop): the unmutated loop pipeline passes") {
  auto spec = loop_spec();
  auto c = run_on_sim(spec, emitted_ptx(spec));
  CHECK(c.status == CaseResult::Status::pass);
}

TEST_CASE("pipeline mutation (loop): one trip too many loads past the end of A") {
  auto spec = loop_spec();
  // Trip 4 (k = 3) refills with tile 5 of a 5-tile A.
  auto c = run_on_sim(spec, back_edge_bound(emitted_ptx(spec), "$L_k_0", "3", "4"));
  INFO(c.detail);
  CHECK(fault_of_kind(c, FaultKind::illegal_address));
}

TEST_CASE("pipeline mutation (loop): one trip too few leaves the tail reading a pending tile") {
  auto spec = loop_spec();
  // Only tiles 2 and 3 are refilled in the loop: the tail's first wait_group 1
  // leaves tile 3 (the newest group) pending while the tail reads it.
  auto c = run_on_sim(spec, back_edge_bound(emitted_ptx(spec), "$L_k_0", "3", "2"));
  INFO(c.detail);
  CHECK(fault_of_kind(c, FaultKind::race));
  CHECK(race_kind(c) == RaceKind::read_in_flight);
}

} // namespace unit_mutation_pipeline
