// `ptxgen lint`'s inputs (driver/lint): --arg values, and what it takes from the simulator's
// reader (.funcs of a file with no entry, .maxntid, the parameters --arg names). Expected
// values are worked out from the inputs by hand.

#include "driver/lint/detail.hpp"
#include "driver/lint/lint.hpp"

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

namespace unit_lint_inputs {

using namespace ptxgen::lint;

TEST_CASE("lint --arg: scalars, sized pointers and what is neither") {
  std::string error;
  auto a = parse_arg("k_tiles=7", error);
  REQUIRE(a);
  CHECK(a->name == "k_tiles");
  CHECK(a->scalar == 7u);
  a = parse_arg("2=0x10", error);
  REQUIRE(a);
  CHECK(a->name == "2");
  CHECK(a->scalar == 16u);
  a = parse_arg("n=-1", error);
  REQUIRE(a);
  CHECK(a->scalar == ~0ull);
  a = parse_arg("A=f32[128,32]", error);
  REQUIRE(a);
  CHECK_FALSE(a->scalar);
  CHECK(a->dtype == "f32");
  CHECK(a->shape == std::vector<std::uint64_t>{128, 32});
  CHECK(a->bytes == 128 * 32 * 4);
  a = parse_arg("B=bf16[3]", error);
  REQUIRE(a);
  CHECK(a->bytes == 6);
  // a spec's spellings, and the storage types the tile layer has no dtype for
  a = parse_arg("C=uint32[5]", error);
  REQUIRE(a);
  CHECK(a->dtype == "uint32");
  CHECK(a->bytes == 20);
  a = parse_arg("D=tf32[3,2]", error);
  REQUIRE(a);
  CHECK(a->bytes == 24);
  a = parse_arg("E=e4m3[7]", error);
  REQUIRE(a);
  CHECK(a->bytes == 7);
  for (const char* bad : {"=5", "n=", "n", "A=f33[4]", "A=f32[0]", "A=f32[4", "A=f32[4,]", "n=7x",
                          "A=u8[1000000000]"}) {
    error.clear();
    CHECK_MESSAGE(!parse_arg(bad, error), bad);
    CHECK_MESSAGE(!error.empty(), bad);
  }
  CHECK_FALSE(parse_arg("A=f33[4]", error));
  CHECK(error.find("uint32") != std::string::npos); // the choices: the spec's dtypes
  CHECK(error.find("e4m3") != std::string::npos);   // and the storage types
}

TEST_CASE("lint --arg: a tensor map, its keys and the tensor-map rules") {
  std::string error;
  auto a = parse_arg("A=u32[30,64]:box[16,32]:swizzle=128B", error);
  REQUIRE_MESSAGE(a, error);
  REQUIRE(a->map);
  CHECK(a->bytes == 30 * 64 * 4);
  CHECK(a->map->rank() == 2u);
  CHECK(a->map->global_dims == std::vector<std::int64_t>{30, 64});
  CHECK(a->map->global_strides == std::vector<std::int64_t>{64 * 4}); // one row of 64 u32
  CHECK(a->map->box_dims == std::vector<std::int64_t>{16, 32});
  CHECK(a->map->swizzle == ptxgen::tile::TensorMapSwizzle::b128);
  CHECK(a->map->oob_fill == ptxgen::tile::TensorMapOobFill::zero);
  a = parse_arg("M=f16[8,16,64]:box[2,4,64]:fill=nan", error);
  REQUIRE_MESSAGE(a, error);
  REQUIRE(a->map);
  CHECK(a->map->global_strides == std::vector<std::int64_t>{16 * 64 * 2, 64 * 2});
  CHECK(a->map->swizzle == ptxgen::tile::TensorMapSwizzle::none);
  CHECK(a->map->oob_fill == ptxgen::tile::TensorMapOobFill::nan);
  CHECK_FALSE(parse_arg("P=u32[30,64]", error)->map); // no keys: a plain pointer
  a = parse_arg("T=tf32[30,64]:box[16,32]", error);   // a storage type: 4-byte elements
  REQUIRE_MESSAGE(a, error);
  REQUIRE(a->map);
  CHECK(a->map->global_strides == std::vector<std::int64_t>{64 * 4});
  for (const char* bad : {
           "A=u32[30,64]:box[16]",                 // one box extent for two dimensions
           "A=u32[30,64]:box[16,300]",             // a box dimension over 256
           "A=u32[30,64]:box[16,64]:swizzle=128B", // 256-byte box rows in a 128-byte span
           "A=u32[30,64]:box[16,32]:swizzle=16B",  // no such swizzle
           "A=u32[30,64]:swizzle=128B",            // no box
           "A=u32[30,64]:box[16,32]:fill=nan",     // NaN fill of an integer tensor
       }) {
    error.clear();
    CHECK_MESSAGE(!parse_arg(bad, error), bad);
    CHECK_MESSAGE(!error.empty(), bad);
  }
}

const char* const funcs_text = R"(.version 8.0
.target sm_80
// .entry in a comment does not count
.extern .func (.param .b32 r) declared_only(.param .b32 a);
.weak .func returns_one(.param .b64 p) /* no body yet */
{
  ret;
}
.func (.param .b32 r) with_result(.param .b32 a)
{
  ret;
}
)";

