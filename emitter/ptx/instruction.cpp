#include "emitter/ptx/instruction.hpp"

namespace ptxgen::ptx {

std::string_view name(EvictionPriority p) {
  switch (p) {
  case EvictionPriority::evict_last:
    return "L2::evict_last";
  case EvictionPriority::evict_normal:
    return "L2::evict_normal";
  case EvictionPriority::evict_first:
    return "L2::evict_first";
  case EvictionPriority::evict_unchanged:
    return "L2::evict_unchanged";
  }
  return "?";
}

std::string_view name(CompareOp c) {
  switch (c) {
  case CompareOp::eq:
    return "eq";
  case CompareOp::ne:
    return "ne";
  case CompareOp::lt:
    return "lt";
  case CompareOp::le:
    return "le";
  case CompareOp::gt:
    return "gt";
  case CompareOp::ge:
    return "ge";
  case CompareOp::lo:
    return "lo";
  case CompareOp::ls:
    return "ls";
  case CompareOp::hi:
    return "hi";
  case CompareOp::hs:
    return "hs";
  }
  return "?";
}

} // namespace ptxgen::ptx
