#include "emitter/tile/per_cta_bounds.hpp"

#include <algorithm>

namespace ptxgen::tile {

std::optional<LaunchBounds> bounds_at_cta(const LaunchBounds& lb, std::int64_t b,
                                          const std::vector<const ForOp*>& loops) {
  if (b < 0 || b >= lb.grid)
    return std::nullopt;
  LaunchBounds at = lb;
  if (auto it = lb.narrowed.find(ExprKind::bid); it != lb.narrowed.end() && !it->second.contains(b))
    return std::nullopt;
  at.narrowed[ExprKind::bid] = Interval{b, b};
  for (const ForOp* f : loops) {
    const auto start = bounds(*f->start.value, at);
    const auto stop = bounds(*f->stop.value, at);
    if (!start || !stop)
      return std::nullopt;
    at.loops[f->var.value] = Interval{start->lo, std::max(start->lo, stop->hi - 1)};
  }
  return at;
}

} // namespace ptxgen::tile
