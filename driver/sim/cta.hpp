#pragma once
// The executor's CTA (internal to driver/sim): its threads, shared memory, race
// tracking and mbarriers, and the interpreter that runs them. One class, its
// members defined by concern:
//   cta.cpp           construction, faults, special registers, calls and exits
//   cta_schedule.cpp  the scheduler (run) and the warp-collective instructions
//   cta_execute.cpp   the interpreter: one instruction's semantics
//   cta_memory.cpp    ld / st / atom, the global buffers, cp.async issue and completion
//   cta_hazards.cpp   race tracking over shared bytes
//   cta_mbarrier.cpp  the mbarrier instructions, bulk copies, blocked waits, deadlocks
//   cta_bulk.cpp      bulk stores and their groups, global reads in flight, the async proxy
//   cta_tensor.cpp    tensor copies (cp.async.bulk.tensor): their maps and element runs
//   cta_global.cpp    global bytes within the CTA: bulk stores' destinations, the global proxy
//   cta_cluster.cpp   clusters: mapa, distributed shared memory, barrier.cluster, remote
//                     mbarriers, peer and multicast bulk copies, the cluster hazards
// See simulator.hpp for the execution, cp.async and race model.

#include "driver/sim/cross_cta.hpp"
#include "driver/sim/ir.hpp"
#include "driver/sim/mbarrier.hpp"
#include "driver/sim/profile.hpp"
#include "driver/sim/simulator.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ptxgen::sim::exec {

/// Threads per warp.
inline constexpr std::uint32_t warp_size = 32;

/// A fault on its way out of the CTA (caught by the launch, which records it).
struct FaultThrow {
  Fault fault;
};

/// The low `bits` bits set (all 64 from 64 up).
inline std::uint64_t mask(unsigned bits) {
  return bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}

/// `v`'s low `bits` bits, sign-extended.
inline std::int64_t sext(std::uint64_t v, unsigned bits) {
  if (bits >= 64)
    return static_cast<std::int64_t>(v);
  std::uint64_t m = 1ull << (bits - 1);
  v &= mask(bits);
  return static_cast<std::int64_t>((v ^ m) - m);
}

/// "0x1f": an address for messages.
inline std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

/// A run of a tensor copy's box: elements contiguous in shared memory and, unless filled, in
/// global memory (tile::box_elements, merged).
struct TensorRun {
  std::uint64_t shared = 0; ///< bytes from the copy's shared base (a load's dst, a store's src)
  std::uint64_t global = 0; ///< the global address (not for a fill run)
  std::uint32_t bytes = 0;
  std::int32_t buffer = -1; ///< the global buffer holding it; -1: a load's out-of-bounds fill
};

/// What a tensor copy moves, worked out at issue from its map and coordinates.
struct TensorPlan {
  std::vector<TensorRun> runs;        ///< a store's: only the elements it writes
  std::array<std::uint8_t, 8> fill{}; ///< one element's out-of-bounds fill (zero or NaN)
  std::uint32_t element = 1;          ///< bytes per element
  std::uint64_t extent = 0;           ///< shared bytes from the base that the box covers
  std::uint64_t tx = 0;               ///< bytes the copy delivers: the whole box (complete_tx)
};

/// A queued cp.async: everything captured at issue time.
struct Copy {
  std::uint64_t dst = 0;       ///< shared offset
  std::uint64_t src = 0;       ///< global address
  std::uint32_t size = 0;      ///< cp-size
  std::uint32_t src_bytes = 0; ///< bytes read from src; the rest of size is zeroed
  std::int32_t buffer = -1;    ///< the global buffer holding the source bytes
  std::uint32_t group = 0;     ///< the thread's group number at issue
  std::uint32_t op = 0;        ///< index of the cp.async op
  std::uint32_t iteration = 0; ///< the thread's iteration of that op at issue
  std::uint32_t clock = 0;     ///< the thread's clock at issue (mbarrier ordering)
  std::uint64_t seq = 0;       ///< the thread's copies in issue order (cp.async.mbarrier.arrive)
  bool bulk = false;           ///< a cp.async.bulk: completes with its mbarrier's phase only
  std::uint64_t bar = 0;       ///< a bulk copy's mbarrier (shared offset)
  std::shared_ptr<const TensorPlan> tensor; ///< a tensor load's elements (size: its extent)
  /// A bulk copy from a peer CTA's shared memory (bulk_peer): the bytes it read at issue.
  std::shared_ptr<const std::vector<std::uint8_t>> data;
};

/// A queued cp.async.bulk.global.shared::cta.bulk_group: its read of shared memory completes
/// (the bytes are taken) at the wait_group{.read} covering its group, its write to global at the
/// plain wait_group covering it (as late as PTX allows, as for cp.async).
struct BulkStore {
  std::uint64_t dst = 0;       ///< global address
  std::uint64_t src = 0;       ///< shared offset
  std::uint32_t size = 0;      ///< bytes
  std::int32_t buffer = -1;    ///< the global buffer written
  std::uint32_t group = 0;     ///< the thread's bulk group number at issue
  std::uint32_t op = 0;        ///< index of the cp.async.bulk op
  std::uint32_t iteration = 0; ///< the thread's iteration of that op at issue
  std::uint32_t clock = 0;     ///< the thread's clock at issue
  bool read = false;           ///< its read of shared memory has completed (`data` holds it)
  std::vector<std::uint8_t> data;
  std::shared_ptr<const TensorPlan> tensor; ///< a tensor store's elements (dst, buffer unused)
  /// A cp.reduce.async.bulk's: each element of `elem` combines with `atomic` (atomic per
  /// element: its writes are not logged for the races between CTAs, as red's are not).
  bool reduce = false;
  ir::Atomic atomic = ir::Atomic::add;
  ir::Type elem;
};

/// Access::tid of bytes a peer CTA of the cluster wrote (the cluster rules check those).
inline constexpr std::int32_t kRemoteWriter = -2;

/// One thread's access to a shared byte: who, by which op, in which iteration.
struct Access {
  std::int32_t tid = -1; ///< -1: nobody
  std::uint32_t op = 0;
  std::uint32_t iteration = 0;
  std::uint32_t clock = 0; ///< the thread's clock then (detail::Mbarriers::ordered)
};

/// Per shared byte: who wrote it last in which phase, the two latest distinct
/// readers in phase `rphase` (two suffice: a writer differs from at least one
/// of them), and whose pending cp.async will write it.
struct ByteState {
  Access writer;
  std::uint32_t wphase = 0;
  Access reader;
  Access reader2; ///< the reader before `reader`, another thread, same phase
  std::uint32_t rphase = 0;
  std::int32_t pending = -1;     ///< the thread whose pending cp.async will write it
  std::int32_t bulk_reader = -1; ///< a thread whose pending bulk store has not read it yet
  std::uint16_t bulk_reads = 0;  ///< pending bulk stores (any thread's) that will read it
  bool async_written = false;    ///< the last write was through the async proxy (a bulk load)
  std::uint32_t wfence = 0;      ///< the writer's Thread::proxy_fences at the write
};

