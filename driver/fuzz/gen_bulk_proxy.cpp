// The bulk family's shapes where a generic write meets an async-proxy access: a fill of the
// shared tile before a bulk or tensor load of the same bytes (the writers' proxy fence of the
// shared space, then a cta_sync), and generic stores to global memory before a bulk or tensor
// load of them (a proxy fence of the global space: global memory has an async proxy too).
// The loaded tile goes out by generic copies or by a bulk store; after a bulk store the CTA
// sometimes reads the stored bytes back, after the storer's wait and a cta_sync (a bulk wait
// covers the waiting thread's own groups only).

#include "driver/fuzz/gen_bulk.hpp"
#include "emitter/tile/dtype.hpp"

#include <string>

namespace ptxgen::driver::fuzz::bulk_gen {

namespace {

/// `fits` (the space the writes need), sometimes the unqualified fence of both spaces.
ModelProxyFence fence_for(Builder& b, tile::FenceSpace fits) {
  if (b.rng.chance(1, 3)) {
    b.use(Feature::proxy_fence_all);
    return ModelProxyFence{tile::FenceSpace::all};
  }
  return ModelProxyFence{fits};
}

/// How a 1-D shape's tile S ({T, row}) leaves: each thread copies its row to B, or one
/// thread bulk-stores it (then, sometimes, every thread reads B back into R).
struct TileOut {
  bool bulk = false;
  bool readback = false;
};

TileOut pick_out(Builder& b) {
  TileOut o;
  o.bulk = b.rng.chance(2, 3);
  o.readback = o.bulk && b.rng.chance(1, 2);
  if (o.readback)
    b.use(Feature::bulk_global_readback);
  return o;
}

/// The tensors of a 1-D shape: `src` ({G, T, row}, initialised), the loaded tensor A (the
/// same as `src` or a second one the CTA writes first), the output B, R for a read-back, and
/// the tile S.
void declare_1d(Builder& b, const TileOut& o, bool global_write, std::int64_t G, std::int64_t T,
                std::int64_t row, ModelDtype dt) {
  b.tensor(global_write ? "C" : "A", false, {G, T, row}, dt).init = b.init_for(dt);
  if (global_write)
    b.tensor("A", false, {G, T, row}, dt);
  b.tensor("B", false, {G, T, row}, dt).output = true;
  if (o.readback)
    b.tensor("R", false, {G, T, row}, dt).output = true;
  b.tensor("S", true, {T, row}, dt);
}

void tile_out_1d(Builder& b, std::size_t u, const TileOut& o, std::int64_t J,
                 const std::string& source) {
  if (!o.bulk) {
    b.op(u, ModelCopy{ViewText{"B.sub[bid, tid, :]"}, ViewText{"S.sub[tid, :]"}});
    b.m.expects.push_back("B == " + source);
    return;
  }
  b.op(u, ModelBulkStore{ViewText{"B.sub[bid, :, :]"}, ViewText{"S"}, ExprText{thread_is(J)}});
  b.op(u, ModelBulkCommit{});
  b.op(u, ModelBulkWait{0, false});
  b.m.expects.push_back("B == " + source);
  if (o.readback) {
    b.op(u, ModelCtaSync{});
    b.op(u, ModelCopy{ViewText{"R.sub[bid, tid, :]"}, ViewText{"B.sub[bid, tid, :]"}});
    b.m.expects.push_back("R == " + source);
  }
}

/// A 1-D bulk load of the CTA's tile into S, after the generic writes `writes` (a fill of S,
/// or copies of C into A) and their fence and cta_sync.
void write_load_1d(Builder& b, bool global_write, const ModelProxyFence& fence) {
  b.use(Feature::bulk_1d);
  const auto [T, G, es, dt] = open_1d(b, 4);
  const std::int64_t row = b.rng.edge(1, 8); // T * es * row is a multiple of 16 bytes
  const TileOut o = pick_out(b);
  declare_1d(b, o, global_write, G, T, row, dt);
  barrier_init(b);
  const auto [I, J] = issuers(b, T);
  std::vector<std::string> names{"A", "B", "S", "bar"};
  if (global_write)
    names.push_back("C");
  if (o.readback)
    names.push_back("R");
  const std::size_t u = b.unit(names);
  if (global_write)
    b.op(u, ModelCopy{ViewText{"A.sub[bid, tid, :]"}, ViewText{"C.sub[bid, tid, :]"}});
  else
    b.op(u, ModelFill{ViewText{"S.sub[tid, :]"}, fill_pattern(b.rng)});
  b.op(u, fence);
  b.op(u, ModelCtaSync{});
  const ViewText bar{"bar.sub[0]"};
  b.op(u, ModelExpectTx{bar, T * row * es, ExprText{thread_is(I)}});
  b.op(u, ModelBulkLoad{ViewText{"S"}, ViewText{"A.sub[bid, :, :]"}, bar, ExprText{thread_is(I)}});
  b.op(u, ModelMbarrierWait{bar, std::int64_t{0}});
  tile_out_1d(b, u, o, J, global_write ? "C" : "A");
}

/// A tensor load of one box into S after the generic writes, then a tensor store of S.
void write_load_tensor(Builder& b, bool global_write, const ModelProxyFence& fence) {
  const TileMap t = pick_map(b);
  // The fill shares the tile among the threads; a swizzled one also its half (the packed
  // narrow-swizzle mutant halves the tile and keeps the fill's view). The global writes share
  // the whole tensor, which every CTA would write: one CTA.
  const std::int64_t share =
      global_write ? [&] {
        std::int64_t n = 1;
        for (auto d : t.global)
          n *= d;
        return n;
      }()
                   : t.elements() / (t.swizzle != tile::TensorMapSwizzle::none ? 2 : 1);
  const std::int64_t T = sharing_threads(b, share);
  const std::int64_t G = global_write ? 1 : pick_ctas(b);
  launch_1d(b, T, G);
  if (global_write)
    b.tensor("C", false, t.global, t.dtype).init = b.init_for(t.dtype);
  declare_tile_tensors(b, t, G, 1, !global_write);
  barrier_init(b);
  const auto [I, J] = issuers(b, T);
  const std::size_t u = b.unit(global_write ? std::vector<std::string>{"A", "B", "C", "S", "bar"}
                                            : std::vector<std::string>{"A", "B", "S", "bar"});
  if (global_write)
    b.op(u,
         ModelCopy{thread_share("A", t.global, 0, T, ""), thread_share("C", t.global, 0, T, "")});
  else
    b.op(u, ModelFill{thread_share("S", t.extent, 0, T, ""), fill_pattern(b.rng)});
  b.op(u, fence);
  b.op(u, ModelCtaSync{});
  const ViewText bar{"bar.sub[0]"};
  std::vector<ExprText> store_at(t.box.size(), ExprText{"0"});
  store_at[0] = ExprText{"bid * " + std::to_string(t.extent[0])};
  b.op(u, ModelExpectTx{bar, t.bytes(), ExprText{thread_is(I)}});
  b.op(u, ModelTensorLoad{"A", load_coords(b, t), ViewText{"S"}, bar, ExprText{thread_is(I)}});
  b.op(u, ModelMbarrierWait{bar, std::int64_t{0}});
  b.op(u, ModelTensorStore{"B", store_at, ViewText{"S"}, ExprText{thread_is(J)}});
  b.op(u, ModelBulkCommit{});
  b.op(u, ModelBulkWait{0, false});
}

} // namespace

void generate_write_load(Builder& b, bool global_write) {
  b.use(global_write ? Feature::bulk_global_write_load : Feature::bulk_fill_load);
  const ModelProxyFence fence =
      fence_for(b, global_write ? tile::FenceSpace::global : tile::FenceSpace::shared_cta);
  if (b.rng.chance(1, 2))
    write_load_1d(b, global_write, fence);
  else
    write_load_tensor(b, global_write, fence);
}

} // namespace ptxgen::driver::fuzz::bulk_gen
