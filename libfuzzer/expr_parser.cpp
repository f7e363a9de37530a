// Fuzz target: the index-expression parser.
// Properties, for whatever parses:
//  - print(parse(s)) parses back to a structurally_equal tree, and printing is stable;
//  - bounds() is sound: for threads of the launch (tid, bid taken from the input's
//    hash, parameters and the repeat axes r, c inside their ranges) evaluate()
//    lies inside bounds().

#include "emitter/tile/expr.hpp"
#include "libfuzzer/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

using namespace ptxgen;
using namespace ptxgen::tile;

namespace {

bool is_param(std::string_view n) {
  return n == "n" || n == "p" || n == "valid_rows";
}

bool is_axis(std::string_view n) { // a repeat axis, as in src_size
  return n == "r" || n == "c";
}

// A small deterministic generator seeded from the input, so a crash reproduces.
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::int64_t in(std::int64_t lo, std::int64_t hi) { // inclusive, hi - lo < 2^62
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = parse_expr(text, is_param, is_axis);
  if (!r) {
    fuzz::check(r.diagnostics.has_errors(), "rejected expression without an error", text);
    return 0;
  }
  const Expr& e = **r;
  const std::string printed = print(e);
  auto again = parse_expr(printed, is_param, is_axis);
  fuzz::check(again.value.has_value(), "printed expression does not parse back", printed);
  fuzz::check(structurally_equal(**again, e), "printed expression parses to another tree", printed);
  fuzz::check(print(**again) == printed, "printing is not stable", printed);

  std::uint64_t seed = 1469598103934665603ULL; // FNV-1a of the input
  for (unsigned char ch : text)
    seed = (seed ^ ch) * 1099511628211ULL;
  SplitMix rng{seed};
  LaunchBounds launch;
  // A 3-D launch (tid.x/y/z and bid.x/y/z derive from the linear tid and bid
  // and these dims, in evaluate() and in bounds() alike).
  launch.block_dim = {rng.in(1, 32), rng.in(1, 8), rng.in(1, 4)};
  launch.grid_dim = {rng.in(1, 1024), rng.in(1, 64), rng.in(1, 16)};
  launch.block = launch.block_dim.count();
  launch.grid = launch.grid_dim.count();
  launch.params["n"] = {0, 100};
  launch.params["p"] = {-5, 5};
  launch.params["valid_rows"] = {0, 1 << 16};
  launch.axes["r"] = {0, 7};
  launch.axes["c"] = {0, 1};
  const auto b = bounds(e, launch);
  if (!b)
    return 0;
  for (int i = 0; i < 16; ++i) {
    ExprEnv env;
    env.tid = rng.in(0, launch.block - 1);
    env.bid = rng.in(0, launch.grid - 1);
    env.block_dim = launch.block_dim;
    env.grid_dim = launch.grid_dim;
    for (const auto& [name, range] : launch.params)
      env.params[name] = rng.in(range.lo, range.hi);
    for (const auto& [name, range] : launch.axes)
      env.axes[name] = rng.in(range.lo, range.hi);
    const auto v = evaluate(e, env);
    if (v)
      fuzz::check(b->contains(*v), "evaluate() outside bounds()",
                  printed + " = " + std::to_string(*v) + " not in [" + std::to_string(b->lo) +
                      ", " + std::to_string(b->hi) + "] tid=" + std::to_string(env.tid) +
                      " bid=" + std::to_string(env.bid));
  }
  return 0;
}