TEST_CASE("lint: the .funcs of a file with no entry, read once by the simulator's reader") {
  Options o;
  o.block = ptxgen::sim::Dim3{32, 1, 1};
  const LintFile f = read_ptx(funcs_text, "funcs.ptx", o);
  REQUIRE(f.kernels.size() == 2); // declared_only has no body
  CHECK(f.kernels[0].name == "returns_one");
  CHECK(f.kernels[0].is_func);
  CHECK_FALSE(f.kernels[0].refused);
  CHECK(f.kernels[1].name == "with_result");
  REQUIRE(f.kernels[1].refused);
  CHECK(f.kernels[1].refused->status == KernelStatus::unsupported);
  const auto reports = lint_file(f, o);
  REQUIRE(reports.size() == 2);
  CHECK(reports[0].status == KernelStatus::clean);
  CHECK(reports[0].is_func);
  CHECK(reports[0].params.size() == 1); // p, a pointer: the .func's own parameter
  // Without a launch: what to give.
  const LintFile none = read_ptx(funcs_text, "funcs.ptx", Options{});
  REQUIRE(none.kernels.size() == 1);
  REQUIRE(none.kernels[0].refused);
  CHECK(none.kernels[0].refused->status == KernelStatus::usage);
  CHECK(none.kernels[0].refused->error.find("--block") != std::string::npos);
}

TEST_CASE("lint: .maxntid of the entry named, not of another") {
  const std::string text = ".version 8.0\n.target sm_80\n"
                           ".visible .entry first(.param .u64 p)\n.maxntid 64, 2, 1\n{\n ret;\n}\n"
                           ".visible .entry second(.param .u64 p)\n.reqntid 32\n{\n ret;\n}\n"
                           ".visible .entry third(.param .u64 p)\n.maxntid 256\n{\n ret;\n}\n";
  const auto reports = lint_text(text, "x.ptx", Options{});
  REQUIRE(reports.size() == 3);
  CHECK(reports[0].block == ptxgen::sim::Dim3{64, 2, 1});
  CHECK(reports[1].block == ptxgen::sim::Dim3{32, 1, 1});
  CHECK(reports[2].block == ptxgen::sim::Dim3{256, 1, 1});
}

TEST_CASE("lint: an --arg that names no parameter is refused before anything runs") {
  // The entry would run for ever (a loop with no exit): a run would hit the instruction limit.
  const std::string text = ".version 8.0\n.target sm_80\n"
                           ".visible .entry spin(.param .u64 p)\n{\nL:\n bra L;\n}\n";
  Options o;
  std::string error;
  o.args.push_back(*parse_arg("nosuch=3", error));
  std::vector<LintFile> files;
  files.push_back(read_ptx(text, "x.ptx", o));
  const auto why = unmatched_args(files, o);
  REQUIRE(why);
  CHECK(why->find("--arg nosuch") != std::string::npos);
  CHECK(why->find("0 p") != std::string::npos);
  const auto reports = lint_text(text, "x.ptx", o);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].status == KernelStatus::usage);
  CHECK(reports[0].coverage.instructions == 0);
  o.args[0].name = "0"; // by index: it names p
  CHECK_FALSE(unmatched_args(files, o));
}

TEST_CASE("lint: an unsupported line is reported when a run reaches it, not before") {
  // Every thread branches over line 11 (tid < 1024 always holds) and reaches line 13.
  const std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n" // 1-3
                           ".visible .entry k(.param .u64 p)\n{\n"           // 4-5
                           " .reg .pred %p<2>;\n .reg .b32 %r<2>;\n"         // 6-7
                           " mov.u32 %r1, %tid.x;\n"                         // 8
                           " setp.lt.u32 %p1, %r1, 1024;\n"                  // 9
                           " @%p1 bra SKIP;\n"                               // 10
                           " pmevent 1;\n"                                   // 11
                           "SKIP:\n"                                         // 12
                           " pmevent 2;\n"                                   // 13
                           " ret;\n}\n";
  const auto reports = lint_text(text, "x.ptx", Options{});
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].status == KernelStatus::unsupported);
  REQUIRE(reports[0].findings.size() == 1);
  CHECK(reports[0].findings[0].kind == FindingKind::unsupported);
  CHECK(reports[0].findings[0].line == 13);
}

TEST_CASE("lint: a tensor map without an --arg is unsupported with the --arg that describes it") {
  const std::string text = ".version 8.0\n.target sm_90\n"
                           ".visible .entry tma(.param .u64 p, .param .align 64 .b8 map[128])\n"
                           "{\n ret;\n}\n";
  const auto reports = lint_text(text, "x.ptx", Options{});
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].status == KernelStatus::unsupported);
  REQUIRE(reports[0].findings.size() == 1);
  const std::string& m = reports[0].findings[0].message;
  CHECK_MESSAGE(m.find("--arg map=TYPE[D0,D1,...]:box[B0,B1,...]") != std::string::npos, m);
  CHECK_MESSAGE(m.find("swizzle=") != std::string::npos, m);
}

} // namespace unit_lint_inputs
