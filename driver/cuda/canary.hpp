#pragma once
// Guard zones around device buffers: fill before a launch, check after.
//
// Each buffer lives in one allocation laid out as [guard][data][guard]. The
// guards hold a position-dependent canary pattern, so a write past either end
// is caught even when it wrote plausible bytes, and even when the output itself
// looks right. This file is pure host code: the runner uploads the image that
// make_guarded_image builds and hands what it reads back to check_guarded_image.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ptxgen::driver::cuda {

/// Guard sizes are rounded up to this, so the data (at base + guard) keeps the
/// allocation's 256-byte alignment and any tensor alignment up to 256 holds.
inline constexpr std::size_t guard_granule = 256;

/// `requested` rounded up to a multiple of guard_granule (0 stays 0: no guards).
std::size_t round_guard_bytes(std::size_t requested);

enum class GuardSide : std::uint8_t {
  before, ///< the guard below the data's first byte
  after,  ///< the guard from the data's end upwards
};

/// The canary byte at `index` (0 = nearest the lowest address) of a guard. Never
/// 0x00 (zero fill) nor 0xFF, and it changes with the position and the side, so
/// a shifted copy of a guard or of its neighbour does not pass as intact.
std::uint8_t canary_byte(GuardSide side, std::size_t index);

/// guard_bytes of canary, then `data`, then guard_bytes of canary.
std::vector<std::uint8_t> make_guarded_image(std::span<const std::uint8_t> data,
                                             std::size_t guard_bytes);

/// Damage found in one guard.
struct GuardDamage {
  GuardSide side = GuardSide::after;
  std::size_t bytes = 0; ///< how many canary bytes differ (not necessarily contiguous)
  /// Offsets of the lowest and highest damaged byte. Before the data they are
  /// negative, relative to the data's first byte (-1 is the byte just below it);
  /// after the data they count from its end (+0 is the first byte past it).
  std::ptrdiff_t first = 0;
  std::ptrdiff_t last = 0;

  bool operator==(const GuardDamage&) const = default;
};

struct GuardCheck {
  std::vector<std::uint8_t> data;  ///< the image's data part
  std::vector<GuardDamage> damage; ///< at most one per side, `before` first
};

/// Splits an image read back from the device (data_bytes + 2 * guard_bytes long)
/// into its data and the damage to its guards. Throws std::invalid_argument when
/// the image has another size.
GuardCheck check_guarded_image(std::span<const std::uint8_t> image, std::size_t data_bytes,
                               std::size_t guard_bytes);

/// "B: 16 bytes after the end overwritten (first at +0, last at +15)",
/// "A: 1 byte before the start overwritten (first at -4, last at -4)".
std::string describe_damage(const std::string& buffer, const GuardDamage& damage);

} // namespace ptxgen::driver::cuda
