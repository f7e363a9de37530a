#pragma once
// The reference's state while a launch runs: the bytes of a tensor (Buffer) and the runs of
// them an access touches, the chunks a thread has queued, its commit groups and waits, a CTA's
// mbarriers. Plain data: the Evaluator (evaluator.hpp) gives it its meaning.

#include "driver/reference/async_model.hpp"
#include "driver/reference/hazards.hpp"
#include "driver/reference/pending_writes.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ptxgen::driver::evaluation {

inline constexpr std::size_t kernel_level = std::numeric_limits<std::size_t>::max(); ///< not one op
/// The largest granule of shared hazard state: 64 bytes (Buffer::shift).
inline constexpr int max_granule_shift = 6;

/// A run of contiguous bytes of one buffer.
struct Run {
  std::int64_t off = 0;
  std::int64_t len = 0;
};

/// The bytes of an access (one element, one chunk, one row of elements), in the order its
/// bytes are accessed, as runs: the first inline (no allocation for a contiguous access),
/// the rest (non-contiguous views only) in `more`. A run that continues the last one merges
/// with it.
struct Runs {
  Run first;
  std::vector<Run> more;

  void append(Run r) {
    if (r.len <= 0)
      return;
    Run& last = more.empty() ? first : more.back();
    if (last.len == 0) {
      last = r;
    } else if (last.off + last.len == r.off) {
      last.len += r.len;
    } else {
      more.push_back(r);
    }
  }
  std::int64_t bytes() const {
    std::int64_t n = first.len;
    for (const Run& r : more)
      n += r.len;
    return n;
  }
  bool contains(std::int64_t off) const {
    auto in = [&](const Run& r) { return off >= r.off && off < r.off + r.len; };
    return in(first) || std::any_of(more.begin(), more.end(), in);
  }
  template <class F>
  void each(F&& f) const {
    if (first.len > 0)
      f(first);
    for (const Run& r : more)
      f(r);
  }
};

/// `len` bytes from `off` that a pending store of op `op` will write.

/// An ordinary (generic-proxy) write of `len` global bytes from `off` by thread `tid` at op
/// `op`, at Cta::clock `time`: a bulk or tensor load of them needs a global-space proxy fence.
struct GenericWrite {
  std::int64_t off = 0;
  std::int64_t len = 0;
  std::int64_t tid = 0;
  std::size_t op = 0;
  std::int64_t time = 0;
};

struct Buffer {
  std::string name;
  bool shared = false;
  std::size_t index = 0;           ///< its slot (Slot::index) among the shared or global ones
  std::vector<std::int64_t> shape; ///< the tensor's, for the element of a byte in findings
  std::int64_t element_bytes = 1;
  std::int64_t size = 0; ///< in bytes, whether or not `bytes` holds them
  /// The values: `size` bytes, or none for a global tensor whose values the launch does not
  /// hold (ReferenceInput::values): moves into it are dropped, moves out of it leave the
  /// destination's values as they were (its definedness is still set).
  std::vector<std::uint8_t> bytes;
  /// Per byte: 1 when it holds a defined value. A global tensor's starts empty, which means
  /// every byte is defined, and is filled in (put_defined) only when undefined bytes reach it.
  std::vector<std::uint8_t> defined;
  /// Shared tensors only: the ordering state, one entry per granule of 2^shift bytes. Every
  /// access starts and ends on a granule boundary (the reference checks each one and starts
  /// over with a smaller granule when one does not), so the bytes of a granule see the same
  /// accesses in the same order and have the same state: one entry stands for all of them.
  ref::SharedBytes hz;
  int shift = 0;
  /// Global tensors only: the bytes the pending bulk and tensor stores of the CTA being run
  /// will still write, one entry per piece in issue order (a few per store: their number, not
  /// the tensor's size, bounds the state).
  PendingWrites pending_writes;
  /// Global tensors only: whether a bulk or tensor load of the kernel reads it, and then the
  /// generic writes of the CTA being run, in order (none recorded for the other tensors).
  bool async_read = false;
  std::vector<GenericWrite> generic_writes;
  /// Global tensors only: whether some op writes it (a copy, a fill, a bulk or tensor store):
  /// then the CTAs' reads of it are recorded for the races between CTAs, which a tensor no op
  /// writes cannot have.
  bool written = false;

  std::int64_t granule() const { return std::int64_t{1} << shift; }
  /// Whether the buffer holds its values (every shared one does).
  bool holds_values() const { return std::ssize(bytes) == size; }
};

