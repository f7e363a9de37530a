#pragma once
// The generator's random numbers: xoshiro256** seeded through splitmix64, and draws made
// of integer arithmetic only, so a seed gives the same numbers with every standard library.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ptxgen::driver::fuzz {

class Rng {
public:
  explicit Rng(std::uint64_t seed) {
    for (auto& s : state_)
      s = splitmix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  /// Uniform in 0..n-1 (n >= 1); the slight modulo bias does not matter here.
  std::uint64_t below(std::uint64_t n) { return n <= 1 ? 0 : next() % n; }
  /// Uniform in lo..hi (inclusive; lo <= hi).
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }
  /// True with probability num/den.
  bool chance(unsigned num, unsigned den) { return below(den) < num; }
  /// In lo..hi, biased toward the ends: half the draws are lo, lo+1, hi-1 or hi.
  std::int64_t edge(std::int64_t lo, std::int64_t hi) {
    if (hi - lo >= 2 && chance(1, 2)) {
      switch (below(4)) {
      case 0:
        return lo;
      case 1:
        return lo + 1;
      case 2:
        return hi - 1;
      default:
        return hi;
      }
    }
    return between(lo, hi);
  }
  template <typename T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }

  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t state_[4]{};
};

} // namespace ptxgen::driver::fuzz
