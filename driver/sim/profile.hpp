#pragma once
// Memory-efficiency figures from the simulator (`ptxgen run --profile`, docs/profile.md).
//
// The executor reports every shared and global access of ld / st / cp.async to a
// CtaProfile (one per CTA, never shared between threads); at the end of the CTA it is
// merged into the launch's Profile (locked, so CTAs may run in parallel). Accesses are
// grouped into warp requests: the n-th execution of one instruction by the lanes of one
// warp is one request (lanes that did not reach it, or whose guard was false, are
// inactive). The models, per request:
//  - shared memory: 32 banks of 4 bytes; an access of B bytes is served in phases of
//    128 / max(B, 4) lanes (32 lanes up to 4 bytes, half-warps for 8 bytes, quarter-warps
//    for 16 bytes); in each phase a bank serves each distinct 4-byte word once (lanes that
//    touch the same word share it: broadcast), so the phase takes as many wavefronts as the
//    most distinct words any bank holds; the request takes the sum over its phases.
//    The ideal is one wavefront per phase that has an active lane; conflicts = the rest.
//  - global memory: the distinct 32-byte sectors the lanes' bytes touch; the ideal is the
//    distinct bytes requested, rounded up to whole sectors.

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace ptxgen::sim {

inline constexpr std::uint32_t warp_lanes = 32;   ///< lanes of a warp
inline constexpr std::uint32_t shared_banks = 32; ///< banks of shared memory
inline constexpr std::uint32_t bank_bytes = 4;    ///< bytes of a bank word
/// Bytes one shared wavefront serves when every bank delivers one word.
inline constexpr std::uint32_t wavefront_bytes = shared_banks * bank_bytes;
inline constexpr std::uint32_t sector_bytes = 32; ///< the unit of global memory traffic

/// One lane's part of a warp request.
struct LaneAccess {
  std::uint32_t lane = 0;    ///< 0..31
  std::uint64_t address = 0; ///< shared offset or global address
  std::uint32_t bytes = 0;   ///< 1, 2, 4, 8 or 16
  auto operator<=>(const LaneAccess&) const = default;
};

/// The lanes served together in one phase for accesses of `bytes` bytes (32, 16 or 8).
std::uint32_t lanes_per_phase(std::uint32_t bytes);

/// How the shared-memory unit serves one warp request.
struct SharedCost {
  std::uint32_t phases = 0;     ///< phases with at least one active lane
  std::uint32_t wavefronts = 0; ///< the sum over those phases of their wavefronts
  /// The worst phase's wavefronts: the request's "N-way" conflict (1: conflict-free).
  std::uint32_t ways = 0;
  std::uint32_t ideal() const { return phases; }
  std::uint32_t conflicts() const { return wavefronts - phases; }
};

SharedCost shared_request_cost(std::span<const LaneAccess> lanes);

/// Per bank: the most distinct words it serves in one phase of the request (0: untouched,
/// 1: conflict-free, n: an n-way conflict). What `ptxgen show` draws.
std::array<std::uint32_t, shared_banks> bank_ways(std::span<const LaneAccess> lanes);

/// The distinct 32-byte sectors the lanes' bytes touch.
std::uint32_t global_request_sectors(std::span<const LaneAccess> lanes);
/// The distinct bytes the lanes touch, in whole sectors: what a perfectly coalesced
/// request of the same bytes would take.
std::uint32_t global_ideal_sectors(std::span<const LaneAccess> lanes);

/// What kind of access an instruction makes.
enum class AccessKind : std::uint8_t {
  shared_load,  ///< ld (shared, or generic into the shared window)
  shared_store, ///< st
  shared_async, ///< cp.async's write of its destination
  global_load,  ///< ld (global, or generic outside the shared window)
  global_store, ///< st
  global_async, ///< cp.async's read of its source (none with ignore-src or src-size 0)
};
/// "ld.shared", "st.shared", "cp.async dst", "ld.global", "st.global", "cp.async src".
std::string_view name(AccessKind k);
bool is_shared(AccessKind k);

/// One instruction's figures over the launch.
struct ProfileRow {
  std::uint32_t ptx_line = 0;
  std::string instruction; ///< the PTX text
  AccessKind kind = AccessKind::shared_load;
  std::uint64_t requests = 0; ///< warp requests
  std::uint64_t lanes = 0;    ///< active lanes over all requests
  std::uint64_t units = 0;    ///< shared: wavefronts; global: sectors
  std::uint64_t ideal = 0;    ///< the same without bank conflicts / perfectly coalesced
  std::uint32_t worst = 0;    ///< shared: the largest `ways` of a request; global: the most
                              ///< sectors of one request
  /// The lanes of one request that costs `worst` (of those, the least as a sequence of
  /// (lane, address, bytes), so that the choice does not depend on the order CTAs merge):
  /// what `ptxgen show` draws bank by bank.
  std::vector<LaneAccess> worst_lanes;
};

/// A launch's figures: one row per (instruction, kind), in PTX line order.
struct ProfileReport {
  std::vector<ProfileRow> rows;
  /// Sums over the rows of one memory (shared or global).
  struct Totals {
    std::uint64_t requests = 0, units = 0, ideal = 0;
  };
  Totals totals(bool shared) const;
};

/// The accesses of one CTA, grouped into warp requests.
class CtaProfile {
public:
  /// `threads`: the CTA's threads (the last warp may have fewer than 32 lanes).
  explicit CtaProfile(std::uint64_t threads) : threads_(threads) {}

  /// Thread `tid` makes an access by op `op` (its index in the entry; `iteration`: the
  /// thread's count of reaching it) at PTX line `line` with text `text`.
  void access(std::uint32_t op, std::uint32_t line, std::string_view text, AccessKind kind,
              std::uint32_t tid, std::uint32_t iteration, std::uint64_t address,
              std::uint32_t bytes);

  /// Costs the requests not yet complete (lanes that never came are inactive).
  void finish();

private:
  friend class Profile;
  using Key = std::tuple<std::uint32_t, AccessKind, std::uint32_t, std::uint32_t>;
  void cost(const Key& key, const std::vector<LaneAccess>& lanes);
  std::uint64_t threads_;
  std::map<Key, std::vector<LaneAccess>> pending_; ///< (op, kind, warp, iteration)
  std::map<std::pair<std::uint32_t, AccessKind>, ProfileRow> rows_;
};

/// The launch's collector: CTAs merge into it (thread-safe).
class Profile {
public:
  void merge(CtaProfile& cta);
  ProfileReport report() const;

private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::uint32_t, AccessKind>, ProfileRow> rows_;
};

/// What the table's columns mean, once before the tables of a run. `ptx`: the PTX whose
/// lines the `line` column counts and how to see it ("the --ptx file 'k.ptx'").
void print_profile_legend(std::string_view ptx, std::ostream& out);
/// "shared: 32 requests, 128 wavefronts (ideal 128, 0 from bank conflicts)": the shared
/// totals as the table and `ptxgen show` write them.
std::string shared_totals_text(const ProfileReport& r);
/// The report as a table (one line per row, then the totals), for `spec`.
void print_profile(const std::string& spec, const ProfileReport& r, std::ostream& out);
/// The report as a JSON object {"rows": [...], "shared": {...}, "global": {...}}.
std::string profile_json(const ProfileReport& r);

} // namespace ptxgen::sim
