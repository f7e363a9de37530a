// The view algebra over the whole domain of the corpus: for every view of
// every valid spec, every thread of the launch and every coordinate, the
// affine form the lowering uses (View::byte_offset) must equal the CPU
// reference's naive replay of the view's steps (driver::naive_byte_offsets).

#include "driver/reference/naive_view.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/tensor_map.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_corpus_views {

namespace {

using namespace ptxgen;
namespace fs = std::filesystem;

struct Counts {
  std::size_t views = 0;
  std::size_t points = 0;
};

using LoopValues = std::map<std::string, std::int64_t, std::less<>>;

/// Every combination of values the variables of the loops open at op `i` take
/// (bounds evaluated for CTA 0, thread 0: loop bounds are CTA-uniform).
std::vector<LoopValues> loop_values(const tile::Kernel& k, std::size_t i) {
  std::vector<const tile::ForOp*> open;
  for (std::size_t j = 0; j < i; ++j) {
    if (const auto* f = std::get_if<tile::ForOp>(&k.ops[j].body))
      open.push_back(f);
    else if (std::holds_alternative<tile::EndOp>(k.ops[j].body))
      open.pop_back();
  }
  std::vector<LoopValues> all{LoopValues{}};
  for (const tile::ForOp* f : open) {
    std::vector<LoopValues> next;
    for (const auto& outer : all) {
      tile::ExprEnv env;
      env.block_dim = k.block_dim;
      env.grid_dim = k.grid_dim;
      for (const auto& p : k.params)
        env.params[p.name] = static_cast<std::int64_t>(p.value);
      env.loops = outer;
      auto start = tile::evaluate(*f->start.value, env);
      auto stop = tile::evaluate(*f->stop.value, env);
      auto step = tile::evaluate(*f->step.value, env);
      REQUIRE((start && stop && step && *step >= 1));
      for (std::int64_t v = *start; v < *stop; v += *step) {
        next.push_back(outer);
        next.back()[f->var.value] = v;
      }
    }
    all = std::move(next);
  }
  return all;
}

/// Checks one view for every thread of k and every coordinate, with the loop
/// variables at `loops`.
void check_view(const tile::Kernel& k, const tile::View& v, const std::string& where, Counts& n,
                const LoopValues& loops) {
  ++n.views;
  const auto shape = v.shape();
  tile::ExprEnv env;
  env.block_dim = k.block_dim;
  env.grid_dim = k.grid_dim;
  env.loops = loops;
  for (const auto& p : k.params)
    env.params[p.name] = static_cast<std::int64_t>(p.value);
  const std::int64_t elem = tile::size_bytes(v.dtype);
  std::size_t bad = 0;
  std::string first_bad;
  const driver::NaivePlan plan = driver::naive_plan(v);
  REQUIRE_MESSAGE(plan.ok(), where << ": " << plan.error);
  REQUIRE_MESSAGE(plan.shape() == shape, where);
  // A view without runtime terms maps every thread alike: one thread covers it.
  const bool per_thread = !v.terms.empty();
  for (std::int64_t b = 0; b < (per_thread ? k.grid : 1); ++b) {
    for (std::int64_t t = 0; t < (per_thread ? k.block : 1); ++t) {
      env.bid = b;
      env.tid = t;
      std::vector<std::int64_t> c(shape.size(), 0);
      for (bool more = true; more;) {
        // Plain comparisons in the loop (millions of points); one assertion per view.
        auto affine = v.byte_offset(c, env);
        // A swizzled tensor's elements sit where the swizzle moves their row-major offset
        // (each inside one 16-byte chunk): the naive model locates the moved bytes.
        if (affine && v.tensor->swizzle != tile::TensorMapSwizzle::none)
          affine = tile::swizzle_offset(v.tensor->swizzle, *affine);
        const auto naive = driver::naive_locate(plan, v, env, c).offsets;
        bool same = affine.has_value() && naive.size() == static_cast<std::size_t>(elem);
        for (std::int64_t i = 0; same && i < elem; ++i)
          same = naive[static_cast<std::size_t>(i)] == *affine + i;
        if (!same && bad++ == 0)
          first_bad = "thread " + std::to_string(t) + " bid " + std::to_string(b) + ": affine " +
                      (affine ? std::to_string(*affine) : "none") + ", naive " +
                      (naive.empty() ? "none" : std::to_string(naive[0]));
        ++n.points;
        more = false;
        for (std::size_t i = c.size(); i-- > 0;) {
          if (++c[i] < shape[i]) {
            more = true;
            break;
          }
          c[i] = 0;
        }
      }
    }
  }
  CHECK_MESSAGE(bad == 0, where << ": " << bad << " points differ, first at " << first_bad);
}

} // namespace

TEST_CASE("every view of every corpus spec: affine form == naive replay, whole domain") {
  auto found = driver::expand_spec_arguments({PTXGEN_SOURCE_DIR "/specs"});
  REQUIRE_MESSAGE(found, found.error());
  const std::vector<fs::path>& specs = *found;
  REQUIRE(specs.size() >= 40);
  Counts n;
  for (const auto& spec : specs) {
    auto loaded = driver::load_spec_file(spec);
    REQUIRE_MESSAGE(loaded, spec.string() << "\n" << loaded.diagnostics.format_all());
    const tile::Kernel& k = **loaded.value;
    for (std::size_t i = 0; i < k.ops.size(); ++i) {
      for (const LoopValues& loops : loop_values(k, i)) {
        std::string where = spec.filename().string() + " op " + std::to_string(i + 1);
        for (const auto& [var, value] : loops)
          where += " " + var + "=" + std::to_string(value);
        if (const auto* a = std::get_if<tile::ApplyOp>(&k.ops[i].body)) {
          check_view(k, a->dst.value, where + " dst", n, loops);
          check_view(k, a->src.value, where + " src", n, loops);
        } else if (const auto* f = std::get_if<tile::FillOp>(&k.ops[i].body)) {
          check_view(k, f->dst.value, where + " fill", n, loops);
        } else if (const auto* c = std::get_if<tile::CopyOp>(&k.ops[i].body)) {
          check_view(k, c->dst.value, where + " copy dst", n, loops);
          check_view(k, c->src.value, where + " copy src", n, loops);
        }
      }
    }
  }
  MESSAGE("checked " << n.views << " views at " << n.points << " (thread, coordinate) points");
  CHECK(n.views >= 100);
}

} // namespace unit_corpus_views
