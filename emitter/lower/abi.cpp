#include "emitter/lower/abi.hpp"

#include "emitter/ptx/feature.hpp"
#include "emitter/tile/residency.hpp"

#include <algorithm>

namespace ptxgen::lower {

std::vector<ParamBinding> kernel_params(const tile::Kernel& k) {
  std::vector<ParamBinding> out;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      out.push_back({ParamBinding::Kind::tensor, t->tensor.name, param_symbol(t->tensor.name)});
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global && t->map)
      out.push_back({ParamBinding::Kind::tensor_map, map_param_name(t->tensor.name),
                     map_param_symbol(t->tensor.name), t->tensor.name});
  for (const auto& p : k.params)
    out.push_back({p.is_u64 ? ParamBinding::Kind::u64 : ParamBinding::Kind::u32, p.name,
                   param_symbol(p.name)});
  if (k.abi.empty())
    return out;
  // A tensor whose map abi lists without it has no pointer parameter (map_only).
  std::erase_if(out, [&](const ParamBinding& b) {
    return b.kind == ParamBinding::Kind::tensor && map_only(k, b.name);
  });
  // The spec's order (the loader checked that it names each of them once);
  // a name it does not list keeps its default place after the listed ones.
  std::vector<ParamBinding> ordered;
  for (const auto& name : k.abi) {
    auto it =
        std::find_if(out.begin(), out.end(), [&](const ParamBinding& b) { return b.name == name; });
    if (it != out.end()) {
      ordered.push_back(std::move(*it));
      out.erase(it);
    }
  }
  for (auto& b : out)
    ordered.push_back(std::move(b));
  return ordered;
}

bool map_only(const tile::Kernel& k, std::string_view tensor) {
  const auto listed = [&](std::string_view name) {
    return std::find(k.abi.begin(), k.abi.end(), name) != k.abi.end();
  };
  return !k.abi.empty() && !listed(tensor) && listed(map_param_name(tensor));
}

std::string param_symbol(std::string_view name) {
  return "arg_" + std::string(name);
}

namespace {
constexpr std::string_view map_suffix = ".map";
} // namespace

std::string map_param_name(std::string_view tensor) {
  return std::string(tensor) + std::string(map_suffix);
}

std::string_view map_param_tensor(std::string_view name) {
  if (name.size() <= map_suffix.size() || !name.ends_with(map_suffix))
    return {};
  return name.substr(0, name.size() - map_suffix.size());
}

std::string map_param_symbol(std::string_view tensor) {
  return "map_" + std::string(tensor);
}

std::string shared_symbol(const tile::Tensor& t) {
  return "smem_" + t.name;
}

std::uint32_t dynamic_shared_bytes(const tile::Kernel& k) {
  const tile::SharedLayout l = tile::shared_layout(k);
  return l.dynamic ? static_cast<std::uint32_t>(l.total) : 0;
}

std::uint32_t launch_dynamic_shared_bytes(const tile::Kernel& k, ptx::Target run_target) {
  const std::uint32_t own = dynamic_shared_bytes(k);
  if (!k.residency)
    return own;
  const std::int64_t least = tile::least_shared_bytes(tile::shared_layout(k));
  const std::int64_t padded = tile::shared_bytes_for_residency(
      k.residency->ctas_per_sm, {k.block, least}, ptx::sm_limits(run_target));
  return own + static_cast<std::uint32_t>(padded - least);
}

} // namespace ptxgen::lower
