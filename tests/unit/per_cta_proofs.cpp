// The contract's proofs one CTA at a time (emitter/tile/per_cta_bounds.hpp): grid-stride
// tiles that the launch-wide intervals refuse are accepted, their off-by-one twins are not;
// and what the ring pipeline's errors say (no expression of the expansion; one error for
// one cause: a parity from ring_offset, a load's copies in the prologue and steady state).
// The specs are corpus files or one-line edits of them; every expectation follows from the
// kernels' arithmetic, never from the code's output.
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/kernel.hpp"
#include "emitter/tile/per_cta_bounds.hpp"
#include "spec_text.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_per_cta_proofs {

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

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("per CTA: bid fixed, a loop re-ranged under it") {
  // for k = 0; k < (m - bid + 2) / 3 with m in 1..13 on 3 CTAs: k's greatest value is 4 for
  // bid 0 ((13 + 2) / 3 - 1), 3 for bids 1 and 2 ((14 - 1) / 3 - 1 = 3, (13 - 1) / 3 - 1 = 3).
  const auto k = load(corpus("tma/pipeline_grid_stride_tiles.toml"));
  tile::LaunchBounds lb = k->launch_bounds();
  const tile::ForOp* loop = nullptr;
  for (const auto& op : k->ops)
    if (const auto* f = std::get_if<tile::ForOp>(&op.body))
      loop = f;
  REQUIRE(loop != nullptr);
  const std::vector<const tile::ForOp*> loops{loop};
  const std::int64_t greatest[] = {4, 3, 3};
  for (std::int64_t b = 0; b < 3; ++b) {
    CAPTURE(b);
    const auto at = tile::bounds_at_cta(lb, b, loops);
    REQUIRE(at);
    CHECK(at->loops.at(loop->var.value) == tile::Interval{0, greatest[b]});
    CHECK(tile::bounds(*tile::make_leaf(tile::ExprKind::bid), *at) == tile::Interval{b, b});
  }
  CHECK_FALSE(tile::bounds_at_cta(lb, 3, loops)); // outside the grid
  lb.narrowed[tile::ExprKind::bid] = tile::Interval{1, 2};
  CHECK_FALSE(tile::bounds_at_cta(lb, 0, loops)); // outside a path's narrowing
  CHECK(tile::bounds_at_cta(lb, 2, loops));
}

TEST_CASE("per CTA: grid-stride tiles in a pipeline are proved; one tile too many is not") {
  const std::string good = corpus("tma/pipeline_grid_stride_tiles.toml");
  CHECK_FALSE(tile::check_contract(*load(good)).has_errors());
  // One more tile for CTAs 1 and 2 at m = 13: CTA 1's fifth is 1 + 4 * 3 = 13, past A's rows.
  const auto past = tile::check_contract(*load(edited(
      good, "stop = \"(m - bid + nbid - 1) / nbid\"", "stop = \"(m - bid + nbid) / nbid\"")));
  CHECK(with_id(past, DiagId::contract_out_of_bounds).size() == 2); // the load's src, B's dst
  // A 13-row tensor read at bid + k * nbid for k < m / nbid + 1: CTA 2 reaches row 14 at m = 13.
  const auto wide = tile::check_contract(
      *load(edited(good, "stop = \"(m - bid + nbid - 1) / nbid\"", "stop = \"m / nbid + 1\"")));
  CHECK(wide.has(DiagId::contract_out_of_bounds));
}

TEST_CASE("per CTA: a grid-stride loop's t - bid is non-negative in every CTA") {
  const std::string good = corpus("tma/pipeline_grid_stride_loop.toml");
  CHECK_FALSE(tile::check_contract(*load(good)).has_errors());
  // t - bid - 1 is -1 at every CTA's first block: refused one CTA at a time too.
  const auto below =
      tile::check_contract(*load(edited(good, "ring_offset = \"(t - bid) / nbid * 4\"",
                                        "ring_offset = \"(t - bid - 1) / nbid * 4\"")));
  CHECK(below.has(DiagId::contract_index_u32));
}

TEST_CASE("messages: a ring's 32-bit error names no expression of the expansion") {
  const auto u32 =
      with_id(tile::check_contract(*load(corpus("invalid/pipeline_ring_use_count_u32.toml"))),
              DiagId::contract_index_u32);
  REQUIRE(u32.size() == 1);
  CHECK(contains(u32[0].message, "the pipeline's producer's wait for a free stage"));
  CHECK(contains(u32[0].message, "barrier index must stay in 0..4294967295"));
  CHECK(contains(u32[0].message, "1..4294967305"));
  CHECK_FALSE(contains(u32[0].message, "max("));
  CHECK_FALSE(contains(u32[0].message, "'q"));
}

TEST_CASE("messages: a wrong ring_offset is one parity error for the pipeline") {
  const auto parity =
      with_id(tile::check_contract(*load(corpus("invalid/pipeline_grid_stride_loop_offset.toml"))),
              DiagId::contract_mbarrier_parity);
  REQUIRE(parity.size() == 1);
  CHECK(contains(parity[0].message, "check ring_offset"));
}

TEST_CASE("messages: a pipeline's load is one cause in the prologue and the steady state") {
  // Tile 1 (the prologue's second step) and tile 2 (the steady state's first load) both put
  // the inner coordinate k off 16 bytes: one error for the one [[op.load]] table.
  const auto inner =
      with_id(tile::check_contract(*load(corpus("invalid/pipeline_ring_inner_coord_once.toml"))),
              DiagId::contract_tensor_inner_coord_align);
  REQUIRE(inner.size() == 1);
  CHECK(inner[0].line == 53);
  CHECK(contains(inner[0].message, "'k'"));
}

} // namespace unit_per_cta_proofs
