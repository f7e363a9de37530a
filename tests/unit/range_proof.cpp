// The whole-launch checks over every parameter value (driver/run/range_proof.hpp): which
// values the plan runs, and that a spec racy only away from its test value is refused.
#include "driver/run/range_proof.hpp"

#include "driver/toml/reader_spec.hpp"

#include <memory>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_range_proof {

namespace {

using ptxgen::DiagId;
using ptxgen::driver::ParamCoverage;

/// A one-CTA kernel of `block` threads with parameter p in [lo, hi] (test value `value`):
/// each thread copies one 16-byte row into shared and back out under `pred`, and a loop
/// of `trips` iterations wraps nothing (it only names p when `trips` does).
std::string spec(const std::string& pred, const std::string& trips = "1", int lo = 0, int hi = 200,
                 int value = 7) {
  return "[kernel]\nname = \"k\"\ngrid = 1\nblock = 128\n"
         "[param.p]\ndtype = \"u32\"\nvalue = " +
         std::to_string(value) + "\nrange = [" + std::to_string(lo) + ", " + std::to_string(hi) +
         "]\n"
         "[param.unused]\ndtype = \"u32\"\nvalue = 3\n"
         "[tensor.A]\nspace = \"global\"\nshape = [128, 16]\ndtype = \"uint8\"\n"
         "[tensor.B]\nspace = \"global\"\nshape = [128, 16]\ndtype = \"uint8\"\noutput = true\n"
         "[tensor.s]\nspace = \"shared\"\nshape = [128, 16]\ndtype = \"uint8\"\n"
         "[[op]]\nop = \"fill\"\ndst = 's.sub[tid, :]'\npattern = \"0x00\"\n"
         "[[op]]\nop = \"for\"\nvar = \"i\"\nstart = 0\nstop = \"" +
         trips +
         "\"\n"
         "[[op]]\nop = \"apply\"\nopcode = \"cp.async.cg.shared.global\"\n"
         "dst = 's.sub[tid, :]'\nsrc = 'A.sub[tid, :]'\nchunk_bytes = 16\npred = \"" +
         pred +
         "\"\n"
         "[[op]]\nop = \"commit_group\"\n[[op]]\nop = \"wait_group\"\nn = 0\n"
         "[[op]]\nop = \"end\"\n"
         "[[op]]\nop = \"copy\"\ndst = 'B.sub[tid, :]'\nsrc = 's.sub[tid, :]'\n";
}

std::unique_ptr<ptxgen::tile::Kernel> load(const std::string& text) {
  auto loaded = ptxgen::driver::load_spec_text(text, "range.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  return std::move(*loaded.value);
}

const ParamCoverage& coverage_of(const std::vector<ParamCoverage>& plan,
                                 const ptxgen::tile::Kernel& k, const std::string& name) {
  for (const ParamCoverage& c : plan)
    if (k.params[c.index].name == name)
      return c;
  FAIL("no coverage for " << name);
  return plan.front();
}

} // namespace

TEST_CASE("range proof: a parameter no expression names is run at its test value only") {
  const auto k = load(spec("tid < p"));
  const auto plan = ptxgen::driver::plan_values(*k);
  const ParamCoverage& c = coverage_of(plan, *k, "unused");
  CHECK_FALSE(c.used);
  CHECK(c.values() == 1);
  CHECK(c.range.hi == 0xFFFFFFFF); // no range declared: the whole u32
}

TEST_CASE("range proof: a parameter only data reads (src_size) cannot change a verdict") {
  std::string text = spec("tid < 128");
  text.insert(text.find("chunk_bytes = 16"), "src_size = \"p < 16 ? p : 16\"\n");
  const auto k = load(text);
  const auto plan = ptxgen::driver::plan_values(*k);
  CHECK_FALSE(coverage_of(plan, *k, "p").used);
}

TEST_CASE("range proof: past every bound a comparison decides alike, so those values merge") {
  // tid is at most 127: every p from 128 on makes `tid < p` true for every thread.
  const auto k = load(spec("tid < p"));
  const auto plan = ptxgen::driver::plan_values(*k);
  const ParamCoverage& c = coverage_of(plan, *k, "p");
  CHECK(c.used);
  CHECK(c.merged_above);
  CHECK(c.checked_hi == 128);
  CHECK(c.values() == 129);
}

TEST_CASE("range proof: a bare use (a trip count) runs every value of the range") {
  const auto k = load(spec("tid < 128", "p", 1, 50, 3));
  const auto plan = ptxgen::driver::plan_values(*k);
  const ParamCoverage& c = coverage_of(plan, *k, "p");
  CHECK(c.used);
  CHECK_FALSE(c.merged_above);
  CHECK(c.checked_hi == 50);
  CHECK(c.values() == 50);
}

TEST_CASE("range proof: a select decided above the bound takes only its arm's uses") {
  // `p < 16 ? p : 16` is 16 for every p from 16 on, and then `16 > tid % 16` holds for every
  // thread: values 0..16 run, the bare p in the other arm among them.
  const auto k = load(spec("(p < 16 ? p : 16) > tid % 16"));
  const auto plan = ptxgen::driver::plan_values(*k);
  const ParamCoverage& c = coverage_of(plan, *k, "p");
  CHECK(c.merged_above);
  CHECK(c.checked_hi == 16);
  // A use no range of p decides (p % 16 cycles): every value runs.
  const auto cyclic = load(spec("p % 16 > tid % 16"));
  const auto cyclic_plan = ptxgen::driver::plan_values(*cyclic);
  CHECK_FALSE(coverage_of(cyclic_plan, *cyclic, "p").merged_above);
  CHECK(coverage_of(cyclic_plan, *cyclic, "p").checked_hi == 200);
}

TEST_CASE("range proof: a clamp of a per-thread tail merges once every thread's is full") {
  // clamp(p - 16 * tid, 0, 16) > 0 holds for every thread once p - 16 * 127 >= 1.
  const auto k = load(spec("clamp(p - 16 * tid, 0, 16) > 0", "1", 0, 4096, 600));
  const auto plan = ptxgen::driver::plan_values(*k);
  const ParamCoverage& c = coverage_of(plan, *k, "p");
  CHECK(c.merged_above);
  CHECK(c.checked_hi == 2033);
}

TEST_CASE("range proof: a spec racy only away from its test value is refused, naming it") {
  // A second loop, empty at the test value p = 1, stores into the mirrored thread's row,
  // which that thread read in the copy-out with no cta_sync since: from p = 2 on.
  std::string text = spec("tid < 128", "p", 1, 8, 1);
  text += "[[op]]\nop = \"for\"\nvar = \"j\"\nstart = 1\nstop = \"p\"\n"
          "[[op]]\nop = \"fill\"\ndst = 's.sub[127 - tid, :]'\npattern = \"0x01\"\n"
          "[[op]]\nop = \"end\"\n";
  auto k = load(text);
  ptxgen::driver::RangeProofOptions only_test;
  only_test.test_values_only = true;
  CHECK_FALSE(ptxgen::driver::whole_launch_findings(*k, only_test).has_errors());
  const auto found = ptxgen::driver::whole_launch_findings(*k);
  REQUIRE(found.has_errors());
  CHECK(found.has(DiagId::check_refill_without_barrier));
  CHECK(found.format_all().find("(at p = 2)") != std::string::npos);
}

TEST_CASE("range proof: a u64 parameter bounding a loop runs every value too") {
  std::string text = spec("tid < 128", "p", 1, 50, 3);
  const std::string u32 = "[param.p]\ndtype = \"u32\"";
  text.replace(text.find(u32), u32.size(), "[param.p]\ndtype = \"u64\"");
  const auto k = load(text);
  const auto plan = ptxgen::driver::plan_values(*k);
  CHECK(coverage_of(plan, *k, "p").used);
  CHECK(coverage_of(plan, *k, "p").values() == 50);
}

TEST_CASE("range proof: more runs than the budget is refused, naming the widest parameter") {
  const auto k = load(spec("tid < 128", "p", 0, 5000, 1));
  const auto found = ptxgen::driver::whole_launch_findings(*k);
  REQUIRE(found.has(DiagId::check_range_too_wide));
  CHECK(found.format_all().find("p's range 0..5000") != std::string::npos);
}

/// A loop over n tiles (n in [0, 8], test value 3): each of 32 threads copies its row of
/// tile k of A into shared and out to tile k of B. Then `expects`.
std::string tiles_spec(const std::string& expects) {
  return "[kernel]\nname = \"k\"\ngrid = 1\nblock = 32\n"
         "[param.n]\ndtype = \"u32\"\nvalue = 3\nrange = [0, 8]\n"
         "[tensor.A]\nspace = \"global\"\nshape = [8, 32, 16]\ndtype = \"uint8\"\n"
         "init = \"arange % 251\"\n"
         "[tensor.B]\nspace = \"global\"\nshape = [8, 32, 16]\ndtype = \"uint8\"\noutput = true\n"
         "[tensor.s]\nspace = \"shared\"\nshape = [32, 16]\ndtype = \"uint8\"\n"
         "[[op]]\nop = \"for\"\nvar = \"k\"\nstart = 0\nstop = \"n\"\n"
         "[[op]]\nop = \"apply\"\nopcode = \"cp.async.cg.shared.global\"\n"
         "dst = 's.sub[tid, :]'\nsrc = 'A.sub[k, tid, :]'\nchunk_bytes = 16\n"
         "[[op]]\nop = \"commit_group\"\n[[op]]\nop = \"wait_group\"\nn = 0\n"
         "[[op]]\nop = \"copy\"\ndst = 'B.sub[k, tid, :]'\nsrc = 's.sub[tid, :]'\n"
         "[[op]]\nop = \"end\"\n" +
         expects;
}

TEST_CASE("range proof: an expectation true only at the test value is refused at another") {
  // At n = 3 three tiles are copied and the rest stay zero; at n = 0 none is.
  const auto k = load(tiles_spec("[[expect]]\nthat = \"B.sub[0:3] == A.sub[0:3]\"\n"
                                 "[[expect]]\nthat = \"B.sub[3:] == 0\"\n"));
  ptxgen::driver::RangeProofOptions only_test;
  only_test.test_values_only = true;
  CHECK_FALSE(ptxgen::driver::whole_launch_findings(*k, only_test).has_errors());
  const auto found = ptxgen::driver::whole_launch_findings(*k);
  INFO(found.format_all());
  REQUIRE(found.has(DiagId::check_expectation_failed));
  CHECK(found.format_all().find("(at n = 0)") != std::string::npos);
  // Written with the parameter, the same statements hold at every value.
  const auto right = load(tiles_spec("[[expect]]\nthat = \"B.sub[0:n] == A.sub[0:n]\"\n"
                                     "[[expect]]\nthat = \"B.sub[n:] == 0\"\n"));
  const auto all = ptxgen::driver::whole_launch_findings(*right);
  INFO(all.format_all());
  CHECK_FALSE(all.has_errors());
  CHECK(coverage_of(ptxgen::driver::plan_values(*right), *right, "n").values() == 9);
}

TEST_CASE("range proof: with expectations, a parameter only data reads runs its values too") {
  // src_size alone never changes a hazard, but it changes the bytes an expectation compares.
  std::string text = spec("tid < 128");
  text.insert(text.find("chunk_bytes = 16"), "src_size = \"p < 16 ? p : 16\"\n");
  text += "[[expect]]\nthat = \"B.sub[0:1] == B.sub[0:1]\"\n";
  const auto k = load(text);
  const auto plan = ptxgen::driver::plan_values(*k);
  const ParamCoverage& c = coverage_of(plan, *k, "p");
  CHECK(c.used);
  // Every p from 16 on copies the whole chunk; the intervals decide `p < 16` once p's lies
  // wholly above 16, from 17 on.
  CHECK(c.checked_hi == 17);
  // Only the ops that write what an expectation reads (here A, which no op writes) count.
  std::string other = spec("tid < 128");
  other.insert(other.find("chunk_bytes = 16"), "src_size = \"p < 16 ? p : 16\"\n");
  other += "[[expect]]\nthat = \"A.sub[0:1] == A.sub[0:1]\"\n";
  const auto unread = load(other);
  CHECK_FALSE(coverage_of(ptxgen::driver::plan_values(*unread), *unread, "p").used);
  // The expectation's own bounds count as well: a parameter named only there.
  std::string own = spec("tid < 128");
  own += "[[expect]]\nthat = \"B.sub[0:unused % 2] == A.sub[0:unused % 2]\"\n";
  const auto named = load(own);
  CHECK(coverage_of(ptxgen::driver::plan_values(*named), *named, "unused").used);
}

} // namespace unit_range_proof
