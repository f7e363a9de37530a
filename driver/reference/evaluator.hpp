#pragma once
// The reference's evaluation of one launch (driver/reference/reference.hpp says what it
// computes). One class, its members defined by concern:
//  - evaluator_launch.cpp: the launch and its CTAs, set-up, output, the texts of findings
//    (evaluator_roles.cpp: the roles of their threads);
//  - evaluator_views.cpp: views (plans, affine forms, locating bytes) and shared granules;
//  - evaluator_shared.cpp: the ordering checks on shared bytes (pending copies, barriers
//    between threads, missing commits);
//  - evaluator_bytes.cpp: moving bytes and their definedness, global stores;
//  - evaluator_apply.cpp: apply (cp.async), its operands read by apply_operands.hpp;
//  - evaluator_ops.cpp: loops, commit/wait, cta_sync, fill and copy;
//  - evaluator_mbarrier.cpp: mbarriers and copy_arrive;
//  - evaluator_bulk.cpp: the sm_90 bulk family's 1-D copies, bulk groups, proxy fences and
//    transaction bytes (loads land at the first mbarrier_wait on their barrier; a store reads
//    at the first bulk_wait covering its group, writes at the first one without read);
//  - evaluator_tensor.cpp: the tensor copies, through tensor_map_naive.hpp;
//  - evaluator_replay.cpp: the replay of CTAs against a recorded trace (cta_trace.hpp);
//  - evaluator_grid.cpp: races between CTAs on global memory (grid_races.hpp).

#include "driver/reference/affine_view.hpp"
#include "driver/reference/apply_operands.hpp"
#include "driver/reference/async_model.hpp"
#include "driver/reference/cta_trace.hpp"
#include "driver/reference/grid_races.hpp"
#include "driver/reference/hazards.hpp"
#include "driver/reference/naive_expr.hpp"
#include "driver/reference/naive_view.hpp"
#include "driver/reference/ref_problems.hpp"
#include "driver/reference/ref_state.hpp"
#include "driver/reference/ref_walk.hpp"
#include "driver/reference/reference_types.hpp"
#include "driver/reference/roles.hpp"
#include "driver/reference/tensor_map_naive.hpp"
#include "emitter/tile/multicast_contract.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace ptxgen::driver::evaluation {

class Evaluator {
public:
  /// `take`: the caller's input, whose global bytes the launch may take instead of copying
  /// (nullptr: copy them all).
  Evaluator(const ReferenceInput& in, ReferenceInput* take)
      : in_(in), k_(*in.kernel), roles_(k_), slack_(k_.ops.size()), loop_commits_(k_.ops.size()),
        take_(take) {}

  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  /// The launch, one CTA after the other.
  ReferenceOutput run();

private:
  /// True when a CTA may read global bytes another writes: a global tensor both read and
  /// written by the ops (then the order of the CTAs matters).
  bool ctas_may_meet();

  /// False (with the problem) for an empty launch.
  bool launchable();

  /// Every CTA, one after the other. CTAs are independent: each runs the ops on its own, in
  /// order, its threads in lockstep op by op; a `for` repeats the ops up to its `end`. One
  /// CTA's state (shared tensors, threads) at a time.
  /// A CTA is replayed (replay_cta) where it can be, else runs with every check (run_cta).
  void run_ctas();

  /// CTA cta_ with every check. Where CTAs may be replayed its trace is recorded, and kept
  /// for the CTAs after it when it found nothing.
  void run_cta();

  /// The CTAs of each cluster together (evaluator_cluster.cpp): in turns, each runs up to and
  /// through its next cluster_sync that is not relaxed, so that what one CTA wrote before a
  /// cluster barrier is there when another reads it after; used where a cluster has more than
  /// one CTA and the kernel passes a cluster barrier.
  void run_clusters();
  /// A cluster of more than one CTA and a cluster_sync that is not relaxed: what run_clusters
  /// is for.
  bool clusters_meet() const;
  /// A CTA of a cluster, between its turns (run_clusters).
  struct Suspended;
  /// Runs the CTA in `s` from where it stopped to its next cluster barrier (after it) or its
  /// end; true at the end.
  bool run_turn(Suspended& s);
  /// The turns of one cluster's CTAs until each has ended (evaluator_cluster.cpp).
  void run_cluster_turns(std::vector<Suspended>& ctas);

  /// The output after the CTAs ran: the last use of the global buffers.
  ReferenceOutput output();

  /// At the end of the kernel: reports the thread's copies still pending (as a missing
  /// commit_group where a wait passed over them uncommitted) and performs them.
  void finish_thread(std::int64_t b, std::int64_t t);

  /// A note for each wait_group whose every run would have done with a larger count.
  void report_loose_waits();

  /// Which global tensors some op writes (Buffer::written), and whether the launch records
  /// its CTAs' global accesses for the races between them (grid_races_on_: two CTAs or more).
  void mark_written();

  /// An access of run `r` of global `b` by thread `tid` of op `op`, for the races between
  /// CTAs: every write, and the reads of tensors some op writes (the others cannot race).
  /// Inlined: a replay calls it for every row it stores.
  /// `reduce`: a write that combines (a bulk_reduce's), which races no other reduction.
  void note_global(std::size_t op, std::int64_t tid, const Buffer& b, Run r, bool write,
                   bool reduce = false) {
    if (grid_races_on_ && (write || b.written)) {
      grid_races_.access(static_cast<std::uint32_t>(b.index), write, r.off, r.len,
                         static_cast<std::uint32_t>(op), tid, reduce);
    }
  }

