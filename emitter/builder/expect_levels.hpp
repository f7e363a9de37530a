#pragma once
// An expectation side's axes, level by level: its view's steps walked from the tensor, each
// axis's size an expression of the scalar parameters (a constant unless a slice bound names
// one). The builder's expectation rules read it: which axes of the view move with the
// parameters (expect.cpp compares the shapes of the two sides on the others), the entries
// whose place in their axis the bounds proof must settle (expect_bounds.cpp), and the step,
// if any, that reshapes an axis that moves, which no single proof covers.
//
// The constant sizes are the view machinery's own (tile::apply_step replayed level by level);
// an axis that moves keeps its expression through a `.sub` slice with an open end, a
// rearrange that moves it whole (a permutation) and a dtype view of the same element size.

#include "emitter/tile/view.hpp"

#include <cstddef>
#include <vector>

namespace ptxgen::build {

/// One `.sub[...]` entry of a side whose place in its axis is not settled by constants alone
/// (apply_step checked those), with its axis at that level: the index or the slice's bounds
/// and the axis's size, each an expression of the parameters.
struct ExpectEntry {
  const tile::SubEntry* entry = nullptr;
  std::size_t axis = 0;
  tile::ExprPtr size;
  tile::ExprPtr index; ///< an index
  tile::ExprPtr begin; ///< a slice
  tile::ExprPtr end;
};

struct ExpectLevels {
  std::vector<tile::ExprPtr> sizes; ///< the view's axes' sizes
  std::vector<bool> moves;          ///< which of them move with the parameters
  std::vector<ExpectEntry> entries; ///< in step order
  /// The first step that splits, merges or reinterprets an axis whose size moves (a
  /// rearrange that does not move it whole, a dtype view of another element size over it),
  /// its index in View::steps, and the axis at its input; steps.size() when none.
  std::size_t reshapes_moving = 0;
  std::size_t moving_axis = 0;
};

/// Walks `v`'s steps from its tensor (v.tensor must be set).
ExpectLevels expect_levels(const tile::View& v);

} // namespace ptxgen::build
