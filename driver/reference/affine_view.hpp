#pragma once
// The CPU reference's fast path for views: for one thread, a view whose bytes are an affine
// function of its coordinates is located by a base and one stride per axis instead of the
// coordinate-by-coordinate replay of naive_locate.
//
// The form is derived from the reference's own plan (naive_plan: the view's steps replayed
// over the base tensor's shape), never from the emitter's affine form of a View (axes,
// terms, byte_offset()): forward from the base tensor (row major, each element's bytes
// contiguous), each step maps the strides of its input to those of its output:
//  - rearrange "lhs -> rhs": each lhs axis's stride goes to its last name, the name before
//    gets stride * size of the name after it, and so on; a rhs group is affine when its
//    names' strides nest the same way (stride of a name = stride of the next * its size),
//    and then has the stride of its last name (a group of no names: size 1, stride 0);
//  - sub[...]: an index adds value * stride to the base (the value evaluated for the
//    thread; it must lie in its axis), a slice adds begin * stride;
//  - view(dtype): the old last axis must hold contiguous elements (stride = element size);
//    the new one then has stride = the new element size.
// Anything else (a rhs group whose names do not nest, an index outside its axis, a plan that
// does not replay) has no form: the caller falls back to naive_locate, which also reports
// why. Where the form exists, every coordinate inside the view's shape is in bounds at every
// level, and element e's bytes are base + sum(c[a] * stride[a]) + 0 .. element_bytes - 1
// (tests/unit/reference_affine.cpp checks this against naive_locate on the whole corpus).

#include "driver/reference/naive_view.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ptxgen::driver {

struct AffineForm {
  std::int64_t base = 0;
  std::vector<std::int64_t> stride; ///< bytes per step of each axis of the view
  std::int64_t element_bytes = 1;

  /// The byte offset of the first byte of the element at `coords` (inside the view's shape).
  std::int64_t offset(std::span<const std::int64_t> coords) const {
    std::int64_t o = base;
    for (std::size_t a = 0; a < coords.size(); ++a)
      o += coords[a] * stride[a];
    return o;
  }
};

/// The view's affine form for the thread and loop values in `env`, or nullopt.
std::optional<AffineForm> affine_form(const NaivePlan& plan, const tile::View& v,
                                      const tile::ExprEnv& env);

} // namespace ptxgen::driver
