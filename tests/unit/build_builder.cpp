// build::Builder, the one holder of the kernel rules: each rule reports its DiagId at
// the position its caller gave, also inside a string whose characters lie on one line
// of a file (Text::exact), and a rejected declaration does not drag errors after it.

#include "emitter/builder/builder.hpp"

#include <algorithm>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_build_builder {

namespace {

using ptxgen::DiagId;
using ptxgen::Diagnostic;
namespace build = ptxgen::build;
namespace tile = ptxgen::tile;

tile::SourcePos pos(std::uint32_t line, std::uint32_t column) {
  return tile::SourcePos{"k.toml", line, column, "a line"};
}

/// The only diagnostic of `b` with `id`.
const Diagnostic& only(const build::Builder& b, DiagId id) {
  const auto& items = b.diagnostics().items();
  REQUIRE_MESSAGE(std::count_if(items.begin(), items.end(),
                                [&](const Diagnostic& d) { return d.id == id; }) == 1,
                  b.diagnostics().format_all());
  return *std::find_if(items.begin(), items.end(), [&](const Diagnostic& d) { return d.id == id; });
}

/// A builder with a 128-thread launch, a u32 parameter n and a shared tensor S (64 x 16 bytes).
build::Builder with_names() {
  build::Builder b("k.toml");
  b.launch({1, 1, 1}, {128, 1, 1});
  build::ParamDecl n;
  n.name = "n";
  n.is_u64 = false;
  n.value = build::ParamValue{build::ParamValue::Form::integer, 4, 0, {}};
  REQUIRE(b.param(n));
  build::TensorDecl s;
  s.name = "S";
  s.space = tile::Space::shared;
  s.dtype = tile::DType::uint8;
  s.shape = std::vector<build::Dim>{{64, {}}, {16, {}}};
  REQUIRE(!b.is_broken(b.tensor(s)));
  return b;
}

} // namespace

TEST_CASE("a string's diagnostics land on its characters when they lie on one line") {
  const Diagnostic inner = ptxgen::error_at(DiagId::expr_syntax, "a + ", 4, 1, "x");
  const build::Text exact{"a + ", pos(3, 10), true, 1};
  CHECK(exact.place(inner).column == 14);
  CHECK(exact.place(inner).line == 3);
  const build::Text quoted{"a + ", pos(3, 9), false, 6};
  CHECK(quoted.place(inner).column == 9);
  CHECK(quoted.place(inner).length == 6);
  CHECK(exact.piece(2, "+ ").at(1, 1).pos.column == 13);
}

TEST_CASE("a rule reports at the position it was given, underlined as given") {
  build::Builder b("k.toml");
  CHECK_FALSE(b.dims(build::LaunchPart::grid, {1, 70000, 1}, false, {pos(5, 8), 9}));
  const Diagnostic& d = only(b, DiagId::spec_grid_range);
  CHECK(d.line == 5);
  CHECK(d.column == 8);
  CHECK(d.length == 9);
  CHECK(d.message.find("grid.y must be in 1..65535") != std::string::npos);
  CHECK_FALSE(b.dims(build::LaunchPart::block, {64, 32, 1}, false, {pos(6, 9), 1}));
  CHECK(only(b, DiagId::spec_block_range).message.find("2048 threads per CTA in all") !=
        std::string::npos);
}

TEST_CASE("a per-thread loop bound is reported at the leaf inside the bound's string") {
  build::Builder b = with_names();
  const build::Text stop{"n + tid", pos(7, 10), true, 1};
  auto e = b.expr(stop);
  REQUIRE(e);
  CHECK_FALSE(b.loop_bound("stop", *e->value, stop));
  const Diagnostic& d = only(b, DiagId::spec_loop_bound_per_thread);
  CHECK(d.column == 14);
  CHECK(d.length == 3);
  CHECK(d.message.find("'tid' differs between threads") != std::string::npos);
}

TEST_CASE("names: one reserved list, clashes between parameters and tensors") {
  build::Builder b = with_names();
  build::ParamDecl min;
  min.name = "min";
  min.is_u64 = false;
  min.value = build::ParamValue{build::ParamValue::Form::integer, 1, 0, {}};
  CHECK_FALSE(b.param(min));
  only(b, DiagId::spec_reserved_name);
  build::TensorDecl n;
  n.name = "n";
  n.space = tile::Space::global;
  n.dtype = tile::DType::uint8;
  n.shape = std::vector<build::Dim>{{4, {}}};
  CHECK(b.is_broken(b.tensor(n)));
  CHECK(only(b, DiagId::spec_name_clash).message.find("has the name of a parameter") !=
        std::string::npos);
  CHECK_FALSE(b.loop_var({"S", pos(9, 9), true, 1}));
  CHECK(only(b, DiagId::spec_loop_var_name).message.find("is a tensor") != std::string::npos);
}

TEST_CASE("the views of a rejected tensor are refused without another error") {
  build::Builder b("k.toml");
  build::TensorDecl t;
  t.name = "T";
  t.space = tile::Space::global;
  t.dtype = tile::DType::uint8;
  t.shape = std::vector<build::Dim>{{0, {pos(2, 10), 1}}};
  t.shape_at = {pos(2, 9), 3};
  CHECK(b.is_broken(b.tensor(t)));
  CHECK(only(b, DiagId::spec_bad_shape).column == 10);
  const std::size_t before = b.diagnostics().items().size();
  CHECK_FALSE(b.view({"T.sub[0]", pos(4, 9), true, 1}));
  CHECK(b.diagnostics().items().size() == before);
  CHECK_FALSE(b.view({"U.sub[0]", pos(5, 9), true, 1}));
  CHECK(only(b, DiagId::view_unknown_tensor).column == 9);
}

TEST_CASE("pipelines: the default stage name's clash and an empty pipeline") {
  build::Builder b = with_names();
  build::ParamDecl stage;
  stage.name = "stage";
  stage.is_u64 = false;
  stage.value = build::ParamValue{build::ParamValue::Form::integer, 0, 0, {}};
  REQUIRE(b.param(stage));
  CHECK_FALSE(b.stage_var({"stage", {}, false, 1}, "k", false, {pos(27, 6), 10}));
  const Diagnostic& d = only(b, DiagId::spec_loop_var_name);
  CHECK(d.line == 27);
  CHECK(d.message.find("is a kernel parameter; name it otherwise with") != std::string::npos);
  CHECK_FALSE(b.stages(1, {pos(30, 10), 1}));
  CHECK(only(b, DiagId::spec_pipeline_stages).message.find("one stage cannot overlap") !=
        std::string::npos);
  tile::Pipeline p;
  p.stages = 2;
  b.pipeline(p, {pos(25, 1), 1});
  CHECK(only(b, DiagId::spec_missing_key).line == 25);
}

TEST_CASE("a loop left open is reported where it began, once the build finishes") {
  build::Builder b = with_names();
  b.begin_for("k", std::nullopt, pos(12, 1));
  CHECK(b.open_loop_diagnostics().items().size() == 1);
  auto r = std::move(b).finish();
  REQUIRE_FALSE(r);
  CHECK(r.diagnostics.has(DiagId::spec_loop_unclosed));
  CHECK(r.diagnostics.items().back().line == 12);
}

} // namespace unit_build_builder
