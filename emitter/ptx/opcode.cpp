#include "emitter/ptx/opcode.hpp"

#include "emitter/ptx/qualifier.hpp"
#include "emitter/support/enum_names.hpp"

namespace ptxgen::ptx {

std::string_view name(CacheOp c) {
  return spelling(c == CacheOp::ca ? Qualifier::ca : Qualifier::cg);
}

std::string_view name(SharedSpace s) {
  return spelling(s == SharedSpace::shared ? Qualifier::shared : Qualifier::shared_cta);
}

std::string_view name(L2Prefetch p) {
  static constexpr auto names = enum_names<L2Prefetch::b256>(
      "", spelling(Qualifier::L2_64B), spelling(Qualifier::L2_128B), spelling(Qualifier::L2_256B));
  return name_of(names, p);
}

std::vector<std::string_view> qualifiers(const CpAsyncOpcode& op) {
  std::vector<std::string_view> out = {name(op.cache_op), name(op.dst_space),
                                       spelling(Qualifier::global)};
  if (op.cache_hint)
    out.push_back(spelling(Qualifier::L2_cache_hint));
  if (op.prefetch != L2Prefetch::none)
    out.push_back(name(op.prefetch));
  return out;
}

std::string print(const CpAsyncOpcode& op) {
  std::string out = "cp.async";
  for (std::string_view q : qualifiers(op)) {
    out += '.';
    out += q;
  }
  return out;
}

} // namespace ptxgen::ptx
