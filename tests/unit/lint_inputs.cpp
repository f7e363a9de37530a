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
  auto a = parse_arg("k_tiles=7");
  REQUIRE(a);
  CHECK(a->name == "k_tiles");
  CHECK(a->scalar == 7u);
  a = parse_arg("2=0x10");
  REQUIRE(a);
  CHECK(a->name == "2");
  CHECK(a->scalar == 16u);
  a = parse_arg("n=-1");
  REQUIRE(a);
  CHECK(a->scalar == ~0ull);
  a = parse_arg("A=f32[128,32]");
  REQUIRE(a);
  CHECK_FALSE(a->scalar);
  CHECK(a->dtype == "f32");
  CHECK(a->shape == std::vector<std::uint64_t>{128, 32});
  CHECK(a->bytes == 128 * 32 * 4);
  a = parse_arg("B=bf16[3]");
  REQUIRE(a);
  CHECK(a->bytes == 6);
  // a spec's spellings, and the storage types the tile layer has no dtype for
  a = parse_arg("C=uint32[5]");
  REQUIRE(a);
  CHECK(a->dtype == "uint32");
  CHECK(a->bytes == 20);
  a = parse_arg("D=tf32[3,2]");
  REQUIRE(a);
  CHECK(a->bytes == 24);
  a = parse_arg("E=e4m3[7]");
  REQUIRE(a);
  CHECK(a->bytes == 7);
  for (const char* bad : {"=5", "n=", "n", "A=f33[4]", "A=f32[0]", "A=f32[4", "A=f32[4,]", "n=7x",
                          "A=u8[1000000000]"}) {
    const auto refused = parse_arg(bad);
    CHECK_MESSAGE(!refused, bad);
    CHECK_MESSAGE(!refused.error().empty(), bad);
  }
  const auto f33 = parse_arg("A=f33[4]");
  CHECK_FALSE(f33);
  CHECK(f33.error().find("uint32") != std::string::npos); // the choices: the spec's dtypes
  CHECK(f33.error().find("e4m3") != std::string::npos);   // and the storage types
}

