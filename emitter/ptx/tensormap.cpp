#include "emitter/ptx/tensormap.hpp"

#include "emitter/support/enum_names.hpp"

namespace ptxgen::ptx {

std::string_view name(TensormapField f) {
  static constexpr auto names = enum_names<TensormapField::global_stride>(
      spelling(Qualifier::global_address), spelling(Qualifier::global_dim),
      spelling(Qualifier::global_stride));
  return name_of(names, f);
}

} // namespace ptxgen::ptx
