#include "emitter/tile/per_cta_bounds.hpp"

#include <algorithm>

namespace ptxgen::tile {

bool range_loops(LaunchBounds& lb, const std::vector<const ForOp*>& loops) {
  for (const ForOp* f : loops) {
    const auto start = bounds(*f->start.value, lb);
    const auto stop = bounds(*f->stop.value, lb);
    if (!start || !stop)
      return false;
    lb.loops[f->var.value] = Interval{start->lo, std::max(start->lo, stop->hi - 1)};
  }
  return true;
}

std::optional<LaunchBounds> bounds_at_cta(const LaunchBounds& lb, std::int64_t b,
                                          const std::vector<const ForOp*>& loops) {
  if (b < 0 || b >= lb.grid)
    return std::nullopt;
  LaunchBounds at = lb;
  if (auto it = lb.narrowed.find(ExprKind::bid); it != lb.narrowed.end() && !it->second.contains(b))
    return std::nullopt;
  at.narrowed[ExprKind::bid] = Interval{b, b};
  if (!range_loops(at, loops))
    return std::nullopt;
  return at;
}

} // namespace ptxgen::tile