  /// An access of run `r` of shared `b` of CTA `owner` by thread `tid` (of CTA cta_) of op
  /// `op`, for the races between the CTAs of a cluster (check_cluster_shared_race): recorded
  /// for the shared tensors some op views in a peer (`S@rank`), as a buffer of its own per
  /// owner and tensor past the global ones (shared_race_buffer).
  void note_shared(std::size_t op, std::int64_t tid, const Buffer& b, std::int64_t owner, Run r,
                   bool write) {
    if (grid_races_on_ && b.index < peer_shared_.size() && peer_shared_[b.index]) {
      grid_races_.access(shared_race_buffer(owner, b.index), write, r.off, r.len,
                         static_cast<std::uint32_t>(op), tid);
    }
  }
  std::uint32_t shared_race_buffer(std::int64_t owner, std::size_t slot) const {
    return static_cast<std::uint32_t>(globals_.size() +
                                      static_cast<std::size_t>(owner) * peer_shared_.size() + slot);
  }
  /// Which shared tensors some op views in a peer (mark_written).
  void mark_peer_shared();
  /// Copies and fills with a view of a peer's shared tensor (`S@rank`; evaluator_cluster.cpp):
  /// element by element, the peer's side in the peer's bytes (its CTA suspended between its
  /// turns), recorded for the races between the cluster's CTAs rather than the owner's
  /// per-thread ordering checks, which are about its own threads.
  void step_peer_copy(std::size_t op, const tile::CopyOp& c);
  void step_peer_fill(std::size_t op, const tile::FillOp& f);
  /// bulk_copy_peer and remote arrivals (evaluator_peer_bulk.cpp). The Cta state of the CTA
  /// that view v's rank names for the thread of `e` (the running CTA's own when it names
  /// itself), its bid in `owner`; nullptr (with a problem) for a rank outside the cluster.
  Cta* peer_cta(std::size_t op, const tile::Located<tile::View>& v, const tile::ExprEnv& e,
                std::int64_t& owner);
  /// The id in `target` (CTA `owner`) of the barrier that peer view v names for the thread
  /// of `e`; nothing (with a problem) when that barrier was never initialised.
  std::optional<std::size_t> peer_barrier(std::size_t op, const tile::Located<tile::View>& v,
                                          const tile::ExprEnv& e, Cta& target, std::int64_t owner);
  void step_op(std::size_t op, const tile::BulkCopyPeerOp& c);
  /// The sender's shared source of a bulk_copy_peer is read from its issue to its landing.
  void read_peer_source(std::size_t op, std::int64_t tid, Buffer& sb, const Runs& s);
  /// A bulk_copy_peer's load joins the receiving CTA's pending loads, after that CTA's checks
  /// of a write of its shared bytes.
  void land_in(std::int64_t owner, Cta& target, PendingLoad&& l);
  /// A bulk_copy_peer landed: its source's bytes are no longer read.
  void end_peer_reads(const PendingLoad& l);
  /// One arrival of thread `tid` on the peer's barrier that m.barrier names.
  void remote_arrive(std::size_t op, const tile::MbarrierArriveOp& m, std::int64_t tid,
                     const tile::ExprEnv& e);
  /// In a cluster run: whether the wait cannot pass yet (a peer may still complete its
  /// phase), so that the CTA's turn ends before it (run_clusters).
  bool wait_blocks(std::size_t op, const tile::MbarrierWaitOp& m);
  /// The race between two CTAs on one CTA's shared bytes (report_grid_race).
  void report_shared_race(const ref::GridRace& r);

  /// The first `n` bytes of runs `rs` of global `b` read (note_global).
  void note_reads(std::size_t op, std::int64_t tid, const Buffer& b, const Runs& rs,
                  std::int64_t n) {
    if (!grid_races_on_ || !b.written) {
      return;
    }
    rs.each([&](Run r) {
      const std::int64_t len = std::min(r.len, n);
      note_global(op, tid, b, {r.off, len}, false);
      n -= len;
    });
  }

  /// The end of CTA cta_ for the races between CTAs: its accesses become spans.
  void end_grid_cta();
  /// The linear index of CTA bid's cluster (each CTA its own without `[kernel] cluster`).
  std::int64_t cluster_of(std::int64_t bid) const;
  /// CTA cta_ passes its cluster's barrier: its later global accesses are ordered after its
  /// cluster's earlier ones (grid_races.hpp).
  void cluster_barrier();

  /// At the end of the launch: the first race between two CTAs on global memory, an error at
  /// the later CTA's op (check_cross_cta_race).
  void report_grid_race();

  /// "CTA 5", and its block index where the grid has more than one dimension.
  std::string cta_text(std::int64_t bid) const;

  /// "CTA b thread t", and the live loop variables (outer first): "CTA 0 thread 5 (k=2)".
  std::string where(std::int64_t bid, std::int64_t tid) const;
  /// The same for the thread running op `op` now, with its role (roles.hpp) and ring stage
  /// first: "CTA 0 thread 32 (warp 1, the consumer warps 1-2: pred 'warp >= 1'; k=1)".
  std::string where(std::int64_t bid, std::int64_t tid, std::size_t op);
  /// " (ROLE)" for thread `tid` of op `op` at another time (no stage), or "" without one.
  std::string role(std::size_t op, std::int64_t tid) const;
  /// Op `op`'s ring stage for thread `tid` now (roles.hpp), or nullopt.
  std::optional<std::int64_t> ring_stage(std::size_t op, std::int64_t tid);

  /// The live loop variables, outer first: "i=1, k=2".
  std::string iteration_text() const;

  /// "byte 40 of 'sA' (element (1,2,8))".
  static std::string byte_text(const Buffer& b, std::int64_t off);

  void finish(ReferenceOutput& out) const;

  /// Where a view's tensor lives: a global buffer or the CTA's shared slot.
  struct Slot {
    bool shared = false;
    std::size_t index = 0;
  };

  /// The bytes a view of thread e.tid reaches: its own CTA's, or the peer's that its rank
  /// names, whose CTA goes to `owner`; nullptr (with a problem) for a rank outside the cluster.
  Buffer* side_buffer(std::size_t op, const tile::Located<tile::View>& v, Slot s,
                      const tile::ExprEnv& e, std::int64_t& owner);

  void set_up();

  tile::ExprEnv env(std::int64_t bid, std::int64_t tid) const;

  /// The first granule of shared tensor `t` (`size` bytes): at most max_granule_shift, no
  /// more than the alignment of its size, of the chunks that applies copy into or out of it
  /// and of the rows that fills and copies write or read (the runs they access it by where
  /// their views are contiguous). An access it does not fit splits it (fit_granules: a view
  /// that is not contiguous). Single bytes on the naive path.
  int granule_shift(const tile::Tensor& t, std::size_t size);

  /// A view's plan and, where it has one, its affine skeleton: computed once per view.
  struct ViewInfo {
    NaivePlan plan;
    std::optional<AffineSkeleton> skeleton;
    /// Where skeleton->thread_part_fixed(): per thread, thread_base(0, its env) (no_part where
    /// an index has no value or lies outside its axis), filled in at the view's first op.
    std::vector<std::int64_t> thread_part;
  };

  static constexpr std::int64_t no_part = std::numeric_limits<std::int64_t>::min();

  ViewInfo& view_info(const tile::View& v);

  const NaivePlan& plan(const tile::View& v) { return view_info(v).plan; }

  std::optional<Slot> slot(const tile::View& v) const;

  Buffer& buffer(Slot s, Cta& cta) { return s.shared ? cta.shared[s.index] : (globals_)[s.index]; }

  /// Prepares a view for an op; records a problem and returns false when it cannot be used.
  bool prepare(std::size_t op, const tile::Located<tile::View>& v, const char* role);

  /// A view's affine form for one thread (the fast path): its skeleton and its base.
  struct Fast {
    const AffineSkeleton* skeleton = nullptr;
    std::int64_t base = 0;

    std::int64_t offset(const std::vector<std::int64_t>& coords) const {
      std::int64_t o = base;
      for (std::size_t a = 0; a < coords.size(); ++a)
        o += coords[a] * skeleton->stride[a];
      return o;
    }
  };

  /// A view's affine form for the threads of one op: its skeleton and the part of its base
  /// that no thread changes (evaluated once per op), where it has them.
  struct OpForm {
    const AffineSkeleton* skeleton = nullptr;
    std::optional<std::int64_t> shared;
    const std::vector<std::int64_t>* thread_part = nullptr; ///< ViewInfo's, where it has one
  };

