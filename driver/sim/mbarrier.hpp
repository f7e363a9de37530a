#pragma once
// The simulator's mbarrier objects (internal to driver/sim; see simulator.hpp for the model).
//
// An mbarrier object is an 8-byte, 8-aligned location of the CTA's shared memory. Its state
// lives here, in a side table keyed by shared offset, never in the bytes themselves: PTX makes
// any access other than an mbarrier instruction to a valid object undefined, and the executor
// faults (`undefined_behavior`) on an ld / st / cp.async that touches a valid object's bytes.
//
// State per object (PTX ISA, "Contents of the mbarrier object"): the current phase (its parity
// is bit 0), the expected arrival count, the pending arrival count, the tx-count. A phase
// completes when its pending arrivals and its tx-count are both zero; the next phase starts
// with pending = expected and tx-count 0.
//
// Lazy completion: the simulator performs asynchronous work (cp.async copies tracked by
// cp.async.mbarrier.arrive, bulk copies with complete_tx) as late as PTX allows: at the
// completion of the phase that needs them. The table therefore keeps, for the current phase,
//   - `in_flight`: arrivals promised by cp.async.mbarrier.arrive whose copies have not been
//     performed (counted in `pending` too: a non-`.noinc` one first adds one to `pending`,
//     a `.noinc` one is one of the expected arrivals);
//   - `landing`: bytes of bulk copies not yet performed (not yet subtracted from `tx`).
// The phase can complete once every other arrival has happened and the landing bytes are
// exactly the tx-count still expected (pending == in_flight and tx == landing). It completes
// when a thread next tests it (test_wait / try_wait), or an arrival for the next phase comes
// (an arrival on a phase that can complete first completes it, as on the GPU, where it would
// have completed already). Bulk bytes beyond the tx-count expected keep the phase from ever
// completing (on the GPU they would spill into the next phase's tx-count): a deadlock here.
// An arrival (or a `.noinc` one) that exceeds what the phase still expects from threads
// while it cannot complete (cp.async arrivals in flight that must come first, or a tx-count
// not yet met) is refused as undefined_behavior: on the GPU its surplus would fall into a
// phase that has not started.
//
// Arrival states: the 64-bit state mbarrier.arrive returns is (phase << 32) | pending count
// after the arrival; test_wait / try_wait on a state is true once that phase has completed,
// mbarrier.pending_count reads the low half. Parity waits are true when the current phase's
// parity differs from the operand (the phase of that parity is the one just completed).
//
// Ordering (races): a vector clock per thread (only for entries that use mbarriers). An
// arrival, a cp.async.mbarrier.arrive and a bulk copy release the thread's clock into the
// object; a wait that finds its phase complete acquires the clock the phase released. A write
// is ordered before a read of another thread when the reader's clock has seen the writer's
// clock at the write; the executor's race checks use this besides bar.sync phases.
//
// Errors are thrown as MbarrierError; the executor turns them into faults naming the thread.

#include "driver/sim/simulator.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::sim::detail {

/// A kernel error on an mbarrier operation (the executor adds the thread and line).
struct MbarrierError {
  FaultKind kind = FaultKind::undefined_behavior;
  std::string detail;
};

/// The `tid` of an operation by a peer CTA's thread (a remote arrive, a peer's or a multicast's
/// complete_tx): it counts, and releases no clock (the vector clocks are the CTA's own; the cluster
/// rules order CTAs: cta_cluster.cpp).
inline constexpr std::uint32_t remote_thread = ~0u;

/// The most arrivals and the largest |tx-count| an object holds (PTX: 2^20 - 1).
inline constexpr std::int64_t mbarrier_count_max = (1 << 20) - 1;

/// One mbarrier object.
struct Mbarrier {
  std::uint64_t phase = 0;     ///< completed phases; bit 0 is the current phase's parity
  std::uint32_t expected = 0;  ///< arrivals per phase (init count less arrive_drop's)
  std::uint32_t pending = 0;   ///< arrivals the current phase still needs (in_flight included)
  std::uint32_t in_flight = 0; ///< cp.async.mbarrier.arrive arrivals not yet made
  std::int64_t tx = 0;         ///< tx-count, as if no landing bulk copy had completed
  std::int64_t landing = 0;    ///< bytes of bulk copies that will complete_tx on this phase
  std::uint32_t init_line = 0; ///< PTX line of its mbarrier.init (messages)
  std::vector<std::uint32_t> release; ///< clocks released into it (cumulative)
  std::vector<std::uint32_t> done;    ///< `release` when the last phase completed
};

