// The tile-op table (emitter/tile/ops.def, op_table.hpp): its columns answer what the
// hand-written visitors answered before it (which ops need sm_90, which name an mbarrier),
// every op has one spelling and its own keys, and the field walk reaches the members the
// rows name, in order, with their values.
#include "emitter/support/overloaded.hpp"
#include "emitter/tile/mbarrier_contract.hpp"
#include "emitter/tile/op_table.hpp"

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tile_op_table {

namespace {

namespace tile = ptxgen::tile;

/// A default op of alternative `i` of OpBody.
template <std::size_t... I>
tile::OpBody default_op(std::size_t i, std::index_sequence<I...>) {
  tile::OpBody out;
  ((i == I ? (out = std::variant_alternative_t<I, tile::OpBody>{}, 0) : 0), ...);
  return out;
}

tile::OpBody default_op(std::size_t i) {
  return default_op(i, std::make_index_sequence<std::variant_size_v<tile::OpBody>>{});
}

/// A kernel of one op.
tile::Kernel kernel_of(tile::OpBody body) {
  tile::Kernel k;
  k.ops.push_back(tile::Op{std::move(body), {}, {}});
  return k;
}

/// A kernel of the op spelt `kind` alone.
tile::Kernel kernel_of(std::string_view kind) {
  const std::size_t i = tile::find_op(kind);
  INFO(kind);
  REQUIRE(i < tile::op_rows.size());
  return kernel_of(default_op(i));
}

} // namespace

TEST_CASE("op table: the PTX ISA's sm_90 ops raise the target, the rest stay at sm_80") {
  // The bulk-copy family: cp.async.bulk{.tensor}, its groups, fence.proxy.async and
  // mbarrier.expect_tx are PTX 8.0 / sm_90 (docs/ptx-bulk.md); the cp.async family,
  // mbarriers, bar.sync, ld/st and loops are sm_80.
  for (std::string_view kind :
       {"bulk_load", "bulk_store", "bulk_commit", "bulk_wait", "proxy_fence", "expect_tx",
        "tensor_load", "tensor_store", "bulk_reduce", "tensor_reduce", "prefetch_tensormap"})
    CHECK(tile::min_target(kernel_of(kind)).sm == 90);
  for (std::string_view kind :
       {"apply", "commit_group", "wait_group", "wait_all", "cta_sync", "fill", "copy", "for", "end",
        "mbarrier_init", "copy_arrive", "mbarrier_arrive", "mbarrier_wait"})
    CHECK(tile::min_target(kernel_of(kind)).sm == 80);
  CHECK(tile::min_target(tile::Kernel{}).sm == 80);
}

TEST_CASE("op table: the ops that name an mbarrier start the phase walk") {
  // Those with a `barrier` operand: the mbarrier family and the loads completing on one.
  for (std::string_view kind : {"mbarrier_init", "copy_arrive", "mbarrier_arrive", "mbarrier_wait",
                                "bulk_load", "expect_tx", "tensor_load"})
    CHECK(tile::uses_mbarriers(kernel_of(kind)));
  for (std::string_view kind :
       {"apply", "commit_group", "wait_group", "wait_all", "cta_sync", "fill", "copy", "for", "end",
        "bulk_store", "bulk_commit", "bulk_wait", "proxy_fence", "tensor_store", "bulk_reduce",
        "tensor_reduce", "prefetch_tensormap"})
    CHECK_FALSE(tile::uses_mbarriers(kernel_of(kind)));
  // Every op: an mbarrier operand is a `barrier` field, and the reverse.
  for (std::size_t i = 0; i < tile::op_rows.size(); ++i) {
    bool has_barrier_field = false;
    for (const tile::FieldRow& f : tile::op_fields(i))
      has_barrier_field = has_barrier_field || f.kind == tile::FieldKind::barrier;
    INFO(tile::op_rows[i].spelling);
    CHECK(has_barrier_field == tile::op_rows[i].uses_mbarrier());
  }
}

TEST_CASE("op table: one spelling per op, each op's keys its own and once") {
  std::set<std::string_view> spellings;
  for (std::size_t i = 0; i < tile::op_rows.size(); ++i) {
    const std::string_view s = tile::op_rows[i].spelling;
    INFO(s);
    CHECK(spellings.insert(s).second);
    CHECK(tile::find_op(s) == i);
    const auto keys = tile::op_keys(i);
    REQUIRE(keys.size() == 1 + tile::op_fields(i).size());
    CHECK(keys[0] == "op");
    const std::set<std::string_view> distinct(keys.begin(), keys.end());
    CHECK(distinct.size() == keys.size());
    for (std::size_t f = 0; f < tile::op_fields(i).size(); ++f)
      CHECK(keys[f + 1] == tile::op_fields(i)[f].key);
  }
  CHECK(tile::find_op("pipeline") == tile::op_rows.size()); // a spec form, not an op
  CHECK(tile::find_op("bar_sync") == tile::op_rows.size());
}

TEST_CASE("op table: the field walk reaches each named member with its value, in order") {
  tile::BulkWaitOp w;
  w.n = 3;
  w.read = true;
  std::vector<std::string> seen;
  tile::for_each_field(w, ptxgen::overloaded{
                              [&](const tile::FieldRow& r, std::int64_t v) {
                                seen.push_back(std::string(r.key) + "=" + std::to_string(v));
                              },
                              [&](const tile::FieldRow& r, bool v) {
                                seen.push_back(std::string(r.key) + (v ? "=true" : "=false"));
                              },
                          });
  CHECK(seen == std::vector<std::string>{"n=3", "read=true"});

  // An op without fields calls nothing; the walk writes through a non-const op.
  int calls = 0;
  tile::CtaSyncOp sync;
  tile::for_each_field(sync, [&](const tile::FieldRow&, const auto&) { ++calls; });
  CHECK(calls == 0);
  tile::ProxyFenceOp fence;
  tile::for_each_field(fence, [](const tile::FieldRow& r, tile::FenceSpace& s) {
    CHECK(r.key == "space");
    s = tile::FenceSpace::global;
  });
  CHECK(fence.space == tile::FenceSpace::global);
}

} // namespace unit_tile_op_table