  /// The view's OpForm for the op's CTA and loop values in `e` (none on the naive path).
  OpForm op_form(const tile::Located<tile::View>& v, const tile::ExprEnv& e);

  /// The view's affine form for one thread, or nullopt: naive_locate then. Inlined: it runs
  /// for every thread of every op, most often as one addition.
  [[gnu::always_inline]] static std::optional<Fast> form(const OpForm& f, const tile::ExprEnv& e) {
    if (f.skeleton == nullptr || !f.shared) {
      return std::nullopt;
    }
    if (f.thread_part != nullptr) {
      const std::int64_t part = (*f.thread_part)[static_cast<std::size_t>(e.tid)];
      if (part == no_part) {
        return std::nullopt;
      }
      return Fast{f.skeleton, *f.shared + part};
    }
    const auto base = f.skeleton->thread_base(*f.shared, e);
    if (!base) {
      return std::nullopt;
    }
    return Fast{f.skeleton, *base};
  }

  /// Appends the bytes of one element to `out`; false (with a problem) when any byte is
  /// outside the tensor. `fast`: the view's affine form for this thread, if it has one.
  bool locate(std::size_t op, const tile::Located<tile::View>& v, const Buffer& b,
              const tile::ExprEnv& e, const std::vector<std::int64_t>& coords,
              const std::optional<Fast>& fast, Runs& out);

  /// Elements 0 .. n-1 of the last axis at `coords` (whose last coordinate is 0, or left out)
  /// as one run, when the thread's form has them contiguous and inside the tensor; else
  /// nullopt (the caller goes element by element, and reports what is outside).
  static std::optional<Run> row(const std::optional<Fast>& fast, const Buffer& b,
                                const std::vector<std::int64_t>& coords, std::int64_t n) {
    if (!fast || n <= 0) {
      return std::nullopt;
    }
    if (!contiguous(*fast, n)) {
      return std::nullopt;
    }
    const std::int64_t eb = fast->skeleton->element_bytes;
    const std::int64_t first = fast->offset(coords);
    if (first < 0 || first + n * eb > b.size) {
      return std::nullopt;
    }
    return Run{first, n * eb};
  }

  /// An access of a CTA that runs with every check, to its trace where CTAs may be replayed.
  void trace(ref::CtaTrace::Kind kind, const Buffer& b, std::int64_t tid, Run r) {
    if (replayable_) {
      trace_.note(kind, static_cast<std::uint32_t>(b.index), tid, r.off, r.len);
    }
  }

  /// Makes run `r` of shared `b` start and end on granules: where it does not, b's granules
  /// (and those of the tensor as the next CTAs start it) are split to the size it allows.
  /// Exact: the bytes of a granule have the same state, so each part starts with it, and each
  /// problem is counted per byte whatever the granule.
  void fit_granules(Buffer& b, Run r);

  /// Calls f(granule index, its first byte) for each granule of run `r` of shared `b`.
  template <class F>
  void each_granule(Buffer& b, Run r, F&& f) {
    fit_granules(b, r);
    const std::int64_t end = (r.off + r.len) >> b.shift;
    for (std::int64_t g = r.off >> b.shift; g < end; ++g) {
      f(static_cast<std::size_t>(g), g << b.shift);
    }
  }

  /// A thread's read of one granule (at byte `off`) of shared `b`, with the ordering checks,
  /// each problem counted once per byte of the granule. True when the missing commit_group
  /// is the cause of what the read would report: the bytes' values are moot.
  bool read_granule(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b,
                    std::size_t g, std::int64_t off);

  /// A thread's read of run `r` of `b`: the ordering checks of each granule of a shared one.
  /// `moot(offset in r, bytes)` is called for the granules whose values are moot. In a batch
  /// (`eb` > 0), each granule's problems are tagged with its element (of `eb` bytes).
  template <class Moot>
  void read_run(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b, Run r,
                std::int64_t eb, Moot&& moot) {
    if (!b.shared) {
      note_global(op, tid, b, r, false);
      if (!b.pending_writes.empty()) {
        check_global_read(op, tid, b, r);
      }
      if (!cta.retired.empty()) {
        check_bulk_scope(op, tid, b, r, false);
      }
      return;
    }
    trace(ref::CtaTrace::Kind::read, b, tid, r);
    note_shared(op, tid, b, bid, r, false);
    // A batch's element of a granule: a shift where eb is a power of two (a division per
    // granule costs more than the granule's checks).
    const int eb_shift = eb > 0 && std::has_single_bit(static_cast<std::uint64_t>(eb))
                             ? std::countr_zero(static_cast<std::uint64_t>(eb))
                             : -1;
    each_granule(b, r, [&](std::size_t g, std::int64_t off) {
      if (eb > 0) {
        problems_.tag((eb_shift >= 0 ? (off - r.off) >> eb_shift : (off - r.off) / eb) * 2);
      }
      if (read_granule(op, cta, bid, tid, b, g, off)) {
        moot(off - r.off, b.granule());
      }
    });
  }

  /// Why a pending granule's group is not complete, from the issuing thread's last
  /// wait_group: the count that would have completed it, or no wait since its commit.
  std::string pending_cause(const Cta& cta, const ref::SharedBytes& h, std::size_t g,
                            std::int64_t off) const;
  /// "op 3's copy", or "the copy of the pipeline's steady-state load (...)": the copies of
  /// op `apply` as messages name them (tile::op_label).
  std::string copy_of(std::size_t apply) const;
  /// "the load of op 5" for a load the user wrote; a pipeline's load by its role.
  std::string load_of(std::size_t load) const;

  /// A granule a wait_group landed is read or written again: while that wait is still its
  /// thread's newest, the wait had to complete the granule's group.
  static void used_again(Cta& cta, ref::SharedBytes& h, std::size_t g) {
    const std::int32_t owner = h.land_tid[g];
    if (owner == ref::none) {
      return;
    }
    ThreadState& ts = cta.threads[static_cast<std::size_t>(owner)];
    if (ts.waits == h.land_seq[g] && ts.live.op != ref::none) {
      ref::WaitSlack::needed(ts.live, h.land_group[g]);
    }
    h.land_tid[g] = ref::none; // a second use says the same
  }

  /// A write (store, or the issue of a copy) into shared bytes another thread read in this
  /// barrier phase: the reader may still see the new bytes (refill without a barrier).
  void check_refill(std::size_t op, const Cta& cta, std::int64_t bid, std::int64_t tid,
                    const Buffer& b, std::size_t g, std::int64_t off, bool copy);
  /// Whether the reads of a granule by `reader` (a tid, or many_threads: then every other
  /// thread counts as a reader), the latest at `read_clock`, are ordered before thread
  /// `tid`'s current point by mbarrier phases it waited for (Cta::ordered).
  bool reads_ordered(const Cta& cta, std::int64_t tid, std::int32_t reader,
                     std::int64_t read_clock) const;
  /// Thread `tid` arrives on barrier `id` (an mbarrier_arrive or expect_tx's arrival): its
  /// ops so far are released into the barrier's phase.
  void release(std::size_t id, std::int64_t tid);
  /// Thread `tid` passed a wait for the last completed phase of barrier `id`.
  void acquire(std::size_t id, std::int64_t tid);

