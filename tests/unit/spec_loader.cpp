// The TOML spec loader: the seed kernel's IR, and diagnostics at exact file positions,
// also inside view, expression, opcode and cache-policy strings.
//
// Every expected line and column below was counted by hand from the spec text in
// the test (line 1 is the first line of the raw string).

#include "driver/toml/reader_spec.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/tile/contract.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_spec_loader {

using namespace ptxgen;
using ptxgen::driver::load_spec_file;
using ptxgen::driver::load_spec_text;

namespace {

// docs/spec-format.md: the seed's complete kernel.
constexpr std::string_view kSeed = R"TOML([kernel]
name = "copy_async"
grid = 1
block = 128

[tensor.A]
space = "global"
shape = [128, 32]
dtype = "float16"
init = "arange % 97"

[tensor.B]
space = "global"
shape = [128, 32]
dtype = "float16"
output = true

[tensor.shared]
space = "shared"
shape = [128, 32]
dtype = "float16"

[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = 'shared.rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8)'
src = 'A.rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8)'
chunk_bytes = 16
scope = "cta"

[[op]]
op = "commit_group"

[[op]]
op = "wait_group"
n = 0

[[op]]
op = "cta_sync"

[[op]]
op = "copy"             # synchronous copy, lowered to ld/st
dst = "B.sub[tid, :]"
src = "shared.sub[tid, :]"
)TOML";

// Lines 1..18 of most error cases; the case's own text starts at line 19.
constexpr std::string_view kHeader = R"TOML([kernel]
name = "k"
block = 32

[tensor.A]
space = "global"
shape = [32, 16]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [32, 16]
dtype = "uint8"

[param.valid_rows]
dtype = "u32"
value = 20

)TOML";

// Lines 19..23: an apply without chunk_bytes; cases append from line 24.
constexpr std::string_view kApplyHead = R"TOML([[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = "S.sub[tid, :]"
src = "A.sub[tid, :]"
)TOML";

using KernelResult = Result<std::unique_ptr<tile::Kernel>>;

KernelResult load(std::string_view text) {
  return load_spec_text(text, "test.toml");
}

KernelResult load_case(std::string_view body) {
  return load(std::string(kHeader) + std::string(body));
}

/// The error diagnostics of r.
std::vector<Diagnostic> errors(const KernelResult& r) {
  std::vector<Diagnostic> out;
  for (const auto& d : r.diagnostics.items())
    if (d.severity == Severity::error)
      out.push_back(d);
  return out;
}

/// Exactly one error, at line:column, `length` wide (0: any), its message containing `fragment`.
void check_single_error(const KernelResult& r, std::uint32_t line, std::uint32_t column,
                        std::uint32_t length, std::string_view fragment) {
  CHECK_FALSE(r);
  auto es = errors(r);
  INFO(r.diagnostics.format_all());
  REQUIRE(es.size() == 1);
  const Diagnostic& d = es.front();
  CHECK(d.file == "test.toml");
  CHECK(d.line == line);
  CHECK(d.column == column);
  if (length != 0)
    CHECK(d.length == length);
  CHECK(d.message.find(fragment) != std::string::npos);
  CHECK(format(d).rfind(
            "test.toml:" + std::to_string(line) + ":" + std::to_string(column) + ": error: ", 0) ==
        0);
}