TEST_CASE("lint --arg: a tensor map, its keys and the tensor-map rules") {
  auto a = parse_arg("A=u32[30,64]:box[16,32]:swizzle=128B");
  REQUIRE_MESSAGE(a, a.error());
  REQUIRE(a->map);
  CHECK(a->bytes == 30 * 64 * 4);
  CHECK(a->map->rank() == 2u);
  CHECK(a->map->global_dims == std::vector<std::int64_t>{30, 64});
  CHECK(a->map->global_strides == std::vector<std::int64_t>{64 * 4}); // one row of 64 u32
  CHECK(a->map->box_dims == std::vector<std::int64_t>{16, 32});
  CHECK(a->map->swizzle == ptxgen::tile::TensorMapSwizzle::b128);
  CHECK(a->map->oob_fill == ptxgen::tile::TensorMapOobFill::zero);
  a = parse_arg("M=f16[8,16,64]:box[2,4,64]:fill=nan");
  REQUIRE_MESSAGE(a, a.error());
  REQUIRE(a->map);
  CHECK(a->map->global_strides == std::vector<std::int64_t>{16 * 64 * 2, 64 * 2});
  CHECK(a->map->swizzle == ptxgen::tile::TensorMapSwizzle::none);
  CHECK(a->map->oob_fill == ptxgen::tile::TensorMapOobFill::nan);
  CHECK_FALSE(parse_arg("P=u32[30,64]")->map); // no keys: a plain pointer
  // rows 128 bytes apart (a pitched tensor): 3 * 128 + 100 bytes of memory
  a = parse_arg("S=u8[4,100]:box[4,16]:strides[128]");
  REQUIRE_MESSAGE(a, a.error());
  REQUIRE(a->map);
  CHECK(a->map->global_strides == std::vector<std::int64_t>{128});
  CHECK(a->bytes == 3 * 128 + 100);
  a = parse_arg("T=tf32[30,64]:box[16,32]"); // a storage type: 4-byte elements
  REQUIRE_MESSAGE(a, a.error());
  REQUIRE(a->map);
  CHECK(a->map->global_strides == std::vector<std::int64_t>{64 * 4});
  for (const char* bad : {
           "A=u32[30,64]:box[16]",                   // one box extent for two dimensions
           "A=u32[30,64]:box[16,300]",               // a box dimension over 256
           "A=u32[30,64]:box[16,64]:swizzle=128B",   // 256-byte box rows in a 128-byte span
           "A=u32[30,64]:box[16,32]:swizzle=16B",    // no such swizzle
           "A=u32[30,64]:swizzle=128B",              // no box
           "A=u32[30,64]:box[16,32]:fill=nan",       // NaN fill of an integer tensor
           "A=u32[30,64]:box[16,32]:strides[256,4]", // one stride too many
           "A=u32[30,64]:box[16,32]:strides[200]",   // a stride not a multiple of 16
       }) {
    const auto refused = parse_arg(bad);
    CHECK_MESSAGE(!refused, bad);
    CHECK_MESSAGE(!refused.error().empty(), bad);
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
  o.args.push_back(*parse_arg("nosuch=3"));
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
  CHECK_MESSAGE(m.find("--arg 1=TYPE[D0,D1,...]:box[B0,B1,...]") != std::string::npos, m);
  CHECK_MESSAGE(m.find("swizzle=") != std::string::npos, m);
}

TEST_CASE("lint --arg: values of a struct by value, fields at offsets, a pointer to a map") {
  auto a = parse_arg("0=u32{128,0x80,-1}");
  REQUIRE_MESSAGE(a, a.error());
  CHECK(a->raw == std::vector<std::uint8_t>{128, 0, 0, 0, 128, 0, 0, 0, 255, 255, 255, 255});
  CHECK_FALSE(a->offset);
  a = parse_arg("p+8=u16{1}");
  REQUIRE_MESSAGE(a, a.error());
  CHECK(a->name == "p");
  CHECK(a->offset == 8u);
  CHECK(a->raw == std::vector<std::uint8_t>{1, 0});
  a = parse_arg("1=f32{1.5}"); // 1.5f = 0x3FC00000
  REQUIRE_MESSAGE(a, a.error());
  CHECK(a->raw == std::vector<std::uint8_t>{0, 0, 0xC0, 0x3F});
  a = parse_arg("4=@bf16[256,256]:box[64,64]");
  REQUIRE_MESSAGE(a, a.error());
  CHECK(a->indirect);
  REQUIRE(a->map);
  CHECK(a->bytes == 256 * 256 * 2);
  for (const char* bad : {"0=u32{}", "0=u7{1}", "0=u32{1,x}", "0=u32{1", "0=@u32[4]", "+8=u32{1}",
                          "0+x=u32{1}", "0=f16{1.0}"}) {
    const auto refused = parse_arg(bad);
    CHECK_MESSAGE(!refused, bad);
    CHECK_MESSAGE(!refused.error().empty(), bad);
  }
}

// A struct {u32* p; u32 i;} and a shape {u32 m, n, k} by value: traps unless m + n + k = 6,
// then stores the sum at p[i].
const char* const struct_text = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry s(.param .align 8 .b8 st[16], .param .align 4 .b8 shape[12])
.reqntid 1
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [shape];
  ld.param.u32 %r2, [shape+4];
  ld.param.u32 %r3, [shape+8];
  add.u32 %r4, %r1, %r2;
  add.u32 %r4, %r4, %r3;
  setp.ne.u32 %p1, %r4, 6;
  @%p1 trap;
  ld.param.u64 %rd1, [st];
  ld.param.u32 %r5, [st+8];
  mul.wide.u32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

std::vector<KernelReport> lint_with(const std::string& text, std::vector<std::string> args) {
  Options o;
  o.grid = ptxgen::sim::Dim3{1, 1, 1};
  for (const std::string& t : args) {
    auto a = parse_arg(t);
    REQUIRE_MESSAGE(a, a.error());
    o.args.push_back(*a);
  }
  return lint_text(text, "x.ptx", o);
}

TEST_CASE("lint: a struct by value gets its fields' values and memory from --arg") {
  const std::vector<std::string> fields = {"0=u32[4]", "0+8=u32{3}"};
  auto with = [&](std::vector<std::string> more) {
    more.insert(more.end(), fields.begin(), fields.end());
    return lint_with(struct_text, more);
  };
  auto r = with({"1=u32{1,2,3}"});
  REQUIRE(r.size() == 1);
  CHECK_MESSAGE(r[0].status == KernelStatus::clean, r[0].error);
  CHECK(r[0].coverage.instructions > 0);
  r = with({"1=u32{1,2,4}"}); // the sum is 7: the kernel traps
  REQUIRE(r[0].findings.size() == 1);
  CHECK(r[0].findings[0].kind == FindingKind::fault);
  CHECK(r[0].findings[0].fault_kind == ptxgen::sim::FaultKind::trap);
  r = with({"1+0=u32{1}", "1+4=u32{2,3}"}); // field by field: the same bytes
  CHECK(r[0].status == KernelStatus::clean);
  // p[4] is past the 4 words of the field's memory: out of bounds, named by the field
  r = lint_with(struct_text, {"1=u32{1,2,3}", "0=u32[4]", "0+8=u32{4}"});
  REQUIRE(r[0].findings.size() == 1);
  CHECK(r[0].findings[0].kind == FindingKind::out_of_bounds);
  CHECK(r[0].findings[0].symbol == "st+0");
  CHECK(r[0].findings[0].offset == 16);
  // without the shape's bytes: unsupported, with the --arg that gives them
  r = lint_with(struct_text, fields);
  CHECK(r[0].status == KernelStatus::unsupported);
  REQUIRE(r[0].findings.size() == 1);
  CHECK_MESSAGE(r[0].findings[0].message.find("--arg 1=u32{V0,V1,...}") != std::string::npos,
                r[0].findings[0].message);
  // a number has no width in a struct; values that do not fit it
  for (const char* bad : {"1=6", "1=u32{1,2,3,4}", "1+8=u64{1}", "0+12=u32[4]"}) {
    r = with({bad});
    CHECK_MESSAGE(r[0].status == KernelStatus::usage, bad);
  }
}

// One thread loads a 1-D box of 64 u32 through the map its first parameter points to.
const char* const map_pointer_text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_map)
.reqntid 1
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 128 .b8 tile[256];
  .shared .align 8 .b8 bar[8];
  ld.param.u64 %rd2, [k_map];
  mov.u32 %r1, tile;
  mov.u32 %r2, bar;
  mov.u32 %r3, 0;
  mbarrier.init.shared::cta.b64 [%r2], 1;
  mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r2], 256;
  cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r3}], [%r2];