/// A cp.async.mbarrier.arrive whose arrival waits for its thread's copies issued before it.
struct Tracker {
  std::uint32_t tid = 0;
  std::uint64_t bar = 0; ///< shared offset of the object
  std::uint64_t seq = 0; ///< the thread's copies numbered below this one are tracked
};

/// The mbarrier objects of one CTA.
class Mbarriers {
public:
  /// `clocks`: keep vector clocks (the entry uses mbarriers).
  Mbarriers(std::uint32_t threads, bool clocks);

  /// The valid object at shared offset `off`, if any.
  const Mbarrier* find(std::uint64_t off) const;
  /// The offset of a valid object overlapping bytes [off, off + n), if any.
  std::optional<std::uint64_t> overlapping(std::uint64_t off, std::uint64_t n) const;
  /// Whether the current phase of the object at `off` can complete now.
  bool completable(std::uint64_t off) const;
  /// Changes of any object's state so far (a thread blocked on a wait retries after one).
  std::uint64_t events() const { return events_; }
  /// "phase 3 (parity 1), 2 of 4 arrivals pending (1 from cp.async), tx-count 16".
  std::string describe(std::uint64_t off) const;

  void init(std::uint64_t off, std::int64_t count, std::uint32_t line);
  void inval(std::uint64_t off);
  /// An arrival of `count` by thread `tid` after adding `tx` to the tx-count (expect_tx);
  /// `drop` also lowers the expected count (arrive_drop). Returns the arrival state.
  std::uint64_t arrive(std::uint32_t tid, std::uint64_t off, std::int64_t count, std::int64_t tx,
                       bool drop);
  void expect_tx(std::uint32_t tid, std::uint64_t off, std::int64_t tx);
  /// Whether every arrival of the current phase has been made and the bytes coming in exceed the
  /// tx-count expected (the surplus would fall into the next phase on the GPU).
  bool overfed(std::uint64_t off) const;
  /// Takes the surplus bytes of an overfed phase as expected (after its hazard is reported), so
  /// the phase can complete.
  void absorb(std::uint64_t off);
  /// cp.async.mbarrier.arrive{.noinc} by `tid`; its copies numbered below `seq` are tracked.
  void track(std::uint32_t tid, std::uint64_t off, std::uint64_t seq, bool noinc);
  /// A bulk copy of `bytes` issued by `tid` that will complete_tx on the object.
  void bulk(std::uint32_t tid, std::uint64_t off, std::int64_t bytes);
  /// Completes the current phase (completable() must hold): returns the trackers whose
  /// copies, and says nothing of the bulk copies, that the caller must now perform.
  std::vector<Tracker> complete(std::uint64_t off);
  /// Whether the phase a wait names (a state, or a parity) has completed; on true the
  /// thread acquires what the phase released.
  bool test(std::uint32_t tid, std::uint64_t off, std::uint64_t token, bool parity);

  /// A named barrier's arrival (bar.sync, bar.arrive, bar.red): thread `tid` releases its clock
  /// into `into`, which whoever acquires it at the barrier's completion then holds.
  void release_into(std::uint32_t tid, std::vector<std::uint32_t>& into);
  /// Thread `tid` acquires `from` (a named barrier it waited at completed).
  void acquire(std::uint32_t tid, const std::vector<std::uint32_t>& from);

  /// The thread's own clock now (stamps its accesses).
  std::uint32_t clock(std::uint32_t tid) const;
  /// Whether `writer`'s access at clock `at` is ordered before `reader`'s accesses now.
  bool ordered(std::uint32_t writer, std::uint32_t at, std::uint32_t reader) const;

private:
  Mbarrier& valid(std::uint64_t off);
  void release(std::uint32_t tid, Mbarrier& b);

  std::uint32_t threads_ = 0;
  bool clocks_ = false;
  std::vector<std::uint32_t> vc_; ///< threads x threads: vc_[t * threads + u]
  std::map<std::uint64_t, Mbarrier> objects_;
  std::vector<Tracker> trackers_;
  std::uint64_t events_ = 0;
};

} // namespace ptxgen::sim::detail
