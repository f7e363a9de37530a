// Fuzz target: the view parser (rearrange / sub / view chains over fixed tensors).
// Properties, for whatever parses: every axis has a positive size, and the affine
// form (View::byte_offset) agrees with the CPU reference's replay of the steps
// (driver::naive_locate) on the first and the last element, for one thread.

#include "driver/reference/naive_view.hpp"
#include "emitter/tile/view.hpp"
#include "libfuzzer/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

using namespace ptxgen;
using namespace ptxgen::tile;

namespace {

const std::vector<Tensor>& tensors() {
  static const std::vector<Tensor> t = {
      {"A", Space::global, {128, 32}, DType::float16, 16},
      {"shared", Space::shared, {128, 32}, DType::float16, 128},
      {"B3", Space::global, {4, 8, 16}, DType::uint8, 16},
      {"U", Space::global, {1024}, DType::uint32, 16},
  };
  return t;
}

const Tensor* find(std::string_view n) {
  for (const Tensor& t : tensors())
    if (t.name == n)
      return &t;
  // Any other name that starts with a letter is a global 128x32 float16 tensor,
  // so that views copied from specs/ (B, C, src, ...) are useful seeds.
  if (!n.empty() && ((n[0] >= 'A' && n[0] <= 'Z') || (n[0] >= 'a' && n[0] <= 'z')))
    return &tensors()[0];
  return nullptr;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = parse_view(text, find, [](std::string_view n) { return n == "n" || n == "valid_rows"; });
  if (!r) {
    fuzz::check(r.diagnostics.has_errors(), "rejected view without an error", text);
    return 0;
  }
  const View& v = *r;
  for (const ViewAxis& a : v.axes)
    fuzz::check(a.size >= 1, "view axis with a size below 1", text);
  (void)v.str();
  ExprEnv env;
  env.params["n"] = 1;
  env.params["valid_rows"] = 1;
  const driver::NaivePlan plan = driver::naive_plan(v);
  fuzz::check(plan.ok(), "the reference cannot replay an accepted view", text);
  fuzz::check(plan.shape() == v.shape(), "the reference sees another shape", text);
  std::vector<std::int64_t> coords(v.rank(), 0);
  for (int corner = 0; corner < 2; ++corner) {
    if (corner == 1)
      for (std::size_t i = 0; i < v.rank(); ++i)
        coords[i] = v.axes[i].size - 1;
    const auto affine = v.byte_offset(coords, env);
    const driver::NaiveLocation naive = driver::naive_locate(plan, v, env, coords);
    if (affine && !naive.offsets.empty())
      fuzz::check(naive.offsets.front() == *affine, "affine and replayed offsets differ",
                  std::string(text) + " -> " + v.str());
  }
  return 0;
}
