// im2col maps through the C++ API: specs/tma/im2col_stride2.toml built by KernelBuilder emits
// its golden PTX (produced by `ptxgen golden`), to_spec_toml writes it back to a spec that
// emits the same, and offsets that do not fit the map come back as spec_im2col_offsets at the
// builder call's line.

#include "api_golden.hpp"
#include "emitter/api/api.hpp"

#include <algorithm>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_im2col {

namespace {

using namespace ptxgen::api;
using ptxgen::DiagId;
using ptxgen::api_golden::check_golden;
using ptxgen::tile::TensorMapMode;

/// specs/tma/im2col_stride2.toml's tensors and its load's prologue.
struct Stride2 {
  KernelBuilder k{"tma_im2col_stride2"};
  Tensor A = k.global("A", {1, 4, 4, 16}, DType::float16,
                      {.init = arange_mod(251),
                       .map = TensorMap{.element_strides = {1, 2, 2, 1},
                                        .mode = TensorMapMode::im2col,
                                        .lower_corner = {0, 0},
                                        .upper_corner = {0, 0},
                                        .channels = 16,
                                        .pixels = 8}});
  Tensor B = k.global("B", {8, 16}, DType::float16, {.output = true});
  Tensor S = k.shared("S", {8, 16}, DType::float16);
  Tensor bar = k.shared("bar", {1}, DType::uint64);
  Stride2() {
    k.launch({1}, {8});
    k.mbarrier_init(bar.sub({0}), 1);
    k.cta_sync();
    k.expect_tx(bar.sub({0}), 256, {.pred = tid() == 0});
  }
};

} // namespace

TEST_CASE("api: specs/tma/im2col_stride2.toml in C++ (an im2col map, offsets) and back") {
  Stride2 f;
  f.k.tensor_load(f.A, {0, 0, 0, 0}, f.S, f.bar.sub({0}),
                  {.pred = tid() == 0, .offsets = std::vector<Expr>{0, 0}});
  f.k.mbarrier_wait(f.bar.sub({0}), 0);
  f.k.copy(f.B.sub({tid(), all}), f.S.sub({tid(), all}));
  f.k.expect_equal(f.B.sub({slice(0, 1), all}), f.A.sub({0, 0, slice(0, 1), all}));
  const std::string text = check_golden(f.k, "tma/im2col_stride2", sm(90));
  CHECK(text.find("mode = \"im2col\"") != std::string::npos);
}

TEST_CASE("api: an im2col load without its offsets is refused at the builder call's line") {
  Stride2 f;
  f.k.tensor_load(f.A, {0, 0, 0, 0}, f.S, f.bar.sub({0}), {.pred = tid() == 0});
  const std::uint32_t line = __LINE__ - 1;
  const EmitResult r = emit_contract_only(f.k, sm(90));
  REQUIRE_FALSE(r.ok());
  const auto it = std::find_if(r.diagnostics.begin(), r.diagnostics.end(),
                               [](const auto& d) { return d.id == DiagId::spec_im2col_offsets; });
  REQUIRE(it != r.diagnostics.end());
  CHECK(it->line == line);
  CHECK(it->file == __FILE__);
}

} // namespace unit_api_im2col
