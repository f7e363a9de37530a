#pragma once
// The reference's hazard bookkeeping (driver/reference/evaluator.hpp runs the ops and asks
// these questions): per shared byte (granule), who may still write it (pending copies), who wrote
// and who read it in the current barrier phase, and which thread's wait_group landed it; per
// thread, the wait_group it ran last; per wait_group op, the largest count that would still
// have done; per `for`, how many groups one iteration commits.
//
// Every vector holds one entry per granule of one shared tensor of the CTA being run (flat,
// no maps: a pipeline runs these checks on every byte of every iteration). A granule is
// 2^k bytes that every access covers whole or not at all, so its bytes share one state
// (ref_state.hpp: Buffer::shift; the naive path has granules of one byte). The offsets
// below (`off`) index granules.
//
// The spec language has no conditional ops: every thread of a CTA runs the same ops, so
// every thread commits the same groups and the FIFO of groups is the same length on every
// thread. A `for` can still commit a different number of groups in different iterations
// when a loop nested in it has a trip count that depends on the outer loop's variable (or
// on bid): LoopCommits finds that, and the reference reports it as a note.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ptxgen::driver::ref {

inline constexpr std::int32_t none = -1;         ///< no thread / no op
inline constexpr std::int32_t many_threads = -2; ///< read by two threads or more

/// The ordering state of one shared tensor's bytes in one CTA.
struct SharedBytes {
  /// n granules, none pending, none written or read.
  void reset(std::size_t n);
  /// Splits every granule into 2^by granules, each with its state: exact, since the bytes of
  /// a granule all have the same state.
  void refine(int by);

  // Copies issued and not yet performed (at their thread's wait).
  std::vector<std::int32_t> pending;       ///< how many queued copies will still write the byte
  std::vector<std::int32_t> pending_tid;   ///< the thread that issued the newest of them
  std::vector<std::int32_t> pending_op;    ///< its apply op
  std::vector<std::int32_t> pending_group; ///< its commit group
  /// While pending: the wait_group that passed over an uncommitted copy of the byte (none
  /// when none), and that copy's apply op.
  std::vector<std::int32_t> skipped_by_wait;
  std::vector<std::int32_t> skipped_apply;

  // The barrier phase (the CTA's cta_sync count) of the last write and of the reads since.
  std::vector<std::int32_t> writer;      ///< tid of the last writer, none
  std::vector<std::int32_t> write_epoch; ///< its phase
  std::vector<std::int32_t> reader;      ///< tid of the reader(s) in read_epoch, many_threads
  std::vector<std::int32_t> read_epoch;  ///< the phase of those reads (valid when reader != none)
  std::vector<std::int32_t> read_op;     ///< the op of the first of them
  std::vector<std::int64_t> read_clock;  ///< the CTA's op count at the latest of them

  // The copy that wrote the byte last, when a wait_group performed it: for the wait notes.
  std::vector<std::int32_t> land_tid;   ///< the waiting thread, none
  std::vector<std::int32_t> land_seq;   ///< that thread's wait count at the landing
  std::vector<std::int32_t> land_group; ///< the copy's commit group

  // Bytes landed by copies that a copy_arrive tracks: readable by a thread that has waited
  // for the barrier phase their arrival belongs to.
  std::vector<std::int32_t> guard_barrier; ///< the barrier's id in its CTA, none
  std::vector<std::int64_t> guard_phase;   ///< the phase (index) of the arrival

  // Bulk and tensor stores still to read the byte (their group not yet covered by a bulk_wait).
  std::vector<std::int32_t> bulk_reads;    ///< how many
  std::vector<std::int32_t> bulk_read_tid; ///< the thread that issued the newest of them
  std::vector<std::int32_t> bulk_read_op;  ///< its op

  // The last write when it was an ordinary (generic-proxy) one: a bulk store reading the byte
  // needs a proxy_fence of that thread after it.
  std::vector<std::int32_t> generic_tid;  ///< none: never written, or last by a load
  std::vector<std::int32_t> generic_op;   ///< the writing op
  std::vector<std::int64_t> generic_time; ///< the CTA's op count (Cta::clock) at the write

  /// Records a read of byte `off` by `tid` in phase `epoch`, at `op` and CTA clock `clock`.
  void note_read(std::size_t off, std::int32_t tid, std::int32_t epoch, std::int32_t op,
                 std::int64_t clock);
  /// Who else read byte `off` in phase `epoch`: a tid other than `tid`, many_threads (two or
  /// more, at least one of them not `tid`), or none.
  std::int32_t other_reader(std::size_t off, std::int32_t tid, std::int32_t epoch) const;
};

