// Expectations (`[[expect]]`): the checker of driver/reference/expect.hpp on bytes
// written here by hand, one passing and one failing case per kind (view == view, view ==
// integer, view == sentinel), sides through rearranges and dtype views, the exact encoding
// of the integers, the error's position; then on the reference's result of a kernel that
// mirrors and of one that copies straight, and `run` refusing a spec whose kernel is wrong.
//
// Every expected value below was worked out by hand from the tensors in the test:
// A is arange (element i holds i), B's bytes are set per test.

#include "driver/reference/expect.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/range_proof.hpp"
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
namespace unit_reference_expect {

using namespace ptxgen;
using driver::check_expectations;
using driver::describe_element;
using driver::expect_value_bytes;
using driver::GlobalBytes;

namespace {

using Bytes = std::vector<std::uint8_t>;

// A and B are 4x4 uint8, C is 2x2 int16, E is 8 uint16 (A's byte size); the ops do not matter (the
// checker reads only bytes), the expectations are the test's.
std::string spec(const std::string& expects) {
  return R"TOML([kernel]
name = "k"
grid = 1
block = 4

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

[tensor.C]
space = "global"
shape = [2, 2]
dtype = "int16"

[tensor.E]
space = "global"
shape = [8]
dtype = "uint16"

[[op]]
op = "copy"
dst = "B.sub[tid, :]"
src = "A.sub[tid, :]"
)TOML" + expects;
}

std::unique_ptr<tile::Kernel> load_from(const std::string& text) {
  auto r = driver::load_spec_text(text, "t.toml");
  INFO(r.diagnostics.format_all());
  REQUIRE(r);
  return std::move(*r.value);
}

std::unique_ptr<tile::Kernel> load(const std::string& expects) {
  return load_from(spec(expects));
}

Bytes arange16() {
  Bytes b(16);
  std::iota(b.begin(), b.end(), std::uint8_t{0});
  return b;
}

/// Initial bytes: A arange, B all 0xEE, C and E zero. Final: as given.
GlobalBytes initial() {
  return {{"A", arange16()}, {"B", Bytes(16, 0xEE)}, {"C", Bytes(8, 0)}, {"E", Bytes(16, 0)}};
}

GlobalBytes finals(Bytes b, Bytes c = Bytes(8, 0), Bytes e = Bytes(16, 0)) {
  return {{"A", arange16()}, {"B", std::move(b)}, {"C", std::move(c)}, {"E", std::move(e)}};
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("expect: whole tensors, B == A") {
  auto k = load("[[expect]]\nthat = \"B == A\"\n");
  REQUIRE(k->expectations.size() == 1);
  auto ok = check_expectations(*k, initial(), finals(arange16()));
  REQUIRE(ok.size() == 1);
  CHECK(ok[0].held());
  CHECK(ok[0].elements == 16);

  Bytes b = arange16();
  b[11] = 99; // B[2, 3]
  b[12] = 0;  // B[3, 0]
  auto bad = check_expectations(*k, initial(), finals(b));
  REQUIRE(bad.size() == 1);
  INFO(bad[0].first);
  CHECK_FALSE(bad[0].held());
  CHECK(bad[0].differing == 2);
  CHECK(has(bad[0].first, "element (2, 3) of B (B[2, 3]) is 99, expected 11 (A: A[2, 3])"));
}

TEST_CASE("expect: whole tensors of one byte size but other shapes compare byte for byte") {
  // E (8 uint16) == A (4x4 uint8): E's element k is A's bytes 2k, 2k + 1.
  auto k = load("[[expect]]\nthat = \"E == A\"\n");
  auto ok = check_expectations(*k, initial(), finals(arange16(), Bytes(8, 0), arange16()));
  INFO(ok[0].first);
  CHECK(ok[0].held());
  CHECK(ok[0].elements == 8);

  Bytes e = arange16();
  e[7] = 0; // E[3] = 0x0006, A's bytes 6..7 hold 06 07 (0x0706 = 1798)
  auto bad = check_expectations(*k, initial(), finals(arange16(), Bytes(8, 0), e));
  INFO(bad[0].first);
  CHECK(bad[0].differing == 1);
  CHECK(has(bad[0].first, "element (3) of E (E[3]) is 6, expected 1798 (A: its bytes 6..7)"));
}

TEST_CASE("expect: views, a shifted window of B equals a corner of A") {
  // B.sub[1:3, 2:4] element (i, j) is B[1 + i, 2 + j]; A.sub[0:2, 0:2] is A[i, j] = 4i + j.
  auto k = load("[[expect]]\nthat = \"B.sub[1:3, 2:4] == A.sub[0:2, 0:2]\"\n");
  Bytes b(16, 0xEE);
  b[1 * 4 + 2] = 0;
  b[1 * 4 + 3] = 1;
  b[2 * 4 + 2] = 4;
  b[2 * 4 + 3] = 5;
  auto ok = check_expectations(*k, initial(), finals(b));
  REQUIRE(ok.size() == 1);
  INFO(ok[0].first);
  CHECK(ok[0].held());
  CHECK(ok[0].elements == 4);

  b[2 * 4 + 2] = 7;
  auto bad = check_expectations(*k, initial(), finals(b));
  INFO(bad[0].first);
  CHECK(bad[0].differing == 1);
  CHECK(has(bad[0].first, "element (1, 0) of B.sub[1:3, 2:4] (B[2, 2]) is 7, expected 4 "
                          "(A.sub[0:2, 0:2]: A[1, 0])"));
}

TEST_CASE("expect: a mirrored mapping holds on mirrored bytes and fails on a straight copy") {
  auto k = load("[[expect]]\nthat = 'B == A.rearrange(\"a b -> b a\")'\n"
                "[[expect]]\nthat = 'B.rearrange(\"a b -> b a\") == A'\n"
                "[[expect]]\nthat = \"B == A\"\n");
  REQUIRE(k->expectations.size() == 3);
  Bytes mirrored(16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      mirrored[4 * i + j] = static_cast<std::uint8_t>(4 * j + i); // B[i, j] = A[j, i]
  auto m = check_expectations(*k, initial(), finals(mirrored));
  INFO(m[0].first, " / ", m[1].first);
  CHECK(m[0].held());
  CHECK(m[0].elements == 16);
  CHECK(m[1].held());
  CHECK(m[2].differing == 12); // all but the diagonal
  CHECK(has(m[2].first, "element (0, 1) of B (B[0, 1]) is 4, expected 1 (A: A[0, 1])"));

  auto s = check_expectations(*k, initial(), finals(arange16()));
  INFO(s[0].first, " / ", s[1].first);
  CHECK(s[0].differing == 12);
  CHECK(has(s[0].first, "element (0, 1) of B (B[0, 1]) is 1, expected 4 "
                        "(A.rearrange(\"a b -> b a\"): A[1, 0])"));
  CHECK(s[1].differing == 12);
  CHECK(has(s[1].first, "element (0, 1) of B.rearrange(\"a b -> b a\") (B[1, 0]) is 4, "
                        "expected 1 (A: A[0, 1])"));
  CHECK(s[2].held());
}

TEST_CASE("expect: split axes and dtype views, chained with .sub, on either side") {
  auto k = load("[[expect]]\nthat = '''B.sub[1:3, :].rearrange(\"r (c v) -> r c v\", v=2) == "
                "A.sub[1:3, :].rearrange(\"r (c v) -> r c v\", v=2)'''\n"
                "[[expect]]\nthat = 'E.view(\"uint8\").rearrange(\"(r c) -> r c\", c=4) == A'\n"
                "[[expect]]\nthat = 'C.view(\"uint8\") == A.sub[0:2, :]'\n");
  const Bytes c_arange = {0, 1, 2, 3, 4, 5, 6, 7};
  auto ok = check_expectations(*k, initial(), finals(arange16(), c_arange, arange16()));
  INFO(ok[0].first, " / ", ok[1].first, " / ", ok[2].first);
  CHECK(ok[0].held());
  CHECK(ok[0].elements == 8);
  CHECK(ok[1].held());
  CHECK(ok[1].elements == 16);
  CHECK(ok[2].held());
  CHECK(ok[2].elements == 8);

  Bytes b = arange16(), c = c_arange, e = arange16();
  b[2 * 4 + 3] = 0; // B[2, 3]: element (1, 1, 1) of the left side
  e[9] = 0;         // byte 1 of E[4]: element (2, 1)
  c[7] = 0;         // byte 1 of C[1, 1]: element (1, 3)
  auto bad = check_expectations(*k, initial(), finals(b, c, e));
  INFO(bad[0].first, " / ", bad[1].first, " / ", bad[2].first);
  CHECK(bad[0].differing == 1);
  CHECK(has(bad[0].first, "element (1, 1, 1) of B.sub[1:3, :].rearrange(\"r (c v) -> r c v\", "
                          "v=2) (B[2, 3]) is 0, expected 11"));
  CHECK(bad[1].differing == 1);
  CHECK(has(bad[1].first, "element (2, 1) of E.view(\"uint8\").rearrange(\"(r c) -> r c\", "
                          "c=4) (byte 1 of E[4]) is 0, expected 9 (A: A[2, 1])"));
  CHECK(bad[2].differing == 1);
  CHECK(has(bad[2].first, "element (1, 3) of C.view(\"uint8\") (byte 1 of C[1, 1]) is 0, "
                          "expected 7 (A.sub[0:2, :]: A[1, 3])"));
}

TEST_CASE("expect: an integer and the sentinel right of a rearranged or reinterpreted side") {
  auto k = load("[[expect]]\nthat = 'B.rearrange(\"a b -> b a\").sub[3, :] == sentinel'\n"
                "[[expect]]\nthat = 'E.view(\"uint32\") == 65537'\n");
  Bytes b = arange16();
  for (int r = 0; r < 4; ++r)
    b[4 * r + 3] = 0xEE; // column 3 untouched
  Bytes e(16);
  for (int i = 0; i < 16; ++i)
    e[i] = i % 2 == 0 ? 1 : 0; // every uint32 word is 0x00010001
  auto ok = check_expectations(*k, initial(), finals(b, Bytes(8, 0), e));
  INFO(ok[0].first, " / ", ok[1].first);
  CHECK(ok[0].held());
  CHECK(ok[0].elements == 4);
  CHECK(ok[1].held());
  CHECK(ok[1].elements == 4);

  b[7] = 7; // B[1, 3]
  e[4] = 2; // word 1 is 0x00010002
  auto bad = check_expectations(*k, initial(), finals(b, Bytes(8, 0), e));
  INFO(bad[0].first, " / ", bad[1].first);
  CHECK(bad[0].differing == 1);
  CHECK(has(bad[0].first, "element (1) of B.rearrange(\"a b -> b a\").sub[3, :] (B[1, 3]) is 7, "
                          "expected 238 (its initial value)"));
  CHECK(bad[1].differing == 1);
  CHECK(has(bad[1].first, "element (1) of E.view(\"uint32\") (E[2]) is 65538, expected 65537"));
}

TEST_CASE("expect: a region equals an integer, by index and by slice") {
  auto k = load("[[expect]]\nthat = \"B.sub[2, :] == 0\"\n"
                "[[expect]]\nthat = \"B.sub[:, 1] == 255\"\n"
                "[[expect]]\nthat = \"C == -2\"\n");
  Bytes b(16, 0x11);
  for (int c = 0; c < 4; ++c)
    b[2 * 4 + c] = 0; // row 2
  for (int r = 0; r < 4; ++r)
    b[r * 4 + 1] = 0xFF; // column 1 (B[2, 1] is 255: row 2 then is not all zero)
  const Bytes c_minus_2 = {0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF, 0xFE, 0xFF};
  auto r = check_expectations(*k, initial(), finals(b, c_minus_2));
  REQUIRE(r.size() == 3);
  INFO(r[0].first);
  CHECK(r[0].differing == 1);
  CHECK(has(r[0].first, "element (1) of B.sub[2, :] (B[2, 1]) is 255, expected 0 (0)"));
  CHECK(r[1].held());
  CHECK(r[1].elements == 4);
  CHECK(r[2].held());

  Bytes c = c_minus_2;
  c[6] = 0xFD; // C[1, 1] = -3
  auto bad = check_expectations(*k, initial(), finals(b, c));
  INFO(bad[2].first);
  CHECK(bad[2].differing == 1);
  CHECK(has(bad[2].first, "element (1, 1) of C (C[1, 1]) is -3, expected -2"));
}

TEST_CASE("expect: sentinel compares with the tensor's initial bytes") {
  auto k = load("[[expect]]\nthat = \"B.sub[3:, :] == sentinel\"\n");
  Bytes b = arange16();
  for (int i = 12; i < 16; ++i)
    b[i] = 0xEE; // row 3 untouched
  auto ok = check_expectations(*k, initial(), finals(b));
  INFO(ok[0].first);
  CHECK(ok[0].held());
  CHECK(ok[0].elements == 4);

  b[13] = 13; // the kernel wrote B[3, 1]
  auto bad = check_expectations(*k, initial(), finals(b));
  INFO(bad[0].first);
  CHECK(bad[0].differing == 1);
  CHECK(has(bad[0].first, "element (0, 1) of B.sub[3:, :] (B[3, 1]) is 13, expected 238 (its "
                          "initial value)"));
}

TEST_CASE("expect: a tensor without bytes cannot be checked, and says so") {
  auto k = load("[[expect]]\nthat = \"B == A\"\n");
  GlobalBytes f = finals(arange16());
  f.at("A").pop_back();
  auto r = check_expectations(*k, initial(), f);
  CHECK_FALSE(r[0].held());
  CHECK(has(r[0].first, "no final bytes of tensor A (16 expected)"));
}

TEST_CASE("expect: the failure is an error at the left side of the string") {
  // Line 34 of the spec holds `that = "B.sub[1:3, 2:4] == 0"`: the string's first
  // character is column 9.
  auto k = load("\n[[expect]]\nthat = \"B.sub[1:3, 2:4] == 0\"\n");
  auto r = check_expectations(*k, initial(), finals(Bytes(16, 1)));
  auto ds = driver::expectation_diagnostics(*k, r);
  REQUIRE(ds.items().size() == 1);
  const Diagnostic& d = ds.items()[0];
  CHECK(d.id == DiagId::check_expectation_failed);
  CHECK(d.file == "t.toml");
  CHECK(d.line == 34);
  CHECK(d.column == 9);
  CHECK(d.length == 15); // B.sub[1:3, 2:4] is 15 characters
  CHECK(has(d.message, "4 of 4 elements differ"));
  CHECK(driver::expectation_diagnostics(*k, check_expectations(*k, initial(), finals(Bytes(16, 0))))
            .empty());
}

TEST_CASE("expect: integers are encoded exactly in the element type, or refused") {
  CHECK(expect_value_bytes(tile::DType::uint8, 255) == Bytes{0xFF});
  CHECK_FALSE(expect_value_bytes(tile::DType::uint8, 256));
  CHECK_FALSE(expect_value_bytes(tile::DType::uint8, -1));
  CHECK(expect_value_bytes(tile::DType::int8, -128) == Bytes{0x80});
  CHECK_FALSE(expect_value_bytes(tile::DType::int8, 128));
  CHECK(expect_value_bytes(tile::DType::b8, -1) == Bytes{0xFF});
  CHECK(expect_value_bytes(tile::DType::b8, 255) == Bytes{0xFF});
  CHECK(expect_value_bytes(tile::DType::int16, -2) == Bytes{0xFE, 0xFF});
  CHECK(expect_value_bytes(tile::DType::uint64, 1) == Bytes{1, 0, 0, 0, 0, 0, 0, 0});
  CHECK_FALSE(expect_value_bytes(tile::DType::uint64, -1));
  // float16: 2 = 0x4000, 2048 = 0x6800, 65504 = 0x7BFF (the largest); 2049 needs 12 bits.
  CHECK(expect_value_bytes(tile::DType::float16, 2) == Bytes{0x00, 0x40});
  CHECK(expect_value_bytes(tile::DType::float16, -2048) == Bytes{0x00, 0xE8});
  CHECK(expect_value_bytes(tile::DType::float16, 65504) == Bytes{0xFF, 0x7B});
  CHECK_FALSE(expect_value_bytes(tile::DType::float16, 2049));
  CHECK_FALSE(expect_value_bytes(tile::DType::float16, 65536));
  // bfloat16: 256 = 0x4380; 257 needs 9 significant bits.
  CHECK(expect_value_bytes(tile::DType::bfloat16, 256) == Bytes{0x80, 0x43});
  CHECK_FALSE(expect_value_bytes(tile::DType::bfloat16, 257));
  // float32: 1.0 = 0x3F800000; 2^24 + 1 needs 25 bits.
  CHECK(expect_value_bytes(tile::DType::float32, 1) == Bytes{0, 0, 0x80, 0x3F});
  CHECK_FALSE(expect_value_bytes(tile::DType::float32, 16777217));
  CHECK(expect_value_bytes(tile::DType::float64, 0) == Bytes(8, 0));
}

TEST_CASE("expect: element values in messages are read in their type") {
  CHECK(describe_element(tile::DType::int16, Bytes{0xFE, 0xFF}) == "-2");
  CHECK(describe_element(tile::DType::uint16, Bytes{0xFE, 0xFF}) == "65534");
  CHECK(describe_element(tile::DType::float16, Bytes{0x00, 0x3E}) == "1.5");
  CHECK(describe_element(tile::DType::bfloat16, Bytes{0xC0, 0xBF}) == "-1.5");
  CHECK(describe_element(tile::DType::float32, Bytes{0, 0, 0x80, 0x3F}) == "1");
  CHECK(describe_element(tile::DType::b16, Bytes{0x00, 0xFF}) == "0xff00");
}

TEST_CASE("expect: the reference's result of a kernel that mirrors, and of one that does not") {
  // The copy reads A's column tid into B's row tid (mirrors) or A's row tid (straight).
  auto failed = [](const std::string& src, const std::string& that) {
    std::string text = spec("[[expect]]\nthat = '" + that + "'\n");
    const std::string straight_src = "src = \"A.sub[tid, :]\"";
    text.replace(text.find(straight_src), straight_src.size(), "src = '" + src + "'");
    auto k = load_from(text);
    const Diagnostics ds = driver::reference_findings(*k);
    INFO(ds.format_all());
    for (const Diagnostic& d : ds.items())
      CHECK((d.severity != Severity::error || d.id == DiagId::check_expectation_failed));
    return ds.has_errors();
  };
  const std::string mirror = "A.rearrange(\"a b -> b a\").sub[tid, :]";
  const std::string straight = "A.sub[tid, :]";
  const std::string mirrored = "B == A.rearrange(\"a b -> b a\")";
  const std::string window = "B.rearrange(\"a b -> b a\").sub[1:3, :] == A.sub[1:3, :]";
  CHECK_FALSE(failed(mirror, mirrored));
  CHECK(failed(mirror, "B == A"));
  CHECK(failed(straight, mirrored));
  CHECK_FALSE(failed(straight, "B == A"));
  CHECK_FALSE(failed(mirror, window));
  CHECK(failed(straight, window));
}

TEST_CASE("expect: run refuses a spec whose kernel is wrong before any backend runs") {
  // A fake ptxas that assembles anything: the case must stop at the expectation.
  auto dir = driver::TempDir::create("ptxgen-test-expect-");
  REQUIRE_MESSAGE(dir, dir.error());
  const auto ptxas = dir->path() / "ptxas";
  std::ofstream(ptxas) << "#!/bin/sh\nprintf CUBIN > \"$3\"\n";
  std::filesystem::permissions(ptxas, std::filesystem::perms::owner_all);
  driver::ConformanceOptions o;
  o.backend = driver::Backend::sim;
  o.ptxas = ptxas.string();
  o.jobs = 1;
  const std::filesystem::path root(PTXGEN_SOURCE_DIR);
  auto r = driver::run_conformance(
      {root / "specs/wrong_kernel/copy_half_the_rows.toml", root / "specs/seed/copy_async.toml"}, o,
      {});
  REQUIRE(r.cases.size() == 2);
  const auto& wrong = r.cases[0];
  INFO(wrong.detail);
  CHECK(wrong.status == driver::CaseResult::Status::invalid);
  CHECK(wrong.expectations == 1);
  CHECK(wrong.expectations_failed == 1);
  CHECK(wrong.launch_ms == 0); // it never ran
  CHECK(has(wrong.detail, "[check_expectation_failed]"));
  const auto& seed = r.cases[1];
  INFO(seed.detail);
  CHECK(seed.status == driver::CaseResult::Status::pass);
  CHECK(seed.expectations == 1);
  CHECK(seed.expectations_failed == 0);
  const std::string json = driver::to_json(r);
  CHECK(has(json, "\"status\": \"invalid\""));
  CHECK(has(json, "\"expectations\": 1, \"expectations_failed\": 1"));
  CHECK(has(json, "\"expectations\": 1, \"expectations_failed\": 0"));
}

} // namespace unit_reference_expect
