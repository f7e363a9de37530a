#include "driver/fuzz/shrink.hpp"

#include <algorithm>

namespace ptxgen::driver::fuzz::detail {

std::vector<std::vector<bool>> ddmin_masks(std::size_t units, std::size_t n) {
  n = std::clamp<std::size_t>(n, 1, std::max<std::size_t>(units, 1));
  std::vector<std::vector<bool>> subsets, complements;
  for (std::size_t i = 0; i < n; ++i) {
    // Chunk i: units [units*i/n, units*(i+1)/n), sizes differing by at most one.
    const std::size_t begin = units * i / n, end = units * (i + 1) / n;
    std::vector<bool> only(units, false), but(units, true);
    for (std::size_t u = begin; u < end; ++u) {
      only[u] = true;
      but[u] = false;
    }
    const std::size_t size = end - begin;
    if (size > 0 && size < units)
      subsets.push_back(std::move(only));
    if (n > 2 && size > 0 && size < units)
      complements.push_back(std::move(but));
  }
  subsets.insert(subsets.end(), std::make_move_iterator(complements.begin()),
                 std::make_move_iterator(complements.end()));
  return subsets;
}

std::size_t ddmin_next(std::size_t units, std::size_t n, std::size_t taken, std::size_t units_now) {
  if (taken == npos)
    return n >= units ? 0 : std::min(2 * n, units);
  if (taken < n) // a subset failed: restart on it
    return 2;
  return std::max<std::size_t>(std::min(n - 1, units_now), 2); // a complement failed
}

} // namespace ptxgen::driver::fuzz::detail
