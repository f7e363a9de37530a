// Selection of the ops on tensor maps in memory (emitter/ptx/tensormap.hpp): the copy of a
// map parameter into a 128-byte slot (ld.param / st, or tensormap.cp_fenceproxy from a
// shared slot), tensormap.replace of one field, the tensormap-proxy fences, and the generic
// address a tensor copy takes for a map in a global slot.

#include "emitter/lower/lowerer.hpp"
#include "emitter/support/unreachable.hpp"

namespace ptxgen::lower::impl {

namespace {

/// The 16-byte pieces of a map: ld.param.v2.b64 / st.v2.b64 move one each.
constexpr std::int64_t kMapPiece = 16;

ptx::TensormapField ptx_field(tile::TensormapField f) {
  switch (f) {
  case tile::TensormapField::global_address:
    return ptx::TensormapField::global_address;
  case tile::TensormapField::global_dim:
    return ptx::TensormapField::global_dim;
  case tile::TensormapField::global_stride:
    return ptx::TensormapField::global_stride;
  default:
    unreachable("ptx_field: the builder refuses the fields ptxgen does not model");
  }
}

} // namespace

Register Lowerer::generic_map_address(const tile::View& slot,
                                      const std::optional<tile::Located<ExprPtr>>& pred) {
  const Address a = view_address(slot, pred);
  Register at = std::get<Register>(a.base);
  if (a.offset != 0) {
    Register sum = reg(RegClass::b64);
    emit(Binary{BinaryOp::add, ScalarType::s64, sum, at, Immediate{a.offset}});
    at = sum;
  }
  Register generic = reg(RegClass::b64);
  emit(Cvta{StateSpace::global, ScalarType::u64, generic, at, true});
  return generic;
}

void Lowerer::lower(const tile::TensormapCopyOp& c) {
  const RepeatGuard g = op_guard(c.pred);
  if (g.skip)
    return;
  const Address dst = view_address(c.dst.value, c.pred);
  if (c.src) {
    emit(TensormapCpFenceproxy{dst, view_address(c.src->value, c.pred)}, g.guard);
    return;
  }
  const bool shared = c.dst.value.tensor->space == tile::Space::shared;
  const std::string param = map_param_symbol(c.tensor.value);
  for (std::int64_t at = 0; at < tile::kTensorMapBytes; at += kMapPiece) {
    Register lo = reg(RegClass::b64);
    Register hi = reg(RegClass::b64);
    emit(Ld{StateSpace::param, ScalarType::b64, {lo, hi}, Address{Symbol{param}, at}}, g.guard);
    emit(St{shared ? StateSpace::shared : StateSpace::global,
            ScalarType::b64,
            Address{dst.base, dst.offset + at},
            {lo, hi}},
         g.guard);
  }
}

void Lowerer::lower(const tile::TensormapReplaceOp& r) {
  const RepeatGuard g = op_guard(r.pred);
  if (g.skip)
    return;
  TensormapReplace t;
  t.field = ptx_field(r.field);
  t.shared = r.map.value.tensor->space == tile::Space::shared;
  t.map = view_address(r.map.value, r.pred);
  if (r.field == tile::TensormapField::global_address) {
    const tile::TensorDecl* target = k_.find_tensor(r.address->value);
    if (target == nullptr)
      unreachable("lower(TensormapReplaceOp): the builder resolved the address tensor");
    t.value = tensor_base(target->tensor);
  } else {
    // The spec counts dimensions outermost first; the ordinal is innermost first.
    const tile::TensorDecl* mapped = k_.find_tensor(r.tensor.value);
    if (mapped == nullptr || !mapped->map)
      unreachable("lower(TensormapReplaceOp): the builder resolved the mapped tensor");
    const auto rank = static_cast<std::int64_t>(mapped->map->rank());
    // A stride's ordinal indexes the rank - 1 strides cuTensorMapEncodeTiled takes
    // (innermost first, from dimension 1's); the spec's `dim` indexes its outermost-first
    // global_strides.
    const std::int64_t count = r.field == tile::TensormapField::global_stride ? rank - 1 : rank;
    t.ordinal = Immediate{count - 1 - r.dim};
    const Operand v = value(bind(r.value->value));
    if (r.field == tile::TensormapField::global_dim || std::holds_alternative<Immediate>(v)) {
      t.value = typed(v, ptx::value_type(t.field));
    } else { // a stride is .b64; the value is a 32-bit register (the contract's u32 rule)
      Register wide = reg(RegClass::b64);
      emit(Cvt{ScalarType::u64, ScalarType::u32, wide, v}, g.guard);
      t.value = wide;
    }
  }
  emit(t, g.guard);
}

void Lowerer::lower(const tile::TensormapFenceOp& f) {
  const RepeatGuard g = op_guard(f.pred);
  if (g.skip)
    return;
  FenceProxyTensormap t;
  t.acquire = f.sem == tile::TensormapSem::acquire;
  if (t.acquire)
    t.map = Address{generic_map_address(f.map.value, f.pred), 0};
  emit(t, g.guard);
}

Register Lowerer::op_map_address(const std::string& tensor,
                                 const std::optional<tile::Located<tile::View>>& map,
                                 const std::optional<tile::Located<ExprPtr>>& pred) {
  return map ? generic_map_address(map->value, pred) : tensor_map_address(tensor);
}

} // namespace ptxgen::lower::impl