/// The wait_group a thread ran last, while it is the thread's newest wait.
struct LiveWait {
  std::int32_t op = none;   ///< the wait_group op; none when the thread's last wait was not one
  std::int64_t open = 0;    ///< groups the thread had committed when it ran
  std::int64_t n = 0;       ///< its count
  std::int64_t bound = 0;   ///< the largest count that would still do, so far
  std::int64_t newest = -1; ///< the newest group with copies it performed, -1 none
};

/// Per wait_group op, over all its executions on all threads: the largest count n' >= n such
/// that performing only the groups older than the newest n' would still have satisfied every
/// read and write of the bytes it landed until the thread's next wait, and left nothing for
/// the end of the kernel that the next wait would not perform. Empty groups count: they are
/// groups of the FIFO like any other.
class WaitSlack {
public:
  explicit WaitSlack(std::size_t ops)
      : best_(ops, unlimited), runs_(ops, 0), most_open_(ops, 0), worked_(ops, 0),
        closed_by_(ops, 0) {}

  /// A wait_group `op` with count n runs on a thread with `open` committed groups: the
  /// thread's previous wait must already have been closed.
  void start(LiveWait& live, std::size_t op, std::int64_t open, std::int64_t n);
  /// The live wait performed a copy of group `group`.
  static void performed(LiveWait& live, std::int64_t group);
  /// A byte the live wait landed from group `group` is read or written again before the
  /// thread's next wait: the wait had to perform that group.
  static void needed(LiveWait& live, std::int64_t group);
  /// The thread's next wait (or the end of the kernel) performs the groups older than
  /// `covered`: groups the live wait performed that it would not must stay performed there.
  void close(LiveWait& live, std::int64_t covered);

  /// The runs of each op so far.
  const std::vector<std::int64_t>& all_runs() const { return runs_; }
  /// `delta[op]` more runs of each op, which saw what runs seen already saw (a replayed CTA:
  /// evaluator_replay.cpp): the largest counts that would do, the groups and `worked` stay.
  void add_runs(const std::vector<std::int64_t>& delta);

  /// Times the op ran (over all threads), and the largest count that would have done
  /// (meaningful when it ran).
  std::int64_t runs(std::size_t op) const { return runs_[op]; }
  std::int64_t best(std::size_t op) const { return best_[op]; }
  /// True when some run completed a copy: a wait that never does is no stricter than needed
  /// (the drain after a loop that waited for everything), only idle.
  bool worked(std::size_t op) const { return worked_[op] != 0; }
  /// True when no run needed the wait at all: the largest count that would do completes
  /// nothing in every run (the next wait completes all this one does), so the wait can go.
  bool idle(std::size_t op) const { return best_[op] >= most_open_[op]; }
  /// What followed the op's runs: some run was followed by a next wait of its thread, some
  /// by the end of the kernel (the note must not promise a next wait that never comes).
  bool followed_by_wait(std::size_t op) const { return (closed_by_[op] & by_wait) != 0; }
  bool followed_by_end(std::size_t op) const { return (closed_by_[op] & by_end) != 0; }

  static constexpr std::int64_t unlimited = std::numeric_limits<std::int64_t>::max();
  static constexpr std::int64_t covers_nothing = std::numeric_limits<std::int64_t>::min();

private:
  std::vector<std::int64_t> best_;
  std::vector<std::int64_t> runs_;
  std::vector<std::int64_t> most_open_; ///< the most groups committed at one of its runs
  std::vector<char> worked_;
  static constexpr char by_wait = 1;
  static constexpr char by_end = 2;
  std::vector<char> closed_by_; ///< by_wait | by_end: what closed the op's runs
};

/// Per `for` op: the groups its first iteration committed, and where that iteration was.
class LoopCommits {
public:
  explicit LoopCommits(std::size_t ops) : first_(ops) {}

  struct First {
    std::int64_t groups = -1; ///< -1: no iteration finished yet
    std::string iteration;    ///< its loop variables, as iteration_text() writes them
  };

  /// An iteration of the `for` at `op` ended having committed `groups`; `iteration` says which.
  /// Returns the first iteration when this one committed a different number, else nullptr.
  template <class Text>
  const First* iteration_done(std::size_t op, std::int64_t groups, Text iteration) {
    First& f = first_[op];
    if (f.groups < 0) {
      f = {groups, iteration()};
      return nullptr;
    }
    return f.groups == groups ? nullptr : &f;
  }

private:
  std::vector<First> first_;
};

/// "element (1,5,3)" of a tensor of `shape` with `element_bytes`-byte elements, for byte `off`;
/// "element (1,5,3) byte 1" inside a wider element.
std::string element_text(const std::vector<std::int64_t>& shape, std::int64_t element_bytes,
                         std::int64_t off);

} // namespace ptxgen::driver::ref
