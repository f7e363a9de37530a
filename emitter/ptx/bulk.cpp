#include "emitter/ptx/bulk.hpp"

#include "emitter/support/enum_names.hpp"

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

} // namespace ptxgen::ptx
