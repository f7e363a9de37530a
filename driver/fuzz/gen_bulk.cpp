// The bulk family (sm_90): 1-D bulk copies and tensor (TMA) copies through random maps,
// completed on an mbarrier with expect_tx and waited with its parity; stores in bulk groups
// waited with bulk_wait; a refill of the shared tile after its store's read wait. Every
// choice keeps the rules the contract holds, taken from the emitter's constants
// (emitter/tile/tensor_map.hpp): the innermost coordinate's bytes a multiple of
// kTensorInnerCoordGranule, the box's inner bytes a multiple of kTensorMapGranule and at
// most the swizzle's span, box dimensions at most kTensorMapMaxBoxDim, the swizzled shared
// tile aligned to the swizzle's period, expect_tx equal to the delivered bytes, bulk_wait
// (read) before a refill and cta_sync after it before another thread refills. The shapes
// with generic writes before a load are gen_bulk_proxy.cpp's; the helpers they share are
// declared in gen_bulk.hpp.

#include "driver/fuzz/gen_bulk.hpp"

#include "emitter/tile/dtype.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <algorithm>
#include <numeric>
#include <string>

namespace ptxgen::driver::fuzz {

namespace bulk_gen {

std::string thread_is(std::int64_t t) {
  return "tid == " + std::to_string(t);
}

std::pair<std::int64_t, std::int64_t> issuers(Builder& b, std::int64_t T) {
  const std::int64_t load = b.rng.edge(0, T - 1);
  std::int64_t store = load;
  if (b.rng.chance(1, 2)) {
    store = b.rng.edge(0, T - 1);
    if (store != load)
      b.use(Feature::bulk_other_issuer);
  }
  return {load, store};
}

void launch_1d(Builder& b, std::int64_t T, std::int64_t G) {
  b.m.block = {T};
  b.m.grid = {G};
}

std::int64_t pick_ctas(Builder& b) {
  const std::int64_t G =
      b.rng.edge(1, std::max<std::int64_t>(1, std::min<std::int64_t>(4, b.opt.max_ctas)));
  if (G > 1)
    b.use(Feature::multi_cta);
  return G;
}

Open1d open_1d(Builder& b, std::int64_t max_warps) {
  const std::int64_t T = warp_size * b.rng.edge(1, max_warps);
  const std::int64_t G = pick_ctas(b);
  launch_1d(b, T, G);
  const std::int64_t es = std::int64_t{1} << b.rng.below(4);
  return {T, G, es, b.dtype(es)};
}

void barrier_init(Builder& b) {
  b.tensor("bar", true, {1}, barrier_dtype);
  const std::size_t u = b.unit({"bar"});
  b.op(u, ModelMbarrierInit{ViewText{"bar.sub[0]"}, 1});
  b.op(u, ModelCtaSync{});
}

namespace {

/// After the first store: the storer's read wait, a barrier, and the load again into the
/// same tile (phase 1), stored elsewhere by `store` (a second write of the first store's
/// global bytes would race with it).
template <class Load, class Store>
void refill(Builder& b, std::size_t u, const Load& load, const Store& store, std::int64_t bytes,
            const std::string& load_pred) {
  b.use(Feature::bulk_refill);
  b.use(Feature::bulk_read_wait);
  b.op(u, ModelBulkWait{0, true});
  b.op(u, ModelCtaSync{});
  b.op(u, ModelExpectTx{ViewText{"bar.sub[0]"}, bytes, ExprText{load_pred}});
  b.op(u, load);
  b.op(u, ModelMbarrierWait{ViewText{"bar.sub[0]"}, std::int64_t{1}});
  b.op(u, store);
  b.op(u, ModelBulkCommit{});
}

void generate_bulk_1d(Builder& b) {
  b.use(Feature::bulk_1d);
  const auto [T, G, es, dt] = open_1d(b, 4);
  const std::int64_t bytes = tile::kTensorMapGranule * b.rng.edge(1, 64);
  const std::int64_t n = bytes / es;
  b.tensor("A", false, {G, n}, dt).init = b.init_for(dt);
  b.tensor("B", false, {G, n}, dt).output = true;
  b.tensor("S", true, {n}, dt);
  barrier_init(b);
  const auto [I, J] = issuers(b, T);
  const bool again = b.rng.chance(1, 2);
  if (again)
    b.tensor("C", false, {G, n}, dt).output = true;
  const std::size_t u = b.unit(again ? std::vector<std::string>{"A", "B", "C", "S", "bar"}
                                     : std::vector<std::string>{"A", "B", "S", "bar"});
  const ViewText bar{"bar.sub[0]"};
  const ModelBulkLoad load{ViewText{"S"}, ViewText{"A.sub[bid, :]"}, bar, ExprText{thread_is(I)}};
  b.op(u, ModelExpectTx{bar, bytes, ExprText{thread_is(I)}});
  b.op(u, load);
  b.op(u, ModelMbarrierWait{bar, std::int64_t{0}});
  b.op(u, ModelBulkStore{ViewText{"B.sub[bid, :]"}, ViewText{"S"}, ExprText{thread_is(J)}});
  b.op(u, ModelBulkCommit{});
  b.m.expects.push_back("B == A");
  if (again) {
    refill(b, u, load,
           ModelBulkStore{ViewText{"C.sub[bid, :]"}, ViewText{"S"}, ExprText{thread_is(J)}}, bytes,
           thread_is(I));
    b.m.expects.push_back("C == A");
  }
  b.op(u, ModelBulkWait{0, false});
}

} // namespace

std::int64_t TileMap::elements() const {
  std::int64_t n = 1;
  for (auto e : extent)
    n *= e;
  return n;
}

std::int64_t element_bytes(ModelDtype d) {
  return static_cast<std::int64_t>(tile::size_bytes(*tile::parse_dtype(d.spelling)));
}

std::int64_t TileMap::bytes() const {
  return element_bytes(dtype) * elements();
}

TileMap pick_map(Builder& b, bool rows_128) {
  TileMap t;
  const std::size_t rank = 1 + b.rng.below(tile::kTensorMapMaxRank);
  b.use(static_cast<Feature>(static_cast<unsigned>(Feature::tensor_rank1) + rank - 1));
  const std::int64_t es = std::int64_t{1} << b.rng.below(4);
  t.dtype = b.dtype(es);
  t.granule_elems = std::max<std::int64_t>(1, tile::kTensorInnerCoordGranule / es);
  const std::int64_t box_granule = std::max<std::int64_t>(1, tile::kTensorMapGranule / es);
  // The innermost box: the swizzle's whole span (a narrower swizzled box is padded in shared
  // memory, a contract still changing: not generated), else whole granules.
  // A swizzled tile holds whole periods of the pattern: 8 rows of the span, so a swizzled
  // map has rank 2 at least and 8 or 16 rows in its next-to-innermost dimension.
  std::int64_t inner = 0;
  const bool swizzled = rank >= 2 && b.rng.chance(1, 2);
  if (swizzled) {
    t.swizzle = static_cast<tile::TensorMapSwizzle>(1 + b.rng.below(3));
    inner = row_of(tile::swizzle_rows, t.swizzle).span_bytes / es;
    b.use(Feature::tensor_swizzle);
  } else if (rows_128) { // every row, so every tile, a multiple of 128 bytes
    inner = box_granule * (tile::kTensorMapSharedAlign / tile::kTensorMapGranule);
  } else {
    inner = box_granule *
            b.rng.edge(1, std::min<std::int64_t>(8, tile::kTensorMapMaxBoxDim / box_granule));
  }
  t.box.assign(rank, 1);
  t.strides.assign(rank, 1);
  t.box[rank - 1] = inner;
  std::int64_t budget = 8192 / (inner * es); // rows of the tile
  if (swizzled)                              // the next-to-innermost dimension's 8 or 16 rows
    budget = std::max<std::int64_t>(1, budget / 16);
  for (std::size_t k = 0; k + 1 < rank; ++k) {
    const std::int64_t most = std::max<std::int64_t>(1, std::min<std::int64_t>(8, budget));
    t.box[k] = b.rng.edge(1, most);
    if (swizzled && k + 2 == rank) {
      const std::int64_t period_rows = row_of(tile::swizzle_rows, t.swizzle).repeat_bytes /
                                       row_of(tile::swizzle_rows, t.swizzle).span_bytes;
      t.box[k] = period_rows * b.rng.edge(1, 2);
      continue; // no element stride: the rows stay whole periods
    }
    budget = std::max<std::int64_t>(1, budget / t.box[k]);
    if (t.box[k] % 2 == 0 && b.rng.chance(1, 6)) {
      t.strides[k] = 2;
      b.use(Feature::tensor_element_strides);
    }
  }
  for (std::size_t k = 0; k < rank; ++k)
    t.extent.push_back(t.box[k] / t.strides[k]);
  // Global dimensions: at least the box; the innermost keeps 16-byte row strides.
  for (std::size_t k = 0; k + 1 < rank; ++k)
    t.global.push_back(t.box[k] + b.rng.below(4));
  t.global.push_back(inner + box_granule * static_cast<std::int64_t>(b.rng.below(3)));
  // Within the tensor budget: the outer dimensions shrink to the box, outermost first.
  const auto global_bytes = [&] {
    std::int64_t n = es;
    for (auto d : t.global)
      n *= d;
    return n;
  };
  for (std::size_t k = 0; k + 1 < rank && global_bytes() > b.opt.max_tensor_bytes; ++k)
    t.global[k] = t.box[k];
  if (tile::allows_nan_fill(*tile::parse_dtype(t.dtype.spelling)) && b.rng.chance(1, 3)) {
    t.fill = tile::TensorMapOobFill::nan;
    b.use(Feature::tensor_oob_nan);
  }
  return t;
}

std::vector<ExprText> load_coords(Builder& b, const TileMap& t) {
  std::vector<ExprText> c;
  const std::size_t rank = t.box.size();
  for (std::size_t k = 0; k < rank; ++k) {
    std::int64_t v = 0;
    if (b.rng.chance(1, 2)) {
      if (k + 1 == rank) {
        const std::int64_t lo = -(t.box[k] / t.granule_elems - 1);
        const std::int64_t hi = (t.global[k] - 1) / t.granule_elems;
        v = t.granule_elems * b.rng.between(std::min<std::int64_t>(lo, 0), hi);
      } else {
        // The box's last element along k is at v + (extent - 1) * stride: it must reach 0.
        v = b.rng.between(-(t.extent[k] - 1) * t.strides[k], t.global[k] - 1);
      }
    }
    if (v < 0)
      b.use(Feature::tensor_negative_coord);
    if (v < 0 || v + t.box[k] > t.global[k])
      b.use(Feature::tensor_oob_coord);
    c.push_back(ExprText{std::to_string(v)});
  }
  return c;
}

void declare_tile_tensors(Builder& b, const TileMap& t, std::int64_t G, std::int64_t tiles,
                          bool init, std::int64_t slots) {
  ModelTensor& a = b.tensor("A", false, t.global, t.dtype);
  if (init)
    a.init = b.init_for(t.dtype);
  a.map = ModelMap{t.box, {}, t.swizzle, t.fill};
  if (std::any_of(t.strides.begin(), t.strides.end(), [](auto s) { return s != 1; }))
    a.map->element_strides = t.strides;
  // The output holds `tiles` tiles per CTA along its outermost dimension.
  std::vector<std::int64_t> out_shape = t.extent;
  out_shape[0] *= G * tiles;
  ModelTensor& out = b.tensor("B", false, out_shape, t.dtype);
  out.output = true;
  out.map = ModelMap{t.extent, {}, t.swizzle, tile::TensorMapOobFill::zero};
  std::vector<std::int64_t> tile_shape = t.extent;
  if (slots > 0)
    tile_shape.insert(tile_shape.begin(), slots);
  ModelTensor& s = b.tensor("S", true, tile_shape, t.dtype);
  s.swizzle = t.swizzle;
  if (t.swizzle != tile::TensorMapSwizzle::none)
    s.align = row_of(tile::swizzle_rows, t.swizzle).shared_align;
}

std::int64_t sharing_threads(Builder& b, std::int64_t elements) {
  // A swizzled tile's shares may start inside a 16-byte chunk (6 uint32 per thread): the
  // lowering swizzles each piece at its own address.
  return std::gcd(elements, warp_size * b.rng.edge(1, 2));
}

ViewText thread_share(const std::string& name, const std::vector<std::int64_t>& shape,
                      std::size_t lead, std::int64_t T, const std::string& lead_index) {
  std::string v = name;
  if (lead > 0)
    v += ".sub[" + lead_index + "]";
  const std::size_t rest = shape.size() - lead;
  if (rest > 1) { // the remaining axes merged into one
    std::string axes;
    for (std::size_t k = 0; k < rest; ++k)
      axes += (k ? " d" : "d") + std::to_string(k);
    v += ".rearrange(\"" + axes + " -> (" + axes + ")\")";
  }
  v += ".rearrange(\"(t e) -> t e\", t=" + std::to_string(T) + ").sub[tid, :]";
  return ViewText{v};
}

namespace {

void generate_tensor(Builder& b) {
  const TileMap t = pick_map(b);
  const std::int64_t T = warp_size * b.rng.edge(1, 2);
  const std::int64_t G = pick_ctas(b);
  launch_1d(b, T, G);
  const std::size_t rank = t.box.size();
  const bool again = b.rng.chance(1, 2);
  const std::int64_t tiles = again ? 2 : 1;
  declare_tile_tensors(b, t, G, tiles);
  barrier_init(b);
  const auto [I, J] = issuers(b, T);
  const std::size_t u = b.unit({"A", "B", "S", "bar"});
  const ViewText bar{"bar.sub[0]"};
  std::vector<ExprText> store_at(rank, ExprText{"0"});
  store_at[0] = ExprText{"bid * " + std::to_string(tiles * t.extent[0])};
  const ModelTensorLoad load{"A", load_coords(b, t), ViewText{"S"}, bar, ExprText{thread_is(I)}};
  const ModelTensorStore store{"B", store_at, ViewText{"S"}, ExprText{thread_is(J)}};
  b.op(u, ModelExpectTx{bar, t.bytes(), ExprText{thread_is(I)}});
  b.op(u, load);
  b.op(u, ModelMbarrierWait{bar, std::int64_t{0}});
  b.op(u, store);
  b.op(u, ModelBulkCommit{});
  if (again) {
    ModelTensorStore second = store;
    second.coords[0] = ExprText{store_at[0].text + " + " + std::to_string(t.extent[0])};
    refill(b, u, load, second, t.bytes(), thread_is(I));
  }
  b.op(u, ModelBulkWait{0, false});
}

/// Each thread fills its row of the tile (generic writes), fences the proxy, a barrier, and
/// one thread bulk-stores the tile: the store reads what the fills wrote only through the
/// fence.
void generate_fill_store(Builder& b) {
  b.use(Feature::bulk_fill_store);
  const auto [T, G, es, dt] = open_1d(b, 2);
  const std::int64_t row = b.rng.edge(1, 8); // elements per thread; T * es is a multiple of 32
  b.tensor("B", false, {G, T * row}, dt).output = true;
  b.tensor("S", true, {T, row}, dt);
  const std::size_t u = b.unit({"B", "S"});
  b.op(u, ModelFill{ViewText{"S.sub[tid, :]"}, fill_pattern(b.rng)});
  b.op(u, ModelProxyFence{});
  b.op(u, ModelCtaSync{});
  const auto [I, J] = issuers(b, T);
  (void)I;
  b.op(u, ModelBulkStore{ViewText{"B.sub[bid, :]"}, ViewText{"S"}, ExprText{thread_is(J)}});
  b.op(u, ModelBulkCommit{});
  b.op(u, ModelBulkWait{0, false});
}

} // namespace

} // namespace bulk_gen

void generate_bulk(Builder& b) {
  using namespace bulk_gen;
  b.m.family = Family::bulk;
  const auto shape = b.rng.below(8);
  if (shape == 6)
    generate_bulk_loop(b);
  else if (shape == 7)
    generate_tma_pipeline(b);
  else if (shape == 0)
    generate_bulk_1d(b);
  else if (shape == 1)
    generate_fill_store(b);
  else if (shape == 2 || shape == 3)
    generate_write_load(b, shape == 3);
  else
    generate_tensor(b);
  b.m.name = "bulk_" + std::to_string(b.m.seed);
}

} // namespace ptxgen::driver::fuzz
