#pragma once
// SHA-256 (FIPS 180-4), small and dependency-free: the cubin cache's key and
// its entries' integrity check. Not for secrets: no constant-time guarantees.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ptxgen::driver {

class Sha256 {
public:
  using Digest = std::array<std::uint8_t, 32>;

  Sha256();
  /// Feeds bytes; may be called any number of times before finish().
  void update(std::string_view bytes);
  void update(const void* data, std::size_t size);
  /// Feeds a length-prefixed field, so that ("ab","c") and ("a","bc") differ.
  void update_field(std::string_view bytes);
  /// The digest; the object must not be updated afterwards.
  Digest finish();

  static Digest of(std::string_view bytes);
  static std::string hex(const Digest& d);

private:
  void block(const std::uint8_t* p);
  std::array<std::uint32_t, 8> h_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_ = 0;
};

} // namespace ptxgen::driver
