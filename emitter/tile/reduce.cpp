#include "emitter/tile/reduce.hpp"

#include "emitter/support/unreachable.hpp"

#include <string>

namespace ptxgen::tile {

// The two enums list the same reductions in the same order.
static_assert(static_cast<int>(ReduceKind::add) == static_cast<int>(ptx::BulkRedOp::add) &&
              static_cast<int>(ReduceKind::inc) == static_cast<int>(ptx::BulkRedOp::inc) &&
              static_cast<int>(ReduceKind::xor_) == static_cast<int>(ptx::BulkRedOp::xor_));

ptx::BulkRedOp ptx_reduce_op(ReduceKind k) {
  return static_cast<ptx::BulkRedOp>(k);
}

namespace {

/// The typed `.type` of a dtype (nullopt: none of cp.reduce.async.bulk's).
std::optional<ptx::BulkRedType> typed(DType t) {
  using R = ptx::BulkRedType;
  switch (t) {
  case DType::uint32:
    return R::u32;
  case DType::int32:
    return R::s32;
  case DType::uint64:
    return R::u64;
  case DType::int64:
    return R::s64;
  case DType::float16:
    return R::f16;
  case DType::bfloat16:
    return R::bf16;
  case DType::float32:
    return R::f32;
  case DType::float64:
    return R::f64;
  case DType::b32:
    return R::b32;
  case DType::b64:
    return R::b64;
  default:
    return std::nullopt;
  }
}

bool bitwise(ReduceKind k) {
  return k == ReduceKind::and_ || k == ReduceKind::or_ || k == ReduceKind::xor_;
}

bool is_integer(DType t) {
  return t == DType::uint32 || t == DType::int32 || t == DType::b32 || t == DType::uint64 ||
         t == DType::int64 || t == DType::b64;
}

} // namespace

std::optional<ptx::BulkRedType> reduce_ptx_type(ReduceKind k, DType t) {
  std::optional<ptx::BulkRedType> r;
  if (bitwise(k)) {
    if (is_integer(t))
      r = size_bytes(t) == 4 ? ptx::BulkRedType::b32 : ptx::BulkRedType::b64;
  } else {
    r = typed(t);
  }
  if (!r || !ptx::bulk_red_form(ptx_reduce_op(k), *r))
    return std::nullopt;
  return r;
}

std::optional<ptx::BulkRedType> tensor_reduce_ptx_type(ReduceKind k, DType t) {
  const auto r = reduce_ptx_type(k, t);
  if (r == ptx::BulkRedType::f64)
    return std::nullopt;
  return r;
}

std::string reduce_form_text(ReduceKind k, ptx::BulkRedType t) {
  const ptx::BulkRedOp op = ptx_reduce_op(k);
  return std::string(ptx::name(op)) + (ptx::bulk_red_noftz(op, t) ? ".noftz." : ".") +
         std::string(ptx::name(t));
}

} // namespace ptxgen::tile
