#include "emitter/ptx/instruction.hpp"

#include <array>

namespace ptxgen::ptx {

namespace {

/// Indexed by EvictionPriority.
constexpr std::array<std::string_view, 4> eviction_names = {
    "L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged"};
constexpr std::array<std::string_view, 4> eviction_spellings = {
    eviction_names[0].substr(4), eviction_names[1].substr(4), eviction_names[2].substr(4),
    eviction_names[3].substr(4)};

} // namespace

std::string_view name(EvictionPriority p) {
  return eviction_names.at(static_cast<std::size_t>(p));
}

std::optional<EvictionPriority> parse_eviction_priority(std::string_view spelling) {
  for (std::size_t k = 0; k < eviction_spellings.size(); ++k)
    if (eviction_spellings[k] == spelling)
      return static_cast<EvictionPriority>(k);
  return std::nullopt;
}

std::span<const std::string_view> eviction_priority_spellings() {
  return eviction_spellings;
}

bool allowed_as_secondary(EvictionPriority p) {
  return p == EvictionPriority::evict_first || p == EvictionPriority::evict_unchanged;
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
