#include "emitter/tile/suggest.hpp"

#include <algorithm>
#include <vector>

namespace ptxgen::tile {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  // d[i][j]: distance between a[0, i) and b[0, j), stored row-major.
  std::vector<std::size_t> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i)
    at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j)
    at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      std::size_t best = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        best = std::min(best, at(i - 2, j - 2) + 1);
      at(i, j) = best;
    }
  }
  return at(n, m);
}

std::string_view closest_match(std::string_view word,
                               std::span<const std::string_view> candidates) {
  const std::size_t limit = word.size() <= 3 ? 1 : 2;
  std::string_view best;
  std::size_t best_distance = limit + 1;
  for (std::string_view c : candidates) {
    if (c == word)
      return {};
    // The distance is at least the difference in length: past the limit there is nothing to
    // compute (a 4 MiB misspelt name in a hostile spec took seconds of quadratic work).
    const std::size_t longer = std::max(word.size(), c.size());
    if (longer - std::min(word.size(), c.size()) > limit)
      continue;
    const std::size_t dist = edit_distance(word, c);
    if (dist < best_distance && dist < c.size()) {
      best = c;
      best_distance = dist;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  std::string_view m = closest_match(word, candidates);
  if (m.empty())
    return {};
  return "; did you mean '" + std::string(m) + "'?";
}

std::string or_choices(std::string suggestion, std::string choices) {
  return suggestion.empty() ? std::move(choices) : std::move(suggestion);
}

} // namespace ptxgen::tile
