#pragma once
// A tensor map (a TMA descriptor) in `.tile` mode, as a typed model: what cuTensorMapEncodeTiled
// is given, the rules it and the ISA put on it, and where a tile load or store at given
// coordinates puts each element of its box in shared memory and in the tensor.
//
// Dimensions here are outermost first, like Tensor::shape; the Driver API takes them innermost
// first: the order flips in exactly one place, driver/cuda/tensor_map_encode.cpp.
// `.tile` and `.im2col` modes without interleave are modelled (interleaved layouts are not);
// im2col's own rules and addressing are in emitter/tile/im2col.hpp.
// The rules and where each comes from: docs/design-notes.md, "Tensor maps".

#include "emitter/support/diagnostic.hpp"
#include "emitter/support/enum_names.hpp"
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/tensor.hpp"

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::tile {

/// Ranks a tiled tensor map may have.
inline constexpr std::size_t kTensorMapMinRank = 1;
inline constexpr std::size_t kTensorMapMaxRank = 5;
/// Box dims (elements traversed per dimension): 1 .. this.
inline constexpr std::int64_t kTensorMapMaxBoxDim = 256;
/// Element (traversal) strides: 1 .. this.
inline constexpr std::int64_t kTensorMapMaxElementStride = 8;
/// The global address, the global strides and the inner box bytes are multiples of this.
inline constexpr std::int64_t kTensorMapGranule = 16;
/// Global strides are below this (2^40 bytes).
inline constexpr std::int64_t kTensorMapStrideLimit = std::int64_t{1} << 40;
/// Global dims are at most this (2^32 elements).
inline constexpr std::int64_t kTensorMapMaxGlobalDim = std::int64_t{1} << 32;
/// The shared destination (or source) of an unswizzled tensor copy is aligned to this.
inline constexpr std::int64_t kTensorMapSharedAlign = 128;
/// A tensor copy's innermost coordinate, in bytes (coordinate x element size), is a
/// multiple of this: measured on the H200, byte offsets of 4, 8, 3 and -8 raise
/// CUDA_ERROR_ILLEGAL_INSTRUCTION for loads and stores, -16, 16 and 144 run (docs/ptx-rules.md,
/// "Device facts"); the PTX manual does not say so.
inline constexpr std::int64_t kTensorInnerCoordGranule = 16;
/// Shared memory rows the swizzle permutes within: 16-byte chunks of 128-byte rows.
inline constexpr std::int64_t kSwizzleRowBytes = 128;
inline constexpr std::int64_t kSwizzleChunkBytes = 16;

enum class TensorMapInterleave : std::uint8_t { none };
/// How a copy walks the tensor: a box of it (cuTensorMapEncodeTiled), or pixels of a bounding
/// box in NDHW space with channels per pixel (cuTensorMapEncodeIm2col).
enum class TensorMapMode : std::uint8_t { tile, im2col };
enum class TensorMapOobFill : std::uint8_t { zero, nan };
enum class TensorMapL2Promotion : std::uint8_t { none, b64, b128, b256 };

/// What each swizzle mode means: its name, the span (bytes of a box row it may hold), the
/// period after which its pattern repeats, and the shared base alignment that period needs.
struct SwizzleRow {
  std::string_view name;
  std::int64_t span_bytes;   ///< 0 for none: no limit from the swizzle
  std::int64_t repeat_bytes; ///< 0 for none: no pattern
  std::int64_t shared_align; ///< the shared base alignment a copy with this mode needs
};

inline constexpr auto swizzle_rows = enum_table<TensorMapSwizzle::b128>(std::array<SwizzleRow, 4>{{
    {"none", 0, 0, kTensorMapSharedAlign},
    {"32B", 32, 256, 256},
    {"64B", 64, 512, 512},
    {"128B", 128, 1024, 1024},
}});
inline constexpr auto interleave_names = enum_names<TensorMapInterleave::none>("none");
inline constexpr auto tensor_map_mode_names = enum_names<TensorMapMode::im2col>("tile", "im2col");
inline constexpr auto oob_fill_names = enum_names<TensorMapOobFill::nan>("zero", "nan");
inline constexpr auto l2_promotion_names =
    enum_names<TensorMapL2Promotion::b256>("none", "64B", "128B", "256B");

std::string_view name(TensorMapSwizzle s);
std::string_view name(TensorMapInterleave i);
std::string_view name(TensorMapOobFill f);
std::string_view name(TensorMapL2Promotion p);
std::string_view name(TensorMapMode m);

/// An im2col map's own parameters (cuTensorMapEncodeIm2col's). The tensor is NWC, NHWC or
/// NDHWC (rank 3, 4, 5): dimension 0 is N, the last C, those between spatial. The corner
/// vectors have one entry per spatial dimension, outermost first (D, H, W), as the spec
/// writes them; the Driver API takes them innermost first.
struct Im2colParams {
  std::vector<std::int64_t> lower_corner; ///< the bounding box's first pixel, from index 0
  std::vector<std::int64_t> upper_corner; ///< its last pixel, from index dim - 1
  std::int64_t channels = 1;              ///< elements of C per pixel (channelsPerPixel)
  std::int64_t pixels = 1;                ///< pixels per copy (pixelsPerColumn)
};

/// A global tensor's map for `.tile` mode. Every per-dimension vector is outermost first.
struct TensorMapDesc {
  std::string tensor;                        ///< the global tensor's name, for messages
  DType dtype = DType::uint8;                ///< the element type (its size sets the byte counts)
  std::int64_t global_align = 16;            ///< the declared alignment of the global base
  std::vector<std::int64_t> global_dims;     ///< elements per dimension
  std::vector<std::int64_t> global_strides;  ///< bytes between consecutive indices of each
                                             ///< dimension but the innermost (rank - 1 entries);
                                             ///< the innermost's stride is the element size
  std::vector<std::int64_t> box_dims;        ///< elements traversed per dimension
  std::vector<std::int64_t> element_strides; ///< traversal step per dimension (1 .. 8)
  TensorMapSwizzle swizzle = TensorMapSwizzle::none;
  TensorMapInterleave interleave = TensorMapInterleave::none;
  TensorMapOobFill oob_fill = TensorMapOobFill::zero;
  TensorMapL2Promotion l2_promotion = TensorMapL2Promotion::none;
  TensorMapMode mode = TensorMapMode::tile;
  Im2colParams im2col; ///< mode im2col only; box_dims is then empty

  std::size_t rank() const { return global_dims.size(); }
  bool is_im2col() const { return mode == TensorMapMode::im2col; }
};

/// A map of a dense row-major global tensor: its shape, dtype, alignment and strides; `box`
/// (outermost first), element strides 1, no swizzle, zero fill, no L2 promotion.
TensorMapDesc tensor_map_of(const Tensor& global, std::vector<std::int64_t> box);

/// Whether a tensor map of this dtype may fill with NaN (float16, bfloat16, float32, float64).
bool allows_nan_fill(DType t);

/// Every rule the map breaks, one diagnostic each (contract_tmap_*); empty when it is valid.
Diagnostics check_tensor_map(const TensorMapDesc& map);

/// The rule on the shared side of a tensor copy through `map`: a shared address with
/// `shared_align` as its (power of two) alignment must be aligned to 128 bytes, or to the
/// swizzle's repeat (256, 512, 1024 bytes). Empty when it holds.
Diagnostics check_tensor_map_shared(const TensorMapDesc& map, std::int64_t shared_align);

/// Elements a copy delivers per dimension: ceil(box / element stride), outermost first. An
/// im2col map's copy delivers {pixels, channels}: rows of one pixel's channels.
std::vector<std::int64_t> box_extent(const TensorMapDesc& map);
/// Bytes the box moves: the product of box_extent() times the element size. The transaction
/// count a copy signals, whatever room it takes in shared memory (shared_box_bytes).
std::int64_t box_bytes(const TensorMapDesc& map);
/// Bytes one box row (the inner dimension) takes in shared memory: its own bytes, or the
/// swizzle's span when the row is narrower. Measured on the H200 (128B swizzle, a 64-byte inner
/// box): every row takes the whole 128-byte span, chunk j of row r at j ^ (r % 8), and
/// 1024 bytes of transactions complete the phase of a 16-row box; the other modes and element
/// sizes follow by the same rule (docs/ptx-bulk.md, "Narrow swizzled boxes").
std::int64_t box_row_pitch(const TensorMapDesc& map);
/// Bytes the box takes in shared memory: rows (every dimension but the innermost) times
/// box_row_pitch(); box_bytes() unless a swizzled row is narrower than its span.
std::int64_t shared_box_bytes(const TensorMapDesc& map);

/// Where the byte at `offset` of an unswizzled dense box lands under `swizzle`: bits 4.. of
/// the offset (the 16-byte chunk within a 128-byte row) XOR the low bits of the row index
/// (offset / 128), 1, 2 or 3 bits for 32B, 64B, 128B. `offset` is relative to a base aligned
/// to the mode's repeat.
std::int64_t swizzle_offset(TensorMapSwizzle swizzle, std::int64_t offset);

enum class TensorAccess : std::uint8_t { load, store };

/// Where a box element stands against the tensor.
enum class BoxPlace : std::uint8_t {
  inside,  ///< within every global dim: copied
  outside, ///< beyond a global dim: a load fills it (zero or NaN), a store skips it
  spill,   ///< a store only: beyond the inner dim but before the next 16-byte boundary of
           ///< its row, which the H100 writes anyway (its bytes land outside the tensor)
};
inline constexpr auto box_place_names = enum_names<BoxPlace::spill>("inside", "outside", "spill");

/// One element of a box, in row-major box order (innermost fastest).
struct BoxElement {
  std::int64_t shared_offset = 0; ///< byte offset from the (aligned) shared base, swizzled,
                                  ///< rows box_row_pitch() apart
  std::int64_t global_offset = 0; ///< byte offset from the global base; meaningful unless
                                  ///< outside
  BoxPlace place = BoxPlace::inside;
};

/// The elements a load or store at `coords` (outermost first, one per dimension; each the
/// tensor coordinate of the box's first element) moves, in row-major box order.
/// Precondition: check_tensor_map(map) is empty, coords.size() == map.rank(), a tile map
/// (im2col_elements in im2col.hpp walks an im2col one).
std::vector<BoxElement> box_elements(const TensorMapDesc& map, std::span<const std::int64_t> coords,
                                     TensorAccess access);

} // namespace ptxgen::tile
