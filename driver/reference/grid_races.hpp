#pragma once
// Races between the CTAs of one launch on global memory, as the reference sees them. The
// spec language has nothing that orders two CTAs of different clusters (no atomics, no strong
// loads, no grid barrier), so two such CTAs that access the same global bytes, one of them
// writing, race: the CTAs may run in any order or at once. The CTAs of one cluster
// (`[kernel] cluster`) are ordered by its barrier: each CTA's accesses carry the number of
// cluster_syncs (not relaxed: barrier.cluster.arrive's release, wait's acquire) it passed before
// them, its cluster phase, and two CTAs of one cluster in different phases are ordered. Two writes
// of the same values race too, although the simulator lets such a run go on
// (driver/sim/cross_cta.hpp): whether the values agree depends on the input bytes and on parameters
// the range proof lets one value stand for, and the whole-launch checks must find the same without
// the values (ReferenceInput::values).
//
// Each CTA records its global accesses (writes of every global tensor; reads of the tensors
// some op writes: the others cannot race) while it runs, whether with every check or
// replayed (evaluator_replay.cpp), as runs of equal-sized accesses by consecutive threads.
// At its end they are sorted and merged into spans; at the end of the launch one sweep over every
// CTA's spans, sorted by address, finds the overlaps of two CTAs' spans: O(n log n) in the
// spans, whatever the grid, and nothing per byte.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace ptxgen::driver::ref {

/// One access (or a run of them) of global memory by a CTA.
struct GlobalAccess {
  std::int64_t off = 0;  ///< the first byte, in the buffer
  std::int64_t len = 0;  ///< bytes of the whole run
  std::int64_t unit = 0; ///< bytes per access: thread tid + k accessed [off + k unit, +unit)
  std::uint32_t buffer = 0;
  std::uint32_t op = 0;
  std::int32_t tid = 0; ///< the (first) thread
  bool write = false;
  std::uint32_t phase = 0; ///< the cluster barriers its CTA passed before it
  /// A write that combines (bulk_reduce): atomic per element, so two of them never race with
  /// each other; against a read or a plain write they race as any write does.
  bool reduce = false;
};

/// Two CTAs' accesses of one byte, at least one a write, the later CTA's first.
struct GridRace {
  GlobalAccess access;  ///< the later CTA's (its single access, not its run)
  GlobalAccess other;   ///< the earlier CTA's
  std::int64_t bid = 0; ///< the later CTA
  std::int64_t other_bid = 0;
  std::int64_t byte = 0;     ///< the first byte both access
  std::int64_t bytes = 0;    ///< how many bytes the two spans share
  bool same_cluster = false; ///< two CTAs of one cluster, with no cluster barrier between
  bool values_known = true;  ///< false: two writes whose values the launch does not hold
};

class GridRaces {
public:
  /// CTA `bid` of cluster `cluster` starts (or starts again after a replay that left its
  /// trace), or goes on from cluster phase `phase` (the CTAs of a cluster run in turns: each
  /// turn's records are kept apart): the records of before go.
  void begin_cta(std::int64_t bid, std::int64_t cluster, std::uint32_t phase = 0) {
    bid_ = bid;
    cluster_ = cluster;
    phase_ = phase;
    cta_.clear();
  }

  /// A CTA that is its own cluster (a launch without `[kernel] cluster`).
  void begin_cta(std::int64_t bid) { begin_cta(bid, bid); }

  /// The running CTA passes its cluster's barrier (cluster_sync, not relaxed): its later
  /// accesses are ordered after every access of its cluster's CTAs before that barrier.
  void cluster_barrier() { ++phase_; }

  /// An access by thread `tid` of op `op`: `len` bytes of buffer `buffer` from `off`
  /// (`reduce`: a write that combines, GlobalAccess::reduce).
  /// Inlined: a replay records every row of every thread.
  void access(std::uint32_t buffer, bool write, std::int64_t off, std::int64_t len,
              std::uint32_t op, std::int64_t tid, bool reduce = false) {
    if (len <= 0) {
      return;
    }
    const auto t = static_cast<std::int32_t>(tid);
    if (!cta_.empty()) {
      GlobalAccess& r = cta_.back();
      if (r.buffer == buffer && r.write == write && r.reduce == reduce && r.op == op &&
          r.phase == phase_ && r.off + r.len == off) {
        if (r.tid == t) { // the same thread's next bytes: one wider access
          if (r.len == r.unit) {
            r.len += len;
            r.unit = r.len;
            return;
          }
        } else if (r.unit == len && r.tid + r.len / r.unit == t) {
          r.len += len; // the next thread's access of the same size
          return;
        }
      }
    }
    cta_.push_back({off, len, len, buffer, op, t, write, phase_, reduce});
  }

  /// The CTA has run: its records become spans.
  void end_cta() { finish_cta(); }

  /// At the end of the launch: the race on the first byte (by buffer, then address) that two
  /// CTAs access with one of them writing.
  std::optional<GridRace> first_race();

private:
  struct Span {
    std::int64_t lo = 0, hi = 0;
    std::uint32_t buffer = 0;
    bool write = false;
    bool reduce = false; ///< GlobalAccess::reduce
    std::int64_t bid = 0;
    std::size_t cta = 0; ///< its CTA's records: ctas_[cta]
    std::int64_t cluster = 0;
    std::uint32_t phase = 0;
  };
  /// A CTA's records, sorted by (buffer, write, off), in records_.
  struct CtaRecords {
    std::int64_t bid = 0;
    std::size_t begin = 0, end = 0;
  };

  /// Sorts the CTA's records, keeps them, and merges them into spans.
  void finish_cta();
  /// The single access of CTA record set `cta` in cluster phase `phase` that covers `byte` of
  /// `buffer`, as `write`.
  GlobalAccess covering(std::size_t cta, std::uint32_t buffer, bool write, bool reduce,
                        std::uint32_t phase, std::int64_t byte) const;
  /// The race between span `s` and an earlier-starting span `a` of another CTA.
  GridRace race(const Span& s, const Span& a) const;

  std::int64_t bid_ = 0;
  std::int64_t cluster_ = 0;
  std::uint32_t phase_ = 0;
  std::vector<GlobalAccess> cta_;     ///< the running CTA's records
  std::vector<GlobalAccess> records_; ///< every finished CTA's, sorted per CTA
  std::vector<CtaRecords> ctas_;
  std::vector<Span> spans_;
};

} // namespace ptxgen::driver::ref
