// The TMA ring's false rejects (a CTA-uniform start, per-warp barriers), the proxy fence the
// ring puts where a generic write to a stage meets its loads, and what the diagnostics of
// the mbarrier and bulk family say. The specs are the corpus files (read from the source
// tree) or one-line edits of them; every expectation follows from PTX's rules, never from
// the code's output.
#include "driver/reference/reference.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/kernel.hpp"
#include "spec_text.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_pipeline_diagnostics {

namespace {

using ptxgen::DiagId;
using ptxgen::Diagnostic;
using ptxgen::Diagnostics;
namespace tile = ptxgen::tile;
using ptxgen::spec_text::corpus;
using ptxgen::spec_text::edited;
using ptxgen::spec_text::with_id;

std::unique_ptr<tile::Kernel> load(const std::string& text) {
  return ptxgen::spec_text::load(text, "spec.toml");
}
using Role = tile::OpOrigin::Role;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// The reference's first finding with `id`, or an empty message.
std::string finding(const tile::Kernel& k, DiagId id) {
  ptxgen::driver::ReferenceInput in;
  in.kernel = &k;
  for (const auto& d : k.tensors)
    if (d->tensor.space == tile::Space::global)
      in.global[d->tensor.name] =
          std::vector<std::uint8_t>(static_cast<std::size_t>(d->tensor.size_bytes()), 1);
  const auto out = ptxgen::driver::evaluate_reference(in);
  for (const auto& f : out.findings)
    if (f.id == id)
      return f.message;
  return "";
}

} // namespace

TEST_CASE("ring: a CTA-uniform start is accepted; a use count past 32 bits is one error") {
  const std::string spec = corpus("tma/pipeline_tma_start_bid.toml");
  CHECK_FALSE(tile::check_contract(*load(spec)).has_errors());
  // q has no declared range: ring_offset + (k - start) reaches past 2^32 - 1. Every op of
  // the expansion derives its stage from it: one error, naming the op by its role.
  const std::string big =
      edited(edited(edited(spec, "start = \"bid * 5\"", "start = \"p\""), "stop = \"bid * 5 + 5\"",
                    "stop = \"p + 5\"\nring_offset = \"q\""),
             "[tensor.A]\n",
             "[param.p]\ndtype = \"u32\"\nvalue = 0\nrange = [0, 5]\n"
             "[param.q]\ndtype = \"u32\"\nvalue = 0\n[tensor.A]\n");
  const auto errors = with_id(tile::check_contract(*load(big)), DiagId::contract_index_u32);
  REQUIRE(errors.size() == 1);
  CHECK(contains(errors[0].message, "the pipeline's"));
  CHECK(contains(errors[0].message, "4294967305"));
}

TEST_CASE("mbarrier: a barrier per warp for arrivals and waits; init names one barrier") {
  const std::string spec = corpus("mbarrier/per_warp_barrier.toml");
  CHECK_FALSE(tile::check_contract(*load(spec)).has_errors());
  // Every warp arriving on bar.sub[0] (count 32) gives it 128 arrivals: the walk follows
  // each thread to the barrier its own view names.
  const std::string shared_arrive =
      edited(spec, "op = \"mbarrier_arrive\"\nbarrier = 'bar.sub[warp]'",
             "op = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'");
  CHECK(tile::check_contract(*load(shared_arrive)).has(DiagId::contract_mbarrier_count));
  const std::string init =
      edited(spec, "barrier = 'bar.sub[0]'\ncount = 32", "barrier = 'bar.sub[warp]'\ncount = 32");
  const auto errors = with_id(tile::check_contract(*load(init)), DiagId::contract_mbarrier_view);
  REQUIRE(errors.size() == 1);
  CHECK(contains(errors[0].message, "mbarrier_init, expect_tx and the bulk and tensor loads"));
}

