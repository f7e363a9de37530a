#include "emitter/ptx/instruction.hpp"

#include "emitter/ptx/qualifier.hpp"
#include "emitter/support/enum_names.hpp"

#include <cstdio>
#include <cstring>

namespace ptxgen::ptx {

namespace {

constexpr auto eviction_names = enum_names<EvictionPriority::evict_unchanged>(
    spelling(Qualifier::L2_evict_last), spelling(Qualifier::L2_evict_normal),
    spelling(Qualifier::L2_evict_first), spelling(Qualifier::L2_evict_unchanged));
constexpr auto eviction_spellings = enum_names<EvictionPriority::evict_unchanged>(
    eviction_names.values[0].substr(4), eviction_names.values[1].substr(4),
    eviction_names.values[2].substr(4), eviction_names.values[3].substr(4));

} // namespace

std::string_view name(EvictionPriority p) {
  return name_of(eviction_names, p);
}

std::optional<EvictionPriority> parse_eviction_priority(std::string_view spelling) {
  return parse_name(eviction_spellings, spelling);
}

std::span<const std::string_view> eviction_priority_spellings() {
  return eviction_spellings.values;
}

bool allowed_as_secondary(EvictionPriority p) {
  return p == EvictionPriority::evict_first || p == EvictionPriority::evict_unchanged;
}

std::string_view name(Role r) {
  static constexpr auto names = enum_names<Role::offset>(
      "destination", "source", "first operand", "second operand", "third operand", "selector",
      "src-size", "ignore-src", "cache-policy operand", "address", "destination (shared) address",
      "source (global) address", "size", "mbarrier address", "tensor map", "coordinate", "tx-count",
      "CTA mask", "im2col offset");
  return name_of(names, r);
}

Mnemonic mnemonic(BinaryOp op) {
  static constexpr auto mnemonics = enum_table<BinaryOp::xor_>(std::to_array<Mnemonic>(
      {Mnemonic::add, Mnemonic::sub, Mnemonic::mul_lo, Mnemonic::mul_wide, Mnemonic::div,
       Mnemonic::rem, Mnemonic::min, Mnemonic::max, Mnemonic::shl, Mnemonic::shr, Mnemonic::and_,
       Mnemonic::or_, Mnemonic::xor_}));
  return row_of(mnemonics, op);
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
  void vector(std::span<const Operand>, Slot) {}
  void address(const Address&, AddressSlot) {}
  void tensor(const std::variant<Register, Symbol>&, std::span<const Operand>, Slot, Slot) {}
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
