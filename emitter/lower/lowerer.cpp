// The lowering's driver: the entry's declarations, then every op.

#include "emitter/lower/lowerer.hpp"

#include <algorithm>
#include <array>
#include <ostream>

namespace ptxgen::lower::impl {

Module Lowerer::run() {
  Module m;
  m.header_comments = o_.header_comments;
  m.version = o_.version;
  m.target = o_.target;
  Entry e;
  e.name = k_.name;
  for (const auto& p : kernel_params(k_)) {
    if (p.kind == ParamBinding::Kind::tensor_map)
      e.params.push_back(
          {p.ptx_name, ScalarType::b8, tensor_map_param_bytes, tensor_map_param_align});
    else
      e.params.push_back(
          {p.ptx_name, p.kind == ParamBinding::Kind::u32 ? ScalarType::u32 : ScalarType::u64});
  }
  if (layout_.dynamic)
    e.shared.push_back({std::string(dynamic_shared_symbol),
                        std::max(layout_.align, dynamic_shared_align), 0, SharedKind::dynamic});
  else
    for (const auto& s : layout_.entries)
      e.shared.push_back(
          {shared_symbol(s.decl->tensor), std::max(s.decl->tensor.align, tile::min_shared_align),
           static_cast<std::uint64_t>(s.decl->tensor.size_bytes()), SharedKind::fixed});
  if (!single_thread_cache_hint())
    e.reqntid = std::array<std::uint32_t, 3>{static_cast<std::uint32_t>(k_.block_dim.x),
                                             static_cast<std::uint32_t>(k_.block_dim.y),
                                             static_cast<std::uint32_t>(k_.block_dim.z)};
  if (k_.residency)
    e.minnctapersm = static_cast<std::uint32_t>(k_.residency->ctas_per_sm);
  if (k_.cluster)
    e.reqnctapercluster =
        std::array<std::uint32_t, 3>{static_cast<std::uint32_t>(k_.cluster->dims.x),
                                     static_cast<std::uint32_t>(k_.cluster->dims.y),
                                     static_cast<std::uint32_t>(k_.cluster->dims.z)};
  entry_ = &e;
  form_.kernel = k_.name;
  lower_ops(0, k_.ops.size());
  emit(Ret{});
  hoist_invariants(form_);
  if (o_.dump_loop_form)
    *o_.dump_loop_form << dump(form_);
  e.body = flatten(std::move(form_));
  m.entries.push_back(std::move(e));
  return m;
}

namespace {

/// Adds to `out` the entries of `after` that `hoisted` holds with the same register
/// (an entry `out` already has stays).
template <class Map>
void keep_hoisted(Map& out, const Map& after, const Map& hoisted) {
  for (const auto& [key, r] : after)
    if (auto h = hoisted.find(key); h != hoisted.end() && h->second == r)
      out.emplace(key, r);
}

} // namespace

void Lowerer::rejoin(Caches before) {
  // loops_.back().saved holds what was defined before the innermost loop's body, hoisted
  // definitions included (remember()); outside every loop nothing is hoisted.
  if (!loops_.empty()) {
    const Caches& hoisted = loops_.back().saved;
    keep_hoisted(before.value, cache_.value, hoisted.value);
    keep_hoisted(before.pred, cache_.pred, hoisted.pred);
    keep_hoisted(before.base, cache_.base, hoisted.base);
    keep_hoisted(before.address, cache_.address, hoisted.address);
    keep_hoisted(before.policy, cache_.policy, hoisted.policy);
    keep_hoisted(before.tensor_map, cache_.tensor_map, hoisted.tensor_map);
    keep_hoisted(before.swizzled, cache_.swizzled, hoisted.swizzled);
    if (!before.dynamic_base && cache_.dynamic_base == hoisted.dynamic_base)
      before.dynamic_base = hoisted.dynamic_base;
  }
  cache_ = std::move(before);
}

void Lowerer::emit(InstructionBody b, std::optional<Guard> g, std::string comment) {
  auto& block = loops_.empty() ? form_.items : loops_.back().node->body;
  block.emplace_back(FormInstruction{Instruction{g, std::move(b), std::move(comment)}, at_});
}

} // namespace ptxgen::lower::impl