WAIT:
  mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r2], 0;
  @!%p1 bra WAIT;
  ld.shared.u32 %r4, [%r1+252];
  ret;
}
)";

TEST_CASE("lint: a pointer to a tensor map in global memory (`const CUtensorMap*`)") {
  auto r = lint_with(map_pointer_text, {"0=@u32[64]:box[64]"});
  REQUIRE(r.size() == 1);
  CHECK_MESSAGE(r[0].status == KernelStatus::clean, r[0].error);
  CHECK(r[0].coverage.async_copies == 1);
  // Without it the parameter is a region of random bytes, which hold no map: unsupported at the
  // copy, with the --arg forms that describe one.
  r = lint_with(map_pointer_text, {});
  CHECK(r[0].status == KernelStatus::unsupported);
  REQUIRE(r[0].findings.size() == 1);
  CHECK(r[0].findings[0].line == 18);
  CHECK_MESSAGE(r[0].findings[0].message.find("K=@TYPE[D0,...]:box[B0,...]") != std::string::npos,
                r[0].findings[0].message);
}

TEST_CASE("lint: a run started again for a grown region passes each tensor map once") {
  // The map parameter's copy, then a store 70000 bytes into `out`: past the 64 KiB region lint
  // starts with, so the run starts again with the region grown.
  std::string text = map_pointer_text;
  const auto replace = [&](const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace(".param .u64 k_map)", ".param .align 64 .b8 k_map[128], .param .u64 k_out)");
  replace("ld.param.u64 %rd2, [k_map];", "mov.b64 %rd1, k_map;\n  cvta.param.u64 %rd2, %rd1;");
  replace("ret;", "ld.param.u64 %rd3, [k_out];\n  st.global.u32 [%rd3+70000], %r4;\n  ret;");
  const auto r = lint_with(text, {"0=u32[64]:box[64]"});
  REQUIRE(r.size() == 1);
  CHECK_MESSAGE(r[0].status == KernelStatus::clean, r[0].error);
  REQUIRE(r[0].params.size() == 2);
  CHECK(r[0].params[1].bytes == 256 * 1024); // grown once: four times the first 64 KiB
}

} // namespace unit_lint_inputs
