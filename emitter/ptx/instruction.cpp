#include "emitter/ptx/instruction.hpp"

#include "emitter/ptx/qualifier.hpp"
#include "emitter/support/unreachable.hpp"

#include <array>
#include <cstdio>
#include <cstring>

namespace ptxgen::ptx {

namespace {

/// Indexed by EvictionPriority.
constexpr std::array<std::string_view, 4> eviction_names = {
    spelling(Qualifier::L2_evict_last), spelling(Qualifier::L2_evict_normal),
    spelling(Qualifier::L2_evict_first), spelling(Qualifier::L2_evict_unchanged)};
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

std::string_view name(Role r) {
  switch (r) {
  case Role::destination:
    return "destination";
  case Role::source:
    return "source";
  case Role::first:
    return "first operand";
  case Role::second:
    return "second operand";
  case Role::third:
    return "third operand";
  case Role::selector:
    return "selector";
  case Role::src_size:
    return "src-size";
  case Role::ignore_src:
    return "ignore-src";
  case Role::cache_policy:
    return "cache-policy operand";
  case Role::address:
    return "address";
  case Role::dst_address:
    return "destination (shared) address";
  case Role::src_address:
    return "source (global) address";
  }
  unreachable("name(): not an enum value");
}

Mnemonic mnemonic(BinaryOp op) {
  switch (op) {
  case BinaryOp::add:
    return Mnemonic::add;
  case BinaryOp::sub:
    return Mnemonic::sub;
  case BinaryOp::mul_lo:
    return Mnemonic::mul_lo;
  case BinaryOp::mul_wide:
    return Mnemonic::mul_wide;
  case BinaryOp::div:
    return Mnemonic::div;
  case BinaryOp::rem:
    return Mnemonic::rem;
  case BinaryOp::min:
    return Mnemonic::min;
  case BinaryOp::max:
    return Mnemonic::max;
  case BinaryOp::shl:
    return Mnemonic::shl;
  case BinaryOp::shr:
    return Mnemonic::shr;
  case BinaryOp::and_:
    return Mnemonic::and_;
  case BinaryOp::or_:
    return Mnemonic::or_;
  case BinaryOp::xor_:
    return Mnemonic::xor_;
  }
  unreachable("name(): not an enum value");
}

std::string float_literal(float f) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  char buf[16];
  std::snprintf(buf, sizeof buf, "0f%08X", static_cast<unsigned>(bits));
  return buf;
}

namespace {

/// Collects the feature rows an instruction's declaration names; ignores the rest.
struct FeatureCollector {
  std::vector<Feature> out;
  void opcode(Mnemonic) {}
  void qualifier(std::string_view) {}
  void def(Register, Slot) {}
  void defs(std::span<const Register>, Slot) {}
  void use(const Operand&, Slot) {}
  void reg(Register, Slot) {}
  void negated_reg(Register, Slot) {}
  void uses(std::span<const Operand>, Slot) {}
  void address(const Address&, AddressSlot) {}
  void immediate(std::int64_t) {}
  void float_immediate(float) {}
  void label(const std::string&) {}
  void label_definition(const std::string&) {}
  void sink(Slot) {}
  void missing(std::string_view) {}
  void feature(Feature f) { out.push_back(f); }
};

} // namespace

std::vector<Feature> features_used(const Instruction& i) {
  FeatureCollector c;
  describe(i.body, c);
  return c.out;
}

} // namespace ptxgen::ptx
