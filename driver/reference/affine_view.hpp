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

/// The part of a view's affine form that no thread or loop value changes: the strides, and
/// each index of its sub steps (the expression, the size of its axis and the bytes one step
/// of it moves). Computed once per view; AffineSkeleton::at then needs only the indices'
/// values for one thread (the reference calls it for every thread of every op).
struct AffineSkeleton {
  struct Index {
    const tile::Expr* expr = nullptr;
    std::int64_t size = 0;   ///< the indexed axis's size: the value must lie in 0 .. size - 1
    std::int64_t stride = 0; ///< bytes per unit of the value
    bool thread = false;     ///< the expression uses the thread (naive_dependence)
    bool varies = false;     ///< it uses the CTA or a loop variable (naive_dependence)
  };
  std::int64_t base = 0; ///< the offset with every index 0
  std::vector<std::int64_t> stride;
  std::int64_t element_bytes = 1;
  std::vector<Index> indices;

  /// The form's base for `env`: nullopt when an index has no value or lies outside its axis.
  std::optional<std::int64_t> base_at(const tile::ExprEnv& env) const;
  /// For the threads of one op: the base with only the indices that do not use the thread
  /// (the CTA and loop values of `env`); nullopt as base_at (for every thread).
  std::optional<std::int64_t> shared_base(const tile::ExprEnv& env) const;
  /// base_at(env) from shared_base's value: only the indices that use the thread.
  std::optional<std::int64_t> thread_base(std::int64_t shared, const tile::ExprEnv& env) const;
  /// True when every index that uses the thread uses nothing that changes between the CTAs
  /// or iterations of a launch: thread_base(s, env) - s is then the same for a thread in
  /// every op, so a caller may compute it once per thread.
  bool thread_part_fixed() const;
  /// The whole form for `env`, or nullopt as base_at.
  std::optional<AffineForm> at(const tile::ExprEnv& env) const;
};

/// The view's skeleton, or nullopt when the view has no affine form for any thread.
std::optional<AffineSkeleton> affine_skeleton(const NaivePlan& plan, const tile::View& v);

/// The view's affine form for the thread and loop values in `env`, or nullopt.
std::optional<AffineForm> affine_form(const NaivePlan& plan, const tile::View& v,
                                      const tile::ExprEnv& env);

} // namespace ptxgen::driver