  /// When pending granule `g` of `b` belongs to a copy that a wait_group passed over because
  /// no commit_group had closed its group, reports that missing commit_group (at the wait) and
  /// returns true: it is the cause of whatever the access would otherwise report.
  bool missing_commit(const Buffer& b, std::size_t g);

  void report_missing_commit(std::size_t wait, std::size_t apply);

  /// A write (store, or the issue of a copy, `access` says which) into shared granule `g`
  /// that a pending copy, not yet waited, will still write: a finding `id`, unless a missing
  /// commit_group explains it.
  void check_pending_write(std::size_t op, DiagId id, const std::string& kind, std::int64_t bid,
                           std::int64_t tid, const Buffer& b, std::size_t g, std::int64_t off,
                           std::string_view access, std::string_view tail);

  /// Marks the thread's copies that no commit_group has closed yet as passed over by `wait`.
  void mark_uncommitted(std::size_t wait, ThreadState& ts);

  /// A plain store (fill, copy) by a thread into run `r` of `b`, whose bytes and
  /// definedness the caller has set: the ordering checks and the writer of a shared one, the
  /// definedness check of a global one (tagged as the write of its element in a batch, `eb`
  /// > 0).
  void write_run(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b, Run r,
                 std::int64_t eb);

  /// The writer of a shared granule.
  /// The writer of a shared granule, an ordinary (generic-proxy) write of op `op` (a load
  /// undoes that part).
  static void store_granule(const Cta& cta, std::int64_t tid, ref::SharedBytes& h, std::size_t g,
                            std::size_t op) {
    h.writer[g] = static_cast<std::int32_t>(tid);
    h.write_epoch[g] = cta.epoch;
    h.land_tid[g] = ref::none;
    h.guard_barrier[g] = ref::none;
    h.generic_tid[g] = static_cast<std::int32_t>(tid);
    h.generic_op[g] = op32(op);
    h.generic_time[g] = cta.clock;
  }

  /// Bytes stored into run `r` of global `b`: each undefined one is a problem.
  void store_global(std::size_t op, std::int64_t bid, std::int64_t tid, const Buffer& b, Run r,
                    std::int64_t eb);

  /// Sets the definedness of `len` bytes of `db` from `off` to `src` (nullptr: all defined).
  /// A global tensor's (empty: all defined) is filled in when the first undefined byte reaches
  /// it.
  void put_defined(Buffer& db, std::int64_t off, const std::uint8_t* src, std::int64_t len);

  /// The definedness of byte `off` of `b` onwards (nullptr: all defined).
  static const std::uint8_t* defined_at(const Buffer& b, std::int64_t off) {
    return b.defined.empty() ? nullptr : &b.defined[off];
  }

  /// Moves the first `n` bytes (and their definedness) of `src` runs of `sb` into `dst` runs
  /// of `db`, in order; the rest of `dst` becomes zero and defined.
  void move_bytes(Buffer& db, const Runs& dst, const Buffer& sb, const Runs& src, std::int64_t n);

  /// Performs (in issue order) and removes the thread's queued chunks selected by `which`.
  /// `landed`: performed by the thread's live wait_group (for its note), else by a wait_all or
  /// the end of the kernel.
  /// `via_barrier`: the barrier whose mbarrier_wait lands them, for the copy_arrives on it that
  /// track them: such bytes are guarded by the phase of that arrival (readable by the threads
  /// that waited for it). A copy tracked by arrivals on several barriers is guarded by the
  /// one whose wait landed it.
  template <class Pred>
  void perform(Cta& cta, std::int64_t tid, Pred which, bool landed = false,
               std::optional<std::size_t> via_barrier = std::nullopt) {
    const std::int64_t bid = cta_;
    ThreadState& ts = cta.threads[tid];
    std::size_t kept = 0;
    for (std::size_t i = 0; i < ts.queue.size(); ++i) {
      Chunk& c = ts.queue[i];
      if (!which(c)) {
        if (kept != i) {
          ts.queue[kept] = std::move(c);
        }
        ++kept;
        continue;
      }
      if (landed && c.dst->shared) {
        ref::WaitSlack::performed(ts.live, c.group);
      }
      move_bytes(*c.dst, c.dst_runs, *c.src, c.src_runs, c.read_bytes);
      if (!c.src->shared) {
        note_reads(c.op, tid, *c.src, c.src_runs, c.read_bytes);
      }
      c.dst_runs.each([&](Run r) {
        if (!c.dst->shared) {
          note_global(c.op, tid, *c.dst, r, true);
          store_global(c.op, bid, tid, *c.dst, r, 0);
          return;
        }
        ref::SharedBytes& h = c.dst->hz;
        each_granule(*c.dst, r, [&](std::size_t g, std::int64_t) {
          store_granule(cta, tid, h, g, c.op);
          if (--h.pending[g] == 0) {
            h.skipped_by_wait[g] = ref::none;
          }
          if (landed) {
            h.land_tid[g] = static_cast<std::int32_t>(tid);
            h.land_seq[g] = ts.waits;
            h.land_group[g] = static_cast<std::int32_t>(c.group);
          }
          // Tracked by a copy_arrive: readable after a wait for the phase it arrives in.
          for (std::size_t d : c.deferred) {
            const Deferred& def = cta.deferred[d];
            if (via_barrier == def.barrier && !def.fired) {
              h.guard_barrier[g] = static_cast<std::int32_t>(def.barrier);
              h.guard_phase[g] = cta.barriers[def.barrier].phase;
            }
          }
        });
      });
      for (std::size_t d : c.deferred)
        if (--cta.deferred[d].remaining == 0)
          fire(cta, d);
    }
    ts.queue.resize(kept);
  }

  /// One arrival on barrier `id`: the pending count drops; at zero the phase completes, the
  /// count is reloaded and the phase (and its parity) advances.
  static void arrive_on(Cta& cta, std::size_t id);

  /// A copy_arrive's copies have all landed: its arrival (the one counted, with noinc; the
  /// one that undoes the increment of its issue, without).
  static void fire(Cta& cta, std::size_t d);

  /// The id of the barrier `v` names for thread `tid`, from the naive view (its first byte);
  /// nullopt when it does not evaluate (a problem is recorded).
  std::optional<std::size_t> barrier_id(std::size_t op, const tile::Located<tile::View>& v,
                                        std::int64_t tid);

  /// The barrier of a use, or nullopt (with a problem) when it was never initialised.
  std::optional<std::size_t> used_barrier(std::size_t op, const tile::Located<tile::View>& v,
                                          std::int64_t tid);

  void step_op(std::size_t op, const tile::MbarrierInitOp& m);

  void step_op(std::size_t op, const tile::CopyArriveOp& m);

  void step_op(std::size_t op, const tile::MbarrierArriveOp& m);

  /// test_wait.parity passes when the current phase's parity differs from the operand: the
  /// phase of that parity just before it has completed. The copies the barrier's deferred
  /// arrivals wait for land first (as late as the wait can make them).
  void step_op(std::size_t op, const tile::MbarrierWaitOp& m);

