#pragma once
// An apply's (cp.async's) operands as the reference reads them: pred, ignore_src and src_size,
// what each depends on, which are evaluated once for many chunks, what one chunk reads, and
// whether its two views fit together. No state: the evaluator (evaluator_apply.cpp) and its
// replay (evaluator_replay.cpp) both ask them.

#include "driver/reference/naive_expr.hpp"
#include "driver/reference/naive_view.hpp"
#include "emitter/tile/kernel.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace ptxgen::driver::evaluation {

/// An apply's pred, ignore_src and src_size, in that order.
std::array<const std::optional<tile::Located<tile::ExprPtr>>*, 3> operands(const tile::ApplyOp& a);

/// What each operand's value depends on (a default where there is no operand).
std::array<NaiveDependence, 3> operand_dependence(const tile::ApplyOp& a);

/// The operands' values that are the same for many chunks, evaluated once for them:
/// `per_thread` false: those that use neither the thread nor a repeat axis (for the whole
/// op), true: those that use no repeat axis (for one thread). nullopt: evaluated per chunk
/// (also where it does not evaluate: the chunks report it).
/// `deps`: what each operand depends on (operand_dependence).
void known_operands(const tile::ApplyOp& a, const std::array<NaiveDependence, 3>& deps,
                    const tile::ExprEnv& e, bool per_thread,
                    std::array<std::optional<std::int64_t>, 3>& known);

/// What one chunk reads, nothing reported: `copy` (`bytes`: chunk_bytes, less by src_size
/// or ignore_src), `none` (pred false), `no_value` (operands(a)[`operand`] does not
/// evaluate) or `range` (src_size `bytes` outside 0..chunk_bytes). `known`: the operands'
/// values already evaluated for this chunk (known_operands).
struct ChunkRead {
  enum class What : std::uint8_t { copy, none, no_value, range };
  What what = What::copy;
  std::int64_t bytes = 0;
  std::size_t operand = 0;
};

ChunkRead chunk_read(const tile::ApplyOp& a, const tile::ExprEnv& e,
                     const std::array<std::optional<std::int64_t>, 3>& known);

/// True when an operand of `a` is left to evaluate per chunk: not in `known`.
bool per_chunk(const tile::ApplyOp& a, const std::array<std::optional<std::int64_t>, 3>& known);

/// What every chunk of a thread reads where no operand is left per chunk (`copy` of
/// chunk_bytes without operands); nullopt where one is.
std::optional<ChunkRead> thread_read(const tile::ApplyOp& a, const tile::ExprEnv& e,
                                     const std::array<std::optional<std::int64_t>, 3>& known);

/// Why an apply's dst and src views (plans dp and sp) do not fit together; empty when they do.
std::string misfit(const tile::ApplyOp& a, const NaivePlan& dp, const NaivePlan& sp);

/// True when an operand of `a` (what each depends on: `deps`) uses the thread.
bool uses_thread(const tile::ApplyOp& a, const std::array<NaiveDependence, 3>& deps);

} // namespace ptxgen::driver::evaluation