/// Some error at line:column whose message contains `fragment`.
bool has_error(const KernelResult& r, std::uint32_t line, std::uint32_t column,
               std::string_view fragment) {
  for (const auto& d : errors(r))
    if (d.line == line && d.column == column && d.message.find(fragment) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST_CASE("the seed spec loads into the expected kernel IR") {
  auto r = load(kSeed);
  INFO(r.diagnostics.format_all());
  REQUIRE(r);
  const tile::Kernel& k = **r;
  CHECK(r.diagnostics.empty());
  CHECK(k.name == "copy_async");
  CHECK(k.grid == 1);
  CHECK(k.block == 128);
  CHECK(k.file == "test.toml");
  CHECK(k.params.empty());

  REQUIRE(k.tensors.size() == 3);
  const tile::TensorDecl& a = *k.tensors[0];
  const tile::TensorDecl& b = *k.tensors[1];
  const tile::TensorDecl& s = *k.tensors[2];
  CHECK(a.tensor.name == "A");
  CHECK(a.tensor.space == tile::Space::global);
  CHECK(a.tensor.shape == std::vector<std::int64_t>{128, 32});
  CHECK(a.tensor.dtype == tile::DType::float16);
  CHECK(a.tensor.align == 16);
  CHECK(a.init.kind == tile::TensorInit::Kind::arange_mod);
  CHECK(a.init.modulus == 97);
  CHECK_FALSE(a.output);
  CHECK(a.pos.line == 6);
  CHECK(a.pos.column == 1);
  CHECK(a.pos.source_line == "[tensor.A]");
  CHECK(b.tensor.name == "B");
  CHECK(b.output);
  CHECK(b.init.kind == tile::TensorInit::Kind::zero);
  CHECK(s.tensor.name == "shared");
  CHECK(s.tensor.space == tile::Space::shared);
  CHECK(s.tensor.align == 128);
  CHECK(s.pos.line == 18);

  REQUIRE(k.ops.size() == 5);
  CHECK(k.ops[0].pos.line == 23);
  CHECK(k.ops[0].pos.column == 1);
  CHECK(k.ops[0].pos.file == "test.toml");
  REQUIRE(std::holds_alternative<tile::ApplyOp>(k.ops[0].body));
  const auto& apply = std::get<tile::ApplyOp>(k.ops[0].body);
  CHECK(apply.opcode.value.cache_op == ptx::CacheOp::cg);
  CHECK(apply.opcode.value.dst_space == ptx::SharedSpace::shared);
  CHECK_FALSE(apply.opcode.value.cache_hint);
  CHECK(apply.opcode.value.prefetch == ptx::L2Prefetch::none);
  CHECK(apply.opcode.text == "cp.async.cg.shared.global");
  // `opcode = "`: the quote is column 10, the string's first byte column 11.
  CHECK(apply.opcode.pos.line == 25);
  CHECK(apply.opcode.pos.column == 11);
  CHECK(apply.chunk_bytes.value == 16);
  CHECK(apply.chunk_bytes.pos.line == 28);
  CHECK(apply.chunk_bytes.pos.column == 15);
  CHECK(apply.scope == tile::Scope::cta);
  CHECK_FALSE(apply.src_size);
  CHECK_FALSE(apply.ignore_src);
  CHECK_FALSE(apply.pred);
  CHECK_FALSE(apply.cache_policy);
  // (128, 32) split as (w t) (r v) with w=4, t=32, v=8: (4, 32, 4, 8).
  CHECK(apply.dst.value.tensor == &s.tensor);
  CHECK(apply.src.value.tensor == &a.tensor);
  CHECK(apply.dst.value.shape() == std::vector<std::int64_t>{4, 32, 4, 8});
  CHECK(apply.src.value.shape() == std::vector<std::int64_t>{4, 32, 4, 8});
  CHECK(apply.dst.pos.line == 26);
  CHECK(apply.dst.pos.column == 8);
  CHECK(apply.dst.text == "shared.rearrange(\"(w t) (r v) -> w t r v\", w=4, t=32, v=8)");
  CHECK(apply.src.pos.line == 27);
  CHECK(apply.src.pos.source_line ==
        "src = 'A.rearrange(\"(w t) (r v) -> w t r v\", w=4, t=32, v=8)'");

  CHECK(std::holds_alternative<tile::CommitGroupOp>(k.ops[1].body));
  REQUIRE(std::holds_alternative<tile::WaitGroupOp>(k.ops[2].body));
  CHECK(std::get<tile::WaitGroupOp>(k.ops[2].body).n == 0);
  CHECK(k.ops[2].pos.line == 34);
  CHECK(std::holds_alternative<tile::CtaSyncOp>(k.ops[3].body));
  REQUIRE(std::holds_alternative<tile::CopyOp>(k.ops[4].body));
  const auto& copy = std::get<tile::CopyOp>(k.ops[4].body);
  CHECK(copy.dst.value.tensor == &b.tensor);
  CHECK(copy.src.value.tensor == &s.tensor);
  CHECK(copy.dst.value.shape() == std::vector<std::int64_t>{32});
  CHECK(copy.dst.pos.line == 43);
  CHECK(copy.dst.pos.column == 8);
}

TEST_CASE("a spec file on disk loads like its text, and a missing file is an error") {
  const std::string path = std::string(PTXGEN_SOURCE_DIR) + "/tests/data/spec/seed.toml";
  auto r = load_spec_file(path);
  INFO(r.diagnostics.format_all());
  REQUIRE(r);
  CHECK((*r)->name == "copy_async");
  CHECK((*r)->file == path);
  CHECK((*r)->ops.size() == 5);
  REQUIRE((*r)->ops.size() == 5);
  CHECK((*r)->ops[0].pos.file == path);

  auto missing = load_spec_file(std::string(PTXGEN_SOURCE_DIR) + "/tests/data/spec/nope.toml");
  CHECK_FALSE(missing);
  REQUIRE(missing.diagnostics.items().size() == 1);
  CHECK(missing.diagnostics.items().front().message.find("no such spec file") != std::string::npos);
}

TEST_CASE("a TOML syntax error is reported at its line and column") {
  // `block = = 32`: the second '=' (column 9) cannot start a value.
  check_single_error(load("[kernel]\nname = \"k\"\nblock = = 32\n"), 3, 9, 1, "invalid TOML");
}

TEST_CASE("unknown keys are errors at the key, with a suggestion") {
  auto r = load_case(std::string(kApplyHead) + "chunk_byte = 16\n");
  INFO(r.diagnostics.format_all());
  CHECK_FALSE(r);
  CHECK(has_error(r, 24, 1, "unknown key 'chunk_byte' in [[op]] 1; did you mean 'chunk_bytes'?"));
  auto es = errors(r);
  REQUIRE(es.size() == 2); // and chunk_bytes is then missing, reported at the [[op]] header
  CHECK(es[0].line == 19);
  CHECK(es[1].line == 24);
  CHECK(es[1].length == 10);

  // Far from every key: the list of valid ones instead.
  check_single_error(load("[kernel]\nname = \"k\"\nblock = 32\nwhatever = 1\n"), 4, 1, 8,
                     "unknown key 'whatever' in [kernel]; expected one of: name, grid, block");
  check_single_error(load("[kernel]\nname = \"k\"\nblock = 32\n[tensors.A]\n"), 4, 2, 7,
                     "did you mean 'tensor'?");
}

TEST_CASE("chunk_bytes is required and must be an integer literal") {
  check_single_error(
      load_case(kApplyHead), 19, 1, 0,
      "is missing 'chunk_bytes' (an integer literal 4, 8 or 16; no width is inferred "
      "from the layout)");
  // `chunk_bytes = "16"`: the value starts at column 15 and is 4 bytes wide.
  check_single_error(load_case(std::string(kApplyHead) + "chunk_bytes = \"16\"\n"), 24, 15, 4,
                     "chunk_bytes must be an integer literal");
}

TEST_CASE("src_size and ignore_src together are an error at the second one") {
  const std::string msg =
      "src_size and ignore_src are alternative operand forms and cannot both be supplied";
  check_single_error(
      load_case(std::string(kApplyHead) + "chunk_bytes = 16\nignore_src = true\nsrc_size = 8\n"),
      26, 1, 8, msg);
  check_single_error(
      load_case(std::string(kApplyHead) + "src_size = 8\nchunk_bytes = 16\nignore_src = true\n"),
      26, 1, 10, msg);
}

TEST_CASE("a bad dtype lists the valid names and aliases, or suggests a close one") {
  auto r = load("[kernel]\nname = \"k\"\nblock = 32\n\n[tensor.A]\nspace = \"global\"\n"
                "shape = [32, 16]\ndtype = \"complex64\"\n");
  check_single_error(r, 8, 9, 11, "unknown dtype 'complex64'; expected one of:");
  auto es = errors(r);
  REQUIRE(!es.empty());
  CHECK(es.front().id == DiagId::spec_unknown_dtype);
  for (std::string_view n : {"uint8", "float16", "bfloat16", "float32", "b64", "(or an alias: u8",
                             "bf16", "bfloat", "half", "double"})
    CHECK(es.front().message.find(n) != std::string::npos);
  // A near miss gets the nearest spelling instead of the whole list.
  auto near = load("[kernel]\nname = \"k\"\nblock = 32\n\n[tensor.A]\nspace = \"global\"\n"
                   "shape = [32, 16]\ndtype = \"float17\"\n");
  check_single_error(near, 8, 9, 9, "unknown dtype 'float17'; did you mean 'float16'?");
}

TEST_CASE("errors inside view strings land on the bad character of the file line") {
  // `src = "A.sub[nrows, :]"`: the string starts at column 8, `nrows` at offset 6.
  check_single_error(
      load_case("[[op]]\nop = \"copy\"\ndst = \"S.sub[tid, :]\"\nsrc = \"A.sub[nrows, :]\"\n"), 22,
      14, 5, "nrows");
  // The same in a literal string, and an unknown tensor at the string's first byte.
  check_single_error(
      load_case("[[op]]\nop = \"copy\"\ndst = 'S.sub[tid, :]'\nsrc = 'A.sub[nrows, :]'\n"), 22, 14,
      5, "nrows");
  check_single_error(load_case("[[op]]\nop = \"copy\"\ndst = \"Q.sub[tid, :]\"\n"
                               "src = \"A.sub[tid, :]\"\n"),
                     21, 8, 1, "unknown tensor 'Q'");
  // An escape breaks the column mapping: the error falls back to the opening quote.
  check_single_error(load_case("[[op]]\nop = \"copy\"\ndst = \"S.sub[tid, :]\"\n"
                               "src = \"A.sub[nrow\\u0073, :]\"\n"),
                     22, 7, 1, "nrows");
}

TEST_CASE("errors inside expression strings land on the bad character of the file line") {
  // `src_size = "`: the quote is column 12, so offset 6 (`valid_rowz`) is column 19.
  auto r = load_case(std::string(kApplyHead) +
                     "chunk_bytes = 16\nsrc_size = \"tid < valid_rowz ? 16 : 0\"\n");
  check_single_error(r, 25, 19, 10, "valid_rowz");
  // A declared parameter is accepted and kept as an expression.
  auto ok = load_case(std::string(kApplyHead) +
                      "chunk_bytes = 16\nsrc_size = \"tid < valid_rows ? 16 : 0\"\npred = false\n");
  INFO(ok.diagnostics.format_all());
  REQUIRE(ok);
  const auto& a = std::get<tile::ApplyOp>((*ok)->ops.at(0).body);
  REQUIRE(a.src_size);
  CHECK(a.src_size->text == "tid < valid_rows ? 16 : 0");
  CHECK(a.src_size->pos.column == 13);
  CHECK(a.src_size->value->kind == tile::ExprKind::select);
  REQUIRE(a.pred);
  CHECK(a.pred->value->kind == tile::ExprKind::constant);
  CHECK(a.pred->value->value == 0); // pred = false: the copy is suppressed
  REQUIRE((*ok)->params.size() == 1);
  CHECK((*ok)->params[0].name == "valid_rows");
  CHECK((*ok)->params[0].value == 20);
  CHECK_FALSE((*ok)->params[0].is_u64);
}

TEST_CASE("errors inside opcode strings land on the bad qualifier") {
  // `opcode = "`: the string starts at column 11; `.cs` is at offset 8 (0-based), 3 wide.
  check_single_error(load_case("[[op]]\nop = \"apply\"\nopcode = \"cp.async.cs.shared.global\"\n"
                               "dst = \"S.sub[tid, :]\"\nsrc = \"A.sub[tid, :]\"\n"
                               "chunk_bytes = 16\n"),
                     21, 19, 3, "cache operator");
  // A qualifier missing altogether: the whole opcode (22 bytes from column 11) is underlined.
  check_single_error(load_case("[[op]]\nop = \"apply\"\nopcode = \"cp.async.shared.global\"\n"
                               "dst = \"S.sub[tid, :]\"\nsrc = \"A.sub[tid, :]\"\n"
                               "chunk_bytes = 16\n"),
                     21, 11, 22, "missing cache operator");
}

TEST_CASE("several errors are reported at once, in file order") {
  auto r = load_case("[[op]]\nop = \"wait_group\"\nn = -1\n\n"                     // 19..22
                     "[[op]]\nop = \"aply\"\n\n"                                   // 23..25
                     "[[op]]\nop = \"copy\"\ndst = 7\nsrc = \"A.sub[tid, :]\"\n"); // 26..29
  INFO(r.diagnostics.format_all());
  CHECK_FALSE(r);
  auto es = errors(r);
  REQUIRE(es.size() == 3);
  CHECK(es[0].line == 21);
  CHECK(es[0].column == 5);
  CHECK(es[0].message.find("0..") != std::string::npos);
  CHECK(es[1].line == 24);
  CHECK(es[1].column == 6);
  CHECK(es[1].message.find("did you mean 'apply'?") != std::string::npos);
  CHECK(es[2].line == 28);
  CHECK(es[2].column == 7);
  CHECK(es[2].message.find("got an integer") != std::string::npos);
}

TEST_CASE("several errors carry the IDs of their rules") {
  auto r = load_case("[[op]]\nop = \"wait_group\"\nn = -1\n\n"                     // 19..22
                     "[[op]]\nop = \"aply\"\n\n"                                   // 23..25
                     "[[op]]\nop = \"copy\"\ndst = 7\nsrc = \"A.sub[tid, :]\"\n"); // 26..29
  auto es = errors(r);
  REQUIRE(es.size() == 3);
  CHECK(es[0].id == DiagId::contract_wait_group_range);
  CHECK(es[1].id == DiagId::spec_unknown_op);
  CHECK(es[2].id == DiagId::spec_wrong_type);
  CHECK(format(es[1]).find(" [spec_unknown_op]\n") != std::string::npos);
}

TEST_CASE("wait_group n is limited by ptx::max_wait_group, in the loader and in the contract") {
  const std::string top = "[[op]]\nop = \"wait_group\"\nn = " + std::to_string(ptx::max_wait_group);
  auto ok = load_case(top + "\n");
  INFO(ok.diagnostics.format_all());
  REQUIRE(ok);
  CHECK_FALSE(tile::check_contract(**ok).has_errors());
  auto over = load_case(
      "[[op]]\nop = \"wait_group\"\nn = " + std::to_string(ptx::max_wait_group + 1) + "\n");
  REQUIRE(errors(over).size() == 1);
  CHECK(errors(over)[0].id == DiagId::contract_wait_group_range);
  CHECK(errors(over)[0].message.find("0.." + std::to_string(ptx::max_wait_group) + ";") !=
        std::string::npos);
  // A kernel built in C++ skips the loader: the contract has the same limit.
  std::get<tile::WaitGroupOp>((*ok)->ops.back().body).n = ptx::max_wait_group + 1;
  const auto ds = tile::check_contract(**ok);
  CHECK(ds.has(DiagId::contract_wait_group_range));
}

TEST_CASE("misspelt names get the nearest valid one, wherever they are reported") {
  struct Case {
    std::string body;
    DiagId id;
    std::string suggestion;
  };
  const Case cases[] = {
      {"[tensor.B]\nspace = \"shraed\"\nshape = [4]\ndtype = \"uint8\"\n",
       DiagId::spec_unknown_space, "did you mean 'shared'?"},
      {"[tensor.B]\nspace = \"global\"\nshape = [4]\ndtype = \"unit8\"\n",
       DiagId::spec_unknown_dtype, "did you mean 'uint8'?"},
      {"[param.p]\ndtype = \"u46\"\nvalue = 1\n", DiagId::spec_param_dtype, "did you mean 'u64'?"},
      {std::string(kApplyHead) + "chunk_bytes = 16\nsrc_size = \"valid_row\"\n",
       DiagId::expr_unknown_name, "did you mean 'valid_rows'?"},
      {"[[op]]\nop = \"copy\"\ndst = \"S.sub[tdi, :]\"\nsrc = \"A.sub[tid, :]\"\n",
       DiagId::expr_unknown_name, "did you mean 'tid'?"},
      {"[tensor.shared]\nspace = \"shared\"\nshape = [32, 16]\ndtype = \"uint8\"\n\n"
       "[[op]]\nop = \"copy\"\ndst = \"shraed.sub[tid, :]\"\nsrc = \"A.sub[tid, :]\"\n",
       DiagId::view_unknown_tensor, "did you mean 'shared'?"},
      {"[[op]]\nop = \"copy\"\ndst = \"S.sub[tid, :]\"\nsrc = \"A.subb[tid, :]\"\n",
       DiagId::view_unknown_method, "did you mean 'sub'?"},
      {"[[op]]\nop = \"fil\"\n", DiagId::spec_unknown_op, "did you mean 'fill'?"},
      {"[kernal]\n", DiagId::spec_unknown_key, "did you mean 'kernel'?"},
      {"[tensor.B]\nspace = \"global\"\nshape = [4]\ndtype = \"uint8\"\ninit = \"arrange % 7\"\n",
       DiagId::spec_bad_init, "did you mean 'arange'?"},
      {std::string(kApplyHead) + "chunk_bytes = 16\ncache_policy = \"createpolicy(evict_frist)\"\n",
       DiagId::spec_unknown_eviction_priority, "did you mean 'evict_first'?"},
      {std::string(kApplyHead) + "chunk_bytes = 16\ncache_policy = { primary = \"evict_lats\" }\n",
       DiagId::spec_unknown_eviction_priority, "did you mean 'evict_last'?"},
  };
  for (const Case& c : cases) {
    auto r = load_case(c.body);
    INFO(c.body);
    INFO(r.diagnostics.format_all());
    bool found = false;
    for (const Diagnostic& d : errors(r))
      found = found || (d.id == c.id && d.message.find(c.suggestion) != std::string::npos);
    CHECK(found);
  }
}

TEST_CASE("kernel limits") {
  check_single_error(load("[kernel]\nname = \"k\"\nblock = 1000000000\n"), 3, 9, 10, "1..1024");
  check_single_error(load("[kernel]\nname = \"k\"\nblock = 32\ngrid = 0\n"), 4, 8, 1, "grid");
  check_single_error(load("[kernel]\nname = \"2k\"\nblock = 32\n"), 2, 8, 4, "identifier");
  check_single_error(load("[kernel]\nname = \"k\"\n"), 1, 1, 8, "missing 'block'");
  check_single_error(
      load("[kernel]\nname = \"k\"\nblock = 32.0\n"), 3, 9, 4,
      "must be an integer (threads per CTA) or an array [x, y, z] of 1 to 3 integers; got a "
      "floating-point number");
  check_single_error(load("[tensor.A]\nspace = \"global\"\nshape = [1]\ndtype = \"u8\"\n"), 1, 1, 1,
                     "no [kernel] table");
}

TEST_CASE("tensor declarations: sizes, spaces, init, align, layout") {
  const std::string k = "[kernel]\nname = \"k\"\nblock = 32\n\n[tensor.A]\n"; // A at line 5
  // 1e9 x 1e9 float32 elements: far beyond 2^40 bytes.
  check_single_error(load(k + "space = \"global\"\nshape = [1000000000, 1000000000]\n"
                              "dtype = \"float32\"\n"),
                     7, 9, 0, "2^40 bytes");
  // 2 x 64 KiB shared fits; a third 128 KiB does not (256 KiB > 232448 bytes, sm_90's opt-in).
  check_single_error(load(k + "space = \"shared\"\nshape = [65536]\ndtype = \"u8\"\n"
                              "[tensor.B]\nspace = \"shared\"\nshape = [65536]\ndtype = \"u8\"\n"
                              "[tensor.C]\nspace = \"shared\"\nshape = [131072]\ndtype = \"u8\"\n"),
                     15, 9, 0, "232448 bytes");
  check_single_error(
      load(k + "space = \"shared\"\nshape = [16]\ndtype = \"u8\"\ninit = \"zero\"\n"), 9, 1, 4,
      "only for global");
  check_single_error(
      load(k + "space = \"global\"\nshape = [16]\ndtype = \"u8\"\nlayout = \"swz\"\n"), 9, 10, 5,
      "only the row-major \"default\" layout is supported");
  check_single_error(load(k + "space = \"global\"\nshape = [16]\ndtype = \"u8\"\nalign = 24\n"), 9,
                     9, 2, "power of two");
  check_single_error(load(k + "space = \"shared\"\nshape = [16]\ndtype = \"u8\"\nalign = 8\n"), 9,
                     9, 1, "power of two in 16..");
  check_single_error(load(k + "space = \"global\"\nshape = [16, 0]\ndtype = \"u8\"\n"), 7, 14, 1,
                     "at least 1");
  check_single_error(load(k + "space = \"local\"\nshape = [16]\ndtype = \"u8\"\n"), 6, 9, 7,
                     "\"global\" or \"shared\"");
  // `init = "arange % x"`: the string starts at column 9; `x` is at offset 9.
  check_single_error(
      load(k + "space = \"global\"\nshape = [16]\ndtype = \"u8\"\ninit = \"arange % x\"\n"), 9, 18,
      1, "modulus");

  auto ok = load(k + "space = \"global\"\nshape = [16]\ndtype = \"u8\"\ninit = \"random(42)\"\n"
                     "align = 256\n[tensor.C]\nspace = \"global\"\nshape = [4]\ndtype = \"i32\"\n"
                     "init = \"constant(-3)\"\n[tensor.B]\nspace = \"shared\"\nshape = [4]\n"
                     "dtype = \"u8\"\nalign = 16\n");
  INFO(ok.diagnostics.format_all());
  REQUIRE(ok);
  const auto& ts = (*ok)->tensors;
  REQUIRE(ts.size() == 3);
  // File order, not name order.
  CHECK(ts[0]->tensor.name == "A");
  CHECK(ts[1]->tensor.name == "C");
  CHECK(ts[2]->tensor.name == "B");
  CHECK(ts[0]->init.kind == tile::TensorInit::Kind::random);
  CHECK(ts[0]->init.seed == 42);
  CHECK(ts[0]->tensor.align == 256);
  CHECK(ts[1]->init.kind == tile::TensorInit::Kind::constant);
  CHECK(ts[1]->init.value == -3);
  CHECK(ts[1]->tensor.dtype == tile::DType::int32);
  CHECK(ts[2]->tensor.align == 16);
  // No ops: a warning, not an error.
  REQUIRE(ok.diagnostics.items().size() == 1);
  CHECK(ok.diagnostics.items()[0].severity == Severity::warning);
}

TEST_CASE("parameters: type, value and range") {
  const std::string k = "[kernel]\nname = \"k\"\nblock = 32\n\n[param.n]\n"; // n at line 5
  check_single_error(load(k + "dtype = \"u32\"\nvalue = 4294967296\n"), 7, 9, 10,
                     "does not fit u32");
  check_single_error(load(k + "dtype = \"u32\"\nvalue = 50\nrange = [0, 40]\n"), 7, 9, 2,
                     "outside the declared range [0, 40]");
  check_single_error(load(k + "dtype = \"i32\"\nvalue = 5\n"), 6, 9, 5, "\"u32\" or \"u64\"");
  check_single_error(load(k + "dtype = \"u32\"\n"), 5, 1, 9, "missing 'value'");
  check_single_error(load("[kernel]\nname = \"k\"\nblock = 32\n[param.tid]\ndtype = \"u32\"\n"
                          "value = 1\n"),
                     4, 8, 3, "reserved");

  auto ok = load(k + "dtype = \"u32\"\nvalue = 7\nrange = [1, 100]\n"
                     "[param.pol]\ndtype = \"u64\"\nvalue = \"0xF000000000000000\"\n");
  INFO(ok.diagnostics.format_all());
  REQUIRE(ok);
  const auto& ps = (*ok)->params;
  REQUIRE(ps.size() == 2);
  CHECK(ps[0].name == "n");
  CHECK(ps[0].value == 7);
  REQUIRE(ps[0].range);
  CHECK(*ps[0].range == tile::Interval{1, 100});
  CHECK(ps[0].pos.line == 5);
  CHECK(ps[1].name == "pol");
  CHECK(ps[1].is_u64);
  CHECK(ps[1].value == 0xF000000000000000ull);
}

TEST_CASE("cache policies: parameters and createpolicy") {
  const std::string pol = "[param.pol]\ndtype = \"u64\"\nvalue = 1\n\n"; // lines 19..22
  const std::string head = std::string(kHeader) + pol +
                           "[[op]]\nop = \"apply\"\n"
                           "opcode = \"cp.async.cg.shared.global.L2::cache_hint\"\n"
                           "dst = \"S.sub[tid, :]\"\nsrc = \"A.sub[tid, :]\"\nchunk_bytes = 16\n";
  // head ends at line 28; cache_policy is line 29.
  auto policy = [&](std::string_view line) {
    auto r = load(head + std::string(line) + "\n");
    INFO(r.diagnostics.format_all());
    return r;
  };
  for (std::string_view line : {"cache_policy = \"pol\"", "cache_policy = \"param:pol\"",
                                "cache_policy = { param = \"pol\" }"}) {
    auto r = policy(line);
    REQUIRE(r);
    const auto& a = std::get<tile::ApplyOp>((*r)->ops.at(0).body);
    REQUIRE(a.cache_policy);
    REQUIRE(std::holds_alternative<tile::CachePolicyFromParam>(a.cache_policy->value));
    CHECK(std::get<tile::CachePolicyFromParam>(a.cache_policy->value).param == "pol");
    CHECK(a.opcode.value.cache_hint);
  }
  {
    auto r = policy("cache_policy = \"createpolicy(evict_last, evict_unchanged, 0.5)\"");
    REQUIRE(r);
    const auto& a = std::get<tile::ApplyOp>((*r)->ops.at(0).body);
    REQUIRE(a.cache_policy);
    const auto& c = std::get<tile::CachePolicyCreate>(a.cache_policy->value);
    CHECK(c.primary == ptx::EvictionPriority::evict_last);
    REQUIRE(c.secondary);
    CHECK(*c.secondary == ptx::EvictionPriority::evict_unchanged);
    CHECK(c.fraction == 0.5f);
  }
  {
    auto r = policy("cache_policy = { primary = \"evict_first\", fraction = 0.25 }");
    REQUIRE(r);
    const auto& c = std::get<tile::CachePolicyCreate>(
        std::get<tile::ApplyOp>((*r)->ops.at(0).body).cache_policy->value);
    CHECK(c.primary == ptx::EvictionPriority::evict_first);
    CHECK_FALSE(c.secondary);
    CHECK(c.fraction == 0.25f);
  }
  {
    auto r = policy("cache_policy = \"createpolicy(evict_normal)\"");
    REQUIRE(r);
    const auto& c = std::get<tile::CachePolicyCreate>(
        std::get<tile::ApplyOp>((*r)->ops.at(0).body).cache_policy->value);
    CHECK(c.primary == ptx::EvictionPriority::evict_normal);
    CHECK(c.fraction == 1.0f);
  }
  // `cache_policy = "`: the string starts at column 17.
  check_single_error(policy("cache_policy = \"valid_rows\""), 29, 17, 10, "is u32");
  check_single_error(policy("cache_policy = \"nopol\""), 29, 17, 5, "unknown parameter 'nopol'");
  check_single_error(policy("cache_policy = \"createpolicy(evict_last, evict_normal)\""), 29, 42,
                     12, "evict_first or evict_unchanged");
  check_single_error(policy("cache_policy = \"createpolicy(evict_last, 1.5)\""), 29, 42, 3,
                     "(0, 1]");
}

TEST_CASE("fill patterns: a byte, an array of bytes, a hex string") {
  auto fill = [&](std::string_view pattern) {
    return load_case("[[op]]\nop = \"fill\"\ndst = \"S.sub[tid, :]\"\n" + std::string(pattern) +
                     "\n");
  };
  auto pattern_of = [](const KernelResult& r) {
    return std::get<tile::FillOp>((*r)->ops.at(0).body).pattern;
  };
  auto one = fill("pattern = 0xAB");
  REQUIRE(one);
  CHECK(pattern_of(one) == std::vector<std::uint8_t>{0xAB});
  auto arr = fill("pattern = [1, 2, 255]");
  REQUIRE(arr);
  CHECK(pattern_of(arr) == std::vector<std::uint8_t>{1, 2, 255});
  auto hex = fill("pattern = \"0xDEADBEEF\"");
  REQUIRE(hex);
  CHECK(pattern_of(hex) == std::vector<std::uint8_t>{0xDE, 0xAD, 0xBE, 0xEF});
  check_single_error(fill("pattern = 256"), 22, 11, 3, "0..255");
  check_single_error(fill("pattern = [1, -2]"), 22, 15, 2, "0..255");
  check_single_error(fill("pattern = \"0xABC\""), 22, 12, 5, "even number of hex digits");
  // `pattern = "0xDEAG"`: the string starts at column 12, `G` is offset 5.
  check_single_error(fill("pattern = \"0xDEAG\""), 22, 17, 1, "hex digit");
  check_single_error(fill("pattern = true"), 22, 11, 4, "got a boolean");
}

TEST_CASE("op kinds and their keys") {
  check_single_error(load_case("[[op]]\nop = \"commit_group\"\nn = 1\n"), 21, 1, 1,
                     "unknown key 'n' in [[op]] 1; expected one of: op");
  check_single_error(load_case("[[op]]\nop = \"wait_group\"\n"), 19, 1, 0, "missing 'n'");
  check_single_error(load_case("[[op]]\nn = 0\n"), 19, 1, 0, "has no 'op' key");
  check_single_error(load_case("[op]\nop = \"wait_all\"\n"), 19, 1, 0, "[[op]]");
  check_single_error(load_case(std::string(kApplyHead) + "chunk_bytes = 16\nscope = \"warp\"\n"),
                     25, 9, 6, "\"thread\" or \"cta\"");
  check_single_error(load_case(std::string(kApplyHead) + "chunk_bytes = 16\nignore_src = 1\n"), 25,
                     14, 1, "a boolean or an expression string");

  auto ok = load_case("[[op]]\nop = \"wait_all\"\n[[op]]\nop = \"cta_sync\"\n[[op]]\n"
                      "op = \"wait_group\"\nn = 3\n");
  REQUIRE(ok);
  const auto& ops = (*ok)->ops;
  REQUIRE(ops.size() == 3);
  CHECK(std::holds_alternative<tile::WaitAllOp>(ops[0].body));
  CHECK(std::holds_alternative<tile::CtaSyncOp>(ops[1].body));
  CHECK(std::get<tile::WaitGroupOp>(ops[2].body).n == 3);
  CHECK(ops[2].pos.line == 23);
}

TEST_CASE("columns count bytes, also after non-ASCII characters") {
  // `"üü"` is 6 bytes (4 code points): `"glob"` starts at byte column 38, not 36.
  auto r = load("tensor.A = { dtype = \"\xc3\xbc\xc3\xbc\", space = \"glob\" }\n"
                "[kernel]\nname = \"k\"\nblock = 32\n");
  INFO(r.diagnostics.format_all());
  CHECK_FALSE(r);
  CHECK(has_error(r, 1, 22, "unknown dtype"));
  CHECK(has_error(r, 1, 38, "space must be"));
  for (const auto& d : errors(r))
    if (d.column == 22)
      CHECK(d.length == 6);
}

TEST_CASE("launch shapes: grid and block as N or [x, y, z]") {
  auto r = load("[kernel]\nname = \"k\"\ngrid = [4, 8]\nblock = [32, 4, 2]\n");
  INFO(r.diagnostics.format_all());
  REQUIRE(r);
  const tile::Kernel& k = **r;
  CHECK(k.grid_dim == tile::Dim3{4, 8, 1});
  CHECK(k.block_dim == tile::Dim3{32, 4, 2});
  CHECK(k.grid == 32);
  CHECK(k.block == 256);
  // Per-axis and total limits, each at the value.
  check_single_error(load("[kernel]\nname = \"k\"\nblock = [32, 32, 2]\n"), 3, 9, 0,
                     "2048 threads per CTA in all; at most 1024");
  check_single_error(load("[kernel]\nname = \"k\"\nblock = [1, 1, 65]\n"), 3, 9, 0,
                     "block.z must be in 1..64");
  check_single_error(load("[kernel]\nname = \"k\"\nblock = 32\ngrid = [1, 70000]\n"), 4, 8, 0,
                     "grid.y must be in 1..65535");
  check_single_error(load("[kernel]\nname = \"k\"\nblock = [32, \"4\"]\n"), 3, 14, 0,
                     "an integer (threads per CTA along an axis)");
  check_single_error(load("[kernel]\nname = \"k\"\nblock = [1, 2, 3, 4]\n"), 3, 9, 0,
                     "an array [x, y, z] of 1 to 3 integers");
}

TEST_CASE("for / end: nesting, indices and the loop variable in views and expressions") {
  auto r = load_case(R"TOML([[op]]
op = "for"
var = "k"
start = 0
stop = "valid_rows"
unroll = 2
[[op]]
op = "for"
var = "j"
start = "k"
stop = 4
step = "nbid"
[[op]]
op = "apply"
opcode = "cp.async.ca.shared.global"
dst = 'S.rearrange("t (c v) -> t c v", v=4).sub[tid, k % 2 * 2 + j % 2, :]'
src = 'A.rearrange("t (c v) -> t c v", v=4).sub[tid, 0, :]'
chunk_bytes = 4
pred = "j < k + tid.x"
[[op]]
op = "end"
[[op]]
op = "end"
[[op]]
op = "commit_group"
)TOML");
  INFO(r.diagnostics.format_all());
  REQUIRE(r);
  const auto& ops = (*r)->ops;
  REQUIRE(ops.size() == 6);
  const auto& outer = std::get<tile::ForOp>(ops[0].body);
  const auto& inner = std::get<tile::ForOp>(ops[1].body);
  CHECK(outer.var.value == "k");
  CHECK(outer.end == 4);
  CHECK(outer.unroll == 2);
  CHECK(inner.end == 3);
  CHECK(std::get<tile::EndOp>(ops[3].body).begin == 1);
  CHECK(std::get<tile::EndOp>(ops[4].body).begin == 0);
  CHECK(inner.start.value->kind == tile::ExprKind::loop);
  CHECK(inner.step.value->kind == tile::ExprKind::special);
  CHECK(inner.step.value->special == tile::Special::nbid);
  CHECK(tile::print(*outer.stop.value) == "valid_rows");
  CHECK(tile::print(*std::get<tile::ApplyOp>(ops[2].body).pred->value) == "j < k + tid.x");
  CHECK(std::holds_alternative<tile::CommitGroupOp>(ops[5].body));
}

TEST_CASE("for / end errors") {
  const std::string loop = "[[op]]\nop = \"for\"\nvar = \"k\"\nstart = 0\nstop = 4\n";
  const std::string end = "[[op]]\nop = \"end\"\n";
  // Line 19 is the first op's `[[op]]`.
  check_single_error(load_case(end), 19, 1, 0, "`end` without a `for`");
  check_single_error(load_case(loop), 19, 1, 0, "no matching op = \"end\"");
  check_single_error(load_case(loop + loop + end + end), 26, 8, 1,
                     "loop variable 'k' is the variable of an enclosing loop");
  check_single_error(
      load_case("[[op]]\nop = \"for\"\nvar = \"valid_rows\"\nstart = 0\nstop = 4\n" + end), 21, 8,
      10, "is a kernel parameter");
  check_single_error(load_case("[[op]]\nop = \"for\"\nvar = \"k\"\nstart = 0\nstop = \"4 + "
                               "warp\"\n" +
                               end),
                     23, 13, 4, "stop of a loop must be the same for every thread");
  check_single_error(load_case(loop + "unroll = 0\n" + end), 24, 10, 1, "unroll must be in 1..64");
  // A loop variable is not visible after its end.
  auto r = load_case(loop + end + std::string(kApplyHead) + "chunk_bytes = 16\npred = \"k < 2\"\n");
  CHECK(has_error(r, 32, 9, "unknown name 'k'"));
  for (const auto& d : errors(r))
    CHECK(d.id == DiagId::expr_unknown_name);
}

} // namespace unit_spec_loader
