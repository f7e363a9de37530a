#pragma once
// The shrinker of `ptxgen fuzz`: reduces a failing candidate to a small one
// that still fails the same way. Generic over the candidate type: the problem says how to
// drop units of a candidate, which one-step simplifications it has, how complex it is,
// and (for a whole batch at once, so that a round's candidates share one conformance
// run) which candidates still fail.
//
// Two phases, alternated until neither changes the candidate or the budget is spent:
//  1. ddmin over the candidate's units (Zeller and Hildebrandt's delta debugging): at
//     granularity n the units split into n chunks; every "only chunk i" and every
//     "all but chunk i" candidate of the round is evaluated in one batch, and the first
//     failing one (subsets before complements) becomes the candidate.
//  2. greedy simplification: the candidate's simplifications that lower its complexity,
//     in the order given (most aggressive first), evaluated in one batch; the first that
//     still fails becomes the candidate; repeated to a fixpoint.
// The predicate need not be monotone: the result is always a candidate that was seen to
// fail (or the start), and every accepted step (of either phase) lowers the complexity,
// so it ends.

#include <cstddef>
#include <functional>
#include <vector>

namespace ptxgen::driver::fuzz {

template <class T>
struct ShrinkProblem {
  std::function<std::size_t(const T&)> unit_count;
  /// The candidate with only the units whose `keep` is true.
  std::function<T(const T&, const std::vector<bool>& keep)> keep_units;
  /// One-step simplifications, most aggressive first; they need not all be valid.
  std::function<std::vector<T>(const T&)> simplifications;
  /// A measure every accepted simplification must lower (others are not tried).
  std::function<std::size_t(const T&)> complexity;
  /// For each candidate of the batch, whether it still fails the same way.
  std::function<std::vector<bool>(const std::vector<T>&)> still_fails;
};

struct ShrinkOptions {
  std::size_t max_candidates = 2000; ///< budget: candidates evaluated in all
  std::size_t max_batch = 256;       ///< candidates in one still_fails call at most
};

struct ShrinkStats {
  std::size_t rounds = 0;     ///< still_fails calls (batches)
  std::size_t candidates = 0; ///< candidates evaluated
  std::size_t accepted = 0;   ///< steps taken (ddmin reductions and simplifications)
  std::size_t units_before = 0, units_after = 0;
  std::size_t complexity_before = 0, complexity_after = 0;
  bool budget_exhausted = false; ///< stopped by max_candidates, not at a fixpoint
};

template <class T>
struct ShrinkResult {
  T value;
  ShrinkStats stats;
};

namespace detail {

/// The ddmin candidates' keep-masks at granularity `n` over `units` units: the n
/// "only chunk i" masks, then the n "all but chunk i" masks (none when n == 2: the
/// complements are the subsets again; none of size 0 or `units`).
std::vector<std::vector<bool>> ddmin_masks(std::size_t units, std::size_t n);

/// The granularity after a round: `taken` is the index of the accepted mask in
/// ddmin_masks(units, n) (or npos when none failed); `units_now` the units left.
/// Returns 0 when ddmin is done (no failure at the finest granularity).
std::size_t ddmin_next(std::size_t units, std::size_t n, std::size_t taken, std::size_t units_now);

inline constexpr std::size_t npos = static_cast<std::size_t>(-1);

} // namespace detail

/// Runs the batches of `candidates` (at most max_batch at a time) through the problem's
/// predicate within the budget; returns the index of the first failing one, or npos.
template <class T>
std::size_t first_failing(const ShrinkProblem<T>& p, const std::vector<T>& candidates,
                          const ShrinkOptions& o, ShrinkStats& s) {
  for (std::size_t at = 0; at < candidates.size();) {
    if (s.candidates >= o.max_candidates) {
      s.budget_exhausted = true;
      return detail::npos;
    }
    const std::size_t n =
        std::min({candidates.size() - at, o.max_batch, o.max_candidates - s.candidates});
    std::vector<T> batch(candidates.begin() + static_cast<std::ptrdiff_t>(at),
                         candidates.begin() + static_cast<std::ptrdiff_t>(at + n));
    const std::vector<bool> fails = p.still_fails(batch);
    ++s.rounds;
    s.candidates += n;
    for (std::size_t i = 0; i < n && i < fails.size(); ++i)
      if (fails[i])
        return at + i;
    at += n;
  }
  return detail::npos;
}

/// ddmin over the units of `value`; true when it removed some. Only candidates that
/// lower the complexity are evaluated: a unit already dropped may still be counted (a
/// model that keeps its unit numbering), and dropping it again is no progress.
template <class T>
bool shrink_units(T& value, const ShrinkProblem<T>& p, const ShrinkOptions& o, ShrinkStats& s) {
  bool changed = false;
  std::size_t units = p.unit_count(value);
  for (std::size_t n = 2; units >= 2 && n != 0;) {
    n = std::min(n, units);
    const auto masks = detail::ddmin_masks(units, n);
    const std::size_t c = p.complexity(value);
    std::vector<T> candidates;
    std::vector<std::size_t> mask_of; ///< the ddmin mask each candidate comes from
    for (std::size_t m = 0; m < masks.size(); ++m) {
      T cand = p.keep_units(value, masks[m]);
      if (p.complexity(cand) >= c)
        continue;
      candidates.push_back(std::move(cand));
      mask_of.push_back(m);
    }
    const std::size_t taken = first_failing(p, candidates, o, s);
    if (s.budget_exhausted)
      break;
    std::size_t now = units;
    if (taken != detail::npos) {
      value = std::move(candidates[taken]);
      now = p.unit_count(value);
      ++s.accepted;
      changed = true;
    }
    n = detail::ddmin_next(units, n, taken == detail::npos ? taken : mask_of[taken], now);
    units = now;
  }
  return changed;
}

/// Greedy simplification to a fixpoint; true when some was accepted.
template <class T>
bool shrink_simplify(T& value, const ShrinkProblem<T>& p, const ShrinkOptions& o, ShrinkStats& s) {
  bool changed = false;
  while (!s.budget_exhausted) {
    const std::size_t c = p.complexity(value);
    std::vector<T> candidates;
    for (auto& cand : p.simplifications(value))
      if (p.complexity(cand) < c)
        candidates.push_back(std::move(cand));
    const std::size_t taken = first_failing(p, candidates, o, s);
    if (taken == detail::npos)
      break;
    value = std::move(candidates[taken]);
    ++s.accepted;
    changed = true;
  }
  return changed;
}

/// Shrinks `start` (which fails: it is not evaluated again) as the header says.
template <class T>
ShrinkResult<T> shrink(T start, const ShrinkProblem<T>& p, const ShrinkOptions& o = {}) {
  ShrinkResult<T> r{std::move(start), {}};
  r.stats.units_before = p.unit_count(r.value);
  r.stats.complexity_before = p.complexity(r.value);
  // A simplification may make units droppable again: alternate until it changes nothing.
  for (;;) {
    shrink_units(r.value, p, o, r.stats);
    if (!shrink_simplify(r.value, p, o, r.stats) || r.stats.budget_exhausted)
      break;
  }
  r.stats.units_after = p.unit_count(r.value);
  r.stats.complexity_after = p.complexity(r.value);
  return r;
}

} // namespace ptxgen::driver::fuzz
