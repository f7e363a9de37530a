// The range proof's merge of min(p, x) (driver/run/range_proof.hpp): the values of p above
// x's greatest value make the min x, so they merge into that greatest value, which itself
// must run: it is the first value where the min takes its other side.
#include "driver/run/range_proof.hpp"
#include "driver/toml/reader_spec.hpp"

#include <memory>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_range_proof_min {

namespace {

using ptxgen::DiagId;
using ptxgen::driver::ParamCoverage;

/// A one-CTA kernel of 32 threads with parameter p in [0, 100] (test value 3): each thread
/// stages its row, reads shared row `row` after the barrier, then the threads where
/// `refill` holds copy the next tile into their own row with no barrier in between.
std::string spec(const std::string& row, const std::string& refill) {
  return "[kernel]\nname = \"k\"\ngrid = 1\nblock = 32\n"
         "[param.p]\ndtype = \"u32\"\nvalue = 3\nrange = [0, 100]\n"
         "[tensor.A]\nspace = \"global\"\nshape = [2, 32, 16]\ndtype = \"uint8\"\n"
         "[tensor.B]\nspace = \"global\"\nshape = [32, 16]\ndtype = \"uint8\"\noutput = true\n"
         "[tensor.s]\nspace = \"shared\"\nshape = [32, 16]\ndtype = \"uint8\"\n"
         "[[op]]\nop = \"apply\"\nopcode = \"cp.async.cg.shared.global\"\n"
         "dst = 's.sub[tid, :]'\nsrc = 'A.sub[0, tid, :]'\nchunk_bytes = 16\n"
         "[[op]]\nop = \"commit_group\"\n[[op]]\nop = \"wait_group\"\nn = 0\n"
         "[[op]]\nop = \"cta_sync\"\n"
         "[[op]]\nop = \"copy\"\ndst = 'B.sub[tid, :]'\nsrc = 's.sub[" +
         row +
         ", :]'\n"
         "[[op]]\nop = \"apply\"\nopcode = \"cp.async.cg.shared.global\"\n"
         "dst = 's.sub[tid, :]'\nsrc = 'A.sub[1, tid, :]'\nchunk_bytes = 16\npred = \"" +
         refill +
         "\"\n"
         "[[op]]\nop = \"commit_group\"\n[[op]]\nop = \"wait_group\"\nn = 0\n";
}

std::unique_ptr<ptxgen::tile::Kernel> load(const std::string& text) {
  auto loaded = ptxgen::driver::load_spec_text(text, "range_min.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  return std::move(*loaded.value);
}

} // namespace

TEST_CASE("range proof: min(p, tid) runs p up to tid's greatest value, 31, and merges above") {
  // For p >= 31 min(p, tid) is tid for every one of the 32 threads; at p = 30 thread 31
  // still reads row 30. So 0..31 run and 31 stands for 32..100.
  const auto k = load(spec("min(p, tid)", "tid == 31"));
  const auto plan = ptxgen::driver::plan_values(*k);
  REQUIRE(plan.size() == 1);
  const ParamCoverage& c = plan.front();
  CHECK(c.used);
  CHECK(c.merged_above);
  CHECK(c.checked_hi == 31);
  CHECK(c.values() == 32);
}

TEST_CASE("range proof: a race only where min(p, 31) switches to 31 is found, at p = 31") {
  // Every thread reads row min(p, 31); thread 31 refills row 31 without a barrier. Below 31
  // nobody reads row 31; from 31 on every thread does. The top value checked is the racy one.
  const auto k = load(spec("min(p, 31)", "tid == 31"));
  ptxgen::driver::RangeProofOptions only_test;
  only_test.test_values_only = true;
  CHECK_FALSE(ptxgen::driver::whole_launch_findings(*k, only_test).has_errors());
  const auto found = ptxgen::driver::whole_launch_findings(*k);
  REQUIRE(found.has_errors());
  CHECK(found.has(DiagId::check_refill_without_barrier));
  CHECK(found.format_all().find("(at p = 31)") != std::string::npos);
  // The same kernel whose refilling thread reads its own row only: no value races.
  const auto fine = load(spec("min(p, 31)", "tid == 31 && p < 31"));
  CHECK_FALSE(ptxgen::driver::whole_launch_findings(*fine).has_errors());
}

} // namespace unit_range_proof_min
