#pragma once
// The CPU reference's own, deliberately naive evaluation of views.
//
// It never reads the affine form of a View (axes, offset_bytes, terms,
// byte_offset()). It replays View::steps instead: forward over the base
// tensor's shape to get each level's shape (naive_plan), and backward,
// coordinate by coordinate, from a view coordinate to the base tensor
// (naive_locate):
//  - rearrange "lhs -> rhs": each rhs axis's coordinate is split into its
//    names' values (mixed radix, last name fastest), then each lhs group is
//    recombined from them (mixed radix) into the input coordinate;
//  - sub[...]: a slice adds its begin, an index inserts the expression's value;
//  - view(dtype): the last axis is tracked in bytes: coordinate k of an element
//    of s2 bytes, byte b, is byte k*s2+b of the old last axis.
// At the base: offset = row-major flat index * element size + byte in element; in a swizzled
// shared tensor that byte is stored at the swizzle of that offset (tensor_map_naive.hpp's
// naive_swizzle: o ^ (((o / 128) % R) * 16), R = 2, 4, 8 for 32B, 64B, 128B).
// Tests elsewhere compare naive_byte_offsets() with View::byte_offset().

#include "emitter/support/result.hpp"
#include "emitter/tile/expr.hpp"
#include "emitter/tile/tensor.hpp"
#include "emitter/tile/view.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver {

/// An einops pattern `lhs -> rhs`, parsed: each side a list of axes, each axis a
/// group of names (a bare name is a group of one; `()` and `1` are groups of none,
/// size 1; a `1` inside parentheses is dropped).
struct NaivePattern {
  std::vector<std::vector<std::string>> lhs;
  std::vector<std::vector<std::string>> rhs;
};

/// Parses a pattern; a failure says why.
Fallible<NaivePattern> parse_naive_pattern(std::string_view text);

/// A view prepared for naive evaluation.
struct NaivePlan {
  /// levels[0] is the base tensor; levels[i + 1] the result of steps[i].
  struct Level {
    std::vector<std::int64_t> shape;
    unsigned element_bytes = 1;
  };
  std::vector<Level> levels;
  /// Per step: the parsed pattern and every name's size (rearrange steps only).
  std::vector<NaivePattern> patterns;
  std::vector<std::map<std::string, std::int64_t, std::less<>>> name_sizes;
  /// Per rearrange step, the pattern with its names resolved once (naive_locate looks
  /// nothing up by name): each name's size, and each axis's names as indices into it.
  struct Names {
    std::vector<std::int64_t> size;
    std::vector<std::vector<std::size_t>> lhs;
    std::vector<std::vector<std::size_t>> rhs;
  };
  std::vector<Names> names;
  tile::DType dtype = tile::DType::uint8; ///< the element type after all steps
  /// The base tensor's swizzle: where its row-major bytes are stored.
  tile::TensorMapSwizzle swizzle = tile::TensorMapSwizzle::none;
  std::string error; ///< non-empty: the steps cannot be replayed (why)

  bool ok() const { return error.empty(); }
  const std::vector<std::int64_t>& shape() const { return levels.back().shape; }
  unsigned element_bytes() const { return levels.back().element_bytes; }
};

/// Replays the steps forward over the base tensor's shape (shapes only, no offsets).
NaivePlan naive_plan(const tile::View& v);

/// Where the bytes of one view element are.
struct NaiveLocation {
  std::vector<std::int64_t> offsets; ///< base-tensor byte offset of each byte of the element
  bool in_bounds = true;             ///< false: a coordinate at some level is outside its axis
  std::string error;                 ///< non-empty: why in_bounds is false, or why offsets is empty
};

/// Maps view coordinate `coords` back to the base tensor for one thread.
/// offsets is empty only when it cannot be computed (bad plan, wrong rank,
/// an index expression that does not evaluate); a coordinate outside its axis
/// still yields offsets (the outermost digit of a split is not wrapped) but
/// in_bounds = false.
NaiveLocation naive_locate(const NaivePlan& plan, const tile::View& v, const tile::ExprEnv& env,
                           std::span<const std::int64_t> coords);

/// The base-tensor byte offset of each byte of the element at `coords`
/// (size = the view's element bytes); empty when it cannot be computed.
std::vector<std::int64_t> naive_byte_offsets(const tile::View& v, const tile::ExprEnv& env,
                                             std::span<const std::int64_t> coords);

/// The view's shape by the forward replay; nullopt when the steps do not replay.
std::optional<std::vector<std::int64_t>> naive_shape(const tile::View& v);

/// What the reference knows of an element type: its own table, not the emitter's.
struct NaiveDType {
  /// How an integer of the type reads its bits (floats are signed; only their integer
  /// range matters to the reference).
  enum class Sign : std::uint8_t { unsigned_, signed_, untyped };
  unsigned bytes;            ///< element size
  unsigned significand_bits; ///< a float's significand bits with the leading one; 0 otherwise
  Sign sign;
};
const NaiveDType& naive_dtype(tile::DType d);

/// naive_dtype(d).bytes.
unsigned naive_dtype_bytes(tile::DType d);

} // namespace ptxgen::driver
