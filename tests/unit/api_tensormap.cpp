// Tensor maps edited on the device through the C++ API: specs/tma/tensormap_retarget_global.toml
// built by KernelBuilder emits its golden (produced by `ptxgen golden`) and writes back to a spec
// that emits the same; a missing fence and an unmodelled field come back as DiagIds at the
// builder call's line.

#include "api_golden.hpp"
#include "emitter/api/api.hpp"

#include <algorithm>

#include <doctest/doctest.h>

namespace unit_api_tensormap {

namespace {

using namespace ptxgen::api;
using ptxgen::DiagId;
using ptxgen::api_golden::check_golden;

/// The spec's kernel; `fenced`: with the release and acquire between the edit and the load.
struct Retarget {
  KernelBuilder k{"k"};
  Tensor A = k.global("A", {32, 16}, DType::uint8,
                      {.init = arange_mod(251), .map = TensorMap{.box = {32, 16}}});
  Tensor B = k.global("B", {32, 16}, DType::uint8, {.init = arange_mod(7)});
  Tensor M = k.global("M", {128}, DType::uint8, {.align = 128});
  Tensor C = k.global("C", {32, 16}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {32, 16}, DType::uint8);
  Tensor bar = k.shared("bar", {1}, DType::uint64);
  int fence_line = 0;

  explicit Retarget(bool fenced) {
    k.launch({1}, {32});
    k.mbarrier_init(bar.sub({0}), 1);
    k.cta_sync();
    k.tensormap_copy(A, M, {.pred = tid() == 0});
    k.tensormap_replace_address(A, M, B, tid() == 0);
    if (fenced) {
      k.tensormap_fence(M, TensormapSem::release, tid() == 0);
      k.tensormap_fence(M, TensormapSem::acquire, tid() == 0);
    }
    k.expect_tx(bar.sub({0}), 512, {.pred = tid() == 0});
    fence_line = __LINE__ + 1;
    k.tensor_load(A, {0, 0}, S, bar.sub({0}), {.pred = tid() == 0, .map = M.view()});
    k.mbarrier_wait(bar.sub({0}), 0);
    k.copy(C.sub({tid(), all}), S.sub({tid(), all}));
    k.expect_equal(C, B);
  }
};

} // namespace

TEST_CASE("api: specs/tma/tensormap_retarget_global.toml in C++ emits its golden and writes back") {
  Retarget f(true);
  check_golden(f.k, "tma/tensormap_retarget_global", sm_a(90));
}

TEST_CASE("api: a copy through an edited map without the fence pair, and an unmodelled field") {
  Retarget f(false);
  const EmitResult r = emit_contract_only(f.k, sm_a(90));
  REQUIRE_FALSE(r.ok());
  const auto it = std::find_if(r.diagnostics.begin(), r.diagnostics.end(), [](const auto& d) {
    return d.id == DiagId::contract_tensormap_fence;
  });
  REQUIRE(it != r.diagnostics.end());
  CHECK(it->line == static_cast<std::uint32_t>(f.fence_line));

  KernelBuilder k("k");
  k.launch({1}, {32});
  Tensor A = k.global("A", {32, 16}, DType::uint8, {.map = TensorMap{.box = {32, 16}}});
  Tensor M = k.global("M", {128}, DType::uint8, {.align = 128});
  k.tensormap_copy(A, M);
  k.tensormap_replace(A, M, TensormapField::box_dim, 0, 16);
  const EmitResult bad = emit_contract_only(k, sm_a(90));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.diagnostics[0].id == DiagId::spec_tensormap_field);
}

} // namespace unit_api_tensormap
