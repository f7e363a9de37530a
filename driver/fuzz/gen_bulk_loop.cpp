// The bulk family's loop: `for k` over K tiles, each loaded (1-D bulk or tensor, the
// coordinates moving with k) on the one barrier's phase k (parity k % 2) into slot k % R of a
// store ring of R tiles, stored by the storer into the output's tile k and committed; the
// storer's `bulk_wait R - 1 read = true` then leaves at most R - 1 stores reading, so the slot
// the next load refills has been read, and a cta_sync orders the storer's wait before
// another thread's load. K > R, so that every slot is refilled.
// And the TMA `pipeline` form: a ring of S stages with its full and empty barriers, one 1-D
// bulk or tensor load per tile (the tile moving with the pipeline's variable), a consumer
// that copies its share of the stage out and sometimes fills it again, and sometimes a
// sentinel fill of every stage before the pipeline: the expansion places the proxy fences
// those generic writes need before the loads that overwrite them.

#include "driver/fuzz/gen_bulk.hpp"
#include "emitter/tile/dtype.hpp"

#include <algorithm>
#include <string>

namespace ptxgen::driver::fuzz::bulk_gen {

namespace {

/// The ring's slot of tile k as a view index ("k % R"; "0" for one slot).
std::string slot_of(std::int64_t R) {
  return R == 1 ? "0" : "k % " + std::to_string(R);
}

/// The loop around one tile's ops: `load` (with its expect_tx) on phase k, `store`, the
/// commit, the storer's read wait and the cta_sync.
template <class Load, class Store>
void tile_loop(Builder& b, std::size_t u, std::int64_t K, std::int64_t R, std::int64_t bytes,
               std::int64_t I, const Load& load, const Store& store) {
  const ViewText bar{"bar.sub[0]"};
  b.op(u, ModelFor{"k", std::int64_t{0}, K, std::nullopt, std::nullopt});
  b.op(u, ModelExpectTx{bar, bytes, ExprText{thread_is(I)}});
  b.op(u, load);
  b.op(u, ModelMbarrierWait{bar, ExprText{"k % 2"}});
  b.op(u, store);
  b.op(u, ModelBulkCommit{});
  b.use(Feature::bulk_read_wait);
  b.op(u, ModelBulkWait{R - 1, true});
  b.op(u, ModelCtaSync{});
  b.op(u, ModelEnd{});
  b.op(u, ModelBulkWait{0, false});
}

std::int64_t loop_1d(Builder& b, std::int64_t K, std::int64_t R) {
  b.use(Feature::bulk_1d);
  const auto [T, G, es, dt] = open_1d(b, 4);
  const std::int64_t bytes = tile::kTensorMapGranule * b.rng.edge(1, 32);
  const std::int64_t n = bytes / es;
  b.tensor("A", false, {G, K, n}, dt).init = b.init_for(dt);
  b.tensor("B", false, {G, K, n}, dt).output = true;
  b.tensor("S", true, {R, n}, dt);
  barrier_init(b);
  const auto [I, J] = issuers(b, T);
  const std::size_t u = b.unit({"A", "B", "S", "bar"});
  const ViewText slot{"S.sub[" + slot_of(R) + ", :]"};
  tile_loop(b, u, K, R, bytes, I,
            ModelBulkLoad{slot, ViewText{"A.sub[bid, k, :]"}, ViewText{"bar.sub[0]"},
                          ExprText{thread_is(I)}},
            ModelBulkStore{ViewText{"B.sub[bid, k, :]"}, slot, ExprText{thread_is(J)}});
  b.m.expects.push_back("B == A");
  return R;
}

/// Returns the slots used (one where a slot of the tile would be misaligned).
std::int64_t loop_tensor(Builder& b, std::int64_t K, std::int64_t R) {
  TileMap t = pick_map(b);
  // The outermost dimension holds K boxes; tile k's box starts at k * box there (for rank 1
  // that is the innermost coordinate: the box's bytes are whole granules).
  t.global[0] = K * t.box[0];
  // An unswizzled slot starts at a multiple of kTensorMapSharedAlign bytes (a swizzled tile is
  // whole periods).
  if (t.swizzle == tile::TensorMapSwizzle::none && t.bytes() % tile::kTensorMapSharedAlign != 0)
    R = 1;
  const std::int64_t T = warp_size * b.rng.edge(1, 2);
  const std::int64_t G = pick_ctas(b);
  launch_1d(b, T, G);
  declare_tile_tensors(b, t, G, K, true, R > 1 ? R : 0);
  barrier_init(b);
  const auto [I, J] = issuers(b, T);
  const std::size_t u = b.unit({"A", "B", "S", "bar"});
  std::vector<ExprText> coords = load_coords(b, t);
  coords[0] = ExprText{"k * " + std::to_string(t.box[0])};
  std::vector<ExprText> store_at(t.box.size(), ExprText{"0"});
  store_at[0] = ExprText{"(bid * " + std::to_string(K) + " + k) * " + std::to_string(t.extent[0])};
  const ViewText slot{R > 1 ? "S.sub[" + slot_of(R) + "]" : "S"};
  tile_loop(b, u, K, R, t.bytes(), I,
            ModelTensorLoad{"A", coords, slot, ViewText{"bar.sub[0]"}, ExprText{thread_is(I)}},
            ModelTensorStore{"B", store_at, slot, ExprText{thread_is(J)}});
  return R;
}

/// The stage's consumer: its share of the stage out to `out` (a view of the thread's share of
/// tile k), sometimes filled again after (a generic write the next load of the stage meets).
void consumer(Builder& b, ModelPipeline& p, const ViewText& out, const ViewText& stage_share) {
  p.body.emplace_back(ModelCopy{out, stage_share});
  if (b.rng.chance(1, 2)) {
    b.use(Feature::tma_pipeline_fill);
    p.body.emplace_back(ModelFill{stage_share, fill_pattern(b.rng)});
  }
}

/// The ring's barriers and the pipeline's header over K tiles in S stages.
ModelPipeline ring_pipeline(Builder& b, std::int64_t K, std::int64_t S) {
  b.tensor("full", true, {S}, barrier_dtype);
  b.tensor("empty", true, {S}, barrier_dtype);
  ModelPipeline p;
  p.loop = ModelFor{"k", std::int64_t{0}, K, std::nullopt, std::nullopt};
  if (b.rng.chance(1, 4)) {
    p.loop.unroll = 2;
    b.use(Feature::unroll);
  }
  p.stages = S;
  if (K < S)
    b.use(Feature::trips_below_stages);
  p.ring = ModelRing{ViewText{"full.sub[stage]"}, ViewText{"empty.sub[stage]"}, std::nullopt};
  return p;
}

void pipeline_1d(Builder& b, std::int64_t K, std::int64_t S) {
  b.use(Feature::bulk_1d);
  const auto [T, G, es, dt] = open_1d(b, 4);
  const std::int64_t row = b.rng.edge(1, 4); // T * es * row: whole 16-byte granules
  b.tensor("A", false, {G, K, T, row}, dt).init = b.init_for(dt);
  b.tensor("B", false, {G, K, T, row}, dt).output = true;
  b.tensor("Sm", true, {S, T, row}, dt);
  const bool sentinel = b.rng.chance(1, 2);
  const std::size_t u = b.unit({"A", "B", "Sm", "full", "empty"});
  ModelPipeline p = ring_pipeline(b, K, S);
  if (sentinel) {
    b.use(Feature::tma_pipeline_fill);
    b.op(u, ModelFill{ViewText{"Sm.rearrange(\"s t e -> t s e\").sub[tid, :, :]"},
                      fill_pattern(b.rng)});
  }
  p.ring_loads.emplace_back(ModelBulkLoad{
      ViewText{"Sm.sub[stage, :, :]"}, ViewText{"A.sub[bid, k, :, :]"}, ViewText{}, {}});
  consumer(b, p, ViewText{"B.sub[bid, k, tid, :]"}, ViewText{"Sm.sub[stage, tid, :]"});
  b.op(u, std::move(p));
  b.m.expects.push_back("B == A");
}

void pipeline_tensor(Builder& b, std::int64_t K, std::int64_t S) {
  TileMap t = pick_map(b, true);
  t.global[0] = K * t.box[0];
  const std::int64_t T = sharing_threads(b, t.elements());
  const std::int64_t G = pick_ctas(b);
  launch_1d(b, T, G);
  ModelTensor& a = b.tensor("A", false, t.global, t.dtype);
  a.init = b.init_for(t.dtype);
  a.map = ModelMap{t.box, {}, t.swizzle, t.fill};
  if (std::any_of(t.strides.begin(), t.strides.end(), [](auto s) { return s != 1; }))
    a.map->element_strides = t.strides;
  std::vector<std::int64_t> out_shape{G, K}, stage_shape{S};
  out_shape.insert(out_shape.end(), t.extent.begin(), t.extent.end());
  stage_shape.insert(stage_shape.end(), t.extent.begin(), t.extent.end());
  b.tensor("B", false, out_shape, t.dtype).output = true;
  ModelTensor& sm = b.tensor("Sm", true, stage_shape, t.dtype);
  sm.swizzle = t.swizzle;
  if (t.swizzle != tile::TensorMapSwizzle::none)
    sm.align = row_of(tile::swizzle_rows, t.swizzle).shared_align;
  const bool sentinel = b.rng.chance(1, 2);
  const std::size_t u = b.unit({"A", "B", "Sm", "full", "empty"});
  ModelPipeline p = ring_pipeline(b, K, S);
  if (sentinel) {
    b.use(Feature::tma_pipeline_fill);
    b.op(u, ModelFill{thread_share("Sm", stage_shape, 0, T, ""), fill_pattern(b.rng)});
  }
  std::vector<ExprText> coords = load_coords(b, t);
  coords[0] = ExprText{"k * " + std::to_string(t.box[0])};
  p.ring_loads.emplace_back(
      ModelTensorLoad{"A", std::move(coords), ViewText{"Sm.sub[stage]"}, ViewText{}, {}});
  consumer(b, p, thread_share("B", out_shape, 2, T, "bid, k"),
           thread_share("Sm", stage_shape, 1, T, "stage"));
  b.op(u, std::move(p));
}

} // namespace

void generate_bulk_loop(Builder& b) {
  b.use(Feature::bulk_loop);
  b.use(Feature::for_loop);
  const std::int64_t slots = b.rng.edge(1, 3);
  const std::int64_t K = slots + 1 + static_cast<std::int64_t>(b.rng.below(3));
  const std::int64_t R = b.rng.chance(1, 2) ? loop_1d(b, K, slots) : loop_tensor(b, K, slots);
  if (R > 1)
    b.use(Feature::bulk_store_ring);
}

void generate_tma_pipeline(Builder& b) {
  b.use(Feature::tma_pipeline);
  b.use(Feature::pipeline);
  const std::int64_t S = b.rng.edge(2, 4);
  const std::int64_t K = b.rng.edge(1, 6);
  if (b.rng.chance(1, 2))
    pipeline_1d(b, K, S);
  else
    pipeline_tensor(b, K, S);
}

} // namespace ptxgen::driver::fuzz::bulk_gen
