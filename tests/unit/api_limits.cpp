// The C++ API's builder keeps the spec loader's upper limits (emitter/tile/limits.hpp
// and the hardware's shared-memory size): a kernel the TOML path would refuse cannot
// be built in C++ either. Each violation is reported by the loader's DiagId at the
// call's Pos; the largest value allowed is accepted.

#include "emitter/api/api.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/tile/limits.hpp"

#include <algorithm>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_limits {

namespace {

using namespace ptxgen::api;
using ptxgen::DiagId;
namespace limits = ptxgen::tile;

/// `id` is among the builder's diagnostics, at gen.dsl:LINE:9.
void check_at(const KernelBuilder& k, DiagId id, std::uint32_t line) {
  const ptxgen::Diagnostics ds = k.diagnostics();
  const auto& items = ds.items();
  auto d = std::find_if(items.begin(), items.end(), [&](const auto& x) { return x.id == id; });
  REQUIRE_MESSAGE(d != items.end(), "no " << ptxgen::name(id) << ": " << ds.format_all());
  CHECK(d->file == "gen.dsl");
  CHECK(d->line == line);
  CHECK(d->column == 9);
}

Pos at(std::uint32_t line) {
  return Pos("gen.dsl", line, 9);
}

/// A kernel of 128 threads with a (128, 32) uint8 shared tensor S.
struct Fixture {
  KernelBuilder k{"limits"};
  Tensor S = k.shared("S", {128, 32}, DType::uint8);
  Fixture() { k.launch({1}, {128}); }
};

} // namespace

TEST_CASE("api limits: a global tensor of more than kMaxGlobalBytes") {
  const std::int64_t half = limits::kMaxGlobalBytes / 2;
  KernelBuilder k("k");
  k.global("fits", {2, half}, DType::uint8); // exactly the limit
  CHECK_FALSE(k.diagnostics().has(DiagId::spec_tensor_too_large));
  k.global("big", {2, half + 1}, DType::uint8, {}, at(3));
  check_at(k, DiagId::spec_tensor_too_large, 3);
  // Far beyond int64 once multiplied out: still the same diagnostic, no overflow.
  KernelBuilder huge("k");
  huge.global("huge", {half, half, half}, DType::float32, {}, at(4));
  check_at(huge, DiagId::spec_tensor_too_large, 4);
}

TEST_CASE("api limits: shared tensors beyond a CTA's shared memory on any target") {
  const std::int64_t max = ptxgen::ptx::max_dynamic_shared_bytes_any_target();
  KernelBuilder one("k");
  one.shared("S", {max + 1}, DType::uint8, 16, at(5));
  check_at(one, DiagId::spec_tensor_too_large, 5);
  // Each half fits; together with the second they do not.
  KernelBuilder two("k");
  two.shared("S", {max / 2 + 1}, DType::uint8, 16);
  CHECK(two.diagnostics().empty());
  two.shared("T", {max / 2 + 1}, DType::uint8, 16, at(6));
  check_at(two, DiagId::spec_shared_total_too_large, 6);
}

TEST_CASE("api limits: align up to kMaxAlign, a power of two") {
  KernelBuilder k("k");
  GlobalOptions o;
  o.align = static_cast<std::uint32_t>(limits::kMaxAlign);
  k.global("A", {64}, DType::uint8, o);
  CHECK(k.diagnostics().empty());
  o.align = static_cast<std::uint32_t>(limits::kMaxAlign * 2);
  k.global("B", {64}, DType::uint8, o, at(7));
  check_at(k, DiagId::spec_bad_align, 7);
  KernelBuilder s("k");
  s.shared("S", {64}, DType::uint8, static_cast<std::uint32_t>(limits::kMaxAlign * 2), at(8));
  check_at(s, DiagId::spec_bad_align, 8);
}

TEST_CASE("api limits: a fill pattern of 1..kMaxPatternBytes bytes") {
  Fixture f;
  const View dst = f.S.sub({tid(), slice(0, 32)});
  f.k.fill(dst, std::vector<std::uint8_t>(limits::kMaxPatternBytes, 0xab));
  CHECK(f.k.diagnostics().empty());
  f.k.fill(dst, std::vector<std::uint8_t>(limits::kMaxPatternBytes + 1, 0xab), at(9));
  check_at(f.k, DiagId::spec_bad_pattern, 9);
  Fixture empty;
  empty.k.fill(empty.S.sub({tid(), slice(0, 32)}), {}, at(10));
  check_at(empty.k, DiagId::spec_bad_pattern, 10);
}

TEST_CASE("api limits: unroll of a for loop and of a pipeline up to kMaxUnroll") {
  Fixture f;
  f.k.begin_for("i", 0, 4, 1, limits::kMaxUnroll);
  f.k.end_for();
  CHECK(f.k.diagnostics().empty());
  f.k.begin_for("j", 0, 4, 1, limits::kMaxUnroll + 1, at(11));
  f.k.end_for();
  check_at(f.k, DiagId::spec_loop_unroll_range, 11);

  Fixture p;
  PipelineOptions o;
  o.stop = 4;
  o.unroll = limits::kMaxUnroll + 1;
  p.k.pipeline(
      o, [](const PipelineVars&) {}, [](const PipelineVars&) {}, at(12));
  check_at(p.k, DiagId::spec_loop_unroll_range, 12);
}

TEST_CASE("api limits: wait_group n up to the validator's maximum") {
  Fixture f;
  f.k.wait_group(ptxgen::ptx::max_wait_group);
  CHECK(f.k.diagnostics().empty());
  f.k.wait_group(ptxgen::ptx::max_wait_group + 1, at(13));
  check_at(f.k, DiagId::contract_wait_group_range, 13);
}

} // namespace unit_api_limits
