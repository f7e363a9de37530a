#include "driver/reference/affine_view.hpp"

#include "driver/reference/naive_expr.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

namespace ptxgen::driver {
namespace {

/// One level of the forward walk: each axis's size and stride, and the base offset.
struct Level {
  std::int64_t base = 0;
  std::vector<std::int64_t> size;
  std::vector<std::int64_t> stride;
};

bool rearrange(const NaivePlan::Names& names, Level& l) {
  std::vector<std::int64_t> name_stride(names.size.size(), 0);
  for (std::size_t a = 0; a < names.lhs.size(); ++a) {
    std::int64_t s = l.stride[a];
    for (std::size_t k = names.lhs[a].size(); k-- > 0;) {
      const std::size_t n = names.lhs[a][k];
      name_stride[n] = s;
      s *= names.size[n];
    }
  }
  Level out{l.base, {}, {}};
  for (const auto& g : names.rhs) {
    std::int64_t size = 1;
    for (std::size_t k = 0; k < g.size(); ++k) {
      size *= names.size[g[k]];
      if (k + 1 < g.size() && name_stride[g[k]] != name_stride[g[k + 1]] * names.size[g[k + 1]])
        return false; // the group's names do not nest: not affine
    }
    out.size.push_back(size);
    out.stride.push_back(g.empty() ? 0 : name_stride[g.back()]);
  }
  l = std::move(out);
  return true;
}

/// A sub step: a slice keeps its axis from `begin`, an index drops its axis and becomes one
/// of the skeleton's indices (its value is added at AffineSkeleton::base_at).
bool sub(const tile::SubStep& step, Level& l, std::vector<AffineSkeleton::Index>& indices) {
  Level out{l.base, {}, {}};
  for (std::size_t a = 0; a < l.size.size(); ++a) {
    if (a >= step.entries.size()) {
      out.size.push_back(l.size[a]);
      out.stride.push_back(l.stride[a]);
      continue;
    }
    const auto& e = step.entries[a];
    if (!e.is_slice) {
      if (!e.index)
        return false; // no expression: naive_locate says so
      const NaiveDependence d = naive_dependence(*e.index);
      indices.push_back({e.index.get(), l.size[a], l.stride[a], d.thread, d.varies || d.axis});
      continue;
    }
    out.base += e.begin * l.stride[a];
    out.size.push_back(e.end - e.begin);
    out.stride.push_back(l.stride[a]);
  }
  l = std::move(out);
  return true;
}

} // namespace

std::optional<AffineSkeleton> affine_skeleton(const NaivePlan& plan, const tile::View& v) {
  // A swizzled tensor's bytes are not an affine function of the coordinates.
  if (!plan.ok() || plan.levels.size() != v.steps.size() + 1 ||
      plan.swizzle != tile::TensorMapSwizzle::none)
    return std::nullopt;
  Level l;
  l.size = plan.levels[0].shape;
  l.stride.assign(l.size.size(), 0);
  std::int64_t s = plan.levels[0].element_bytes;
  for (std::size_t a = l.size.size(); a-- > 0;) {
    l.stride[a] = s;
    s *= l.size[a];
  }
  std::vector<AffineSkeleton::Index> indices;
  for (std::size_t i = 0; i < v.steps.size(); ++i) {
    bool ok = std::visit(
        [&](const auto& step) -> bool {
          using S = std::decay_t<decltype(step)>;
          if constexpr (std::is_same_v<S, tile::RearrangeStep>) {
            return rearrange(plan.names[i], l);
          } else if constexpr (std::is_same_v<S, tile::SubStep>) {
            return sub(step, l, indices);
          } else {
            const std::int64_t old_eb = plan.levels[i].element_bytes;
            const std::int64_t new_eb = plan.levels[i + 1].element_bytes;
            if (l.size.empty())
              return old_eb == new_eb;
            if (l.stride.back() != old_eb)
              return false; // the old last axis's elements are not contiguous
            l.size.back() = l.size.back() * old_eb / new_eb;
            l.stride.back() = new_eb;
            return true;
          }
        },
        v.steps[i]);
    if (!ok || l.size != plan.levels[i + 1].shape)
      return std::nullopt;
  }
  return AffineSkeleton{l.base, std::move(l.stride), plan.element_bytes(), std::move(indices)};
}

std::optional<std::int64_t> AffineSkeleton::base_at(const tile::ExprEnv& env) const {
  std::int64_t b = base;
  for (const Index& i : indices) {
    const auto value = naive_evaluate(*i.expr, env);
    if (!value || *value < 0 || *value >= i.size)
      return std::nullopt; // no value, or outside its axis: naive_locate says which
    b += *value * i.stride;
  }
  return b;
}

namespace {

/// `b` plus stride x value of each index that uses the thread (`thread`) or does not;
/// nullopt when one does not evaluate or falls outside its axis.
std::optional<std::int64_t> add_indices(std::int64_t b,
                                        const std::vector<AffineSkeleton::Index>& indices,
                                        bool thread, const tile::ExprEnv& env) {
  for (const auto& i : indices) {
    if (i.thread != thread)
      continue;
    const auto value = naive_evaluate(*i.expr, env);
    if (!value || *value < 0 || *value >= i.size)
      return std::nullopt;
    b += *value * i.stride;
  }
  return b;
}

} // namespace

std::optional<std::int64_t> AffineSkeleton::shared_base(const tile::ExprEnv& env) const {
  return add_indices(base, indices, false, env);
}

std::optional<std::int64_t> AffineSkeleton::thread_base(std::int64_t shared,
                                                        const tile::ExprEnv& env) const {
  return add_indices(shared, indices, true, env);
}

bool AffineSkeleton::thread_part_fixed() const {
  return std::none_of(indices.begin(), indices.end(),
                      [](const Index& i) { return i.thread && i.varies; });
}

std::optional<AffineForm> AffineSkeleton::at(const tile::ExprEnv& env) const {
  const auto b = base_at(env);
  if (!b)
    return std::nullopt;
  return AffineForm{*b, stride, element_bytes};
}

std::optional<AffineForm> affine_form(const NaivePlan& plan, const tile::View& v,
                                      const tile::ExprEnv& env) {
  const auto skeleton = affine_skeleton(plan, v);
  if (!skeleton)
    return std::nullopt;
  return skeleton->at(env);
}

} // namespace ptxgen::driver