TEST_CASE("ring: a proxy fence after a generic write to a stage, none without one") {
  const auto fences = [](const tile::Kernel& k) {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < k.ops.size(); ++i)
      if (std::holds_alternative<tile::ProxyFenceOp>(k.ops[i].body))
        at.push_back(i);
    return at;
  };
  const std::string spec = corpus("tma/pipeline_bulk_sentinel_fill.toml");
  const auto k = load(spec);
  const auto at = fences(*k);
  REQUIRE(at.size() == 2);
  // After the sentinel fill (op 0), before the barriers' init and its cta_sync.
  CHECK(at[0] == 1);
  CHECK(std::holds_alternative<tile::FillOp>(k->ops[0].body));
  // The consumer's fill, the fence, then its release on empty.
  REQUIRE(at[1] + 1 < k->ops.size());
  CHECK(std::holds_alternative<tile::FillOp>(k->ops[at[1] - 1].body));
  CHECK(k->ops[at[1] + 1].origin.role == Role::consumer_release);
  CHECK(std::holds_alternative<tile::MbarrierArriveOp>(k->ops[at[1] + 1].body));
  CHECK_FALSE(tile::check_contract(*k).has_errors());
  // The stages written only by the loads: no fence anywhere.
  CHECK(fences(*load(corpus("tma/pipeline_bulk_1d_4stage.toml"))).empty());
}

TEST_CASE("messages: the thread addressed, the fix for an expect_tx after its own arrival") {
  const auto uninit =
      with_id(tile::check_contract(*load(corpus("invalid/mbarrier_thread0_before_sync.toml"))),
              DiagId::contract_mbarrier_uninit);
  REQUIRE_FALSE(uninit.empty());
  CHECK(contains(uninit[0].message, "thread 0:"));
  CHECK_FALSE(contains(uninit[0].message, "the others"));
  const auto tx = with_id(
      tile::check_contract(*load(corpus("invalid/mbarrier_expect_tx_after_own_arrival.toml"))),
      DiagId::contract_mbarrier_tx_unordered);
  REQUIRE(tx.size() == 1);
  CHECK(contains(tx[0].message, "put the expect_tx before that arrival"));
  CHECK_FALSE(contains(tx[0].message, "wait for phase 0"));
}

TEST_CASE("messages: a bulk load's bytes and refill are named as a bulk_load") {
  const std::string guard = finding(*load(corpus("races/bulk_load_read_without_own_wait.toml")),
                                    DiagId::check_mbarrier_unwaited_read);
  CHECK(contains(guard, "landed by the bulk_load of op 5"));
  CHECK_FALSE(contains(guard, "copy_arrive"));
  const std::string refill = finding(*load(corpus("races/ring_refill_without_empty_release.toml")),
                                     DiagId::check_refill_without_barrier);
  CHECK(contains(refill, "issues a bulk_load into"));
  CHECK(contains(refill, "release the bytes after that read"));
  CHECK_FALSE(contains(refill, "issues a copy"));
}

TEST_CASE("messages: a wrong element_strides count is shown at element_strides") {
  const auto k = ptxgen::driver::load_spec_text(
      corpus("invalid/bulk_tmap_element_strides_count.toml"), "spec.toml");
  REQUIRE_FALSE(k);
  const auto rank = with_id(k.diagnostics, DiagId::contract_tmap_rank);
  REQUIRE(rank.size() == 1);
  CHECK(rank[0].line == 17); // element_strides = [1]; the box is line 16
}

TEST_CASE("messages: a ring's consumer reading another stage is told so, not to add a cta_sync") {
  const auto k = load(corpus("races/pipeline_ring_consumer_reads_next_stage.toml"));
  const std::string unwaited = finding(*k, DiagId::check_mbarrier_unwaited_read);
  CHECK(contains(unwaited, "which the pipeline's steady-state load ([[op.load]] at line 55)"));
  CHECK_FALSE(contains(unwaited, "the load of the pipeline's"));
  const std::string refill = finding(*k, DiagId::check_refill_without_barrier);
  CHECK(contains(refill, "at the pipeline's consumer copy ([[op.body]] at line 60)"));
  CHECK(contains(refill, "a consumer reads only its own tile's stage"));
  CHECK_FALSE(contains(refill, "cta_sync\" between"));
}

} // namespace unit_pipeline_diagnostics
