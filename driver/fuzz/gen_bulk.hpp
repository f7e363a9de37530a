#pragma once
// What the bulk family's shapes share (gen_bulk.cpp, gen_bulk_proxy.cpp): issuing threads,
// the launch, the barrier, a random tensor map and its tile, load coordinates.

#include "driver/fuzz/gen_build.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ptxgen::driver::fuzz::bulk_gen {

/// "tid == t": the pred of an op one thread issues.
std::string thread_is(std::int64_t t);

/// Two issuers in 0..T-1: the loader and the storer (sometimes the same thread).
std::pair<std::int64_t, std::int64_t> issuers(Builder& b, std::int64_t T);

/// A 1-D launch of G CTAs of T threads.
void launch_1d(Builder& b, std::int64_t T, std::int64_t G);

/// CTAs: 1 to 4, at most the options' maximum; claims multi_cta.
std::int64_t pick_ctas(Builder& b);

/// The opening the 1-D shapes share, drawn in this order: T threads (1 to max_warps warps),
/// G CTAs (pick_ctas), their launch, and one element type of es = 1, 2, 4 or 8 bytes.
struct Open1d {
  std::int64_t T;
  std::int64_t G;
  std::int64_t es;
  ModelDtype dt;
};
Open1d open_1d(Builder& b, std::int64_t max_warps);

/// The barrier `bar`, its init and the cta_sync that publishes it.
void barrier_init(Builder& b);

/// A map and the shared tile it fills: rank, dtype, box, strides, swizzle, fill.
struct TileMap {
  ModelDtype dtype;
  std::vector<std::int64_t> box, strides, extent, global;
  tile::TensorMapSwizzle swizzle = tile::TensorMapSwizzle::none;
  tile::TensorMapOobFill fill = tile::TensorMapOobFill::zero;
  std::int64_t granule_elems = 1; ///< elements of kTensorInnerCoordGranule bytes
  std::int64_t bytes() const;
  std::int64_t elements() const; ///< of the shared tile
};

/// `rows_128`: an unswizzled box's rows of 128 bytes, so that tiles placed one after another
/// (a ring's slots, a pipeline's stages) each start aligned.
TileMap pick_map(Builder& b, bool rows_128 = false);

/// Load coordinates: the innermost a multiple of the granule (negative ones too), the others
/// anywhere the box still overlaps the tensor.
std::vector<ExprText> load_coords(Builder& b, const TileMap& t);

/// Declares the map's global tensor A (initialised unless `init` is false), the output B
/// (`tiles` tiles per CTA along its outermost dimension, mapped for the store) and the shared
/// tile S (swizzled and aligned as the map asks; `slots` > 0: that many tiles, S.sub[slot]).
void declare_tile_tensors(Builder& b, const TileMap& t, std::int64_t G, std::int64_t tiles,
                          bool init = true, std::int64_t slots = 0);

/// The bytes of one element of `d`.
std::int64_t element_bytes(ModelDtype d);

/// Threads that share `elements` of a tile evenly: a divisor of 32 or 64 (fewer for a small
/// tile).
std::int64_t sharing_threads(Builder& b, std::int64_t elements);

/// The view of thread `tid`'s share of tensor `name` of shape `shape` (`lead` indices
/// first, then the rest flattened and split into T rows): every element is one thread's.
/// The flattened elements must be a multiple of T.
ViewText thread_share(const std::string& name, const std::vector<std::int64_t>& shape,
                      std::size_t lead, std::int64_t T, const std::string& lead_index);

/// The shapes with a generic write before an async-proxy load (gen_bulk_proxy.cpp): a fill
/// of the shared tile, or with `global_write` copies into the global source.
void generate_write_load(Builder& b, bool global_write);
/// Loads and stores in a `for` loop whose coordinates move with it (gen_bulk_loop.cpp).
void generate_bulk_loop(Builder& b);
/// The TMA `pipeline` form (gen_bulk_loop.cpp).
void generate_tma_pipeline(Builder& b);

} // namespace ptxgen::driver::fuzz::bulk_gen
