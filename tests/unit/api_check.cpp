// The driver's check and emit_checked (driver/api/check.hpp): the whole of `ptxgen check` for a
// kernel built in C++, where the std-only emit_contract_only proves the per-op contract alone;
// and their results cached by the kernel's content (driver/run/result_cache.hpp), positions
// included, so that a cached diagnostic never lands at another kernel's line.

#include "driver/api/check.hpp"
#include "driver/run/result_cache.hpp"
#include "driver/run/to_toml.hpp"
#include "emitter/api/api.hpp"

#include <algorithm>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_api_check {

namespace {

using namespace ptxgen::api;
using ptxgen::DiagId;

/// Each thread copies its row into shared memory and waits, then reads row (tid + n) % 32
/// with no cta_sync: at the test value n = 0 its own row (no hazard), at n = 1..4 another
/// thread's (a read without the barrier). The read is at `read_at`.
KernelBuilder shifted_read(Pos read_at, std::int64_t n_hi = 4) {
  KernelBuilder k("shifted_read");
  k.launch({1}, {32});
  Expr n = k.param_u32("n", 0, ptxgen::tile::Interval{0, n_hi});
  Tensor A = k.global("A", {32, 16}, DType::uint8, {.init = arange_mod(97)});
  Tensor B = k.global("B", {32, 16}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {32, 16}, DType::uint8);
  k.apply(cp_async(CacheOp::ca), S.sub({tid(), all}), A.sub({tid(), all}), 16);
  k.commit_group();
  k.wait_all();
  k.copy(B.sub({tid(), all}), S.sub({(tid() + n) % 32, all}), read_at);
  return k;
}

const Diagnostic* find(const Diagnostics& ds, DiagId id) {
  auto it = std::find_if(ds.begin(), ds.end(), [&](const auto& d) { return d.id == id; });
  return it == ds.end() ? nullptr : &*it;
}

} // namespace

TEST_CASE("api: check and emit_checked refuse a hazard at other values of a range; "
          "emit_contract_only does not see it") {
  const KernelBuilder k = shifted_read(Pos("gen.dsl", 12, 5));
  const Diagnostics found = check(k);
  const Diagnostic* d = find(found, DiagId::check_read_without_sync);
  REQUIRE(d != nullptr);
  CHECK(d->file == "gen.dsl");
  CHECK(d->line == 12);
  CHECK(d->column == 5);
  const EmitResult refused = emit_checked(k);
  CHECK_FALSE(refused.ok());
  CHECK(find(refused.diagnostics, DiagId::check_read_without_sync) != nullptr);
  // The contract proves each op on its own: the race is a property of the whole launch.
  CHECK(emit_contract_only(k).ok());
}

TEST_CASE("api: a kernel without a hazard is emitted as emit_contract_only emits it, and "
          "check adds the range proof's notes") {
  // Reading its own row at every n: n only moves which row, and (tid + 0) is the test value.
  KernelBuilder k("own_row");
  k.launch({1}, {32});
  Expr n = k.param_u32("n", 0, ptxgen::tile::Interval{0, 3});
  Tensor A = k.global("A", {32, 16}, DType::uint8, {.init = arange_mod(97)});
  Tensor B = k.global("B", {32, 16}, DType::uint8, {.output = true});
  Tensor S = k.shared("S", {32, 16}, DType::uint8);
  k.apply(cp_async(CacheOp::ca), S.sub({tid(), all}), A.sub({tid(), all}), 16,
          {.src_size = min(n, Expr(16))});
  k.commit_group();
  k.wait_all();
  k.copy(B.sub({tid(), all}), S.sub({tid(), all}));
  const EmitResult r = emit_checked(k);
  REQUIRE(r.ok());
  CHECK(*r.ptx == *emit_contract_only(k).ptx);
  CHECK(find(check(k), DiagId::check_param_coverage) != nullptr);
}

TEST_CASE("api: a second check of the same content is a cache hit, keyed by content and "
          "position") {
  ptxgen::driver::clear_result_cache();
  const auto before = ptxgen::driver::result_cache_counters();
  const Diagnostics first = check(shifted_read(Pos("a.dsl", 10, 3)));
  // Another builder of the same content: the key is the content, not the object.
  const Diagnostics again = check(shifted_read(Pos("a.dsl", 10, 3)));
  const auto after = ptxgen::driver::result_cache_counters();
  CHECK(after.proof_misses == before.proof_misses + 1);
  CHECK(after.proof_hits == before.proof_hits + 1);
  CHECK(after.lower_hits == before.lower_hits + 1);
  CHECK(again.format_all() == first.format_all());

  // The same TOML written elsewhere: a different key, and its own positions.
  const KernelBuilder moved = shifted_read(Pos("b.dsl", 20, 7));
  CHECK(to_spec_toml(moved.kernel()) == to_spec_toml(shifted_read(Pos("a.dsl", 10, 3)).kernel()));
  CHECK(content_key(moved.kernel()) != content_key(shifted_read(Pos("a.dsl", 10, 3)).kernel()));
  const Diagnostics moved_diags = check(moved);
  const Diagnostic* d = find(moved_diags, DiagId::check_read_without_sync);
  REQUIRE(d != nullptr);
  CHECK(d->file == "b.dsl");
  CHECK(d->line == 20);
  CHECK(ptxgen::driver::result_cache_counters().proof_misses == after.proof_misses + 1);

  // Another range is another kernel.
  (void)check(shifted_read(Pos("a.dsl", 10, 3), 5));
  CHECK(ptxgen::driver::result_cache_counters().proof_misses == after.proof_misses + 2);
}

} // namespace unit_api_check
