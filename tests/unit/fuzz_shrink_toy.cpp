// The fuzz shrinker (driver/fuzz/shrink.hpp) on toy problems: a list of integers whose
// units are its elements and whose simplifications lower one element. The expected
// results are worked out by hand from the predicates, not taken from the shrinker.

#include "driver/fuzz/shrink.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_fuzz_shrink_toy {

namespace {

using List = std::vector<int>;
using ptxgen::driver::fuzz::shrink;
using ptxgen::driver::fuzz::ShrinkOptions;
using ptxgen::driver::fuzz::ShrinkProblem;

bool contains(const List& l, int v) {
  return std::find(l.begin(), l.end(), v) != l.end();
}

/// A problem over lists; `fails` is the predicate; every batch's size is recorded.
struct ListProblem {
  std::function<bool(const List&)> fails;
  std::vector<std::size_t> batches;
  bool simplify = false;

  ShrinkProblem<List> problem() {
    ShrinkProblem<List> p;
    p.unit_count = [](const List& l) { return l.size(); };
    p.keep_units = [](const List& l, const std::vector<bool>& keep) {
      List out;
      for (std::size_t i = 0; i < l.size(); ++i)
        if (keep[i])
          out.push_back(l[i]);
      return out;
    };
    p.simplifications = [this](const List& l) {
      std::vector<List> out;
      if (!simplify)
        return out;
      for (std::size_t i = 0; i < l.size(); ++i) {
        for (int v : {l[i] / 2, l[i] - 1}) {
          if (v < 0)
            continue;
          List c = l;
          c[i] = v;
          out.push_back(c);
        }
      }
      return out;
    };
    p.complexity = [](const List& l) {
      return l.size() + static_cast<std::size_t>(std::accumulate(l.begin(), l.end(), 0));
    };
    p.still_fails = [this](const std::vector<List>& batch) {
      batches.push_back(batch.size());
      std::vector<bool> out;
      for (const auto& l : batch)
        out.push_back(fails(l));
      return out;
    };
    return p;
  }
};

List iota_list(int n) {
  List l(static_cast<std::size_t>(n));
  std::iota(l.begin(), l.end(), 0);
  return l;
}

} // namespace

TEST_CASE("ddmin masks: chunks of near-equal size, subsets then complements") {
  using ptxgen::driver::fuzz::detail::ddmin_masks;
  // 5 units in 3 chunks: [0,1) [1,3) [3,5).
  const auto m = ddmin_masks(5, 3);
  REQUIRE(m.size() == 6);
  CHECK(m[0] == std::vector<bool>{true, false, false, false, false});
  CHECK(m[1] == std::vector<bool>{false, true, true, false, false});
  CHECK(m[2] == std::vector<bool>{false, false, false, true, true});
  CHECK(m[3] == std::vector<bool>{false, true, true, true, true});
  CHECK(m[5] == std::vector<bool>{true, true, true, false, false});
  // At granularity 2 the complements are the subsets again: not repeated.
  CHECK(ddmin_masks(4, 2).size() == 2);
}

TEST_CASE("a failure that needs two given elements shrinks to exactly those two") {
  ListProblem lp;
  lp.fails = [](const List& l) { return contains(l, 3) && contains(l, 17); };
  auto r = shrink(iota_list(20), lp.problem());
  CHECK(r.value == List{3, 17});
  CHECK(r.stats.units_before == 20);
  CHECK(r.stats.units_after == 2);
  CHECK_FALSE(r.stats.budget_exhausted);
  CHECK(r.stats.accepted > 0);
  CHECK(r.stats.candidates > 0);
  // Rounds are batches: more than one candidate per predicate call on average.
  CHECK(r.stats.candidates > r.stats.rounds);
}

TEST_CASE("ddmin then simplification: one element, lowered to the smallest failing value") {
  ListProblem lp;
  lp.simplify = true;
  // Fails when some element is at least 5: the minimum is the list {5}.
  lp.fails = [](const List& l) {
    return std::any_of(l.begin(), l.end(), [](int v) { return v >= 5; });
  };
  auto r = shrink(List{1, 40, 2, 9, 3}, lp.problem());
  CHECK(r.value == List{5});
  CHECK(r.stats.complexity_after == 6);
  CHECK(r.stats.complexity_before == 60);
}

TEST_CASE("a predicate that is not monotone: ends, and the result still fails") {
  ListProblem lp;
  lp.simplify = true;
  // Fails for an even number of elements whose sum is odd: adding or removing elements
  // flips it back and forth.
  lp.fails = [](const List& l) {
    return l.size() % 2 == 0 && std::accumulate(l.begin(), l.end(), 0) % 2 == 1;
  };
  const List start = {4, 7, 10, 2, 8, 6};
  REQUIRE(lp.fails(start));
  auto r = shrink(start, lp.problem());
  CHECK(lp.fails(r.value));
  // No failing list has fewer than two elements; ddmin finds a failing pair ({4, 7} at
  // granularity 3), and simplification keeps the size.
  CHECK(r.value.size() == 2);
  CHECK(r.stats.complexity_after < r.stats.complexity_before);
}

TEST_CASE("the budget: no more candidates than allowed, batches cut to fit, result fails") {
  ListProblem lp;
  lp.simplify = true;
  lp.fails = [](const List& l) { return contains(l, 3) && contains(l, 17); };
  ShrinkOptions o;
  o.max_candidates = 7;
  o.max_batch = 3;
  auto r = shrink(iota_list(20), lp.problem(), o);
  CHECK(r.stats.candidates == 7);
  CHECK(r.stats.budget_exhausted);
  CHECK(lp.fails(r.value));
  for (std::size_t b : lp.batches)
    CHECK(b <= 3);
  std::size_t total = 0;
  for (std::size_t b : lp.batches)
    total += b;
  CHECK(total == 7);
}

TEST_CASE("units that stay counted when dropped: ddmin still ends, at the two needed") {
  // A model that keeps its unit numbering: a dropped element becomes a hole (-1), so
  // unit_count never drops; only the complexity (elements present) shows the progress.
  ShrinkProblem<List> p;
  std::size_t evaluated = 0;
  auto fails = [](const List& l) { return contains(l, 3) && contains(l, 17); };
  p.unit_count = [](const List& l) { return l.size(); };
  p.keep_units = [](const List& l, const std::vector<bool>& keep) {
    List out = l;
    for (std::size_t i = 0; i < l.size(); ++i)
      if (!keep[i])
        out[i] = -1;
    return out;
  };
  p.simplifications = [](const List&) { return std::vector<List>{}; };
  p.complexity = [](const List& l) {
    return static_cast<std::size_t>(
        std::count_if(l.begin(), l.end(), [](int v) { return v >= 0; }));
  };
  p.still_fails = [&](const std::vector<List>& batch) {
    std::vector<bool> out;
    for (const auto& l : batch) {
      ++evaluated;
      out.push_back(fails(l));
    }
    return out;
  };
  auto r = shrink(iota_list(20), p);
  CHECK_FALSE(r.stats.budget_exhausted);
  CHECK(r.stats.complexity_after == 2);
  CHECK(fails(r.value));
  CHECK(evaluated == r.stats.candidates);
  CHECK(evaluated < 200);
}

TEST_CASE("a start with a single unit and nothing to simplify is returned as it is") {
  ListProblem lp;
  lp.fails = [](const List&) { return true; };
  auto r = shrink(List{42}, lp.problem());
  CHECK(r.value == List{42});
  CHECK(r.stats.candidates == 0);
  CHECK(lp.batches.empty());
}

} // namespace unit_fuzz_shrink_toy
