#include "emitter/tile/kernel.hpp"

namespace ptxgen::tile {

const TensorDecl* Kernel::find_tensor(std::string_view n) const {
  for (const auto& t : tensors)
    if (t->tensor.name == n)
      return t.get();
  return nullptr;
}

const ScalarParam* Kernel::find_param(std::string_view n) const {
  for (const auto& p : params)
    if (p.name == n)
      return &p;
  return nullptr;
}

LaunchBounds Kernel::launch_bounds() const {
  LaunchBounds b;
  b.block = block;
  b.grid = grid;
  for (const auto& p : params) {
    if (p.range)
      b.params[p.name] = *p.range;
    else
      b.params[p.name] = Interval{0, p.is_u64 ? INT64_MAX : std::int64_t{0xFFFFFFFF}};
  }
  return b;
}

} // namespace ptxgen::tile