/// An op index as the hazard state stores it.
inline std::int32_t op32(std::size_t op) {
  return static_cast<std::int32_t>(op);
}

/// One queued chunk of an apply: performed at the issuing thread's wait.
struct Chunk {
  // Members set one by one: an aggregate's zeroing of the whole (a `rep stos`) and the stores
  // into it right after cost more than the rest of an issue.
  Chunk() = default;
  Chunk(std::size_t op_, std::int64_t group_, Buffer* dst_, Buffer* src_, std::int64_t read)
      : op(op_), group(group_), dst(dst_), src(src_), read_bytes(read) {}

  std::size_t op = 0;
  std::int64_t group = 0;
  Buffer* dst = nullptr;
  Runs dst_runs;
  Buffer* src = nullptr;
  Runs src_runs;
  std::int64_t read_bytes = 0; ///< the first read_bytes come from src, the rest are zero
  /// The first wait_group that ran while no commit_group had closed this chunk's group
  /// (kernel_level when none): that wait did not cover it.
  std::size_t skipped_by_wait = kernel_level;
  /// The copy_arrives (indices into Cta::deferred) whose deferred arrival waits for it.
  std::vector<std::size_t> deferred;
};

/// An mbarrier of one CTA, exactly as PTX keeps it.
struct RefBarrier {
  std::string name; ///< the barrier view's text, for findings
  bool initialised = false;
  std::int64_t count = 0;   ///< arrivals per phase
  std::int64_t pending = 0; ///< arrivals the current phase still needs
  std::int64_t phase = 0;   ///< the current phase's index (its parity is phase % 2)
  std::int64_t unfired = 0; ///< copy_arrives on it whose copies have not all landed
  /// The current phase's transaction bytes: what its expect_tx ops announced and what its
  /// loads delivered; the phase completes when no arrival is pending and the two are equal.
  std::int64_t tx_expected = 0;
  std::int64_t tx_delivered = 0;
  /// Per thread: Cta::clock at its latest arrival (mbarrier_arrive, expect_tx's), -1 none;
  /// its ops before that clock are ordered before a wait for a later completed phase, and so
  /// are the ops the arriving thread was ordered after when it arrived (Cta::ordered's row).
  /// Cumulative over phases. `done`: `release` when the last phase completed.
  std::vector<std::int64_t> release;
  std::vector<std::int64_t> done;
};

/// `len` contiguous bytes of a bulk copy: from byte `src` of its source to byte `dst` of its
/// destination (a load's `src` is `filled` for the elements outside the tensor; a store's
/// `src` counts in its staged bytes).
struct Piece {
  std::int64_t dst = 0;
  std::int64_t src = 0;
  std::int64_t len = 0;
};
inline constexpr std::int64_t filled = -1;

/// A bulk or tensor load in flight: it lands at the first mbarrier_wait on its barrier.
struct PendingLoad {
  model::Access access = model::Access::bulk_load; ///< bulk_load or tensor_load
  std::size_t op = 0;
  std::int64_t tid = 0;
  std::size_t barrier = 0; ///< index into Cta::barriers
  std::int64_t bytes = 0;  ///< the transaction bytes it delivers
  Buffer* dst = nullptr;   ///< shared
  const Buffer* src = nullptr;
  Runs writes; ///< the shared bytes it writes
  std::vector<Piece> pieces;
  std::vector<std::uint8_t> fill; ///< one element's bytes, for the `filled` pieces
  /// A bulk_copy_peer's: the sender's shared source (`src`; nullptr for a load of the CTA's
  /// own) and its runs, read by the async proxy until the copy lands.
  Buffer* peer_source = nullptr;
  Runs source_reads;
};

/// A bulk or tensor store of a thread: it reads its shared bytes (`reads`, in order, into
/// `staged`) at the first bulk_wait that covers its group, and writes the global bytes at
/// the first one without `read` (or at the end of the kernel): the latest times it may.
struct PendingStore {
  std::size_t op = 0;
  std::int64_t group = 0;
  Buffer* src = nullptr; ///< shared
  Buffer* dst = nullptr; ///< global
  Runs reads;
  std::vector<Piece> pieces; ///< src: an offset into `staged`
  std::vector<std::uint8_t> staged;
  std::vector<std::uint8_t> staged_defined;
  bool read_done = false;
  bool waited = false;      ///< a bulk_wait covered its group
  std::uint64_t serial = 0; ///< which store of the launch (its pending writes name it)
  /// A bulk_reduce's: each element of dst becomes its reduction with the staged one
  /// (reduce_values.hpp) instead of the staged one.
  std::optional<tile::ReduceKind> reduce;
  tile::DType dtype = tile::DType::uint8; ///< the reduction's elements
};

