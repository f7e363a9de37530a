// Races between the CTAs of a launch on global memory in the reference
// (driver/reference/grid_races.hpp, evaluator_grid.cpp) and in the range proof: two CTAs
// writing the same bytes with different values, or one reading what another writes, are
// check_cross_cta_race at the later CTA's op, whether that CTA ran with every check or was
// replayed; two writes of the same values too, with or without the values held; the sweep over
// the CTAs' spans finds an overlap behind another span; and a parameter that only moves a
// global store is run at every value of its range.
#include "driver/reference/grid_races.hpp"
#include "driver/reference/reference.hpp"
#include "driver/run/range_proof.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_grid_races {

namespace {

using ptxgen::DiagId;
namespace tile = ptxgen::tile;
namespace ref = ptxgen::driver::ref;
using ptxgen::driver::ReferenceOutput;

std::unique_ptr<tile::Kernel> load(const std::string& text) {
  auto loaded = ptxgen::driver::load_spec_text(text, "grid.toml");
  REQUIRE_MESSAGE(loaded, loaded.diagnostics.format_all());
  return std::move(*loaded.value);
}

ReferenceOutput run(const tile::Kernel& k, bool replay = true) {
  ptxgen::driver::ReferenceInput in;
  in.kernel = &k;
  in.replay = replay;
  for (const auto& d : k.tensors)
    if (d->tensor.space == tile::Space::global)
      in.global[d->tensor.name] = ptxgen::driver::initial_bytes(*d);
  return ptxgen::driver::evaluate_reference(in);
}

/// The race finding's text, or "" when there is none.
std::string race_text(const ReferenceOutput& out) {
  for (const auto& f : out.findings)
    if (f.id == DiagId::check_cross_cta_race)
      return f.message;
  return "";
}

std::string problems(const ReferenceOutput& out) {
  std::string s;
  for (const auto& p : out.problems)
    s += p + "\n";
  return s;
}

/// `grid` CTAs of 32 threads over A and B (128 rows of 4 uint32 each, A = arange), and `ops`.
std::string kernel(int grid, const std::string& ops) {
  return "[kernel]\nname = \"k\"\ngrid = " + std::to_string(grid) +
         "\nblock = 32\n"
         "[tensor.A]\nspace = \"global\"\nshape = [128, 4]\ndtype = \"uint32\"\ninit = "
         "\"arange % 1000003\"\n"
         "[tensor.B]\nspace = \"global\"\nshape = [128, 4]\ndtype = \"uint32\"\noutput = true\n" +
         ops;
}

std::string copy(const std::string& dst, const std::string& src) {
  return "[[op]]\nop = \"copy\"\ndst = '" + dst + "'\nsrc = '" + src + "'\n";
}

TEST_CASE("grid races: CTAs on rows of their own are clean, with and without the replay") {
  const auto k = load(kernel(4, copy("B.sub[32 * bid + tid, :]", "A.sub[32 * bid + tid, :]")));
  for (const bool replay : {true, false}) {
    const ReferenceOutput out = run(*k, replay);
    INFO(problems(out));
    CHECK(out.problems.empty());
    CHECK(race_text(out).empty());
  }
}

TEST_CASE("grid races: two CTAs storing one row with different values race, at the later's op") {
  // Thread 31 of CTA 0 and thread 0 of CTA 1 both store row 31 of B (A's rows 31 and 32).
  const auto k = load(kernel(2, copy("B.sub[tid + 31 * bid, :]", "A.sub[tid + 32 * bid, :]")));
  for (const bool replay : {true, false}) {
    const ReferenceOutput out = run(*k, replay);
    const std::string text = race_text(out);
    INFO(text);
    REQUIRE(out.problems.size() == 1);
    CHECK(out.problem_ops[0] == 0);
    CHECK(text.find("two CTAs write the same global bytes") != std::string::npos);
    CHECK(text.find("CTA 1 thread 0 writes byte 496 of 'B'") != std::string::npos);
    CHECK(text.find("CTA 0 thread 31 also writes at the same op") != std::string::npos);
    CHECK(text.find("16 times in all") != std::string::npos); // the row's bytes
  }
}

TEST_CASE("grid races: the race of a replayed CTA is found") {
  // CTAs 1..3 replay CTA 0's trace (A's rows into S, then S out to B); CTA 3 stores into the
  // rows CTA 2 stored (row 32 min(bid, 2) + tid), with its own rows of A.
  const std::string ops = "[tensor.S]\nspace = \"shared\"\nshape = [32, 4]\ndtype = \"uint32\"\n" +
                          copy("S.sub[tid, :]", "A.sub[32 * bid + tid, :]") +
                          "[[op]]\nop = \"cta_sync\"\n" +
                          copy("B.sub[32 * min(bid, 2) + tid, :]", "S.sub[tid, :]");
  const auto k = load(kernel(4, ops));
  const ReferenceOutput out = run(*k);
  const std::string text = race_text(out);
  INFO(problems(out));
  CHECK(out.replayed == 3);
  REQUIRE(out.problems.size() == 1);
  CHECK(out.problem_ops[0] == 2);
  CHECK(text.find("CTA 3 thread 0 writes byte 1024 of 'B'") != std::string::npos);
  CHECK(text.find("CTA 2 thread 0 also writes at the same op") != std::string::npos);
}

TEST_CASE("grid races: the same values from two CTAs race too, with or without the values") {
  // Every CTA fills row 0 of B with one pattern: PTX calls it a race, and whether two writes
  // agree depends on the input in general, so the reference does not look at the values.
  const auto k =
      load(kernel(4, "[[op]]\nop = \"fill\"\ndst = 'B.sub[0, :]'\npattern = \"0x5A\"\n"));
  const ReferenceOutput held = run(*k);
  CHECK(race_text(held).find("two CTAs write") != std::string::npos);
  ptxgen::driver::ReferenceInput in;
  in.kernel = k.get();
  in.values = false;
  CHECK(race_text(ptxgen::driver::evaluate_reference(in)) == race_text(held));
}

TEST_CASE("grid races: a CTA reading rows another writes races") {
  const std::string ops =
      "[tensor.C]\nspace = \"global\"\nshape = [128, 4]\ndtype = \"uint32\"\noutput = "
      "true\n" +
      copy("B.sub[32 * bid + tid, :]", "A.sub[32 * bid + tid, :]") +
      copy("C.sub[32 * bid + tid, :]", "B.sub[(32 * bid + tid + 32) % 128, :]");
  const ReferenceOutput out = run(*load(kernel(4, ops)));
  const std::string text = race_text(out);
  INFO(problems(out));
  REQUIRE(out.problems.size() == 1);
  CHECK(out.problem_ops[0] == 1); // CTA 3's read of row 0, which CTA 0 writes
  CHECK(text.find("one CTA reads global bytes another CTA writes") != std::string::npos);
  CHECK(text.find("CTA 3 thread 0 reads byte 0 of 'B'") != std::string::npos);
  CHECK(text.find("CTA 0 thread 0 writes at op 1 (copy)") != std::string::npos);
}

TEST_CASE("grid races: the sweep finds an overlap behind a longer span") {
  // CTA 0 reads bytes 0..99, CTA 1 bytes 10..19, CTA 2 writes bytes 50..59: CTA 2 meets CTA
  // 0, whose span started before CTA 1's (two reads never race).
  ref::GridRaces races;
  auto cta = [&](std::int64_t bid, std::int64_t off, std::int64_t len, bool write) {
    races.begin_cta(bid);
    races.access(0, write, off, len, 4, 0);
    races.end_cta();
  };
  cta(0, 0, 100, false);
  cta(1, 10, 10, false);
  SUBCASE("a write") {
    cta(2, 50, 10, true);
    const auto r = races.first_race();
    REQUIRE(r);
    CHECK(r->bid == 2);
    CHECK(r->other_bid == 0);
    CHECK(r->byte == 50);
    CHECK(r->bytes == 10);
  }
  SUBCASE("a read") {
    cta(2, 50, 10, false);
    CHECK_FALSE(races.first_race());
  }
}

TEST_CASE("grid races: runs of consecutive threads name the thread of the byte") {
  ref::GridRaces races;
  races.begin_cta(0);
  for (std::int64_t t = 0; t < 8; ++t)
    races.access(1, true, 16 * t, 16, 2, t); // one run of 8 threads
  races.end_cta();
  races.begin_cta(1);
  races.access(1, false, 100, 4, 3, 5);
  races.end_cta();
  const auto r = races.first_race();
  REQUIRE(r);
  CHECK(r->access.tid == 5);
  CHECK_FALSE(r->access.write);
  CHECK(r->other.tid == 6); // byte 100 is thread 6's (96..111)
  CHECK(r->other.off == 96);
  CHECK(r->other.len == 16);
}

TEST_CASE("grid races: a parameter that only moves a global store runs at every value") {
  // No expectation and no bulk op: before the race check the store's view was data, and s's
  // test value stood for its range. At s = 1 CTA 1 starts one row early.
  const std::string spec =
      kernel(2, "[param.s]\ndtype = \"u32\"\nvalue = 0\nrange = [0, 1]\n" +
                    copy("B.sub[tid + (32 - s) * bid, :]", "A.sub[tid + 32 * bid, :]"));
  const auto k = load(spec);
  CHECK(race_text(run(*k)).empty()); // the test value
  const ptxgen::Diagnostics ds = ptxgen::driver::whole_launch_findings(*k);
  INFO(ds.format_all());
  const auto& items = ds.items();
  CHECK(std::any_of(items.begin(), items.end(), [](const ptxgen::Diagnostic& d) {
    return d.id == DiagId::check_cross_cta_race &&
           d.message.find("(at s = 1)") != std::string::npos;
  }));
}

} // namespace

} // namespace unit_reference_grid_races