  // The sm_90 bulk family (evaluator_bulk.cpp: the 1-D copies, bulk groups, proxy fences,
  // transaction bytes; evaluator_tensor.cpp: the tensor copies). Each op is one copy per
  // thread whose pred holds.
  void step_op(std::size_t op, const tile::BulkLoadOp& m);
  void step_op(std::size_t op, const tile::BulkStoreOp& m);
  void step_op(std::size_t op, const tile::BulkReduceOp& m);
  /// A bulk store's or reduction's issue by each thread whose pred holds.
  void issue_bulk_store(std::size_t op, const tile::Located<tile::View>& dst,
                        const tile::Located<tile::View>& src,
                        const std::optional<tile::Located<tile::ExprPtr>>& pred,
                        std::optional<tile::ReduceKind> reduce);
  void step_op(std::size_t, const tile::BulkCommitOp&);
  void step_op(std::size_t op, const tile::BulkWaitOp& w);
  void step_op(std::size_t, const tile::ProxyFenceOp&);
  /// The contract proves what the init fence is for (a multicast's barriers published to the
  /// cluster); the reference's CTAs see their peers' inits without it.
  void step_op(std::size_t, const tile::MbarrierInitFenceOp&) {}
  void step_op(std::size_t op, const tile::ExpectTxOp& m);
  void step_op(std::size_t op, const tile::TensorLoadOp& m);
  void step_op(std::size_t op, const tile::TensorStoreOp& m);
  void step_op(std::size_t op, const tile::TensorReduceOp& m);
  /// A store or reduction about to be issued against the CTA's pending ones: bytes that one of
  /// them still writes are check_bulk_global_write_race (unless both reduce).
  void check_pending_stores(std::int64_t tid, const PendingStore& st);
  /// A tensor store's or reduction's issue by each thread whose pred holds.
  void issue_tensor_store(std::size_t op, const tile::Located<std::string>& tensor,
                          const std::optional<tile::Located<tile::View>>& map_slot,
                          const std::vector<tile::Located<tile::ExprPtr>>& coords,
                          const tile::Located<tile::View>& src,
                          const std::optional<tile::Located<tile::ExprPtr>>& pred,
                          std::optional<tile::ReduceKind> reduce);
  /// A hint: no byte moves (the contract proved its operand a map; the simulator checks it).
  void step_op(std::size_t, const tile::PrefetchTensormapOp&) {}

  // Tensor maps in memory (evaluator_tensormap.cpp): each slot's naive map.
  /// A map slot: the buffer and byte offset of its first byte.
  using MapSlotKey = std::pair<const Buffer*, std::int64_t>;
  /// The map a slot holds: the tensor whose buffer its global address is, and its map.
  struct MapSlot {
    std::string base;
    tile::TensorMapDesc desc;
  };
  /// The map and global buffer a tensor copy moves its box through.
  struct CopyMap {
    const tile::TensorMapDesc* desc = nullptr;
    Buffer* global = nullptr;
  };
  std::optional<MapSlotKey> map_slot_key(std::size_t op, const tile::Located<tile::View>& v,
                                         const tile::ExprEnv& e);
  /// The map in the slot `v` names for thread `e`; nullptr (with a problem) for none.
  const MapSlot* slot_map(std::size_t op, const tile::Located<tile::View>& v,
                          const tile::ExprEnv& e);
  /// A tensor copy's map: `map`'s slot when given, else `tensor`'s declared map.
  std::optional<CopyMap> copy_map(std::size_t op, const tile::Located<std::string>& tensor,
                                  const std::optional<tile::Located<tile::View>>& map,
                                  const tile::ExprEnv& e);
  void step_op(std::size_t op, const tile::TensormapCopyOp& m);
  void step_op(std::size_t op, const tile::TensormapReplaceOp& m);
  void step_op(std::size_t, const tile::TensormapFenceOp&) {}
  std::map<MapSlotKey, MapSlot> map_slots_;

  /// True when the thread issues the op: no pred, or one whose value is nonzero (a pred
  /// without a value is reported and issues nothing).
  bool issues(std::size_t op, const std::optional<tile::Located<tile::ExprPtr>>& pred,
              const tile::ExprEnv& e);

