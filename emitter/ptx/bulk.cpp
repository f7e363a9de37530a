#include "emitter/ptx/bulk.hpp"

#include "emitter/support/enum_names.hpp"

#include <array>

namespace ptxgen::ptx {

std::string_view name(BulkDst d) {
  static constexpr auto names = enum_names<BulkDst::shared_cta>(spelling(Qualifier::shared_cluster),
                                                                spelling(Qualifier::shared_cta));
  return name_of(names, d);
}

std::string_view name(TensorRank r) {
  static constexpr auto names = enum_names<TensorRank::d5>(
      spelling(Qualifier::dim1), spelling(Qualifier::dim2), spelling(Qualifier::dim3),
      spelling(Qualifier::dim4), spelling(Qualifier::dim5));
  return name_of(names, r);
}

std::string_view name(MbarrierScope s) {
  static constexpr auto names =
      enum_names<MbarrierScope::cluster>(spelling(Qualifier::cta), spelling(Qualifier::cluster));
  return name_of(names, s);
}

std::string_view name(MbarrierSem s) {
  static constexpr auto names =
      enum_names<MbarrierSem::relaxed>(spelling(Qualifier::release), spelling(Qualifier::relaxed));
  return name_of(names, s);
}

std::string_view name(ProxySpace s) {
  static constexpr auto names = enum_names<ProxySpace::shared_cluster>(
      spelling(Qualifier::global), spelling(Qualifier::shared_cta),
      spelling(Qualifier::shared_cluster));
  return name_of(names, s);
}

std::string_view name(BulkRedOp op) {
  static constexpr auto names = enum_names<BulkRedOp::xor_>(
      spelling(Qualifier::add), spelling(Qualifier::min), spelling(Qualifier::max),
      spelling(Qualifier::inc), spelling(Qualifier::dec), spelling(Qualifier::and_),
      spelling(Qualifier::or_), spelling(Qualifier::xor_));
  return name_of(names, op);
}

namespace {
struct RedTypeRow {
  std::string_view name;
  unsigned bytes;
};
constexpr auto red_type_rows = enum_table<BulkRedType::f64>(std::array<RedTypeRow, 10>{{
    {"b32", 4},
    {"b64", 8},
    {"u32", 4},
    {"s32", 4},
    {"u64", 8},
    {"s64", 8},
    {"f16", 2},
    {"bf16", 2},
    {"f32", 4},
    {"f64", 8},
}});
} // namespace

std::string_view name(BulkRedType t) {
  return row_of(red_type_rows, t).name;
}

unsigned size_bytes(BulkRedType t) {
  return row_of(red_type_rows, t).bytes;
}

bool bulk_red_form(BulkRedOp op, BulkRedType t) {
  using T = BulkRedType;
  switch (op) {
  case BulkRedOp::add:
    return t == T::u32 || t == T::s32 || t == T::u64 || t == T::f32 || t == T::f64 || t == T::f16 ||
           t == T::bf16;
  case BulkRedOp::min:
  case BulkRedOp::max:
    return t == T::u32 || t == T::s32 || t == T::u64 || t == T::s64 || t == T::f16 || t == T::bf16;
  case BulkRedOp::inc:
  case BulkRedOp::dec:
    return t == T::u32;
  case BulkRedOp::and_:
  case BulkRedOp::or_:
  case BulkRedOp::xor_:
    return t == T::b32 || t == T::b64;
  }
  return false;
}

} // namespace ptxgen::ptx