/// A bulk or tensor store whose group its thread's bulk_wait covered, kept until the next
/// cta_sync: a bulk wait completes for the executing thread only, so another thread's access
/// of the store's bytes is ordered after it only by a barrier (or an mbarrier phase) after
/// that wait.
struct RetiredStore {
  std::size_t op = 0;     ///< the store
  std::size_t wait = 0;   ///< the bulk_wait that covered it
  std::int64_t tid = 0;   ///< the issuing (and waiting) thread
  std::int64_t clock = 0; ///< Cta::clock at the wait
  std::uint64_t serial = 0;
  const Buffer* src = nullptr; ///< shared: the bytes it read
  Runs reads;
  const Buffer* dst = nullptr; ///< global: the bytes it wrote, when the wait had no `read`
  std::vector<Run> writes;
};

/// The deferred arrival of one thread's copy_arrive: it arrives when its copies have landed.
struct Deferred {
  std::size_t barrier = 0; ///< index into Cta::barriers
  std::size_t op = 0;
  std::int64_t remaining = 0; ///< copies still pending
  bool fired = false;
};

struct ThreadState {
  std::vector<Chunk> queue;    ///< issue order
  std::int64_t open_group = 0; ///< id of the group being filled = groups committed so far
  std::int32_t waits = 0;      ///< wait_group and wait_all ops run so far
  ref::LiveWait live;          ///< the wait_group it ran last, while it is its newest wait
  /// Per barrier id: the newest phase this thread's mbarrier_waits have seen complete.
  std::map<std::size_t, std::int64_t> waited;
  std::int64_t bulk_open = 0;       ///< id of the bulk group being filled = bulk groups committed
  std::vector<PendingStore> stores; ///< issue order
  std::int64_t fence_time = -1;     ///< Cta::clock at its last shared-space proxy_fence, -1 none
  std::int64_t synced_fence = -1;   ///< fence_time at the CTA's last cta_sync
  std::int64_t global_fence_time = -1;   ///< Cta::clock at its last global-space proxy_fence
  std::int64_t synced_global_fence = -1; ///< global_fence_time at the CTA's last cta_sync
  /// Cta::clock at each of its proxy_fences, by the space they order (ascending): an
  /// mbarrier phase orders the fences before the arrival another thread learnt, not only the
  /// last one (a ring's consumer fences its next stage before the producer's wait).
  std::vector<std::int64_t> shared_fences, global_fences;
};

struct Cta {
  std::vector<Buffer> shared; ///< one per shared tensor, in declaration order
  std::int32_t epoch = 0;     ///< cta_sync count
  std::vector<ThreadState> threads;
  std::vector<RefBarrier> barriers;                                        ///< by id
  std::map<std::pair<std::size_t, std::int64_t>, std::size_t> barrier_ids; ///< (slot, byte)
  std::vector<Deferred> deferred;                                          ///< every copy_arrive's
  std::vector<PendingLoad> loads;    ///< bulk and tensor loads in flight, issue order
  std::vector<RetiredStore> retired; ///< stores waited since the last cta_sync
  std::int64_t clock = 0;            ///< ops run so far: orders writes and proxy fences
  /// Besides cta_sync (epoch), mbarrier phases and named barriers order threads:
  /// ordered[w * block + r] is the clock before which thread r's ops are ordered before thread
  /// w's current point, learnt by w's waits from the arrivals of the phases they waited for.
  /// An arrival carries what the arriving thread knew at that moment (its row then, not
  /// later), so a chain through a third thread is followed exactly as far as it orders: the
  /// consumers of a multicast ring meet at a named barrier and one of them releases the stage
  /// for all. Empty until the first arrival.
  std::vector<std::int64_t> ordered;
  /// The arrivals on each named barrier (named_barrier, by id) since its last completion: the
  /// arriving thread and the clock at its arrival, the threads that wait (bar.sync), and what
  /// the arriving threads knew when they arrived (the join of their `ordered` rows then).
  struct NamedArrivals {
    std::vector<std::pair<std::int64_t, std::int64_t>> arrivals;
    std::vector<std::int64_t> waiters;
    std::vector<std::int64_t> known;
  };
  std::map<std::int64_t, NamedArrivals> named;
};

} // namespace ptxgen::driver::evaluation
