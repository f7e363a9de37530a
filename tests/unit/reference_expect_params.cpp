// Expectations whose regions name parameters (`B.sub[0:n] == A.sub[0:n]`): the checker
// evaluates them at each run's values (on bytes written here by hand, never a reference
// run), also through a rearrange that moves such an axis whole, and the loader refuses a
// region that leaves its tensor at some value of the declared range, naming the value, a
// step that reshapes an axis that moves, or what has no value after the kernel.
//
// Every expected value below was worked out by hand: A is arange (element i holds i), B's
// bytes are set per test.

#include "driver/reference/expect.hpp"
#include "driver/run/conformance.hpp"
#include "driver/support/temp_dir.hpp"
#include "driver/toml/reader_spec.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_reference_expect_params {

using namespace ptxgen;
using driver::check_expectations;
using driver::GlobalBytes;

namespace {

using Bytes = std::vector<std::uint8_t>;

/// A and B are 4x4 uint8; n is a u32 parameter (test value 2) declared in `range` (none
/// when empty); `ops` come after the copy (the checker reads only bytes).
std::string spec(const std::string& expects, const std::string& range = "[0, 4]",
                 const std::string& ops = "") {
  return R"TOML([kernel]
name = "k"
grid = 1
block = 4

[param.n]
dtype = "u32"
value = 2
)TOML" + (range.empty() ? std::string() : "range = " + range + "\n") +
         R"TOML(
[tensor.A]
space = "global"
shape = [4, 4]
dtype = "uint8"
init = "arange % 251"

[tensor.B]
space = "global"
shape = [4, 4]
dtype = "uint8"
output = true

[[op]]
op = "copy"
dst = "B.sub[tid, :]"
src = "A.sub[tid, :]"
)TOML" + ops +
         expects;
}

std::unique_ptr<tile::Kernel> load(const std::string& text) {
  auto r = driver::load_spec_text(text, "t.toml");
  INFO(r.diagnostics.format_all());
  REQUIRE(r);
  return std::move(*r.value);
}

/// The one error loading `text` gives.
Diagnostic refusal(const std::string& text) {
  auto r = driver::load_spec_text(text, "t.toml");
  REQUIRE_FALSE(r);
  REQUIRE(r.diagnostics.items().size() >= 1);
  return r.diagnostics.items().front();
}

Bytes arange16() {
  Bytes b(16);
  std::iota(b.begin(), b.end(), std::uint8_t{0});
  return b;
}

/// B holds A's first `rows` rows, 0xEE (its initial bytes) after them.
Bytes rows_of_a(int rows) {
  Bytes b(16, 0xEE);
  for (int i = 0; i < rows * 4; ++i)
    b[i] = static_cast<std::uint8_t>(i);
  return b;
}

GlobalBytes initial() {
  return {{"A", arange16()}, {"B", Bytes(16, 0xEE)}};
}
GlobalBytes finals(Bytes b) {
  return {{"A", arange16()}, {"B", std::move(b)}};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The column where `part` starts in the line of `text` that holds it (1-based).
std::uint32_t column_of(const std::string& text, const std::string& part) {
  const std::size_t at = text.find(part);
  REQUIRE(at != std::string::npos);
  const std::size_t line_start = text.rfind('\n', at) + 1;
  return static_cast<std::uint32_t>(at - line_start + 1);
}

const std::vector<std::uint64_t> n0{0}, n1{1}, n2{2}, n3{3};

} // namespace

TEST_CASE("expect params: a region moves with the run's values; an empty one holds") {
  auto k = load(spec("[[expect]]\nthat = \"B.sub[0:n] == A.sub[0:n]\"\n"));
  const GlobalBytes two_rows = finals(rows_of_a(2));
  auto at2 = check_expectations(*k, initial(), two_rows, n2);
  INFO(at2[0].first);
  CHECK(at2[0].held());
  CHECK(at2[0].elements == 8);
  // No values: the test value, 2.
  CHECK(check_expectations(*k, initial(), two_rows)[0].elements == 8);
  auto at3 = check_expectations(*k, initial(), two_rows, n3);
  INFO(at3[0].first);
  CHECK(at3[0].differing == 4);
  CHECK(has(at3[0].first,
            "element (2, 0) of B.sub[0:n] (B[2, 0]) is 238, expected 8 (A.sub[0:n]: A[2, 0])"));
  auto at0 = check_expectations(*k, initial(), finals(Bytes(16, 0)), n0);
  CHECK(at0[0].held());
  CHECK(at0[0].elements == 0);
}

TEST_CASE("expect params: an open end from a parameter, against the sentinel") {
  auto k = load(spec("[[expect]]\nthat = \"B.sub[n:] == sentinel\"\n"));
  const GlobalBytes two_rows = finals(rows_of_a(2));
  CHECK(check_expectations(*k, initial(), two_rows, n2)[0].held());
  auto at1 = check_expectations(*k, initial(), two_rows, n1);
  INFO(at1[0].first);
  CHECK(at1[0].differing == 4); // row 1 holds 4..7, not 0xEE
  CHECK(has(at1[0].first, "element (0, 0) of B.sub[n:] (B[1, 0]) is 4, expected 238"));
}

