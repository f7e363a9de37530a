#include "driver/cuda/canary.hpp"

#include <stdexcept>

namespace ptxgen::driver::cuda {

std::size_t round_guard_bytes(std::size_t requested) {
  return (requested + guard_granule - 1) / guard_granule * guard_granule;
}

std::uint8_t canary_byte(GuardSide side, std::size_t index) {
  // 0xA0..0xDF: 7 is odd, so consecutive indices walk all 64 values before repeating.
  const std::size_t phase = side == GuardSide::before ? 0 : 29;
  return static_cast<std::uint8_t>(0xA0 + (index * 7 + phase) % 64);
}

std::vector<std::uint8_t> make_guarded_image(std::span<const std::uint8_t> data,
                                             std::size_t guard_bytes) {
  std::vector<std::uint8_t> image;
  image.reserve(data.size() + 2 * guard_bytes);
  for (std::size_t i = 0; i < guard_bytes; ++i) {
    image.push_back(canary_byte(GuardSide::before, i));
  }
  image.insert(image.end(), data.begin(), data.end());
  for (std::size_t i = 0; i < guard_bytes; ++i) {
    image.push_back(canary_byte(GuardSide::after, i));
  }
  return image;
}

namespace {

// Damage to one guard starting at image[start]; `origin` converts a guard index
// into the reported offset.
void check_guard(std::span<const std::uint8_t> guard, GuardSide side, std::ptrdiff_t origin,
                 std::vector<GuardDamage>& out) {
  GuardDamage damage;
  damage.side = side;
  for (std::size_t i = 0; i < guard.size(); ++i) {
    if (guard[i] == canary_byte(side, i)) {
      continue;
    }
    const std::ptrdiff_t offset = origin + static_cast<std::ptrdiff_t>(i);
    if (damage.bytes == 0) {
      damage.first = offset;
    }
    damage.last = offset;
    ++damage.bytes;
  }
  if (damage.bytes != 0) {
    out.push_back(damage);
  }
}

} // namespace

GuardCheck check_guarded_image(std::span<const std::uint8_t> image, std::size_t data_bytes,
                               std::size_t guard_bytes) {
  if (image.size() != data_bytes + 2 * guard_bytes) {
    throw std::invalid_argument("guarded image of " + std::to_string(image.size()) +
                                " bytes, expected " + std::to_string(data_bytes) + " + 2 * " +
                                std::to_string(guard_bytes));
  }
  GuardCheck result;
  const auto guard = static_cast<std::ptrdiff_t>(guard_bytes);
  check_guard(image.subspan(0, guard_bytes), GuardSide::before, -guard, result.damage);
  result.data.assign(image.begin() + guard,
                     image.begin() + guard + static_cast<std::ptrdiff_t>(data_bytes));
  check_guard(image.subspan(guard_bytes + data_bytes), GuardSide::after, 0, result.damage);
  return result;
}

std::string describe_damage(const std::string& buffer, const GuardDamage& damage) {
  auto signed_offset = [](std::ptrdiff_t v) { return (v >= 0 ? "+" : "") + std::to_string(v); };
  return buffer + ": " + std::to_string(damage.bytes) + (damage.bytes == 1 ? " byte " : " bytes ") +
         (damage.side == GuardSide::before ? "before the start" : "after the end") +
         " overwritten (first at " + signed_offset(damage.first) + ", last at " +
         signed_offset(damage.last) + ")";
}

} // namespace ptxgen::driver::cuda
