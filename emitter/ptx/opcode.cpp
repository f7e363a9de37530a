#include "emitter/ptx/opcode.hpp"

namespace ptxgen::ptx {

std::string_view name(CacheOp c) {
  return c == CacheOp::ca ? "ca" : "cg";
}

std::string_view name(SharedSpace s) {
  return s == SharedSpace::shared ? "shared" : "shared::cta";
}

std::string_view name(L2Prefetch p) {
  switch (p) {
  case L2Prefetch::none:
    return "";
  case L2Prefetch::b64:
    return "L2::64B";
  case L2Prefetch::b128:
    return "L2::128B";
  case L2Prefetch::b256:
    return "L2::256B";
  }
  return "";
}

std::vector<std::string_view> qualifiers(const CpAsyncOpcode& op) {
  std::vector<std::string_view> out = {name(op.cache_op), name(op.dst_space), "global"};
  if (op.cache_hint)
    out.push_back("L2::cache_hint");
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