  /// Calls f(tid, its environment) for each thread of the CTA that issues the op (issues()),
  /// tid ascending: the bulk family's ops run per issuing thread.
  template <class F>
  void each_issuing_thread(std::size_t op, const std::optional<tile::Located<tile::ExprPtr>>& pred,
                           F&& f) {
    tile::ExprEnv e = env(cta_, 0);
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      e.tid = tid;
      if (issues(op, pred, e)) {
        f(tid, e);
      }
    }
  }

  /// The threads whose load lands in this CTA: without a mask, its issuing threads
  /// (each_issuing_thread); with a multicast mask, every issuing thread of the CTA's cluster
  /// whose mask names its rank, with that thread's environment (its views, coordinates and
  /// barrier name offsets in this CTA's shared memory). The cluster's CTAs run the same ops,
  /// so the peers' threads are taken at this op and loop iteration.
  template <class F>
  void each_receiving(std::size_t op, const std::optional<tile::Located<tile::ExprPtr>>& pred,
                      const std::optional<tile::Located<tile::ExprPtr>>& mask, F&& f) {
    if (!mask) {
      each_issuing_thread(op, pred, f);
      return;
    }
    const tile::ClusterPlace place = tile::cluster_place(k_, cta_);
    for (const std::int64_t p : place.peers) {
      tile::ExprEnv e = env(p, 0);
      for (std::int64_t tid = 0; tid < k_.block; ++tid) {
        e.tid = tid;
        if (!issues(op, pred, e))
          continue;
        const auto m = eval(op, *mask, "multicast", e);
        if (m && ((*m >> place.rank) & 1) != 0)
          f(tid, e);
      }
    }
  }

  /// The bytes of every element of view `v` for the thread of `e`, in row-major order; false
  /// (with the problem) when one lies outside its tensor.
  bool view_runs(std::size_t op, const tile::Located<tile::View>& v, const Buffer& b,
                 const tile::ExprEnv& e, Runs& out);

  /// A bulk copy's two sides, `d` and `s`, of the same byte size, zipped into pieces.
  static std::vector<Piece> zip_runs(const Runs& d, const Runs& s);

  /// The global tensor a tensor op names and its map; nullptr (with the problem) without one.
  const tile::TensorMapDesc* tensor_map(std::size_t op, const tile::Located<std::string>& t);

  /// The raw (unswizzled) offset of the first byte of a tensor copy's shared view `v` for the
  /// thread of `e`, which holds the box's `bytes`; nullopt (with the problem) when the view
  /// does not hold them or does not start on its swizzle's period.
  std::optional<std::int64_t> box_base(std::size_t op, const tile::Located<tile::View>& v,
                                       const Buffer& b, const tile::ExprEnv& e,
                                       const tile::TensorMapDesc& map, std::int64_t bytes);

  /// True when every box element inside the map's tensor lies in its buffer `gb` (else the
  /// problem).
  bool box_in_buffer(std::size_t op, const std::vector<NaiveBoxElement>& elements, const Buffer& gb,
                     std::int64_t esize);

  /// The box a tensor copy of the thread of `e` moves: its elements, the raw offset of its
  /// first shared byte and its bytes.
  /// A box's bytes as pieces in shared order: `dst` is the shared offset from the box's base,
  /// `src` the global offset (`filled` for an element outside the tensor), merged where both
  /// continue.
  struct PlacedBox {
    std::vector<Piece> pieces;
    std::int64_t base = 0;
    std::int64_t bytes = 0;
  };
  /// An op's last box that lay wholly inside its tensor, at `coords`: the pieces of any other
  /// such box of the op are these with the global offsets moved (an element's coordinate is
  /// the box's plus a fixed offset, its global offset linear in it, its shared offset fixed),
  /// so a box costs its pieces, not its elements.
  struct InsideBox {
    std::vector<std::int64_t> coords;
    std::vector<std::int64_t> low, high; ///< per dimension, the elements' coordinates - coords
    std::vector<Piece> pieces;
    std::int64_t first = 0, end = 0; ///< the global bytes the pieces span
    std::int64_t bytes = 0;
  };
  /// The pieces of the box at `c` from the op's InsideBox, where the box lies wholly inside
  /// the tensor and the buffer; else nullopt (the elements then, naive_box_elements).
  std::optional<PlacedBox> moved_box(std::size_t op, const tile::TensorMapDesc& map,
                                     const std::vector<std::int64_t>& c, const Buffer& gb) const;
  /// box_coords, naive_box_elements (or moved_box; an im2col map's load with `offsets`:
  /// naive_im2col_elements), box_base and box_in_buffer in turn; nullopt (with the problem)
  /// where one of them fails.
  std::optional<PlacedBox>
  place_box(std::size_t op, const std::vector<tile::Located<tile::ExprPtr>>& coords,
            const tile::Located<tile::View>& shared_view, const Buffer& sb, const Buffer& gb,
            const tile::ExprEnv& e, const tile::TensorMapDesc& map, tile::TensorAccess access,
            const std::vector<tile::Located<tile::ExprPtr>>* offsets = nullptr);

  /// A tensor copy's coordinates for the thread of `e`; nullopt (reported) without a value.
  std::optional<std::vector<std::int64_t>>
  box_coords(std::size_t op, const std::vector<tile::Located<tile::ExprPtr>>& coords,
             const tile::ExprEnv& e);

  /// Puts a load in flight (its pieces set): its shared bytes become pending writes (with
  /// the checks of a copy's issue) and its global bytes are read.
  void issue_load(PendingLoad&& l);

  /// Lands every load in flight on barrier `id`, in issue order: its bytes, its transaction
  /// bytes on the barrier's current phase (which guards the bytes), the phase's completion.
  void land_loads(std::size_t id);

  /// Adds a thread's store to its current bulk group: its shared bytes are read (with the
  /// read checks and the proxy fence) until a bulk_wait covers the group, its global bytes
  /// are written until one without `read` does.
  void issue_store(std::int64_t tid, PendingStore&& st);

  /// The proxy fence a store by `tid` of shared granule `g` (byte `off`) needs.
  void check_proxy_fence(std::size_t op, std::int64_t tid, const Buffer& b, std::size_t g,
                         std::int64_t off);

  /// Whether a proxy fence of the shared space orders thread `writer`'s generic write at
  /// clock `time` before an async access by `tid` now: the writer's fence after the write,
  /// and for another thread a cta_sync after that fence (evaluator_proxy.cpp).
  bool shared_fence_between(std::int64_t tid, std::int32_t writer, std::int64_t time) const;
  /// Whether a proxy_fence of `writer` (of the global space when `global`) after its write at
  /// `time` is ordered before thread `tid`'s current point.
  bool fence_ordered(std::int64_t tid, std::int32_t writer, std::int64_t time, bool global) const;

  /// The proxy fence a load by `tid` into shared granule `g` (byte `off`) needs when a
  /// generic write left it (the model's generic_store -> `load` row pair).
  void check_load_fence(std::size_t op, model::Access load, std::int64_t tid, const Buffer& b,
                        std::size_t g, std::int64_t off);

  /// The end of both fences' details: writer `w`'s write has no proxy_fence after it (then a
  /// cta_sync, when `w` is not `tid`) before this `access` of `tid`.
  std::string fence_missing_text(std::int32_t w, std::int64_t tid, std::string_view access) const;

  /// A load by `tid` of run `r` of global `b`: the generic writes of its bytes need a
  /// global-space proxy fence between them and the load (evaluator_proxy.cpp).
  void check_global_fence(std::size_t op, model::Access load, std::int64_t tid, const Buffer& b,
                          Run r);

  /// Thread `tid`'s bulk_wait `wait` covered store `st` (its global write too when `wrote`):
  /// kept until the next cta_sync for check_bulk_scope (evaluator_scope.cpp).
  void retire(std::size_t wait, std::int64_t tid, const PendingStore& st, bool wrote);
  /// An access by `tid` of run `r` of `b` (`write`: a write) that a store another thread's
  /// bulk_wait retired has touched, with no barrier after that wait: the wait covers its own
  /// thread only.
  void check_bulk_scope(std::size_t op, std::int64_t tid, const Buffer& b, Run r, bool write);

  /// Marks the global tensors a bulk or tensor load reads (Buffer::async_read).
  void mark_async_read();

  /// A generic write by `tid` of run `r` of global `b`: records it for the load-side fence
  /// check and reports a pending bulk store that still writes the bytes (write after write).
  void global_generic_write(std::size_t op, std::int64_t tid, Buffer& b, Run r);

  /// The bytes of `r` that pending bulk stores of `b` still write: the first one, how many,
  /// and the store op that covers the first one last; nullopt when none.
  struct PendingHit {
    std::int64_t first = 0;
    std::int64_t count = 0;
    std::size_t newest = 0;
  };
  static std::optional<PendingHit> pending_hit(const Buffer& b, Run r);

  /// The store reads its shared bytes now (into its staged bytes).
  void bulk_read(PendingStore& st, std::int64_t tid);

  /// The store writes its global bytes now (reading its shared ones first where it has not).
  void bulk_write(PendingStore& st, std::int64_t tid);

  /// At the end of the CTA: the loads still in flight land, the stores no bulk_wait covered
  /// are reported, and every store completes.
  void finish_bulk();

  /// A write (`access` says which) of shared granule `g` that a pending store still reads.
  void check_bulk_refill(std::size_t op, std::int64_t tid, const Buffer& b, std::size_t g,
                         std::int64_t off, std::string_view access);

  /// A read of run `r` of global `b` whose bytes a pending store of the CTA still writes.
  void check_global_read(std::size_t op, std::int64_t tid, const Buffer& b, Run r);

  /// True when op `op` is a bulk or tensor load.
  bool is_load(std::size_t op) const {
    return std::holds_alternative<tile::BulkLoadOp>(k_.ops[op].body) ||
           std::holds_alternative<tile::TensorLoadOp>(k_.ops[op].body);
  }

  /// A phase with no arrival pending completes when its transaction bytes are all in.
  static void complete_if_tx_done(RefBarrier& bar) {
    if (bar.tx_expected == bar.tx_delivered) {
      bar.done = bar.release;
      ++bar.phase;
      bar.pending = bar.count;
      bar.tx_expected = 0;
      bar.tx_delivered = 0;
    }
  }

  /// The transaction bytes of the barrier's current phase, for a hang's message (empty when
  /// it has none).
  static std::string tx_text(const RefBarrier& bar);

  /// Lands every copy that an unfired copy_arrive on barrier `id` waits for.
  void land_tracked(std::size_t id);

  std::optional<std::int64_t> eval(std::size_t op, const tile::Located<tile::ExprPtr>& x,
                                   const char* what, const tile::ExprEnv& e);

  void report_no_value(std::size_t op, const tile::Located<tile::ExprPtr>& x, const char* what,
                       const tile::ExprEnv& e);

  /// chunk_read, with its problems reported: nullopt when nothing is copied.
  std::optional<std::int64_t>
  chunk_read_bytes(std::size_t op, const tile::ApplyOp& a, const tile::ExprEnv& e,
                   const std::array<std::optional<std::int64_t>, 3>& known);

  /// The runs of one side of a chunk (`n` elements of view v in b at repeat coordinates
  /// `rep`) into `runs`; false (with the problem) when a byte is outside the tensor. `full`:
  /// scratch for an element's coordinates.
  bool chunk_runs(std::size_t op, const tile::Located<tile::View>& v, const Buffer& b,
                  const tile::ExprEnv& e, const std::vector<std::int64_t>& rep, std::int64_t n,
                  const std::optional<Fast>& fast, std::vector<std::int64_t>& full, Runs& runs);

  void step_op(std::size_t op, const tile::ApplyOp& a);

  /// The issue of a copy into shared bytes: it may land any time before its wait, so it
  /// counts as the write for the barrier-phase check, and it must not meet another pending
  /// copy of the same bytes.
  void issue(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& db,
             const Chunk& c);

  /// The CTA being run, as a range for the ops' loops over CTAs.
  std::span<Cta> this_cta() { return std::span<Cta>(&cta_state_, 1); }

  /// A loop being run: its ForOp's index, and stop and step as evaluated at its entry.
  struct ActiveLoop {
    std::size_t begin = 0;
    std::string var;
    std::int64_t stop = 0;
    std::int64_t step = 0;
    std::int64_t groups_before = 0; ///< groups committed when the iteration began
  };

  /// Groups committed so far: the same on every thread (no op is conditional), thread 0's.
  std::int64_t groups_committed() const { return cta_state_.threads.front().open_group; }

  /// Every op but `for` and `end` continues with the next one.
  template <class Body>
  void run_op(std::size_t op, const Body& body) {
    next_op_ = op + 1;
    step_op(op, body);
  }

  void run_op(std::size_t op, const tile::ForOp& f);

  /// The `for` at `op`: its first iteration, or the op after its `end` when it has none. False
  /// (the loop skipped) when start, stop or step has no value or the step is below 1.
  bool enter_loop(std::size_t op, const tile::ForOp& f);

  void run_op(std::size_t op, const tile::EndOp& e);

  /// The `end` at `op`: the loop's next iteration, or the op after the end.
  void next_iteration(std::size_t op, const tile::EndOp& e);

  void step_op(std::size_t, const tile::CommitGroupOp&);

  void step_op(std::size_t op, const tile::WaitGroupOp& w);

  /// A wait_group's or bulk_wait's (`wait`) count below 0: reported, and true (the wait is
  /// skipped).
  bool negative_wait(std::size_t op, std::int64_t n, std::string_view wait);

  void step_op(std::size_t, const tile::WaitAllOp&);

  void step_op(std::size_t, const tile::CtaSyncOp&);

  /// The cluster's barrier: among the CTA's threads it orders as cta_sync does, and it orders
  /// the global accesses of the cluster's CTAs before it against theirs after it; a relaxed
  /// arrival orders no memory, so that one orders nothing.
  void step_op(std::size_t op, const tile::ClusterSyncOp& c) {
    if (c.relaxed)
      return;
    step_op(op, tile::CtaSyncOp{});
    cluster_barrier();
  }

  void step_op(std::size_t op, const tile::FillOp& f);

  /// Byte i of run `r` of `b` becomes pattern[(k + i) % pattern.size()].
  static void put_pattern(Buffer& b, Run r, std::int64_t k,
                          const std::vector<std::uint8_t>& pattern);

  void step_op(std::size_t op, const tile::CopyOp& c);
  /// A named barrier: ordering among its threads once `count` of them have arrived.
  void step_op(std::size_t op, const tile::NamedBarrierOp& b);
  /// setmaxnreg moves registers, no bytes: nothing to run.
  void step_op(std::size_t, const tile::SetmaxnregOp&) {}

  /// True when the launch's CTAs may be replayed: the fast path (the naive one stays the
  /// oracle), no mbarrier ops, every apply copies a global tensor into a shared one, and no
  /// global tensor both read and written. A replayed copy then lands as it is issued: in a CTA
  /// whose checks find nothing, no access meets its bytes before its wait and its source does
  /// not change, so landing at the wait would give the same bytes.
  bool replayable();

  /// Replays CTA cta_: its ops move its bytes without the ordering checks while its trace is
  /// compared with the recorded one. False where it leaves that trace or meets what the replay
  /// does not do (what would be a finding, a view without an affine form, rows that are not
  /// contiguous): the caller then runs the CTA with every check, which writes again every
  /// global byte the replay wrote (the same ops, views and bounds decide which).
  bool replay_cta();

  /// The offsets of op's chunks or rows relative to a thread's first (Points), over the axes
  /// from .. to - 1 of `shape` under the strides of the views' forms: computed at the op's
  /// first replay (a view's strides are its skeleton's, the same in every CTA and iteration).
  const Points& op_points(std::size_t op, const std::vector<std::int64_t>& shape, std::size_t from,
                          std::size_t to, const AffineSkeleton& d, const AffineSkeleton& s);

  /// The replay of an apply (`op`, dst shape `ds`) whose threads differ only in their bases,
  /// each a fixed part plus the op's (OpForm::thread_part), with no group axes, contiguous
  /// chunks of `chunk` bytes and `read` bytes read by each: one addition per thread.
  bool replay_alike(std::size_t op, const std::vector<std::int64_t>& ds, const OpForm& dview,
                    const OpForm& sview, Buffer& db, const Buffer& sb, std::int64_t chunk,
                    std::int64_t read);

  /// Lands a thread's chunks of an apply (Points `p` from its first, at d0 and s0; `read` of
  /// each chunk's bytes come from src, the rest are zero), its events matched first; dst or
  /// src nullptr: no values to move (Buffer::holds_values), the events only. Locals only: a
  /// byte store may alias any memory, so members would be loaded again per chunk.
  bool land_thread(std::int64_t tid, std::uint32_t dindex, std::int64_t d0, std::int64_t s0,
                   const Points& p, std::uint8_t* dst, const std::uint8_t* src, std::int64_t chunk,
                   std::int64_t read);

  /// The view evaluates and names a tensor of the kernel (prepare, without the problem).
  bool usable(const tile::Located<tile::View>& v) { return plan(v.value).ok() && slot(v.value); }

  /// True when the thread's `n` elements along the last axis are contiguous (row()).
  static bool contiguous(const AffineSkeleton& s, std::int64_t n) {
    return n <= 1 || s.stride.back() == s.element_bytes;
  }

  static bool contiguous(const Fast& f, std::int64_t n) { return contiguous(*f.skeleton, n); }

  /// What the replay of an apply needs to land a chunk whose operands use its repeat axes
  /// (evaluated for it alone): the op's, and the thread's.
  struct ChunkLanding {
    const tile::ApplyOp& a;
    const NaivePlan& sp;
    std::size_t groups;                 ///< the group axes (warp, lane) before the repeat axes
    const std::vector<std::int64_t>& x; ///< the chunk's coordinates, its last axis's 0
    const tile::ExprEnv& e;             ///< the op's environment
    const std::array<std::optional<std::int64_t>, 3>& known; ///< known_operands
    Buffer& db;
    const Buffer& sb;
    std::int64_t tid = 0;
    std::optional<std::vector<std::string>> axis_names; ///< the src view's, at the first chunk
    std::optional<tile::ExprEnv> chunk_env;             ///< e with the chunk's repeat axes bound
  };
  /// Lands one such chunk at d (from s), its issue matched first; false where the replay
  /// cannot do it (a finding, another trace).
  bool land_chunk(ChunkLanding& l, std::int64_t d, std::int64_t s);

  bool replay_op(std::size_t op, const tile::ApplyOp& a);

  bool replay_op(std::size_t op, const tile::CopyOp& c);

  bool replay_op(std::size_t op, const tile::FillOp& f);

  /// A replayed store into run `r` of `b`: its bytes are defined (the recorded CTA stored no
  /// undefined byte into a global tensor; a shared tensor's definedness is not kept).
  static void defined_again(Buffer& b, Run r);

  bool replay_op(std::size_t op, const tile::ForOp& f) { return enter_loop(op, f); }

  bool replay_op(std::size_t op, const tile::EndOp& e) {
    next_iteration(op, e);
    return true;
  }

  bool replay_op(std::size_t op, const tile::CommitGroupOp&) { return skip(op, true); }

  bool replay_op(std::size_t op, const tile::WaitGroupOp& w) { return skip(op, w.n >= 0); }

  bool replay_op(std::size_t op, const tile::WaitAllOp&) { return skip(op, true); }

  bool replay_op(std::size_t op, const tile::CtaSyncOp&) { return skip(op, true); }

  bool replay_op(std::size_t op, const tile::ClusterSyncOp& c) {
    if (!c.relaxed)
      cluster_barrier();
    return skip(op, true);
  }

  // Never replayed (replayable()).
  bool replay_op(std::size_t op, const tile::MbarrierInitOp&) { return skip(op, false); }

  bool replay_op(std::size_t op, const tile::CopyArriveOp&) { return skip(op, false); }

  bool replay_op(std::size_t op, const tile::MbarrierArriveOp&) { return skip(op, false); }

  bool replay_op(std::size_t op, const tile::MbarrierWaitOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::BulkLoadOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::BulkCopyPeerOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::BulkStoreOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::BulkReduceOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::BulkCommitOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::BulkWaitOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::ProxyFenceOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::MbarrierInitFenceOp&) { return skip(op, true); }
  bool replay_op(std::size_t op, const tile::NamedBarrierOp&) { return skip(op, true); }
  bool replay_op(std::size_t op, const tile::SetmaxnregOp&) { return skip(op, true); }
  bool replay_op(std::size_t op, const tile::ExpectTxOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::TensorLoadOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::TensorStoreOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::TensormapCopyOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::TensormapReplaceOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::TensormapFenceOp&) { return skip(op, true); }
  bool replay_op(std::size_t op, const tile::TensorReduceOp&) { return skip(op, false); }
  bool replay_op(std::size_t op, const tile::PrefetchTensormapOp&) { return skip(op, true); }

  /// An op that moves no bytes in a replay (the copies landed as they were issued).
  bool skip(std::size_t op, bool ok) {
    next_op_ = op + 1;
    return ok;
  }

  const ReferenceInput& in_;

  const tile::Kernel& k_;

  ref::Roles roles_; ///< who runs each op, for the findings' threads

  std::vector<Buffer> globals_; ///< the global tensors

  std::vector<Buffer> shared_template_; ///< each shared tensor as a CTA starts

  Cta cta_state_; ///< the CTA being run

  ref::WaitSlack slack_;

  ref::LoopCommits loop_commits_;

  std::map<const tile::Tensor*, Slot> slots_;

  std::map<std::string, Slot, std::less<>> by_name_;

  std::map<std::string, std::int64_t, std::less<>> params_;

  std::int64_t cta_ = 0; ///< the CTA whose ops are running

  std::size_t next_op_ = 0; ///< the op to run after the current one

  std::map<std::string, std::int64_t, std::less<>> loop_values_; ///< the live loop variables

  std::vector<ActiveLoop> active_; ///< innermost last

  std::map<const tile::View*, ViewInfo> views_;

  Problems problems_;

  bool replayable_ = false; ///< replayable(), at set_up

  ref::CtaTrace trace_; ///< the recorded CTA's, or the one being replayed

  bool recorded_ = false; ///< trace_ holds a CTA that found nothing

  std::vector<std::int64_t> recorded_runs_; ///< per wait_group op: that CTA's runs

  std::int64_t replayed_ = 0; ///< CTAs replayed

  bool grid_races_on_ = false;    ///< mark_written(): two CTAs or more
  std::vector<bool> peer_shared_; ///< per shared slot: some op views it in a peer (S@rank)
  /// The CTAs of the cluster run_clusters runs, and the index there of each rank.
  std::vector<Suspended>* cluster_ctas_ = nullptr;
  std::vector<std::size_t> rank_index_;
  /// A wait of the running CTA cannot pass yet: its turn ends before it (run_turn).
  bool blocked_ = false;
  /// No CTA of the cluster can go on: the waits run and report their hangs.
  bool stalled_ = false;

  ref::GridRaces grid_races_; ///< the CTAs' global accesses

  std::uint64_t stores_issued_ = 0; ///< bulk and tensor stores, for PendingStore::serial

  std::map<std::size_t, InsideBox> inside_boxes_; ///< per tensor op, its InsideBox

  std::vector<std::unique_ptr<Points>> points_; ///< per op, op_points

  std::vector<std::pair<std::int64_t, std::int64_t>> firsts_; ///< replay_alike's threads'

  ReferenceInput* take_ = nullptr; ///< whose global bytes may be taken
};

} // namespace ptxgen::driver::evaluation
