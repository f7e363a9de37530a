// Tensor maps in memory: the reference's naive map per slot. A tensormap_copy puts a tensor's
// declared map (or another slot's) in a slot, a tensormap_replace edits the slot's map (its
// base tensor, a global dim, a global stride), and a tensor copy with `map` moves its box
// through the slot's map. The fences order nothing here: the contract proves them
// (tensormap_contract.cpp); the simulator runs them.

#include "driver/reference/evaluator.hpp"

#include <array>

namespace ptxgen::driver::evaluation {

std::optional<Evaluator::MapSlotKey> Evaluator::map_slot_key(std::size_t op,
                                                             const tile::Located<tile::View>& v,
                                                             const tile::ExprEnv& e) {
  const auto s = slot(v.value);
  if (!s)
    return std::nullopt;
  const Buffer& b = buffer(*s, cta_state_);
  Runs first;
  if (!locate(op, v, b, e, std::vector<std::int64_t>(plan(v.value).shape().size(), 0), std::nullopt,
              first))
    return std::nullopt;
  return MapSlotKey{&b, first.first.off};
}

const Evaluator::MapSlot* Evaluator::slot_map(std::size_t op, const tile::Located<tile::View>& v,
                                              const tile::ExprEnv& e) {
  const auto key = map_slot_key(op, v, e);
  if (!key)
    return nullptr;
  const auto it = map_slots_.find(*key);
  if (it == map_slots_.end()) {
    problems_.add(op, DiagId::check_view_unusable, "the map slot holds no tensor map", [&] {
      return where(cta_, e.tid) + ": '" + v.text + "' (no tensormap_copy into it before)";
    });
    return nullptr;
  }
  return &it->second;
}

void Evaluator::step_op(std::size_t op, const tile::TensormapCopyOp& m) {
  if (!prepare(op, m.dst, "dst") || (m.src && !prepare(op, *m.src, "src")))
    return;
  const tile::TensorDecl* d = k_.find_tensor(m.tensor.value);
  if (d == nullptr || !d->map)
    return;
  Buffer& db = buffer(*slot(m.dst.value), cta_state_);
  // A map's bytes are the driver's opaque encoding (the simulator's handle): never compared.
  static constexpr std::array<std::uint8_t, tile::kTensorMapBytes> opaque{};
  each_issuing_thread(op, m.pred, [&](std::int64_t, const tile::ExprEnv& e) {
    const auto key = map_slot_key(op, m.dst, e);
    if (!key)
      return;
    if (key->second + tile::kTensorMapBytes <= db.size)
      put_defined(db, key->second, opaque.data(), tile::kTensorMapBytes);
    if (!m.src) {
      map_slots_[*key] = MapSlot{m.tensor.value, *d->map};
      return;
    }
    if (const MapSlot* from = slot_map(op, *m.src, e))
      map_slots_[*key] = *from;
  });
}

void Evaluator::step_op(std::size_t op, const tile::TensormapReplaceOp& m) {
  if (!prepare(op, m.map, "map"))
    return;
  each_issuing_thread(op, m.pred, [&](std::int64_t, const tile::ExprEnv& e) {
    const auto key = map_slot_key(op, m.map, e);
    if (!key || slot_map(op, m.map, e) == nullptr)
      return;
    MapSlot& s = map_slots_[*key];
    if (m.field == tile::TensormapField::global_address) {
      s.base = m.address->value;
      return;
    }
    const auto v = eval(op, *m.value, "value", e);
    if (!v)
      return;
    const auto k = static_cast<std::size_t>(m.dim);
    if (m.field == tile::TensormapField::global_dim && k < s.desc.global_dims.size())
      s.desc.global_dims[k] = *v;
    else if (m.field == tile::TensormapField::global_stride && k < s.desc.global_strides.size())
      s.desc.global_strides[k] = *v;
  });
  // A box cached for a copy through the old map no longer says where its bytes are.
  inside_boxes_.clear();
}

std::optional<Evaluator::CopyMap>
Evaluator::copy_map(std::size_t op, const tile::Located<std::string>& tensor,
                    const std::optional<tile::Located<tile::View>>& map, const tile::ExprEnv& e) {
  if (!map) {
    const tile::TensorMapDesc* desc = tensor_map(op, tensor);
    if (desc == nullptr)
      return std::nullopt;
    return CopyMap{desc, &globals_[by_name_.find(tensor.value)->second.index]};
  }
  const MapSlot* s = slot_map(op, *map, e);
  if (s == nullptr)
    return std::nullopt;
  const auto it = by_name_.find(s->base);
  if (it == by_name_.end() || it->second.shared)
    return std::nullopt;
  // A copy through a slot's map is never served from the cached box of an earlier one.
  inside_boxes_.erase(op);
  return CopyMap{&s->desc, &globals_[it->second.index]};
}

} // namespace ptxgen::driver::evaluation