enum class State : std::uint8_t {
  running,     ///< runs on at the next pass
  at_barrier,  ///< waits in bar.sync
  at_mbarrier, ///< waits for an mbarrier phase (test_wait / try_wait found it incomplete)
  exited,      ///< returned
  at_warp,     ///< waits in a warp-collective instruction (ldmatrix) for its warp's other lanes
  at_cluster,  ///< waits in barrier.cluster.wait for the cluster's phase (cta_cluster.cpp)
};

struct Thread {
  std::uint32_t tid = 0; ///< linear index within the CTA
  Dim3 xyz = {0, 0, 0};  ///< %tid.x, %tid.y, %tid.z
  std::uint32_t pc = 0;
  State state = State::running;
  std::uint64_t* regs = nullptr;
  std::uint32_t* iterations = nullptr; ///< per memory op (see Cta::slot_): times reached
  std::vector<Copy> copies;
  std::uint32_t open_group = 0;   ///< committed groups so far (the next copy's group number)
  std::vector<BulkStore> stores;  ///< bulk stores not yet written to global
  std::uint32_t bulk_group = 0;   ///< committed bulk groups so far (the next store's group)
  std::uint32_t proxy_fences = 0; ///< fence.proxy.async executed so far
  /// Per fence.proxy.async of shared memory, in order: the CTA phase and the clock
  /// (Mbarriers::ordered) it ran at. A write is covered by the first fence after it, which
  /// is ordered before another thread whenever a later one is.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> fence_marks;
  std::uint32_t global_fences = 0; ///< fence.proxy.async{.global} (global memory) so far
  std::uint32_t gfence_phase = 0;  ///< the CTA phase of its latest one
  std::uint32_t gfence_clock = 0;  ///< its clock then
  std::int64_t barrier = 0;
  std::uint32_t stop_line = 0;         ///< line of the bar.sync / ret where it stopped
  std::uint8_t* frame = nullptr;       ///< the thread's frame area (Space::frame)
  std::vector<std::uint32_t> calls;    ///< the call stack: the pc of each active call op
  std::vector<std::size_t> call_index; ///< per active call: its Entry::calls index (resolved)
  std::uint64_t seq = 0;               ///< copies issued so far (Copy::seq)
  std::uint64_t tracked_seq = 0;  ///< copies below this are tracked by a cp.async.mbarrier.arrive
  std::uint64_t blocked_at = 0;   ///< at_mbarrier: Mbarriers::events() when it blocked
  std::uint64_t false_at = ~0ull; ///< Mbarriers::events() when its wait last returned false
  bool wake_false = false;        ///< resumed to see its wait return false once
  bool spin_read = false; ///< a strong load and no store since its last taken backward branch
  // clusters (cta_cluster.cpp)
  std::uint32_t cl_arrived = 0; ///< barrier.cluster.arrive executed so far
  std::uint32_t cl_waited = 0;  ///< barrier.cluster.wait completed so far (phases seen done)
  /// Per non-relaxed cluster arrival, in order: the cluster phase it arrived in. An access made
  /// after k such arrivals is ordered before phase cl_release[k], once that arrival exists.
  std::vector<std::uint32_t> cl_release;
  std::vector<std::uint64_t> cl_inits; ///< its mbarrier.inits not yet published cluster-wide
  std::size_t cl_fenced = 0;           ///< cl_inits[0, cl_fenced) have a fence.mbarrier_init since
};

/// One access of a CTA's shared memory or barriers by a thread of the cluster, for the cluster
/// rules (cta_cluster.cpp): who, and how far its cluster arrivals had gone.
struct ClusterUse {
  std::int32_t rank = -1; ///< the accessing thread's CTA rank in the cluster; -1: none
  std::uint32_t tid = 0;
  std::uint32_t op = 0;
  std::uint32_t iteration = 0;
  std::uint32_t released = 0; ///< the thread's cl_release.size() then
  bool strong = false;        ///< an atomic or strong access (never a data race with another)
};

/// Per shared byte of a CTA whose cluster uses distributed shared memory: its last writer and
/// last reader (any CTA of the cluster), for the races between CTAs.
struct ClusterByte {
  ClusterUse writer;
  ClusterUse reader;
};

/// A peer thread's latest use of a CTA (Cta::users_): the shared offset it used and, for an
/// arrival or a complete_tx on one of the CTA's mbarriers, the phase it counts for.
struct PeerUse {
  static constexpr std::uint64_t no_phase = ~std::uint64_t{0};
  ClusterUse use;
  std::uint64_t off = 0;
  std::uint64_t phase = no_phase;
};

/// An mbarrier.init of a CTA of a cluster: published cluster-wide at a cluster barrier phase
/// (its thread's next arrival after a fence.mbarrier_init, or its next non-relaxed arrival).
struct InitRecord {
  ClusterUse who;
  std::optional<std::uint32_t> published; ///< the phase; nullopt: not yet
};

class Cluster; // cluster.hpp

/// The current use of a named barrier (bar.sync / bar.arrive / bar.red, ids 0..15): a use ends
/// when the arrivals reach its thread count (Cta::named_barrier).
struct NamedBarrier {
  std::uint32_t expected = 0;         ///< the arrivals the use needs: its thread count
  std::uint32_t arrived = 0;          ///< arrivals so far; 0: not in use
  bool counted = false;               ///< its first arrival named a thread count
  bool arrive_only = false;           ///< some thread arrived without waiting (bar.arrive)
  std::uint32_t first_tid = 0;        ///< the use's first arrival (messages)
  std::uint32_t first_line = 0;       ///< its PTX line
  std::vector<std::uint32_t> waiters; ///< threads waiting in it (bar.sync, bar.red)
  std::vector<std::uint32_t> release; ///< the arrivals' clocks (Mbarriers::release_into)
  std::uint32_t votes = 0;            ///< bar.red: waiters whose predicate held
};

/// A completed use of a named barrier: its waiters resume after the pass that completed it.
struct BarrierRelease {
  std::vector<std::uint32_t> waiters;
  std::vector<std::uint32_t> release; ///< the clocks the waiters acquire
  bool whole_cta = false; ///< every thread of the CTA waited in it (a CTA phase: Cta::phase_)
  std::uint32_t votes = 0;
};

/// The coordinates of linear index `i` within `dim` (x fastest).
inline Dim3 coordinates(std::uint64_t i, const Dim3& dim) {
  return {static_cast<std::uint32_t>(i % dim[0]), static_cast<std::uint32_t>(i / dim[0] % dim[1]),
          static_cast<std::uint32_t>(i / dim[0] / dim[1])};
}

