#pragma once
// What the generator's families share: the builder that fills a SpecModel, dtypes by
// element size, launch shapes, and the per-thread row copy every family is made of.

#include "driver/fuzz/gen_rng.hpp"
#include "driver/fuzz/spec_model.hpp"
#include "emitter/ptx/feature.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::fuzz {

/// Static shared memory ends here; beyond it the kernel uses dynamic shared memory.
inline constexpr std::int64_t static_shared_limit = ptx::max_static_shared_bytes;
/// Threads per warp, and the most threads per CTA.
inline constexpr std::int64_t warp_size = 32;
inline constexpr std::int64_t max_block_threads = ptx::max_block_threads;
inline constexpr std::int64_t max_block_z = ptx::max_block_dims[2];
/// The dtypes of padding and of mbarriers.
inline constexpr ModelDtype byte_dtype{"uint8", 1};
inline constexpr ModelDtype barrier_dtype{"uint64", 8};
/// The cp.async sizes.
inline constexpr std::int64_t cg_chunk = 16;

class Builder {
public:
  Builder(std::uint64_t seed, const GenOptions& options);

  Rng rng;
  const GenOptions& opt;
  SpecModel m;

  void use(Feature f);
  /// A new shrinker unit naming these tensors / parameters; returns its index.
  std::size_t unit(std::vector<std::string> names);
  void op(std::size_t unit, ModelOpBody body);
  ModelTensor& tensor(std::string name, bool shared, std::vector<std::int64_t> shape,
                      ModelDtype dtype);
  /// A u32 parameter with a range and a value biased to its ends; returns its name.
  std::string param_u32(std::int64_t lo, std::int64_t hi);
  std::string param_u64(std::uint64_t value);
  /// A dtype spelling of `bytes` per element (sometimes an alias).
  ModelDtype dtype(std::int64_t bytes);
  tile::TensorInit init_for(ModelDtype dtype);
  /// Shared bytes of the tensors declared so far, each at its alignment.
  std::int64_t shared_bytes() const;
  /// Threads per CTA and CTAs, and their shapes (1-D to 3-D).
  void launch(std::int64_t threads, std::int64_t ctas);
  std::int64_t threads() const;
  std::int64_t ctas() const;

private:
  std::size_t params_ = 0;
};

/// Where one tile's per-thread rows go: T threads of G CTAs, each copying its rows
/// of `row_bytes` in chunks of `chunk` bytes; how a view names them.
struct RowCopy {
  bool cta_scope = false;
  ptx::CacheOp cache_op = ptx::CacheOp::cg;
  std::int64_t chunk = cg_chunk;
  std::int64_t reps = 1;        ///< chunks per row
  std::int64_t p = 1;           ///< the second repeat axis's size (1: one axis)
  bool permuted = false;        ///< the repeat axes swapped on the right-hand side
  bool rearranged = true;       ///< false: the row is the chunk (reps == 1), no rearrange
  std::int64_t src_es = 1;      ///< element bytes of the src view (after .view)
  std::int64_t dst_es = 1;      ///< element bytes of the dst view (after .view)
  std::int64_t dst_decl_es = 1; ///< the shared tensor's (and the output's) element bytes
  std::optional<ModelDtype> src_view_dtype; ///< a .view("...") step on src
  std::optional<ModelDtype> dst_view_dtype; ///< a .view("...") step on dst
  std::int64_t src_split = 1;      ///< >1: A's row declared as [split, cols/split], merged back
  ModelDtype src_dtype, dst_dtype; ///< the global src's and the shared tensor's dtypes
  std::int64_t src_cols = 0;       ///< columns of the global src tensor, in its own dtype
  std::int64_t src_row_bytes = 0;  ///< bytes of a row of the global src tensor
  std::int64_t slice_lo = 0;       ///< first src column (view elements) of the row
  std::string src_row;             ///< the src row's index (thread scope)
  std::string dst_row;             ///< the shared row's index (thread scope)
  std::string read_row;            ///< the shared row read back
  std::vector<std::string> lead_src, lead_dst; ///< indices before the row ("k", "stage")
  std::vector<std::string> names;              ///< parameters the row expressions name

  std::string src_thread; ///< src_row's part of the thread (src_row is bid * T + it)
  /// The rows as functions of the thread (index t: the row of thread t); src_of is empty
  /// where the src row is not a permutation.
  std::vector<std::int64_t> src_of, dst_of, read_of;

  std::int64_t row_bytes() const { return chunk * reps; }
  /// True when a thread reads back a row another thread copied (the rows as functions:
  /// `warp * 32 + lane`, `(tid + 1) % 2` and `1 - tid`... compare by value).
  bool cross() const;
  /// True when the src row is the thread's own (bid * T + tid), however it is spelt.
  bool src_linear() const;
  std::vector<std::pair<std::string, std::int64_t>> repeat_axes() const;
  ViewText src_view(const std::string& tensor, std::int64_t threads, std::int64_t ctas) const;
  ViewText dst_view(const std::string& tensor, std::int64_t threads) const;
};

/// The extras of an apply: opcode, cache policy, src_size / ignore_src / pred.
struct ApplyContext {
  const RowCopy* rows = nullptr;
  std::string loop_var;        ///< a loop variable the expressions may use
  std::int64_t loop_trips = 0; ///< its values: 0..loop_trips-1
  bool allow_pred = true;      ///< false where no fill sentinel can precede the apply
};
struct ApplyExtras {
  ModelApply apply;               ///< all but dst, src and chunk_bytes
  bool needs_fill = false;        ///< pred used: the destination must hold a sentinel
  bool exact = true;              ///< the copy is whole (no pred/src_size/ignore_src)
  std::vector<std::string> names; ///< parameters the keys name
};
ApplyExtras apply_extras(Builder& b, const ApplyContext& ctx);

/// A fill pattern in one of its spellings.
ModelPattern fill_pattern(Rng& rng);

/// The families (gen_families.cpp).
void generate_tile(Builder& b);
void generate_loop(Builder& b);
void generate_pipeline(Builder& b);
void generate_mbarrier(Builder& b);
/// The bulk family (gen_bulk.cpp).
void generate_bulk(Builder& b);
/// The cluster family (gen_cluster.cpp).
void generate_cluster(Builder& b);

/// Picks a row layout for T threads x `row_ctas` CTAs x `tiles` rows per thread within the
/// byte caps (row_ctas: the CTAs whose rows the global tensors hold, 1 for a grid stride;
/// the shared tensor holds `stages` x T rows). `cross_read`: threads read back rows other
/// threads copied.
RowCopy pick_rows(Builder& b, bool allow_cta, std::int64_t tiles, std::int64_t row_ctas,
                  std::int64_t stages, bool cross_read = false);
/// The row of thread expression `thread` of CTA `bid` when each CTA has T rows.
std::string global_row(std::int64_t T, std::int64_t G, const std::string& thread);
/// Threads per CTA, at most `max`, biased to edges; a multiple of 32 if `warps`.
std::int64_t pick_threads(Rng& rng, std::int64_t max, bool warps);

} // namespace ptxgen::driver::fuzz