TEST_CASE("expect params: an index from a parameter") {
  auto k = load(spec("[[expect]]\nthat = \"B.sub[n - 1, :] == A.sub[n - 1, :]\"\n", "[1, 4]"));
  const GlobalBytes two_rows = finals(rows_of_a(2));
  CHECK(check_expectations(*k, initial(), two_rows, n2)[0].held());
  auto at3 = check_expectations(*k, initial(), two_rows, n3);
  INFO(at3[0].first);
  CHECK(has(at3[0].first, "element (0) of B.sub[n - 1, :] (B[2, 0]) is 238, expected 8"));
}

TEST_CASE("expect params: sides whose shapes differ only at some values fail only there") {
  // B.sub[0:n] has n rows, A.sub[1:3] two: the loader takes it, the runs judge each value.
  auto k = load(spec("[[expect]]\nthat = \"B.sub[0:n] == A.sub[1:3]\"\n"));
  Bytes b(16, 0xEE);
  for (int i = 0; i < 8; ++i)
    b[i] = static_cast<std::uint8_t>(i + 4); // B rows 0..1 = A rows 1..2
  auto at2 = check_expectations(*k, initial(), finals(b), n2);
  INFO(at2[0].first);
  CHECK(at2[0].held());
  auto at3 = check_expectations(*k, initial(), finals(b), n3);
  INFO(at3[0].first);
  CHECK_FALSE(at3[0].held());
  CHECK(has(at3[0].first, "the two sides differ in shape or element size: [3, 4] of 1-byte "
                          "elements and [2, 4] of 1-byte elements"));
  // Nested steps: an open end on an axis that moves takes the axis's size at the values.
  auto nested = load(spec("[[expect]]\nthat = \"B.sub[0:n].sub[1:] == A.sub[1:n]\"\n", "[1, 4]"));
  auto r = check_expectations(*nested, initial(), finals(rows_of_a(3)), n3);
  INFO(r[0].first);
  CHECK(r[0].held());
  CHECK(r[0].elements == 8);
  CHECK(check_expectations(*nested, initial(), finals(rows_of_a(3)), n1)[0].elements == 0);
}

TEST_CASE("expect params: a rearrange moves an axis that moves with the parameters whole") {
  // B.sub[0:n] transposed: element (j, i) is B[i, j], n columns of 4 rows.
  auto k = load(spec("[[expect]]\nthat = '''B.sub[0:n].rearrange(\"a b -> b a\") == "
                     "A.sub[0:n].rearrange(\"a b -> b a\")'''\n"));
  const GlobalBytes two_rows = finals(rows_of_a(2));
  auto at2 = check_expectations(*k, initial(), two_rows, n2);
  INFO(at2[0].first);
  CHECK(at2[0].held());
  CHECK(at2[0].elements == 8);
  auto at3 = check_expectations(*k, initial(), two_rows, n3);
  INFO(at3[0].first);
  CHECK(at3[0].differing == 4);
  CHECK(has(at3[0].first, "element (0, 2) of B.sub[0:n].rearrange(\"a b -> b a\") (B[2, 0]) is "
                          "238, expected 8"));
  // Splitting or merging it, or reading it as wider elements, is refused at the step.
  for (const std::string that : {"B.sub[0:n].rearrange(\"(a b) c -> a b c\", b=2) == 0",
                                 "B.sub[:, 0:n].view(\"uint16\") == 0"}) {
    const std::string text = spec("[[expect]]\nthat = '" + that + "'\n");
    const Diagnostic d = refusal(text);
    INFO(d.message);
    CHECK(d.id == DiagId::spec_expect_view_step);
    const std::string method = that.find(".view") != std::string::npos ? ".view" : ".rearrange";
    CHECK(d.column == column_of(text, method));
    CHECK(d.length == method.size());
    CHECK(has(d.message, "whose size moves with the parameters"));
  }
}

TEST_CASE("expect params: indices after a rearrange are proved on the rearranged axes") {
  const Diagnostic d =
      refusal(spec("[[expect]]\nthat = 'B.rearrange(\"a b -> b a\").sub[n, :] == 0'\n"));
  INFO(d.message);
  CHECK(d.id == DiagId::view_index_range);
  CHECK(has(d.message, "'n' is index 4, outside axis 0 (size 4) of B's view at n = 4"));
  load(spec("[[expect]]\nthat = 'B.rearrange(\"a b -> b a\").sub[n, :] == 0'\n", "[0, 3]"));
}

TEST_CASE("expect params: sides of other shapes are refused with both shapes") {
  const std::string text =
      spec("[[expect]]\nthat = 'B.sub[0:2, :].rearrange(\"a b -> b a\") == A.sub[0:2, :]'\n");
  const Diagnostic d = refusal(text);
  INFO(d.message);
  CHECK(d.id == DiagId::spec_expect_shape_mismatch);
  CHECK(d.column == column_of(text, "A.sub[0:2, :]"));
  CHECK(d.length == std::string("A.sub[0:2, :]").size());
  CHECK(has(d.message, "A.sub[0:2, :] is [2, 4] of uint8 but B.sub[0:2, :].rearrange(\"a b -> "
                       "b a\") is [4, 2] of uint8"));
}

