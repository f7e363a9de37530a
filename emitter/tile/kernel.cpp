#include "emitter/tile/kernel.hpp"

#include "emitter/ptx/feature.hpp"

#include <algorithm>

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

void Kernel::set_launch(Dim3 grid_dims, Dim3 block_dims) {
  grid_dim = grid_dims;
  block_dim = block_dims;
  grid = grid_dims.count();
  block = block_dims.count();
}

ExprEnv Kernel::env_for(std::int64_t bid, std::int64_t tid,
                        std::span<const std::uint64_t> values) const {
  ExprEnv env;
  env.bid = bid;
  env.tid = tid;
  env.grid_dim = grid_dim.or_x(grid);
  env.block_dim = block_dim.or_x(block);
  for (std::size_t i = 0; i < params.size(); ++i)
    env.params[params[i].name] =
        static_cast<std::int64_t>(values.empty() ? params[i].value : values[i]);
  return env;
}

LaunchBounds Kernel::launch_bounds() const {
  LaunchBounds b;
  b.block = block;
  b.grid = grid;
  b.block_dim = block_dim.or_x(block);
  b.grid_dim = grid_dim.or_x(grid);
  for (const auto& p : params) {
    if (p.range)
      b.params[p.name] = *p.range;
    else
      b.params[p.name] = Interval{0, p.is_u64 ? INT64_MAX : std::int64_t{0xFFFFFFFF}};
  }
  return b;
}

const SharedLayout::Entry* SharedLayout::find(std::string_view name) const {
  for (const auto& e : entries)
    if (e.decl->tensor.name == name)
      return &e;
  return nullptr;
}

SharedLayout shared_layout(const Kernel& k) {
  SharedLayout l;
  for (const auto& t : k.tensors) {
    if (t->tensor.space != Space::shared)
      continue;
    const std::uint32_t align = std::max(t->tensor.align, min_shared_align);
    l.align = std::max(l.align, align);
    const std::int64_t start = (l.total + align - 1) / align * align;
    l.total = start + t->tensor.size_bytes();
    l.static_bound += t->tensor.size_bytes() + align - 1;
    l.entries.push_back({t.get(), start, l.total});
  }
  // Not `total`: ptxas lays static arrays out in an order of its own, and found by
  // `ptxgen fuzz` (seeds 37461, 38987), a 44578-byte array, a 32-byte one and a
  // 480-byte one aligned to 4096 take 45536 bytes in declaration order and 49186 in
  // ptxas's ("uses too much shared data (0xc022 bytes, 0xc000 max)").
  l.dynamic = l.static_bound > ptx::max_static_shared_bytes;
  return l;
}

} // namespace ptxgen::tile
