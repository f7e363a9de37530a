#pragma once
// `ptxgen show`: which thread of CTA 0 copies which element of each view of each op, over
// every iteration of every loop, and the banks of the shared accesses the emitted
// instructions make (docs/profile.md).
//
// The walk uses the reference's naive view evaluation (driver/reference/naive_view.hpp),
// never the lowering or the simulator: per thread of CTA 0 and per chunk (an apply's
// repeat coordinate; an element of a copy or a fill), the base-tensor bytes of the chunk.
// Every iteration of every loop is walked. A loop's iterations are grouped by what they
// do: two iterations are alike when each view touches the same elements by the same
// threads up to a shift of the whole (tile k and tile k + 1 of a global tensor; stage 0
// and stage 1 of a ring), so a pipeline gives a panel for its prologue, one for the
// steady state and one for the tail whose refill is predicated off. Each panel draws the
// union of its iterations, each cell naming which iterations touch it.
//
// A view is drawn over its base tensor: the leading axes (all but the last two) as
// blocks side by side (a ring's stages, a global tensor's tiles), each block (second-last
// axis) rows x (last axis) columns; rank 1 is one row. Only blocks that some thread
// touches are drawn, at most max_blocks of them, each at most max_rows x max_cols.
//
// The banks are not modelled here: they are the simulator's profile of the emitted
// instructions (driver/sim/profile.hpp, what `run --profile` prints), passed in.

#include "driver/sim/profile.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver::show {

inline constexpr std::int64_t max_rows = 64;        ///< rows of a block drawn at most
inline constexpr std::int64_t max_cols = 64;        ///< columns of a block drawn at most
inline constexpr std::int64_t max_blocks = 8;       ///< blocks of a view drawn at most
inline constexpr std::size_t max_iterations = 4096; ///< loop iterations walked at most

/// One element of a drawn block.
struct Cell {
  std::int64_t tid = -1;                ///< the first thread that touches it; -1: none
  std::uint32_t threads = 0;            ///< distinct threads that touch it
  std::vector<std::int64_t> iterations; ///< the panel's iterations that touch it (loop values)
};

struct ViewPanel {
  std::string role; ///< "dst" or "src"
  std::string text; ///< the view as written
  const tile::Tensor* tensor = nullptr;
  std::int64_t blocks = 1, rows = 0, cols = 0; ///< the tensor as blocks of rows x cols
  std::int64_t shown_rows = 0, shown_cols = 0; ///< the drawn corner of each block
  std::vector<std::int64_t> shown_blocks;      ///< the touched blocks drawn, ascending
  std::int64_t touched_blocks = 0;             ///< blocks some thread touches, in all
  /// shown_blocks.size() x shown_rows x shown_cols, block-major then row-major.
  std::vector<Cell> cells;
  std::string problem; ///< why some chunk could not be located (drawn without it)
};

struct OpPanel {
  /// What the user wrote it as: "op 3 (line 40)", or its role in a pipeline's expansion
  /// with the table it came from (tile::op_label); prologue loads of one table are one panel.
  std::string label;
  std::string kind; ///< "apply", "copy", "commit_group", ...
  std::uint32_t line = 0;
  std::vector<ViewPanel> views; ///< empty for ops without views
};

/// One distinct iteration pattern (or the ops outside every loop).
struct IterationPanel {
  std::string title;                ///< "outside loops", "for k: k = 0..6 (7 iterations)", ...
  std::string var;                  ///< the loop's variable; empty outside loops
  std::vector<std::int64_t> values; ///< its values in this panel
  std::vector<OpPanel> ops;
};

/// A multicast load (`multicast = MASK`) in CTA 0's cluster: which CTA's shared memory each
/// CTA's copy fills, the loops at their first iteration.
struct MulticastPanel {
  std::string label; ///< "bulk_load at line 52, dst S...": the op and its shared view
  std::int64_t ranks = 1;
  /// sends[s]: the ranks whose shared memory rank s's issuing threads fill (bit r: rank r).
  std::vector<std::uint32_t> sends;
};

struct Picture {
  std::string spec;
  std::string kernel;
  std::int64_t threads = 0; ///< per CTA
  std::int64_t cluster_ctas =
      1; ///< CTAs in CTA 0's cluster (`[kernel] cluster`; CTA 0 is its rank 0)
  std::vector<IterationPanel> panels;
  std::vector<MulticastPanel> multicasts;
  std::string walk_note; ///< set when a loop had more than max_iterations iterations
  /// The simulator's profile of the emitted PTX (`run --profile`), when it ran.
  std::optional<sim::ProfileReport> profile;
  std::string profile_note; ///< why there is no profile, or which PTX it counts
};

/// Walks every op of `k` for CTA 0, every iteration of every loop.
Picture build_picture(const tile::Kernel& k);

/// The picture as SVG text (plain SVG 1.1, no script, no external resource).
std::string render_svg(const Picture& p);

/// The fill colour of thread `tid` (an `hsl(...)` string; distinct for nearby threads).
std::string thread_colour(std::int64_t tid);

/// "0..6", "0, 2, 4, 6", "1, 3, 5": loop values as the picture writes them.
std::string values_text(const std::vector<std::int64_t>& values);

} // namespace ptxgen::driver::show