inline std::string dim_text(const Dim3& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

struct ExitWarnings {
  std::uint64_t threads = 0;
  std::string first;
};

/// A write of global bytes [addr, end) that later accesses must be ordered after: a generic
/// store, which an async-proxy read needs a fence.proxy.async{.global} after (cta_global.cpp),
/// or a bulk store completed by its issuer's wait_group, which another thread's access needs a
/// barrier after.
struct GlobalWrite {
  std::uint64_t addr = 0, end = 0;
  std::int32_t buffer = -1;
  Access who;               ///< the writer (a bulk store: its issue, with the clock of the wait)
  std::uint32_t phase = 0;  ///< the CTA phase of the write (of the wait)
  std::uint32_t fences = 0; ///< a generic store: its thread's global_fences then
  bool exited = false;      ///< a bulk store written at its issuer's exit, never waited for
};

/// A wgmma.mma_async in flight (cta_tensor_core.cpp): its shared operands may be read, and its
/// accumulators written, at any time until a wgmma.wait_group of its warpgroup retires it. The
/// simulator computes it at issue; the hazards of the interval are checked against this record.
struct Wgmma {
  Access issue;                     ///< the thread whose arrival issued it (the warpgroup's last)
  std::uint32_t first = 0;          ///< the warpgroup's first thread
  std::uint32_t threads = 0;        ///< its threads (128)
  std::vector<std::uint64_t> runs;  ///< shared bytes read: [begin, end) pairs, flattened
  std::vector<std::uint32_t> group; ///< per warpgroup thread: its wgmma group at issue
  std::vector<bool> retired;        ///< per warpgroup thread: a wait_group of it retired it
  /// The waits that retired it so far (their thread and clock) and the CTA phase of each: a
  /// write into its operands must be ordered after one of them.
  std::vector<Access> waits;
  std::vector<std::uint32_t> wait_phases;
  /// Set once every thread retired it (done()) and a write into its operands was found
  /// ordered after one of its waits: later writes are ordered after that write or race with
  /// it. Until then, or until a CTA barrier orders all its waits, the record stays (its reads
  /// are not a thread's: no byte's reader holds them); Cta::prune_wgmmas drops it.
  mutable bool dead = false;
  /// Every thread of the warpgroup retired it.
  bool done() const {
    return std::all_of(retired.begin(), retired.end(), [](bool x) { return x; });
  }
};

/// A register write that a wgmma.mma_async reading the register must be fenced after.
struct RegisterWrite {
  std::uint32_t op = ~0u; ///< the writing op (~0u: none since the thread's last wgmma.fence)
  std::uint32_t iteration = 0;
};

/// A thread's side of the wgmma state (cta_tensor_core.cpp).
struct WgmmaThread {
  std::uint32_t committed = 0;        ///< wgmma.commit_group executed so far
  bool fenced = false;                ///< a wgmma.fence has run
  std::vector<std::uint8_t> busy;     ///< per register: in-flight wgmmas accumulating into it
  std::vector<RegisterWrite> written; ///< per wgmma operand register (Cta::wg_slot_)
};

/// What a CTA shares with the launch: the entry, its memory and where results go.
struct LaunchContext {
  const ir::Entry& e;
  const Launch& l;
  std::vector<GlobalBuffer>& mem;
  const std::vector<std::uint8_t>& params;
  /// Per op: its index among the memory ops (iteration counters), -1 for the others.
  const std::vector<std::int32_t>& slot;
  std::uint32_t slots = 0;
  bool uses_mbarriers = false;     ///< the entry has an mbarrier op (vector clocks are kept)
  bool uses_reserved = false;      ///< the entry reads a %reserved_smem_offset_* register
  bool async_global_reads = false; ///< the entry has a bulk or tensor load (the global proxy)
  bool logs_global = false;        ///< the CTAs log their global accesses (cross_cta.hpp)
  Dim3 cluster_dim = {1, 1, 1};    ///< CTAs per cluster along x, y, z
  bool explicit_cluster = false;   ///< %is_explicit_cluster
  bool uses_dsmem = false;         ///< the entry may access a peer's shared memory (ld/st/atom/red)
  SimResult& res;
  ExitWarnings& exits;
  /// Instructions this run may execute before an instruction_limit fault: the launch's
  /// limit, or what a CTA rerun to find where the launch crossed it has left.
  std::uint64_t max_instructions = 0;
};

class Cta {
public:
  Cta(const LaunchContext& c, std::uint64_t bid);
  /// Merges this CTA's profile into the launch's, when the launch is profiled.
  ~Cta();
  Cta(const Cta&) = delete;
  Cta& operator=(const Cta&) = delete;

  /// Runs every thread of the CTA to its end; a fault is thrown as FaultThrow.
  void run();
  /// One round of run(): a pass over the threads, then the barriers, waits and warp groups it
  /// released. Whether some thread can run on (else every thread has exited or waits).
  bool advance();
  /// When nothing can run any more: the fault of a thread left waiting (deadlock, barrier
  /// divergence), if any.
  void stuck() const;
  /// At the end: the asynchronous copies never completed are performed (exit warning).
  void finish();
  /// Joins `c` as its CTA `rank` (clusters of more than one CTA).
  void join(Cluster& c) { cluster_ = &c; }
  std::uint32_t rank() const { return rank_; }
  std::uint64_t bid() const { return bid_; }
  /// The cluster barrier's phase completed: its waiters run on (cta_cluster.cpp).
  void cluster_released(bool relaxed);
  /// Its plain global accesses (LaunchContext::logs_global), compacted, for CrossCta once it
  /// has run (on the host thread that ran it: a launch's raw logs never pile up).
  CtaGlobalLog take_global_log() {
    glog_.compact();
    return std::move(glog_);
  }

private:
  /// Whether the thread runs on after an instruction.
  enum class Flow : std::uint8_t {
    next, ///< runs the next instruction
    stop, ///< waits at a barrier or has exited
  };

  // ------------------------------------------------ values (the interpreter's hot path)

  /// The operand's 64 bits as the thread sees them.
  std::uint64_t raw(const Thread& t, const ir::Val& v) const {
    switch (v.kind) {
    case ir::Val::Kind::reg:
      return t.regs[v.reg];
    case ir::Val::Kind::not_pred:
      return t.regs[v.reg] == 0 ? 1 : 0;
    case ir::Val::Kind::imm:
    case ir::Val::Kind::local:
      return static_cast<std::uint64_t>(v.imm);
    case ir::Val::Kind::special:
      return special(t, v.special);
    case ir::Val::Kind::none:
      return 0;
    }
    return 0;
  }
  /// The operand as an integer of `ty`: sign-extended when signed, else zero-extended.
  std::uint64_t get(const Thread& t, const ir::Val& v, ir::Type ty) const {
    std::uint64_t r = raw(t, v);
    return ty.is_signed ? static_cast<std::uint64_t>(sext(r, ty.bits)) : (r & mask(ty.bits));
  }
  /// Writes a register, keeping the bits its declared width holds.
  void set(Thread& t, std::uint32_t reg, std::uint64_t v) const {
    t.regs[reg] = v & e_.reg_mask[reg];
  }
  /// The address an operand names, wrapped to its width (ir::Addr::bits).
  std::uint64_t address(const Thread& t, const ir::Addr& a) const {
    std::uint64_t base = a.has_reg ? t.regs[a.reg] : 0;
    return (base + static_cast<std::uint64_t>(a.offset)) & mask(a.bits);
  }

  // ------------------------------------------------ cta.cpp: faults, special registers, calls

  /// "thread (bid x,y,z / tid x,y,z)": the faulting thread.
  std::string who(std::uint32_t tid) const;
  /// "thread (tid x,y,z)": another thread of the same CTA.
  std::string other(std::uint32_t tid) const;
  Fault fault_for(FaultKind k, const Thread& t, const ir::Op& op) const;
  [[noreturn]] void fault_at(FaultKind k, const Thread& t, const ir::Op& op,
                             const std::string& detail) const;
  std::uint64_t special(const Thread& t, ptx::SpecialRegister sp) const;
  void exit_thread(Thread& t, std::uint32_t line);
  /// A call: the arguments copied into the callee's parameters, then its first op.
  void call(Thread& t, const ir::Op& op);
  /// A function's ret: its results copied to the caller, which runs on after the call.
  void return_from_call(Thread& t);

  // ------------------------------------------------ cta_tensor_core.cpp: tensor cores

  /// mma.sync, stmatrix, movmatrix (warp-collective) and wgmma.* (wgmma.mma_async is
  /// warpgroup-collective and asynchronous; fence, commit and wait are per thread).
  Flow tensor_op(Thread& t, const ir::Op& op);
  /// Parks `t` at the collective `op` over `width` threads (32 or 128): the threads [first,
  /// last) when all are there, nothing while some are still to come.
  std::optional<std::pair<std::size_t, std::size_t>> gather(Thread& t, const ir::Op& op,
                                                            std::size_t width);
  void mma_sync(std::size_t first, std::size_t last, const ir::Op& op);
  void store_matrices(std::size_t first, std::size_t last, const ir::Op& op);
  void move_matrix(std::size_t first, std::size_t last, const ir::Op& op);
  // cta_wmma.cpp: the warp-level wmma.load / wmma.store / wmma.mma (warp-collective)
  void wmma_move(std::size_t first, std::size_t last, const ir::Op& op);
  void wmma_mma(std::size_t first, std::size_t last, const ir::Op& op);
  /// `n` bytes at `addr` (shared or global, generic resolved) for wmma op of `t`: the checks
  /// and race records of an ld/st of that size, and the copy into (load) or from (store) `io`.
  void wmma_bytes(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint32_t n,
                  bool is_ld, std::uint8_t* io);
  /// wgmma.mma_async by the warpgroup [first, first+128), `t` the last to arrive.
  void wgmma_issue(const Thread& t, std::size_t first, const ir::Op& op);
  /// One operand of a wgmma from its shared-memory descriptor, K-major or `mn_major` (imm-trans
  /// 1): `rows` x K values (row-major),
  /// its 16-byte chunks appended to `runs`.
  std::vector<double> wgmma_shared_operand(const Thread& t, const ir::Op& op, std::uint64_t desc,
                                           unsigned rows, ir::Elem e, bool mn_major,
                                           std::vector<std::uint64_t>& chunks);
  /// The reads, the proxy fence and the register rules at a wgmma's issue (its hazards).
  void wgmma_checks(const Thread& t, std::size_t first, const ir::Op& op,
                    std::vector<std::uint64_t>& chunks);
  /// wgmma.wait_group N: this thread's groups but the N newest retire.
  void wgmma_wait(const Thread& t, const ir::Op& op);
  /// Drops the records of wgmmas every thread retired that no write can race with any more
  /// (Wgmma::done).
  void prune_wgmmas();
  /// Before `op` of `t` runs while wgmmas are in flight or registers are tracked: a register it
  /// touches that an in-flight wgmma accumulates into, and the writes a wgmma must be fenced
  /// after (race kinds wgmma_register_in_flight, missing_wgmma_fence).
  void wgmma_registers(const Thread& t, const ir::Op& op);
  /// A write of shared bytes [off, off+n) by `self`: none may be read by a wgmma that no wait
  /// ordered before the write has retired (in flight, or retired by waits of other threads
  /// that nothing orders before `self`).
  void wgmma_overwrite(const Thread& t, const Access& self, std::uint64_t off,
                       std::uint64_t n) const;
  /// A race on register `reg` of thread `t`: `self` against `earlier`.
  void register_race(RaceKind k, const Thread& t, const Access& self, std::uint32_t reg,
                     const Access& earlier) const;
  /// The per-op register footprints and the wgmma operand registers, at the first wgmma op.
  void wgmma_setup();

  // ------------------------------------------------ cta_schedule.cpp: the scheduler, warps

  /// Parks `t` at the warp instruction `op`; the lanes [first, last) of its warp.
  std::pair<std::size_t, std::size_t> enter_warp(Thread& t, const ir::Op& op);
  /// Whether `op` is a .sync instruction without .aligned (shfl.sync, vote.sync, match.any.sync,
  /// bar.warp.sync, redux.sync): the lanes of its membermask wait for each other, wherever in
  /// the program each executes it; the exited ones are not waited for.
  static bool converging(const ir::Op& op);
  /// The membermask operand of such an instruction.
  std::uint32_t member_mask(const Thread& t, const ir::Op& op) const;
  /// Whether lanes `t` and `u`, both waiting in converging instructions, wait in the same kind
  /// (code and qualifiers) with the same membermask: they perform it together.
  bool same_sync(const Thread& t, const Thread& u) const;
  /// The lanes (a mask over the warp) that perform the converging instruction `t` waits in, if
  /// every non-exited lane of its membermask waits in one of the same kind and membermask.
  std::optional<std::uint32_t> warp_group(const Thread& t) const;
  /// Performs the converging instruction `t` waits in, if its group is complete; whether it did.
  bool settle_warp_group(const Thread& t);
  /// When no thread can run: settles the complete groups (a lane may have exited since its
  /// partners arrived). Whether any did.
  bool settle_warp_groups();
  /// The barrier divergence of a thread left waiting in a warp instruction.
  [[noreturn]] void warp_stuck(const Thread& t) const;
  /// A warp-collective instruction (ldmatrix): the thread waits until every
  /// lane of its warp is at the same instruction; the last to arrive performs
  /// it for the warp, and all run on.
  Flow warp_collective(Thread& t, const ir::Op& op);
  /// activemask: the thread waits until no lane of its warp can run on; the lanes then at
  /// this same instruction are the active ones (simulator.hpp, "Warp queries").
  Flow active_mask(Thread& t, const ir::Op& op);
  /// Gives the lanes of [first, last) waiting in the activemask before `pc` their mask.
  void settle_active_mask(std::size_t first, std::size_t last, std::uint32_t pc);
  /// When no thread can run: settles every warp waiting in an activemask. Whether any did.
  bool settle_active_masks();

  // ------------------------------------------------ cta_cluster.cpp: clusters

  /// barrier.cluster.arrive: an arrival for the cluster's current phase (cluster of one: none).
  Flow cluster_arrive(Thread& t, const ir::Op& op);
  /// barrier.cluster.wait: waits for the phase of the thread's last arrival to complete.
  Flow cluster_wait(Thread& t, const ir::Op& op);
  /// A thread waits at barrier.cluster.wait and nothing can run: the threads it waits for.
  [[noreturn]] void cluster_stuck(const Thread& t) const;
  /// mapa: the address of `a`'s location in CTA `rank` (cluster_window_stride).
  std::uint64_t map_address(const Thread& t, const ir::Op& op) const;
  /// The CTA whose shared memory the shared address `off` names (its rank bits, if any, are
  /// stripped from `off`): this one, or a peer when `op` may reach one.
  Cta& shared_home(const Thread& t, const ir::Op& op, std::uint64_t& off);
  /// ld / st of a peer's shared memory (distributed shared memory).
  void remote_load_store(Thread& t, const ir::Op& op, Cta& home, std::uint64_t off, bool is_ld);
  /// Bytes [off, off+n) written by a peer (a remote st or atom, a peer's or a multicast's bulk
  /// copy): this CTA's own race rules see a writer that is none of its threads (kRemoteWriter).
  void mark_remote_written(std::uint64_t off, std::uint64_t n, bool async_proxy);
  /// Bounds and mbarrier objects of an access of `home`'s bytes [off, off+n) by `t`.
  void check_home(const Thread& t, const ir::Op& op, const Cta& home, std::uint64_t off,
                  std::uint64_t n, std::string_view what) const;
  /// `t`'s access by `op` now, for the cluster rules.
  ClusterUse cluster_use(const Thread& t, const ir::Op& op) const;
  /// Whether `u` is ordered before a thread that has completed `waited` cluster barrier waits.
  bool cluster_ordered(const ClusterUse& u, std::uint32_t waited) const;
  /// The races between CTAs on `home`'s shared bytes [off, off+n), accessed by `t` now.
  void dsmem_track(const Thread& t, const ir::Op& op, Cta& home, std::uint64_t off, std::uint64_t n,
                   bool write);
  /// `t` uses `home` (a peer) now: its shared memory or a barrier there. Remembered for the
  /// peer's exit; after that exit a hazard at once. `bar`: the use is an arrival or a
  /// complete_tx on home's mbarrier at `off` (settled first by the caller), which orders it
  /// before home's exit once a thread of home has waited for the phase it counts for.
  void remote_use(const Thread& t, const ir::Op& op, Cta& home, std::uint64_t off,
                  bool bar = false);
  /// The CTA's last thread exits (at `line`): every peer's use must be ordered before it.
  void cta_exit(const Thread& t, std::uint32_t line);
  /// A remote arrive, peer bulk copy or multicast into `home`'s barrier at `bar`: its init must
  /// be visible cluster-wide.
  void check_init_visible(const Thread& t, const ir::Op& op, const Cta& home, std::uint64_t bar);
  /// After tx bytes came into `home`'s barrier at `bar` from a peer (or its arrivals completed):
  /// bytes beyond the tx-count expected are a multicast with no matching expect_tx.
  void check_overfed(const Thread& t, const ir::Op& op, Cta& home, std::uint64_t bar);
  /// mbarrier.arrive / arrive.expect_tx / expect_tx on a peer's barrier.
  Flow remote_mbarrier(Thread& t, const ir::Op& op, Cta& home, std::uint64_t bar);
  /// cp.async.bulk.shared::cluster.shared::cta: this CTA's bytes into a peer's, completing there.
  void bulk_peer_issue(Thread& t, const ir::Op& op);
  /// Queues the landing `c` (its dst and bar in `home`) of `tx` bytes on `home`'s barrier, a
  /// use of `home` (remote_use) that counts for the barrier's phase.
  void queue_remote_landing(Thread& t, const ir::Op& op, Cta& home, Copy c, std::uint64_t tx);
  /// A multicast load: `c` (and its tensor plan) lands in every CTA of the op's mask.
  void multicast(Thread& t, const ir::Op& op, const Copy& c, std::uint64_t tx);
  /// Performs the peers' copies into this CTA that complete on `bar` (every one: ~0).
  void land_remote(std::uint64_t bar);
  /// Raises a race between CTAs of the cluster: `self` (of `t`) against `other`.
  void cluster_race(RaceKind k, const Thread& t, const RaceAccess& self, const RaceAccess& other,
                    std::string symbol, std::uint64_t offset, const std::string& detail) const;
  /// A ClusterUse as a RaceAccess (with its CTA).
  RaceAccess use_access(const ClusterUse& u) const;
  /// shfl.sync, vote.sync, match.any.sync and redux.sync for the lanes `members` of the warp
  /// [first, last), each lane by the instruction it waits in (PTX ISA pseudocode; a lane outside
  /// the warp reads its own value).
  void exchange(std::size_t first, std::size_t last, const ir::Op& op, std::uint32_t members);
  /// redux.sync's result: `op`'s reduction of its source over the lanes `members`.
  std::uint64_t warp_reduce(std::size_t first, std::uint32_t members, const ir::Op& op) const;

  // ------------------------------------------------ cta_barrier.cpp: named barriers

  /// bar.sync / bar.arrive / bar.red (and the barrier.* spellings): an arrival at barrier a of
  /// b threads (the CTA's, rounded up to whole warps, without b). The arrivals of one use must
  /// name one count (else a deadlock fault); the arrival that completes a use queues its release
  /// (BarrierRelease). bar.arrive runs on; the others wait.
  Flow named_barrier(Thread& t, const ir::Op& op);
  /// barrier.cluster.wait in a cluster of one CTA: a whole-CTA use of the cluster's own slot.
  Flow cluster_barrier(Thread& t, const ir::Op& op);
  /// An arrival of `t` (waiting unless bar.arrive) at barrier slot `id` of `count` threads.
  Flow arrive_at_barrier(Thread& t, const ir::Op& op, std::int64_t id, std::uint32_t count,
                         bool counted);
  /// The arrivals a thread brings: 1, and the missing lanes of a partial last warp for its last
  /// lane (the GPU counts a warp's arrival as the warp size).
  std::uint32_t arrival_slots(const Thread& t) const;
  /// After a pass: the waiters of the uses completed in it run on (bar.red's result set); a use
  /// every thread waited in starts a CTA phase, another orders its arrivals before its waiters
  /// by the vector clocks. Whether any thread was released.
  bool release_barriers();
  /// No thread can run and some wait at a barrier: the barrier divergence (an exited thread, two
  /// barrier ids) or, for a use with a thread count, the deadlock, with both lines.
  [[noreturn]] void barrier_stuck(const Thread& waiting) const;
  /// ldmatrix for the warp of lanes [first, last): lane i (< 8 * Op::vec) gives
  /// the address of row i % 8 of matrix i / 8 (16 bytes); lane l receives of
  /// each matrix row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1, or with .trans
  /// column l / 4 of rows 2 (l % 4) and 2 (l % 4) + 1 (the first in the low half).
  void load_matrices(std::size_t first, std::size_t last, const ir::Op& op);

  // ------------------------------------------------ cta_execute.cpp: the interpreter

  /// Runs the thread until it waits at a barrier or exits.
  void step(Thread& t);
  /// One instruction's semantics: one case per ir::Family (forms.def).
  Flow execute(Thread& t, const ir::Op& op);
  /// cp.async and its groups: issue, commit, wait; createpolicy.
  Flow async_copy_op(Thread& t, const ir::Op& op);
  /// bar.sync, ret / exit, call, trap, bra.
  Flow control_op(Thread& t, const ir::Op& op);
  /// The moves, conversions, comparisons and plain loads/stores (mov, ld, st, cvta, cvt,
  /// setp, selp, isspacep) on integers.
  Flow move_op(Thread& t, const ir::Op& op);
  /// The integer arithmetic, shifts, bit fields and logic.
  Flow integer_op(Thread& t, const ir::Op& op);
  /// Whether `op` is the float form of an instruction that also takes integers.
  static bool float_form(const ir::Op& op);
  /// The instructions computed by driver/sim/alu (bit operations, floats, cvt).
  Flow arith(Thread& t, const ir::Op& op);
  /// bfind: the bit position of the most significant non-sign bit of `a` (of a negative
  /// signed value: its most significant 0), counted from the msb with .shiftamt;
  /// 0xffffffff when there is none.
  static std::uint64_t find_msb(std::uint64_t a, ir::Type ty, bool shiftamt);
  static std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b, ir::Type ty);
  std::uint64_t divide(const Thread& t, const ir::Op& op, std::uint64_t a, std::uint64_t b) const;
  static std::uint64_t shift_right(std::uint64_t a, std::uint64_t s, ir::Type ty);
  /// bfe (PTX ISA): bits [pos, pos+len) of `a`; above them, and where the
  /// field runs past the msb, the sign bit a[min(pos+len-1, msb)] when signed,
  /// else 0. A zero-length field is 0.
  static std::uint64_t bit_field_extract(std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                         ir::Type ty);
  /// setp: `a` and `b` are already sign- or zero-extended to 64 bits.
  static bool compare(ir::Cmp cmp, std::uint64_t a, std::uint64_t b, bool is_signed);
  /// setp's results from its comparison `r`: p = r bop c and, for `p|q`, q = !r bop c
  /// (PTX ISA, setp); plain setp writes r and !r.
  void set_compare(Thread& t, const ir::Op& op, bool r);

  // ------------------------------------------------ cta_memory.cpp: memory and cp.async

  std::int32_t find_buffer(std::uint64_t addr, std::uint64_t n) const;
  /// The global buffers and their address ranges, for messages.
  std::string buffer_list() const;
  std::uint8_t* global_bytes(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint64_t n,
                             std::string_view what) const;
  void check_shared(const Thread& t, const ir::Op& op, std::uint64_t off, std::uint64_t n,
                    std::string_view what) const;
  void check_align(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint64_t n,
                   std::string_view what) const;
  /// run --profile: reports an access of `op` to the CTA's profile, if any.
  void profiled(const Thread& t, const ir::Op& op, AccessKind kind, std::uint64_t addr,
                std::uint64_t n);
  /// Whether the generic address `addr` lies in this CTA's shared memory.
  bool in_shared_window(std::uint64_t addr) const;
  /// Whether `op` reaches shared memory at `addr`: a .shared access, or a generic address
  /// inside the shared window, which is then rebased to its offset in the CTA's shared memory.
  bool resolve_shared(const ir::Op& op, std::uint64_t& addr) const;
  void load_store(Thread& t, const ir::Op& op, bool is_ld);
  /// atom / red: a read-modify-write of shared or global memory. On shared memory it is a
  /// read and a write for the race rules, strong (ir::Op::strong).
  void atomic(Thread& t, const ir::Op& op);
  /// The value an atomic operation `a` stores over `old` (PTX ISA, atom).
  static std::uint64_t atomic_result(ir::Atomic a, ir::Type ty, std::uint64_t old, std::uint64_t b,
                                     std::uint64_t c);
  std::uint64_t convert_address(const Thread& t, const ir::Op& op) const;
  void issue(Thread& t, const ir::Op& op);
  void perform(const Thread& t, const Copy& c);
  /// Performs the thread's copies whose group is below `limit` (all when limit is max).
  void complete(Thread& t, std::uint32_t limit);
  /// Performs the thread's copies that satisfy `which`, in issue order.
  template <class Which>
  void perform_if(Thread& t, Which which) {
    std::size_t kept = 0;
    for (std::size_t k = 0; k < t.copies.size(); ++k) {
      if (which(t.copies[k]))
        perform(t, t.copies[k]);
      else
        t.copies[kept++] = t.copies[k];
    }
    t.copies.resize(kept);
  }

  // ------------------------------------------------ cta_hazards.cpp: race tracking

  /// The access `op` of thread `t` is making now.
  Access now(const Thread& t, const ir::Op& op) const;
  /// Whether `a` (another thread's access) is ordered before `self` by mbarrier phases.
  bool ordered(const Access& a, const Access& self) const;
  /// Whether both accesses are strong (atomics, .relaxed/.acquire/.release/.volatile):
  /// never a data race in PTX's memory model.
  bool both_strong(const Access& a, const Access& b) const;
  /// The pending copy of thread `tid` that will write shared byte `b`, as an access.
  Access pending_copy(std::int32_t tid, std::uint64_t b) const;
  /// The shared array holding byte `b` and the offset within it.
  std::pair<std::string, std::uint64_t> symbol_of(std::uint64_t b) const;
  /// A `race` fault: `self` (the faulting access) conflicts with `earlier` on byte `b`. Thrown,
  /// or, with an observer (Launch::observer), recorded; the access then goes on.
  void race(RaceKind k, const Thread& t, const Access& self, std::uint64_t b,
            const Access& earlier) const;
  /// With an observer: whether a race of kind `k` between these lines is known (counted once
  /// more) or can no longer be kept (counted as dropped), so `race` need not build it.
  bool race_known(RaceKind k, std::uint32_t line, std::uint32_t other_line) const;
  /// Throws the race fault `f`, or records it in the observer.
  void raise_race(Fault f) const;
  /// Reports race `k` between `self` and `earlier` on byte `offset` of `symbol` in `space`
  /// ("shared", "global"), once per pair of PTX lines.
  void report_race(RaceKind k, const Thread& t, const Access& self, const Access& earlier,
                   std::string symbol, std::uint64_t offset, std::string_view space) const;
  /// With an observer: records a read of shared byte `b`, which no access has written.
  void unwritten_read(const Thread& t, const Access& self, std::uint64_t b) const;
  /// How byte and earlier access relate ("... by"), and what follows from it.
  static std::pair<std::string_view, std::string_view> race_relation(RaceKind k);
  /// `record`: the bytes' reader becomes this access (false: the read checks only, for a
  /// wgmma's operands, whose reads the Wgmma record keeps).
  void on_read(const Thread& t, const ir::Op& op, std::uint64_t off, std::uint64_t n,
               bool record = true);
  /// Checks a write of `self` (a st, or a copy at issue / when performed) against
  /// the other accesses. `copy`: the write is a cp.async's. `data`: the bytes a store writes,
  /// when known (a byte another thread's unordered store left with the same value is a note,
  /// RaceKind::write_after_write_same_value, not a race).
  void check_write(const Thread& t, const Access& self, std::uint64_t off, std::uint64_t n,
                   bool copy, bool own_pending_ok, const std::uint8_t* data = nullptr) const;
  /// Records `self` as the bytes' last writer; `async_proxy`: a bulk load's write.
  void mark_written(const Access& self, std::uint64_t off, std::uint64_t n,
                    bool async_proxy = false);
  RaceAccess race_access(const Access& a) const { return {a.tid, e_.ops[a.op].line, a.iteration}; }

  // ------------------------------------------------ cta_bulk.cpp: bulk stores, async proxy

  /// cp.async.bulk.global.shared::cta.bulk_group: checked and queued in the thread's open
  /// bulk group; its source bytes are read as by the thread now (races, proxy fence).
  /// A 1-D bulk copy's destination, source and size, after the checks both directions
  /// share: the size a positive multiple of 16, both addresses 16-byte aligned.
  struct BulkOperands {
    std::uint64_t dst = 0, src = 0, size = 0;
  };
  BulkOperands bulk_operands(Thread& t, const ir::Op& op);
  void bulk_store_issue(Thread& t, const ir::Op& op);
  /// Queues the checked store `s` (src, size, dst or tensor set) in the thread's open bulk group:
  /// its source bytes are read as by the thread now (races, proxy fence).
  void queue_bulk_store(Thread& t, const ir::Op& op, BulkStore s);
  /// Writes a store's bytes (read already) to global memory.
  void write_bulk_store(const BulkStore& s);
  /// A reduction's elements of `s` combined into the `bytes` bytes at `p` from `from`.
  void reduce_into(const BulkStore& s, std::uint8_t* p, const std::uint8_t* from,
                   std::uint64_t bytes) const;
  /// The first byte of global [addr, addr+n) that the pending store `s` will write, and its
  /// buffer, if any.
  std::optional<std::pair<std::uint64_t, std::int32_t>>
  store_overlap(const BulkStore& s, std::uint64_t addr, std::uint64_t n) const;
  /// cp.async.bulk.wait_group{.read} N: all but the N newest committed bulk groups complete
  /// their reads (.read) or their whole copy.
  void bulk_wait(Thread& t, const ir::Op& op);
  /// Takes a bulk store's source bytes at thread `t`'s wait: the read of shared memory completes.
  void bulk_read(const Thread& t, BulkStore& s);
  /// A race with the pending bulk store of thread `tid` that has not read shared byte `b`.
  void refill_race(const Thread& t, const Access& self, std::uint64_t b) const;
  /// A bulk operation of `self` reads or overwrites shared bytes [off, off+n): each byte last
  /// written through the generic proxy needs a fence.proxy.async by its writer since.
  void check_proxy(const Thread& t, const Access& self, std::uint64_t off, std::uint64_t n) const;

  // ------------------------------------------------ cta_global.cpp: global bytes in one CTA

  /// How an op touches global bytes.
  enum class GlobalUse : std::uint8_t {
    read,       ///< ld, a cp.async's source
    write,      ///< st, atom, red (generic)
    async_read, ///< a bulk or tensor load's source (the async proxy)
  };
  /// `op` of `t` touches global bytes [addr, addr+n) of `buffer`: none may be the destination
  /// of a bulk store of this CTA that no wait_group has completed (read_before_bulk_write,
  /// write_before_bulk_write), nor one another thread's wait completed with no barrier since
  /// (bulk_wait_scope); an async read needs the generic writes of its bytes fenced
  /// (missing_global_proxy_fence). A generic write is remembered for that; a plain one is
  /// logged for the cross-CTA check.
  /// `written`: a store's own bytes (n of them), logged for the cross-CTA check; without them
  /// the log copies global memory, which other CTAs' host threads may be writing at once.
  void global_access(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint64_t n,
                     GlobalUse use, const std::uint8_t* written = nullptr);
  /// The pending and waited bulk stores' part of global_access.
  void check_bulk_destinations(const Thread& t, const Access& self, std::uint64_t addr,
                               std::uint64_t n, GlobalUse use) const;
  /// An async read of [addr, addr+n) in `buffer`: the generic writes of those bytes need a
  /// fence.proxy.async{.global} by their writer since, ordered before the read.
  void check_global_proxy(const Thread& t, const Access& self, std::uint64_t addr, std::uint64_t n,
                          std::int32_t buffer) const;
  /// A race on global byte `b` of `buffer`: `self` against `earlier`.
  void global_race(RaceKind k, const Thread& t, const Access& self, std::uint64_t b,
                   std::int32_t buffer, const Access& earlier) const;
  /// The bulk store `s` of `t` writes global memory now: logged, and, `waited` (by t's
  /// wait_group) or at t's exit, remembered for the other threads' accesses (bulk_wait_scope).
  void bulk_store_written(const Thread& t, const BulkStore& s, bool waited);
  /// A bar.sync completed: the writes every thread is now ordered after are forgotten.
  void global_phase_done();
  /// At a thread's exit: a bulk store whose read has not completed is undefined (its shared
  /// memory goes away); those read are written to global.
  void finish_bulk_stores(Thread& t, std::uint32_t line);

  // ------------------------------------------------ cta_mbarrier.cpp: mbarriers

  /// The shared offset of the mbarrier operand `a` of `op` (8-aligned, inside shared memory).
  std::uint64_t mbar_offset(const Thread& t, const ir::Op& op, const ir::Addr& a) const;
  /// Faults when bytes [off, off+n) touch a valid mbarrier object: PTX allows only mbarrier
  /// instructions on one (everything else is undefined until mbarrier.inval).
  void not_an_mbarrier(const Thread& t, const ir::Op& op, std::uint64_t off, std::uint64_t n,
                       std::string_view what) const;
  /// "`bar`+0 (phase 1 (parity 1), ...)": an object for messages.
  std::string mbar_text(std::uint64_t off) const;
  Flow mbarrier_op(Thread& t, const ir::Op& op);
  Flow mbarrier_step(Thread& t, const ir::Op& op);
  /// test_wait / try_wait: true when the phase has completed (completing it first when it can);
  /// otherwise the thread is descheduled and retries when some object's state has changed. When
  /// nothing else can run, it is resumed once to see `false` (wake_mbarrier_waiters).
  Flow mbarrier_wait(Thread& t, const ir::Op& op, std::uint64_t off);
  /// Completes the object's phase if it can (an operation on it would find it complete on a GPU).
  void settle(std::uint64_t off);
  /// cp.async.bulk.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes: queued like a
  /// cp.async (addresses and bounds checked at issue), performed when its phase completes.
  void bulk_issue(Thread& t, const ir::Op& op);
  /// Queues the checked bulk load `c` (dst, size and its source or tensor set) on the mbarrier
  /// operand of `op`, which expects `tx` bytes from it: races and proxy fence on its destination.
  void queue_bulk_load(Thread& t, const ir::Op& op, Copy c, std::uint64_t tx);
  /// queue_bulk_load's copy into this CTA, on its barrier at `bar`.
  void queue_load_at(Thread& t, const ir::Op& op, Copy c, std::uint64_t tx, std::uint64_t bar);
  /// The shared offset `off` (maybe a `.shared::cluster` address of this CTA) in this CTA's
  /// shared memory; an address of a peer's is `unsupported` for `what`.
  std::uint64_t own_shared(const Thread& t, const ir::Op& op, std::uint64_t off,
                           std::string_view what) const;

  // ------------------------------------------------ cta_tensor.cpp: tensor copies

  /// The tensor map that `op`'s map operand addresses (a handle of Launch::tensor_maps).
  /// The launch's map at `op`'s address (op.addr2) with the edits its handle carries
  /// (tensormap.replace), whatever op.rank says.
  TensorMapArg tensor_map_at(const Thread& t, const ir::Op& op) const;
  /// tensor_map_at, checked against op's rank and mode.
  TensorMapArg tensor_map(const Thread& t, const ir::Op& op) const;
  /// prefetch.tensormap: nothing moves; its address must hold a map of the launch.
  void prefetch_tensormap(const Thread& t, const ir::Op& op) const;
  /// tensormap.replace: one field of the handle at op.addr (global or shared), or of a map built
  /// in memory (128 zero bytes make one).
  void tensormap_replace(Thread& t, const ir::Op& op);
  /// One field of the launch map's handle at `bytes`: its address, dims and strides.
  void edit_launch_map(Thread& t, const ir::Op& op, std::uint8_t* bytes);
  /// tensormap.cp_fenceproxy: the handle's 128 bytes from shared memory to global.
  void tensormap_copy(Thread& t, const ir::Op& op);
  /// The 128 bytes of the map at `at` in op's space (global, or shared: an offset): a launch
  /// map's handle or a map built in memory; with `blank`, 128 zero bytes too.
  std::uint8_t* map_bytes(const Thread& t, const ir::Op& op, std::uint64_t at, bool shared,
                          bool blank = false);
  /// The elements a tensor copy moves (coordinates from `op`), checked against global memory.
  std::shared_ptr<const TensorPlan> tensor_plan(const Thread& t, const ir::Op& op,
                                                const TensorMapArg& m,
                                                tile::TensorAccess access) const;
  /// The shared side of a tensor copy: aligned to 128 bytes, inside shared
  /// memory and clear of mbarriers for the box's extent.
  std::uint64_t tensor_shared(const Thread& t, const ir::Op& op, const TensorPlan& plan) const;
  /// What both tensor copies take first: the plan of `op` through its map, and the shared
  /// address of the box (tensor_plan, then tensor_shared).
  struct TensorIssue {
    std::shared_ptr<const TensorPlan> plan;
    std::uint64_t shared = 0;
  };
  TensorIssue tensor_issue(const Thread& t, const ir::Op& op, tile::TensorAccess access) const;
  /// cp.async.bulk.tensor load: queued like a 1-D bulk load (complete_tx of the whole box).
  void tensor_load_issue(Thread& t, const ir::Op& op);
  /// cp.async.bulk.tensor store: queued like a 1-D bulk store in the open bulk group.
  void tensor_store_issue(Thread& t, const ir::Op& op);
  /// A tensor load's landing: its runs from global memory or filled, at `d` (its dst).
  void land_tensor(std::uint8_t* d, const TensorPlan& p) const;
  /// Resumes the threads blocked on a wait: those that blocked before some object changed
  /// (their phase may be complete now); when there are none, each blocked thread once per state
  /// of the objects to see its wait return false (a test_wait may return false; a loop that
  /// only spins blocks again). Returns whether any thread runs again.
  bool wake_mbarrier_waiters();
  /// Every live thread is blocked and no wait can succeed: a `deadlock` fault naming `t`.
  [[noreturn]] void deadlock(const Thread& t) const;
  /// At the end of the CTA: copies whose mbarrier phase never completed are performed (the
  /// GPU would perform them eventually), with the exit warning.
  void flush_async_copies();

  const ir::Entry& e_;
  const Launch& l_;
  std::vector<GlobalBuffer>& mem_;
  const std::vector<std::uint8_t>& params_;
  const std::vector<std::int32_t>& slot_;
  std::uint64_t bid_;
  Dim3 bid_xyz_;
  SimResult& res_;
  ExitWarnings& exits_;
  std::uint64_t max_instructions_;
  std::uint64_t reserved_begin_; ///< where the reserved shared region starts (simulator.hpp)
  std::vector<std::uint8_t> smem_;
  std::vector<ByteState> track_;
  std::vector<std::uint64_t> regfile_;
  std::vector<std::uint8_t> frames_;
  std::vector<std::uint32_t> iterations_;
  std::vector<Thread> threads_;
  std::vector<std::uint32_t> order_; ///< the threads' order in a pass (Launch::schedule_seed)
  // clusters (cta_cluster.cpp)
  Dim3 cluster_dim_;               ///< LaunchContext::cluster_dim
  std::uint32_t cluster_size_ = 1; ///< CTAs per cluster
  std::uint32_t rank_ = 0;         ///< %cluster_ctarank
  bool explicit_cluster_ = false;
  Cluster* cluster_ = nullptr;                ///< set when the cluster has more than one CTA
  std::vector<ClusterByte> ctrack_;           ///< per shared byte, when LaunchContext::uses_dsmem
  std::map<std::uint64_t, InitRecord> inits_; ///< its mbarrier.inits (clusters), by offset
  /// Per peer thread (rank, tid): its latest use of this CTA and the shared offset it used.
  std::map<std::pair<std::int32_t, std::uint32_t>, PeerUse> users_;
  /// Per mbarrier of this CTA: the completed phases its threads' waits have seen. A peer's
  /// arrival or landing on a seen phase happened before this CTA's exit (CUTLASS orders its
  /// exit so: the producer's tail waits for every consumer release, the peers' remote ones
  /// included), as a cluster barrier would order it.
  std::map<std::uint64_t, std::uint64_t> observed_;
  std::vector<Copy> remote_copies_; ///< peers' bulk copies landing here, at their barrier's phase
  /// Per barrier: the latest peer's complete_tx into it and the phase it counts for.
  std::map<std::uint64_t, std::pair<ClusterUse, std::uint64_t>> remote_tx_;
  bool exited_ = false; ///< every thread has exited
  RaceAccess exit_;     ///< the last thread's exit
  /// The named barriers' slots (0..15), then the cluster barrier's (kClusterBarrier).
  static constexpr std::int64_t kClusterBarrier = 16;
  std::array<NamedBarrier, kClusterBarrier + 1> bars_{}; ///< the named barriers' current uses
  std::vector<BarrierRelease> released_;                 ///< uses completed in this pass
  std::uint32_t phase_ = 0;
  std::uint32_t pending_stores_ = 0; ///< bulk stores of the CTA not yet written to global
  detail::Mbarriers mb_;
  std::optional<CtaProfile> prof_; ///< set when the launch is profiled (run --profile)
  const bool async_global_reads_;  ///< LaunchContext::async_global_reads
  const bool logs_global_;         ///< LaunchContext::logs_global
  /// Per global buffer: the generic writes not yet fenced and ordered for the async proxy
  /// (kept only when async_global_reads_).
  std::vector<std::vector<GlobalWrite>> generic_writes_;
  std::vector<GlobalWrite> waited_stores_; ///< bulk stores written since the last bar.sync
  /// The global bytes [lo, hi) that waited_stores_ spans: most accesses miss it (a pipeline
  /// reads its input while its stores write the output), and skip the scan.
  std::uint64_t waited_lo_ = ~0ull, waited_hi_ = 0;
  CtaGlobalLog glog_;
  // tensor cores (cta_tensor_core.cpp)
  std::vector<Wgmma> wgmmas_;         ///< wgmma.mma_async in flight
  std::vector<WgmmaThread> wgt_;      ///< per thread; empty until the entry's first wgmma op
  std::vector<std::int32_t> wg_slot_; ///< per register: its index in written, -1 if no operand
  /// Per op: the registers it reads, then those it writes, at writes_at_[op].
  std::vector<std::vector<std::uint32_t>> footprint_;
  std::vector<std::uint32_t> writes_at_;
};

} // namespace ptxgen::sim::exec
