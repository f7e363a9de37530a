#pragma once
// `ptxgen show`: which thread of CTA 0 copies which element of each view of each op,
// and the banks warp 0's shared-memory accesses touch (docs/profile.md).
//
// The walk uses the reference's naive view evaluation (driver/reference/naive_view.hpp),
// never the lowering or the simulator: per thread of CTA 0 and per chunk (an apply's
// repeat coordinate; an element of a copy or a fill), the base-tensor bytes of the chunk.
// Each view is drawn over its base tensor's element grid: rank 2 as it is, rank 1 as one
// row, higher ranks flattened to (product of the leading axes) rows x (last axis) columns;
// at most max_rows x max_cols cells (the top-left corner; the picture says so).
// Ops inside a `for` are drawn for the loop's first iteration.

#include "driver/sim/profile.hpp"
#include "emitter/tile/kernel.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ptxgen::driver::show {

inline constexpr std::int64_t max_rows = 64; ///< rows of a tensor grid drawn at most
inline constexpr std::int64_t max_cols = 64; ///< columns drawn at most
/// Warp 0's shared accesses drawn per view at most (the picture counts the others).
inline constexpr std::size_t max_bank_rows = 16;

/// One element of the drawn grid: the thread of CTA 0 whose chunk holds it.
struct Cell {
  std::int64_t tid = -1;     ///< -1: no thread of CTA 0 touches it
  std::int64_t chunk = -1;   ///< index into ViewPanel::chunks
  std::uint32_t threads = 0; ///< how many threads' chunks hold it (a src read by several)
};

/// One chunk a thread copies: its repeat coordinate and the first drawn cell.
struct Chunk {
  std::int64_t tid = 0;
  std::vector<std::int64_t> repeat; ///< the repeat (apply) or element (copy, fill) coordinate
  std::int64_t first_cell = -1;     ///< row-major index among the drawn cells
  std::int64_t cells = 0;           ///< drawn cells it holds
};

/// One warp-0 access to shared memory (a repeat coordinate of the view).
struct BankRow {
  std::vector<std::int64_t> repeat;
  std::vector<sim::LaneAccess> lanes; ///< shared byte offsets (the kernel's layout)
  sim::SharedCost cost;
  std::array<std::uint32_t, sim::shared_banks> ways{};
};

struct ViewPanel {
  std::string role; ///< "dst" or "src"
  std::string text; ///< the view as written
  const tile::Tensor* tensor = nullptr;
  std::int64_t rows = 0, cols = 0;             ///< the whole grid
  std::int64_t shown_rows = 0, shown_cols = 0; ///< the drawn corner
  std::vector<Cell> cells;                     ///< shown_rows x shown_cols, row-major
  std::vector<Chunk> chunks;                   ///< those with a drawn cell
  std::vector<BankRow> banks;                  ///< shared views: warp 0's first accesses
  std::size_t bank_accesses = 0;               ///< warp 0's accesses in all
  std::uint32_t access_bytes = 0;              ///< bytes per lane access (chunk or element)
  std::string problem; ///< why some chunk could not be located (drawn without it)
};

struct OpPanel {
  /// What the user wrote it as: "op 3 (line 40)", or its role in a pipeline's expansion
  /// with the table it came from (tile::op_label), never Kernel::ops' own numbering.
  std::string label;
  std::string kind; ///< "apply", "copy", "commit_group", ...
  std::uint32_t line = 0;
  std::vector<ViewPanel> views; ///< empty for ops without views
};

struct Picture {
  std::string spec;
  std::string kernel;
  std::int64_t threads = 0; ///< per CTA
  std::vector<OpPanel> ops;
};

/// Walks every op of `k` for CTA 0.
Picture build_picture(const tile::Kernel& k);

/// The picture as SVG text (plain SVG 1.1, no script, no external resource).
std::string render_svg(const Picture& p);

/// The fill colour of thread `tid` (an `hsl(...)` string; distinct for nearby threads).
std::string thread_colour(std::int64_t tid);

} // namespace ptxgen::driver::show
