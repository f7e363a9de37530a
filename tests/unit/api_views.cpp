// Typed views (rearrange, sub, dtype view) are the very views the spec's strings
// parse to: same steps, same affine form, same text.

#include "emitter/api/api.hpp"
#include "emitter/tile/view.hpp"

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_views {

namespace {

using namespace ptxgen::api;

/// The string `text` parsed over k's tensors, with `n` as a parameter.
ptxgen::tile::View parsed(const KernelBuilder& k, std::string_view text) {
  auto r = ptxgen::tile::parse_view(
      text,
      [&](std::string_view name) -> const ptxgen::tile::Tensor* {
        const auto* d = k.kernel().find_tensor(name);
        return d ? &d->tensor : nullptr;
      },
      [](std::string_view name) { return name == "n"; });
  REQUIRE(r);
  return *r;
}

} // namespace

TEST_CASE("api: typed views equal the string-parsed ones") {
  KernelBuilder k("views");
  k.launch({4}, {128});
  Expr n = k.param_u32("n", 3, ptxgen::tile::Interval{0, 3});
  Tensor A = k.global("A", {4, 128, 32}, DType::float16);

  struct Case {
    View typed;
    const char* text;
  };
  const Case cases[] = {
      {A, "A"},
      {A.sub({bid()}).rearrange("(w t) (r v) -> w t r v", {{"w", 4}, {"t", 32}, {"v", 8}}),
       R"(A.sub[bid].rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8))"},
      {A.sub({bid(), tid(), all}), "A.sub[bid, tid, :]"},
      {A.sub({n, slice(8, 16), from(8)}), "A.sub[n, 8:16, 8:]"},
      {A.sub({bid(), tid() % 32 + 1}).as(DType::uint32),
       R"(A.sub[bid, tid % 32 + 1].view("uint32"))"},
      {A.sub({select(tid() < n, 1, 2), 0, slice(0, 8)}), "A.sub[tid < n ? 1 : 2, 0, 0:8]"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    REQUIRE(c.typed.ok());
    const auto want = parsed(k, c.text);
    CHECK(same_view(c.typed.tile(), want));
    CHECK(c.typed.tile().str() == want.str());
    // The typed view's spelling parses back to the same view.
    CHECK(same_view(parsed(k, c.typed.text()), want));
  }
}

TEST_CASE("api: same_view tells different views apart") {
  KernelBuilder k("views");
  Tensor A = k.global("A", {128, 32}, DType::float16);
  CHECK_FALSE(same_view(A.sub({tid()}).tile(), A.sub({tid() + 0}).tile()));
  CHECK_FALSE(same_view(A.sub({slice(0, 8)}).tile(), A.sub({slice(0, 9)}).tile()));
  CHECK_FALSE(same_view(A.as(DType::uint32).tile(), A.as(DType::int32).tile()));
  CHECK_FALSE(same_view(A.rearrange("a (b c) -> a b c", {{"c", 2}}).tile(),
                        A.rearrange("a (b c) -> a b c", {{"c", 4}}).tile()));
}

TEST_CASE("api: a step that fails leaves the view in error with the tile layer's DiagId") {
  KernelBuilder k("views");
  Tensor A = k.global("A", {128, 32}, DType::float16);
  const View bad = A.rearrange("a (b c) -> a b c", {{"c", 5}}); // 32 is no multiple of 5
  REQUIRE_FALSE(bad.ok());
  const View later = bad.sub({tid()}); // keeps the first error
  REQUIRE_FALSE(later.ok());
  CHECK(later.error()->id == bad.error()->id);
  // The same rearrange as a string fails with the same DiagId.
  const View as_string = k.view(R"(A.rearrange("a (b c) -> a b c", c=5))");
  REQUIRE_FALSE(as_string.ok());
  CHECK(as_string.error()->id == bad.error()->id);
  CHECK_FALSE(A.sub({0, slice(0, 33)}).ok());
  CHECK_FALSE(A.sub({0, 0}).as(DType::uint32).ok()); // 2 bytes are no whole uint32
}

} // namespace unit_api_views
