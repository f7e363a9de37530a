#pragma once
// One CTA's mbarriers as the mbarrier walk (mbarrier_contract.cpp) keeps them: each barrier's
// state exactly as PTX keeps it (the phase count instead of its parity), with what the walk
// adds to prove its rules: what each thread knows has completed, the transaction bytes of
// the current phase, the expect_tx ops no arrival is known to follow yet, and the init's
// visibility to the cluster. Not a public header: only the walk includes it.

#include "emitter/tile/tensor.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ptxgen::tile::mbarrier_walk {

inline constexpr std::int64_t no_phase = -1;

/// A barrier object of one CTA: its tensor and byte offset in it.
using BarrierKey = std::pair<const Tensor*, std::int64_t>;

/// What a thread knows has happened: per barrier, how many of its phases have completed
/// before the thread's current point in every execution (it waited for the last of them, or
/// waited for a phase that an arrival released after the arriving thread knew it).
using Knowledge = std::map<BarrierKey, std::int64_t>;

/// `into` learns what `from` knows.
inline void learn(Knowledge& into, const Knowledge& from) {
  for (const auto& [key, phases] : from) {
    auto& mine = into[key];
    mine = std::max(mine, phases);
  }
}

/// An expect_tx without arrival of one thread: it raises the tx-count of the phase current
/// when it runs, which is the walk's phase only if it runs before the phase completes, i.e.
/// before one of the phase's arrivals in every order of the threads: an arrival of its own
/// thread after it, or any arrival after a cta_sync that came after it (`synced`).
struct LooseExpect {
  std::int64_t phase = no_phase; ///< no_phase: none, or one an arrival is known to follow
  bool synced = false;
  std::size_t op = 0;
  std::int64_t bytes = 0;
};

/// One barrier's state, exactly as PTX keeps it (the phase count instead of its parity).
struct Barrier {
  bool initialised = false;
  bool synced = false;          ///< a cta_sync came after the init
  bool used_since_sync = false; ///< an arrive or wait since the last cta_sync
  std::int64_t count = 0;
  std::int64_t arrived = 0;   ///< arrivals in the current phase
  std::int64_t completed = 0; ///< phases completed: the current phase's index
  std::size_t last_arrival_op = 0;
  std::vector<std::int64_t> arrival; ///< per thread: its unwaited arrival's phase, no_phase
  /// Per thread: the phase of its copy_arrive without noinc that no arrival of the same
  /// thread has followed yet (no_phase when none). Its increment keeps the phase open only
  /// if it comes before the phase completes, which only the thread's own later arrival in
  /// that phase guarantees.
  std::vector<std::int64_t> increment;
  std::size_t increment_op = 0;
  // The current phase's transaction bytes: it completes when its arrivals reach the count
  // and its loads have delivered what its expect_tx ops announced.
  std::int64_t expected = 0;  ///< the expect_tx ops' bytes
  std::int64_t delivered = 0; ///< the loads' bytes, delivered to the phase current at issue
  bool expects = false;       ///< an expect_tx (even of 0 bytes) came in this phase
  std::size_t last_tx_op = 0; ///< the last expect_tx or load of the phase
  BarrierKey key{};
  Knowledge gathering; ///< what the current phase's arriving threads knew when they arrived
  Knowledge released;  ///< what a wait for the last completed phase learns
  /// Per thread: the phase of its last expect_tx on the barrier (no_phase when none), and
  /// whether an expect_tx of the current phase came before a cta_sync since: either orders
  /// an expect_tx of the phase before a thread's load (check_load_expected).
  std::vector<std::int64_t> expected_by;
  bool expects_synced = false;
  /// Per thread: its expect_tx without arrival that no arrival of its phase is known to
  /// follow yet (check_loose_expects); all of the current phase (a completion clears them).
  std::vector<LooseExpect> loose;
  std::int64_t loose_count = 0; ///< entries of `loose` set, so that arrivals skip the scan
  bool loose_synced = false;    ///< one of them is synced
  // Multicast (multicast_contract.hpp): the init is visible to the cluster once an
  // mbarrier_init_fence of the initialising thread (thread 0) and then a cluster_sync
  // followed it; the last phase that multicast bytes landed in, and the op that sent them.
  bool init_fenced = false;
  bool published = false;
  std::int64_t multicast_phase = no_phase;
  std::size_t multicast_op = 0;
  /// A peer's multicast used this barrier (and the CTA's shared memory) since the last
  /// cluster_sync: the CTA must not exit before a cluster_sync orders that use.
  bool peer_since_sync = false;

  bool arrivals_done() const { return arrived == count; }
  bool settled() const { return arrivals_done() && expected == delivered; }
};

} // namespace ptxgen::tile::mbarrier_walk