TEST_CASE("expect params: a slice that leaves the tensor at some value is refused there") {
  const std::string text = spec("[[expect]]\nthat = \"B.sub[0:n] == 0\"\n", "[0, 5]");
  const Diagnostic d = refusal(text);
  INFO(d.message);
  CHECK(d.id == DiagId::view_slice_range);
  CHECK(d.column == column_of(text, "0:n"));
  CHECK(d.length == 3);
  CHECK(has(d.message, "'0:n' is the slice 0:5, outside axis 0 (size 4) of B's view (it needs "
                       "0 <= begin <= end <= 4) at n = 5"));
  // Within the range every value fits: accepted.
  load(spec("[[expect]]\nthat = \"B.sub[0:n] == 0\"\n", "[0, 4]"));
}

TEST_CASE("expect params: without a declared range, the whole u32 is the range") {
  const Diagnostic d = refusal(spec("[[expect]]\nthat = \"B.sub[n:] == 0\"\n", ""));
  INFO(d.message);
  CHECK(d.id == DiagId::view_slice_range);
  CHECK(has(d.message, "which ends before it begins"));
  CHECK(has(d.message, "at n = 4294967295"));
}

TEST_CASE("expect params: an index outside its axis at some value, and one the intervals "
          "cannot place but every value does") {
  const Diagnostic d = refusal(spec("[[expect]]\nthat = \"B.sub[n - 1, :] == 0\"\n", "[0, 4]"));
  INFO(d.message);
  CHECK(d.id == DiagId::view_index_range);
  CHECK(has(d.message, "'n - 1' is index -1, outside axis 0 (size 4) of B's view at n = 0"));
  // begin <= end for n - 1:n is n - (n - 1) >= 0, which intervals over n in 1..4 do not
  // see (they give -2..4); trying the four values does.
  load(spec("[[expect]]\nthat = \"B.sub[n - 1:n] == A.sub[n - 1:n]\"\n", "[1, 4]"));
}

TEST_CASE("expect params: tid, bid and loop variables have no value after the kernel") {
  const std::string loop = "[[op]]\nop = \"for\"\nvar = \"k\"\nstart = 0\nstop = 1\n"
                           "[[op]]\nop = \"end\"\n";
  for (const std::string name : {"tid", "bid", "k"}) {
    const std::string text =
        spec("[[expect]]\nthat = \"B.sub[0:" + name + " + 1] == 0\"\n", "[0, 4]", loop);
    const Diagnostic d = refusal(text);
    INFO(d.message);
    CHECK(d.id == DiagId::spec_expect_index_not_constant);
    CHECK(d.column == column_of(text, name + " + 1]"));
    CHECK(d.length == name.size());
    CHECK(has(d.message, "'" + name + "' has no value after the kernel"));
  }
}

TEST_CASE("expect params: an unknown name is an error at it") {
  const std::string text = spec("[[expect]]\nthat = \"B.sub[0:m] == 0\"\n");
  const Diagnostic d = refusal(text);
  INFO(d.message);
  CHECK(d.column == column_of(text, "m] =="));
  CHECK(has(d.message, "'m'"));
}

TEST_CASE("expect params: run --param checks the expectations at the values it runs") {
  // A fake ptxas that assembles anything; the simulator runs the PTX itself.
  auto dir = driver::TempDir::create("ptxgen-test-expect-params-");
  REQUIRE_MESSAGE(dir, dir.error());
  const auto ptxas = dir->path() / "ptxas";
  std::ofstream(ptxas) << "#!/bin/sh\nprintf CUBIN > \"$3\"\n";
  std::filesystem::permissions(ptxas, std::filesystem::perms::owner_all);
  driver::ConformanceOptions o;
  o.backend = driver::Backend::sim;
  o.ptxas = ptxas.string();
  o.jobs = 1;
  o.params = {{"k_tiles", 1}};
  const std::filesystem::path root(PTXGEN_SOURCE_DIR);
  // Statements written for the test value (5 tiles) fail at k_tiles = 1, on the reference,
  // before the simulator runs; with the parameter in them they hold there.
  auto r = driver::run_conformance({root / "specs/wrong_kernel/runtime_k_expect_test_value.toml",
                                    root / "specs/loops/expect_runtime_trips_sentinel.toml"},
                                   o, {});
  REQUIRE(r.cases.size() == 2);
  const auto& stale = r.cases[0];
  INFO(stale.detail);
  CHECK(stale.status == driver::CaseResult::Status::invalid);
  CHECK(stale.expectations == 2);
  CHECK(stale.expectations_failed == 1);
  CHECK(has(stale.detail, "expectation 'B.sub[0:5] == A.sub[0:5]' fails"));
  const auto& moving = r.cases[1];
  INFO(moving.detail);
  CHECK(moving.status == driver::CaseResult::Status::pass);
  CHECK(moving.expectations == 2);
  CHECK(moving.expectations_failed == 0);
}

} // namespace unit_reference_expect_params
