#pragma once
// Views: a tensor seen through rearrange / sub / dtype-view steps.
//
//   A.rearrange("(w t) (r v) -> w t r v", w=4, t=32, v=8)
//   shared.sub[tid, :]          A.sub[tid, 0:8]        A.view("uint32")
//   A.sub[bid, :, :].rearrange("(t r) v -> t r v", t=32)     (steps chain left to right)
//
// A view keeps two descriptions of the same mapping, on purpose:
//  - `steps`, the derivation as written, which the naive CPU reference replays
//    coordinate by coordinate, and
//  - the affine form `axes` (size and byte stride per axis) + `offset_bytes` +
//    `terms` (runtime index x byte stride), which the contract checker and the
//    lowering use.
// Tests check over the whole domain that both agree.

#include "emitter/support/result.hpp"
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/expr.hpp"
#include "emitter/tile/tensor.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ptxgen::tile {

/// One axis of the view: `size` coordinates, each `stride_bytes` apart.
struct ViewAxis {
  std::string name; ///< the rearrange name when there is one ("w", "t", ...), else empty
  std::int64_t size = 1;
  std::int64_t stride_bytes = 0;
};

/// index * stride_bytes is added to the byte offset at run time.
struct RuntimeTerm {
  ExprPtr index;
  std::int64_t stride_bytes = 0;
};

/// `.rearrange(pattern, name=size, ...)`; einops semantics.
struct RearrangeStep {
  std::string pattern;
  std::map<std::string, std::int64_t, std::less<>> sizes;
  /// Where each keyword (`w` of `w=4`) is written in the view text; diagnostics
  /// only, may be empty (errors then point at the pattern).
  std::map<std::string, std::uint32_t, std::less<>> size_offsets;
};

/// One entry of `.sub[...]`: an index (the axis disappears) or a slice `a:b` / `:`.
struct SubEntry {
  bool is_slice = false;
  ExprPtr index;            ///< when !is_slice
  std::int64_t begin = 0;   ///< when is_slice
  std::int64_t end = 0;     ///< when is_slice (exclusive; `:` is 0:size)
  std::uint32_t offset = 0; ///< the entry's span in the view text (diagnostics only)
  std::uint32_t length = 0;
  bool open_end = false; ///< when is_slice: no end written (`a:`, `:`), the axis's size
  /// When is_slice, a bound that names scalar parameters (parse_view with
  /// SliceBounds::parameters, for an expectation's side): the bound as written, whose value
  /// moves with the parameters; nullptr for a constant bound. In the affine form such a
  /// slice spans the whole axis (begin 0, end the axis's size), which holds it at every
  /// value its proof allows.
  ExprPtr begin_expr;
  ExprPtr end_expr;

  bool symbolic() const { return begin_expr || end_expr; }
};

/// `.sub[e0, e1, ...]`; fewer entries than axes leave the trailing axes whole.
struct SubStep {
  std::vector<SubEntry> entries;
};

/// `.view("uint32")`: reinterpret the last axis's bytes as another element type.
struct ReinterpretStep {
  DType dtype = DType::b32;
};

using ViewStep = std::variant<RearrangeStep, SubStep, ReinterpretStep>;

struct View {
  const Tensor* tensor = nullptr; ///< the base tensor (owned by the kernel)
  DType dtype = DType::uint8;     ///< element type seen through the view
  std::vector<ViewStep> steps;    ///< the derivation, in order
  std::vector<ViewAxis> axes;     ///< affine form: outer to inner
  std::int64_t offset_bytes = 0;  ///< affine form: constant part
  std::vector<RuntimeTerm> terms; ///< affine form: runtime part
  /// `S@rank`: the copy of shared tensor S in CTA `rank` of the executing CTA's cluster
  /// (distributed shared memory: mapa, then ld/st.shared::cluster); nullptr for its own. The
  /// affine form is the same in every CTA: the rank picks the CTA, not the bytes.
  ExprPtr peer;
  std::uint32_t peer_offset = 0; ///< where the rank is written in the view text (diagnostics)
  std::uint32_t peer_length = 0;

  std::size_t rank() const { return axes.size(); }
  std::vector<std::int64_t> shape() const;

  /// Byte offset from the tensor's base of the element at `coords`, for one thread.
  /// nullopt when a runtime term cannot be evaluated (division by zero).
  std::optional<std::int64_t> byte_offset(std::span<const std::int64_t> coords,
                                          const ExprEnv& env) const;

  /// Canonical `shape:stride` form in bytes, e.g. `A(4,32,4,8):(1024,64,16,2)+0`;
  /// runtime terms follow as ` + (tid)*64`, in order (the expression as print() writes it);
  /// a peer view's name is followed by `@(rank)`.
  std::string str() const;
};

/// Parses a view expression such as `A.rearrange("...", w=4).sub[tid, :]`; the name may be
/// followed by `@rank` (an integer or a name) or `@(expression)`: a peer CTA's shared tensor.
/// `find_tensor(name)` returns the tensor or nullptr. `is_param` as for parse_expr.
/// Errors point into `text` (line 1, 0-based offsets): unknown tensor, unknown
/// method, pattern errors (unknown axis, axis on one side only, a size that
/// does not divide, a merge of axes whose strides do not merge), sub errors
/// (too many entries, slice out of range), dtype view errors (last axis bytes
/// not a multiple of the new element size, not contiguous).
Result<View> parse_view(std::string_view text,
                        const std::function<const Tensor*(std::string_view)>& find_tensor,
                        const std::function<bool(std::string_view)>& is_param);

/// As parse_view, with the names in `names` (loop variables in indices).
Result<View> parse_view(std::string_view text,
                        const std::function<const Tensor*(std::string_view)>& find_tensor,
                        const ExprNames& names);

/// What a slice bound may be: a constant (every view an op reads or writes: its shape is
/// fixed), or an expression of the scalar parameters too (an expectation's side, evaluated
/// per run at that run's values: SubEntry::begin_expr, end_expr).
enum class SliceBounds : bool { constant, parameters };

/// As parse_view, with slice bounds as `bounds` allows.
Result<View> parse_view(std::string_view text,
                        const std::function<const Tensor*(std::string_view)>& find_tensor,
                        const ExprNames& names, SliceBounds bounds);

/// Applies one step to a view (used by parse_view; exposed for tests and C++ users).
/// `text` and `offset` locate the step in the source for diagnostics:
///  - rearrange: `offset` is where the pattern's first character is in `text`
///    (when text.substr(offset) does not start with the pattern, positions are
///    reported inside the pattern itself);
///  - sub: entries carry their own spans; `offset` (the `[`) is used otherwise;
///  - view: `offset` is where the dtype name is.
/// Checks: rearrange as parse_view lists; sub: at most rank entries, constant
/// indices in 0..size-1, slices 0 <= begin < end <= size (runtime indices are
/// not checked: the contract checker bounds them); view: the last axis is
/// contiguous and its bytes are a multiple of the new element size (alignment
/// of the result is the contract checker's business).
Result<View> apply_step(const View& v, const ViewStep& step, std::string_view text = {},
                        std::size_t offset = 0);

/// The view of a whole tensor: its shape, row-major byte strides, no steps.
View whole(const Tensor& t);

} // namespace ptxgen::tile
