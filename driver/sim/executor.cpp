// The executor: runs one entry of a parsed module over a launch.
// See simulator.hpp for the execution, cp.async and race model.

#include "driver/sim/alu.hpp"
#include "driver/sim/ir.hpp"
#include "driver/sim/mbarrier.hpp"
#include "driver/sim/profile.hpp"
#include "driver/sim/simulator.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

namespace ptxgen::sim {
namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

struct FaultThrow {
  Fault fault;
};

std::uint64_t mask(unsigned bits) {
  return bits >= 64 ? ~0ull : ((1ull << bits) - 1);
}

std::int64_t sext(std::uint64_t v, unsigned bits) {
  if (bits >= 64)
    return static_cast<std::int64_t>(v);
  std::uint64_t m = 1ull << (bits - 1);
  v &= mask(bits);
  return static_cast<std::int64_t>((v ^ m) - m);
}

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

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
};

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
  std::int32_t pending = -1; ///< the thread whose pending cp.async will write it
};

enum class State : std::uint8_t {
  running,     ///< runs on at the next pass
  at_barrier,  ///< waits in bar.sync
  at_mbarrier, ///< waits for an mbarrier phase (test_wait / try_wait found it incomplete)
  exited,      ///< returned
  at_warp,     ///< waits in a warp-collective instruction (ldmatrix) for its warp's other lanes
};

struct Thread {
  std::uint32_t tid = 0; ///< linear index within the CTA
  Dim3 xyz = {0, 0, 0};  ///< %tid.x, %tid.y, %tid.z
  std::uint32_t pc = 0;
  State state = State::running;
  std::uint64_t* regs = nullptr;
  std::uint32_t* iterations = nullptr; ///< per memory op (see Cta::slot_): times reached
  std::vector<Copy> copies;
  std::uint32_t open_group = 0; ///< committed groups so far (the next copy's group number)
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
};

/// The coordinates of linear index `i` within `dim` (x fastest).
Dim3 coordinates(std::uint64_t i, const Dim3& dim) {
  return {static_cast<std::uint32_t>(i % dim[0]), static_cast<std::uint32_t>(i / dim[0] % dim[1]),
          static_cast<std::uint32_t>(i / dim[0] / dim[1])};
}

std::string dim_text(const Dim3& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

std::string limits_text(const std::array<std::int64_t, 3>& d) {
  return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
}

/// Whether `code` touches shared memory (counted per thread for iterations).
bool is_memory_op(ir::Code code) {
  return code == ir::Code::ld || code == ir::Code::st || code == ir::Code::cp_async ||
         code == ir::Code::ldmatrix || code == ir::Code::bulk_copy || code == ir::Code::atom ||
         code == ir::Code::red;
}

/// Whether `code` is one of the mbarrier family (the entry then keeps vector clocks).
bool is_mbarrier_op(ir::Code code) {
  return code == ir::Code::mbar_init || code == ir::Code::mbar_arrive ||
         code == ir::Code::mbar_arrive_drop || code == ir::Code::mbar_arrive_tx ||
         code == ir::Code::mbar_expect_tx || code == ir::Code::mbar_wait ||
         code == ir::Code::mbar_wait_parity || code == ir::Code::mbar_inval ||
         code == ir::Code::cp_mbar_arrive || code == ir::Code::bulk_copy;
}

struct ExitWarnings {
  std::uint64_t threads = 0;
  std::string first;
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
  bool uses_mbarriers = false; ///< the entry has an mbarrier op (vector clocks are kept)
  bool uses_reserved = false;  ///< the entry reads a %reserved_smem_offset_* register
  SimResult& res;
  ExitWarnings& exits;
  /// Instructions this run may execute before an instruction_limit fault: the launch's
  /// limit, or what a CTA rerun to find where the launch crossed it has left.
  std::uint64_t max_instructions = 0;
};

class Cta {
public:
  Cta(const LaunchContext& c, std::uint64_t bid)
      : e_(c.e), l_(c.l), mem_(c.mem), params_(c.params), slot_(c.slot), bid_(bid),
        bid_xyz_(coordinates(bid, c.l.grid_dim)), res_(c.res), exits_(c.exits),
        max_instructions_(c.max_instructions),
        reserved_begin_((c.e.shared_bytes + c.l.dynamic_shared_bytes + 15) / 16 * 16),
        smem_(c.uses_reserved ? reserved_begin_ + reserved_smem_bytes
                              : c.e.shared_bytes + c.l.dynamic_shared_bytes,
              poison_byte),
        track_(smem_.size()),
        regfile_(static_cast<std::size_t>(c.l.block_total()) * c.e.reg_mask.size(), 0),
        frames_(static_cast<std::size_t>(c.l.block_total()) * c.e.frame_bytes, 0),
        iterations_(static_cast<std::size_t>(c.l.block_total()) * c.slots, 0),
        mb_(static_cast<std::uint32_t>(c.l.block_total()), c.uses_mbarriers) {
    if (l_.profile != nullptr) // issue 13, run --profile
      prof_.emplace(l_.block_total());
    threads_.resize(static_cast<std::size_t>(c.l.block_total()));
    for (std::uint32_t t = 0; t < threads_.size(); ++t) {
      threads_[t].tid = t;
      threads_[t].xyz = coordinates(t, c.l.block_dim);
      threads_[t].regs = regfile_.data() + static_cast<std::size_t>(t) * e_.reg_mask.size();
      threads_[t].iterations = iterations_.data() + static_cast<std::size_t>(t) * c.slots;
      threads_[t].frame = frames_.data() + static_cast<std::size_t>(t) * e_.frame_bytes;
    }
  }

  ~Cta() {
    if (prof_) // issue 13, run --profile: this CTA's requests into the launch's figures
      l_.profile->merge(*prof_);
  }
  Cta(const Cta&) = delete;
  Cta& operator=(const Cta&) = delete;

  void run() {
    while (true) {
      for (auto& t : threads_) {
        if (t.state == State::running)
          step(t);
      }
      if (wake_mbarrier_waiters())
        continue;
      if (std::any_of(threads_.begin(), threads_.end(),
                      [](const Thread& t) { return t.state == State::running; }))
        continue; // lanes a warp collective released
      if (settle_active_masks())
        continue;
      for (const auto& t : threads_) {
        if (t.state == State::at_mbarrier)
          deadlock(t);
      }
      const Thread* waiting = nullptr;
      const Thread* exited = nullptr;
      const Thread* in_warp = nullptr;
      for (const auto& t : threads_) {
        if (t.state == State::at_barrier && waiting == nullptr)
          waiting = &t;
        if (t.state == State::exited && exited == nullptr)
          exited = &t;
        if (t.state == State::at_warp && in_warp == nullptr)
          in_warp = &t;
      }
      if (in_warp != nullptr)
        fault_at(FaultKind::barrier_divergence, *in_warp, e_.ops[in_warp->pc - 1],
                 "it waits for the other lanes of warp " + std::to_string(in_warp->tid / 32) +
                     " in a .sync.aligned instruction they do not all reach");
      if (waiting == nullptr) {
        flush_async_copies();
        return;
      }
      if (exited != nullptr) {
        fault_at(FaultKind::barrier_divergence, *waiting, e_.ops[waiting->pc - 1],
                 "it waits at bar.sync " + std::to_string(waiting->barrier) + ", but " +
                     other(exited->tid) + " exited at PTX line " +
                     std::to_string(exited->stop_line) +
                     " without reaching it; every thread of the CTA must arrive");
      }
      for (const auto& t : threads_) {
        if (t.barrier != waiting->barrier) {
          fault_at(FaultKind::barrier_divergence, t, e_.ops[t.pc - 1],
                   "it waits at barrier " + std::to_string(t.barrier) + " while " +
                       other(waiting->tid) + " waits at barrier " +
                       std::to_string(waiting->barrier) + " (PTX line " +
                       std::to_string(waiting->stop_line) + ")");
        }
      }
      ++phase_;
      for (auto& t : threads_)
        t.state = State::running;
    }
  }

private:
  // ------------------------------------------------ faults

  /// "thread (bid x,y,z / tid x,y,z)": the faulting thread.
  std::string who(std::uint32_t tid) const {
    return "thread (bid " + dim_text(bid_xyz_) + " / tid " + dim_text(threads_[tid].xyz) + ")";
  }

  /// "thread (tid x,y,z)": another thread of the same CTA.
  std::string other(std::uint32_t tid) const {
    return "thread (tid " + dim_text(threads_[tid].xyz) + ")";
  }

  Fault fault_for(FaultKind k, const Thread& t, const ir::Op& op) const {
    Fault f;
    f.kind = k;
    f.bid = static_cast<std::int64_t>(bid_);
    f.tid = t.tid;
    f.ptx_line = op.line;
    f.message =
        who(t.tid) + ", PTX line " + std::to_string(op.line) + " `" + e_.texts[op.text] + "`";
    return f;
  }

  [[noreturn]] void fault_at(FaultKind k, const Thread& t, const ir::Op& op,
                             const std::string& detail) const {
    Fault f = fault_for(k, t, op);
    f.message += ": " + detail;
    throw FaultThrow{std::move(f)};
  }

  // ------------------------------------------------ values

  std::uint64_t raw(const Thread& t, const ir::Val& v) const {
    switch (v.kind) {
    case ir::Val::Kind::reg:
      return t.regs[v.reg];
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

  std::uint64_t special(const Thread& t, ir::Special sp) const {
    switch (sp) {
    case ir::Special::tid_x:
      return t.xyz[0];
    case ir::Special::tid_y:
      return t.xyz[1];
    case ir::Special::tid_z:
      return t.xyz[2];
    case ir::Special::ntid_x:
      return l_.block_dim[0];
    case ir::Special::ntid_y:
      return l_.block_dim[1];
    case ir::Special::ntid_z:
      return l_.block_dim[2];
    case ir::Special::ctaid_x:
      return bid_xyz_[0];
    case ir::Special::ctaid_y:
      return bid_xyz_[1];
    case ir::Special::ctaid_z:
      return bid_xyz_[2];
    case ir::Special::nctaid_x:
      return l_.grid_dim[0];
    case ir::Special::nctaid_y:
      return l_.grid_dim[1];
    case ir::Special::nctaid_z:
      return l_.grid_dim[2];
    case ir::Special::laneid:
      return t.tid & 31u; // warps are formed from the linear index
    case ir::Special::warpid:
      return t.tid >> 5;
    case ir::Special::clock:
    case ir::Special::clock64:
    case ir::Special::globaltimer:
      return res_.instructions_executed; // deterministic and increasing
    case ir::Special::smid:
      return 0;
    case ir::Special::nsmid:
      return 1;
    case ir::Special::lanemask_eq:
      return 1ull << (t.tid & 31u);
    case ir::Special::lanemask_le:
      return mask((t.tid & 31u) + 1);
    case ir::Special::lanemask_lt:
      return mask(t.tid & 31u);
    case ir::Special::lanemask_ge:
      return ~mask(t.tid & 31u) & 0xffffffffull;
    case ir::Special::lanemask_gt:
      return ~mask((t.tid & 31u) + 1) & 0xffffffffull;
    case ir::Special::dynamic_smem_size:
      return l_.dynamic_shared_bytes;
    case ir::Special::total_smem_size:
      return e_.shared_bytes + l_.dynamic_shared_bytes;
    case ir::Special::nwarpid:
      return (l_.block_total() + 31) / 32;
    case ir::Special::reserved_smem_begin:
    case ir::Special::reserved_smem_0:
      return reserved_begin_;
    case ir::Special::reserved_smem_end:
      return reserved_begin_ + reserved_smem_bytes;
    case ir::Special::reserved_smem_cap:
      return reserved_smem_bytes;
    case ir::Special::reserved_smem_1:
      return reserved_begin_ + 8;
    }
    unreachable("special(): not an ir::Special value");
  }

  /// The operand as an integer of `ty`: sign-extended when signed, else zero-extended.
  std::uint64_t get(const Thread& t, const ir::Val& v, ir::Type ty) const {
    std::uint64_t r = raw(t, v);
    return ty.is_signed ? static_cast<std::uint64_t>(sext(r, ty.bits)) : (r & mask(ty.bits));
  }

  void set(Thread& t, std::uint32_t reg, std::uint64_t v) const {
    t.regs[reg] = v & e_.reg_mask[reg];
  }

  std::uint64_t address(const Thread& t, const ir::Addr& a) const {
    std::uint64_t base = a.has_reg ? t.regs[a.reg] : 0;
    return (base + static_cast<std::uint64_t>(a.offset)) & mask(a.bits);
  }

  // ------------------------------------------------ memory

  std::int32_t find_buffer(std::uint64_t addr, std::uint64_t n) const {
    for (std::size_t k = 0; k < mem_.size(); ++k) {
      const auto& b = mem_[k];
      std::uint64_t size = b.bytes != nullptr ? b.bytes->size() : 0;
      if (addr >= b.address && n <= size && addr - b.address <= size - n)
        return static_cast<std::int32_t>(k);
    }
    return -1;
  }

  /// The global buffers and their address ranges, for messages.
  std::string buffer_list() const {
    std::string best;
    for (const auto& b : mem_) {
      std::uint64_t size = b.bytes != nullptr ? b.bytes->size() : 0;
      best += (best.empty() ? "" : ", ") + (b.name.empty() ? std::string("buffer") : b.name) +
              " [" + hex(b.address) + ", " + hex(b.address + size) + ")";
    }
    return best.empty() ? "no global buffers" : "global buffers: " + best;
  }

  std::uint8_t* global_bytes(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint64_t n,
                             std::string_view what) const {
    std::int32_t b = find_buffer(addr, n);
    if (b < 0)
      fault_at(FaultKind::illegal_address, t, op,
               std::string(what) + " of " + std::to_string(n) + " bytes at global address " +
                   hex(addr) + " lies outside every buffer (" + buffer_list() + ")");
    return mem_[b].bytes->data() + (addr - mem_[b].address);
  }

  void check_shared(const Thread& t, const ir::Op& op, std::uint64_t off, std::uint64_t n,
                    std::string_view what) const {
    if (off > smem_.size() || n > smem_.size() - off)
      fault_at(FaultKind::illegal_address, t, op,
               std::string(what) + " of " + std::to_string(n) + " bytes at shared address " +
                   hex(off) + " lies outside shared memory (" + std::to_string(smem_.size()) +
                   " bytes)");
  }

  void check_align(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint64_t n,
                   std::string_view what) const {
    if (n != 0 && addr % n != 0)
      fault_at(FaultKind::misaligned_address, t, op,
               std::string(what) + " address " + hex(addr) + " is not aligned to " +
                   std::to_string(n) + " bytes");
  }

  /// issue 13, run --profile: reports an access of `op` to the CTA's profile, if any.
  void profiled(const Thread& t, const ir::Op& op, AccessKind kind, std::uint64_t addr,
                std::uint64_t n) {
    if (!prof_)
      return;
    const auto index = static_cast<std::uint32_t>(&op - e_.ops.data());
    prof_->access(index, op.line, e_.texts[op.text], kind, t.tid, t.iterations[slot_[index]], addr,
                  static_cast<std::uint32_t>(n));
  }

  // ------------------------------------------------ race tracking

  /// The access `op` of thread `t` is making now.
  Access now(const Thread& t, const ir::Op& op) const {
    auto index = static_cast<std::uint32_t>(&op - e_.ops.data());
    return {static_cast<std::int32_t>(t.tid), index, t.iterations[slot_[index]], mb_.clock(t.tid)};
  }

  /// Whether `a` (another thread's access) is ordered before `self` by mbarrier phases.
  bool ordered(const Access& a, const Access& self) const {
    return mb_.ordered(static_cast<std::uint32_t>(a.tid), a.clock,
                       static_cast<std::uint32_t>(self.tid));
  }

  /// Whether both accesses are strong (atomics, .relaxed/.acquire/.release/.volatile):
  /// never a data race in PTX's memory model.
  bool both_strong(const Access& a, const Access& b) const {
    return e_.ops[a.op].strong && e_.ops[b.op].strong;
  }

  /// The pending copy of thread `tid` that will write shared byte `b`, as an access.
  Access pending_copy(std::int32_t tid, std::uint64_t b) const {
    for (const auto& c : threads_[static_cast<std::size_t>(tid)].copies) {
      if (b >= c.dst && b < c.dst + c.size)
        return {tid, c.op, c.iteration, c.clock};
    }
    unreachable("pending_copy(): a byte marked pending has no pending copy");
  }

  /// The shared array holding byte `b` and the offset within it.
  std::pair<std::string, std::uint64_t> symbol_of(std::uint64_t b) const {
    for (const auto& a : e_.shared) {
      if (b >= a.offset && (a.is_extern || b < a.offset + a.bytes))
        return {a.name, b - a.offset};
    }
    return {"(padding)", b}; // between arrays: only reachable through a stray address
  }

  RaceAccess race_access(const Access& a) const { return {a.tid, e_.ops[a.op].line, a.iteration}; }

  /// Throws a `race` fault: `self` (the faulting access) conflicts with `earlier` on byte `b`.
  [[noreturn]] void race(RaceKind k, const Thread& t, const Access& self, std::uint64_t b,
                         const Access& earlier) const {
    const ir::Op& op = e_.ops[self.op];
    Fault f = fault_for(FaultKind::race, t, op);
    Race r;
    r.kind = k;
    std::tie(r.symbol, r.offset) = symbol_of(b);
    r.access = race_access(self);
    r.other = race_access(earlier);
    const std::string whose = earlier.tid == self.tid
                                  ? std::string("this thread")
                                  : other(static_cast<std::uint32_t>(earlier.tid));
    const auto [relation, consequence] = race_relation(k);
    f.message += ", iteration " + std::to_string(self.iteration) + ": " + std::string(name(k)) +
                 ": byte " + std::to_string(r.offset) + " of shared `" + r.symbol + "` is " +
                 std::string(relation) + " " + whose + " at PTX line " +
                 std::to_string(r.other.ptx_line) + " (iteration " +
                 std::to_string(earlier.iteration) + ")" + std::string(consequence);
    f.race = std::move(r);
    throw FaultThrow{std::move(f)};
  }

  /// How byte and earlier access relate ("... by"), and what follows from it.
  static std::pair<std::string_view, std::string_view> race_relation(RaceKind k) {
    switch (k) {
    case RaceKind::read_before_wait:
      return {"to be written by an async copy that no wait (wait_group / wait_all, or an "
              "mbarrier wait on its phase) has completed, issued by",
              ""};
    case RaceKind::read_in_flight:
      return {"the destination of a pending cp.async issued by", ""};
    case RaceKind::read_after_write:
      return {
          "written, with no bar.sync both passed (nor an mbarrier phase ordering them) since, by",
          ""};
    case RaceKind::write_after_read:
      return {"read, with no bar.sync both passed (nor an mbarrier phase ordering them) since, by",
              "; a refill needs a barrier after the last read"};
    case RaceKind::write_after_write:
      return {"also written, with no bar.sync both passed (nor an mbarrier phase ordering them) "
              "since, by",
              ""};
    case RaceKind::pending_copies:
    case RaceKind::write_in_flight:
      return {"the destination of a pending cp.async issued by",
              "; the order of the two writes is undefined"};
    }
    unreachable("race_relation(): not a RaceKind value");
  }

  void on_read(const Thread& t, const ir::Op& op, std::uint64_t off, std::uint64_t n) {
    const Access self = now(t, op);
    for (std::uint64_t b = off; b < off + n; ++b) {
      ByteState& s = track_[b];
      if (s.pending == self.tid)
        race(RaceKind::read_before_wait, t, self, b, pending_copy(s.pending, b));
      if (s.pending >= 0)
        race(RaceKind::read_in_flight, t, self, b, pending_copy(s.pending, b));
      if (s.writer.tid >= 0 && s.writer.tid != self.tid && s.wphase == phase_ &&
          !ordered(s.writer, self) && !both_strong(s.writer, self))
        race(RaceKind::read_after_write, t, self, b, s.writer);
      if (s.rphase != phase_) {
        s.reader = self;
        s.reader2 = Access{};
        s.rphase = phase_;
      } else if (s.reader.tid == self.tid) {
        s.reader = self;
      } else {
        s.reader2 = s.reader;
        s.reader = self;
      }
    }
  }

  /// Checks a write of `self` (a st, or a copy at issue / when performed) against
  /// the other accesses. `copy`: the write is a cp.async's.
  void check_write(const Thread& t, const Access& self, std::uint64_t off, std::uint64_t n,
                   bool copy, bool own_pending_ok) const {
    for (std::uint64_t b = off; b < off + n; ++b) {
      const ByteState& s = track_[b];
      if (s.pending >= 0 && !(own_pending_ok && s.pending == self.tid))
        race(copy ? RaceKind::pending_copies : RaceKind::write_in_flight, t, self, b,
             pending_copy(s.pending, b));
      if (s.writer.tid >= 0 && s.writer.tid != self.tid && s.wphase == phase_ &&
          !ordered(s.writer, self) && !both_strong(s.writer, self))
        race(RaceKind::write_after_write, t, self, b, s.writer);
      if (s.rphase == phase_ && s.reader.tid >= 0) {
        if (s.reader.tid != self.tid && !ordered(s.reader, self) && !both_strong(s.reader, self))
          race(RaceKind::write_after_read, t, self, b, s.reader);
        if (s.reader2.tid >= 0 && s.reader2.tid != self.tid && !ordered(s.reader2, self) &&
            !both_strong(s.reader2, self))
          race(RaceKind::write_after_read, t, self, b, s.reader2);
      }
    }
  }

  void mark_written(const Access& self, std::uint64_t off, std::uint64_t n) {
    for (std::uint64_t b = off; b < off + n; ++b) {
      ByteState& s = track_[b];
      s.writer = self;
      s.wphase = phase_;
    }
  }

  // ------------------------------------------------ cp.async

  void issue(Thread& t, const ir::Op& op) {
    std::uint64_t dst = address(t, op.addr);
    std::uint64_t src = address(t, op.addr2);
    Copy c;
    c.dst = dst;
    c.src = src;
    c.size = op.cp_size;
    c.src_bytes = op.cp_size;
    c.group = t.open_group;
    const Access self = now(t, op);
    c.op = self.op;
    c.iteration = self.iteration;
    c.clock = self.clock;
    c.seq = t.seq++;
    if (op.zfill == ir::ZeroFill::src_size) {
      std::uint64_t s = get(t, op.zval, ir::Type{32, false});
      if (s > op.cp_size)
        fault_at(FaultKind::undefined_behavior, t, op,
                 "src-size " + std::to_string(s) + " exceeds cp-size " +
                     std::to_string(op.cp_size) + " (undefined in PTX)");
      c.src_bytes = static_cast<std::uint32_t>(s);
    } else if (op.zfill == ir::ZeroFill::ignore_src) {
      bool p = (t.regs[op.zval.reg] != 0) != op.zneg;
      if (p)
        c.src_bytes = 0; // ignore-src true: the source is neither read nor checked
    }
    bool ignored = op.zfill == ir::ZeroFill::ignore_src && c.src_bytes == 0;
    check_align(t, op, dst, op.cp_size, "cp.async destination");
    if (!ignored)
      check_align(t, op, src, op.cp_size, "cp.async source");
    check_shared(t, op, dst, op.cp_size, "cp.async destination");
    not_an_mbarrier(t, op, dst, op.cp_size, "cp.async destination");
    if (c.src_bytes > 0) {
      global_bytes(t, op, src, c.src_bytes, "cp.async source");
      c.buffer = find_buffer(src, c.src_bytes);
    }
    check_write(t, self, dst, op.cp_size, true, false);
    profiled(t, op, AccessKind::shared_async, dst, op.cp_size);
    if (c.src_bytes > 0)
      profiled(t, op, AccessKind::global_async, src, c.src_bytes);
    for (std::uint64_t b = dst; b < dst + op.cp_size; ++b)
      track_[b].pending = static_cast<std::int32_t>(t.tid);
    t.copies.push_back(c);
  }

  void perform(const Thread& t, const Copy& c) {
    const Access self{static_cast<std::int32_t>(t.tid), c.op, c.iteration, c.clock};
    for (std::uint64_t b = c.dst; b < c.dst + c.size; ++b)
      track_[b].pending = -1;
    check_write(t, self, c.dst, c.size, true, true);
    std::uint8_t* d = smem_.data() + c.dst;
    if (c.src_bytes > 0) {
      const auto& buf = mem_[static_cast<std::size_t>(c.buffer)];
      std::memcpy(d, buf.bytes->data() + (c.src - buf.address), c.src_bytes);
    }
    std::memset(d + c.src_bytes, 0, c.size - c.src_bytes);
    mark_written(self, c.dst, c.size);
  }

  /// Performs the thread's copies whose group is below `limit` (all when limit is max).
  void complete(Thread& t, std::uint32_t limit) {
    perform_if(t, [&](const Copy& c) { return !c.bulk && c.group < limit; });
  }

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

  void exit_thread(Thread& t, std::uint32_t line) {
    // Copies an mbarrier tracks (cp.async.mbarrier.arrive, bulk) land with their phase.
    const auto untracked = [&](const Copy& c) { return !c.bulk && c.seq >= t.tracked_seq; };
    if (std::any_of(t.copies.begin(), t.copies.end(), untracked)) {
      if (exits_.threads++ == 0)
        exits_.first = who(t.tid) + " at PTX line " + std::to_string(line) +
                       " (first copy: PTX line " +
                       std::to_string(e_.ops[t.copies.front().op].line) + ")";
      perform_if(t, untracked);
    }
    t.state = State::exited;
    t.stop_line = line;
  }

  // ------------------------------------------------ ld / st

  void load_store(Thread& t, const ir::Op& op, bool is_ld) {
    std::uint32_t size = op.type.bits / 8u;
    std::uint64_t total = static_cast<std::uint64_t>(size) * op.vec;
    std::uint64_t addr = address(t, op.addr);
    std::uint8_t* bytes = nullptr;
    const char* what = is_ld ? "load" : "store";
    if (op.space == ir::Space::param) {
      bytes = const_cast<std::uint8_t*>(params_.data()) + addr; // offset checked by the parser
    } else if (op.space == ir::Space::frame) {
      bytes = t.frame + addr; // offset checked by the parser
    } else if (op.space == ir::Space::local ||
               (op.space == ir::Space::generic && addr >= local_window_base &&
                addr - local_window_base < e_.frame_bytes)) {
      if (op.space == ir::Space::generic)
        addr -= local_window_base;
      check_align(t, op, addr, total, what);
      if (addr > e_.frame_bytes || total > e_.frame_bytes - addr)
        fault_at(FaultKind::illegal_address, t, op,
                 std::string(what) + " of " + std::to_string(total) + " bytes at local address " +
                     hex(addr) + " lies outside the thread's " + std::to_string(e_.frame_bytes) +
                     " local bytes");
      bytes = t.frame + addr;
    } else {
      check_align(t, op, addr, total, what);
      bool shared = op.space == ir::Space::shared;
      if (op.space == ir::Space::generic && addr >= shared_window_base &&
          addr - shared_window_base < smem_.size()) {
        shared = true;
        addr -= shared_window_base;
      }
      if (shared) {
        check_shared(t, op, addr, total, what);
        not_an_mbarrier(t, op, addr, total, what);
        profiled(t, op, is_ld ? AccessKind::shared_load : AccessKind::shared_store, addr, total);
        t.spin_read = is_ld && (op.strong || t.spin_read);
        if (is_ld) {
          on_read(t, op, addr, total);
        } else {
          const Access self = now(t, op);
          check_write(t, self, addr, total, false, false);
          mark_written(self, addr, total);
        }
        bytes = smem_.data() + addr;
      } else {
        t.spin_read = is_ld && (op.strong || t.spin_read);
        bytes = global_bytes(t, op, addr, total, what);
        profiled(t, op, is_ld ? AccessKind::global_load : AccessKind::global_store, addr, total);
      }
    }
    for (std::uint32_t k = 0; k < op.vec; ++k) {
      std::uint8_t* p = bytes + static_cast<std::size_t>(k) * size;
      if (is_ld) {
        std::uint64_t v = 0;
        std::memcpy(&v, p, size); // little-endian host
        if (op.type.is_signed)
          v = static_cast<std::uint64_t>(sext(v, op.type.bits));
        set(t, op.dst[k], v);
      } else {
        std::uint64_t v = raw(t, op.src[k]);
        std::memcpy(p, &v, size);
      }
    }
  }

  // ------------------------------------------------ the interpreter

  /// Whether the thread runs on after an instruction.
  enum class Flow : std::uint8_t {
    next, ///< runs the next instruction
    stop, ///< waits at a barrier or has exited
  };

  /// Runs the thread until it waits at a barrier or exits.
  void step(Thread& t) {
    const ir::Op* ops = e_.ops.data();
    const std::size_t count = e_.ops.size();
    while (true) {
      if (t.pc >= count) {
        exit_thread(t, count > 0 ? ops[count - 1].line : e_.line);
        return;
      }
      const ir::Op& op = ops[t.pc];
      if (++res_.instructions_executed > max_instructions_)
        fault_at(FaultKind::instruction_limit, t, op,
                 "the launch executed more than " + std::to_string(l_.max_instructions) +
                     " instructions (a loop that does not end?)");
      if (const std::int32_t k = slot_[t.pc]; k >= 0)
        ++t.iterations[k]; // reached, whether or not its guard lets it run
      ++t.pc;
      if (op.guard >= 0 && (t.regs[op.guard] != 0) == op.guard_neg)
        continue;
      if (execute(t, op) == Flow::stop)
        return;
    }
  }

  /// One instruction's semantics: one case per ir::Code (instructions.def).
  /// The integer, move and plain load/store instructions (execute()'s cases that
  /// compute a register from registers, or move bytes with ld/st/cvta).
  Flow integer_op(Thread& t, const ir::Op& op) {
    const ir::Type ty = op.type;
    const unsigned w = ty.bits;
    auto a = [&] { return get(t, op.src[0], ty); };
    auto b = [&] { return get(t, op.src[1], ty); };
    switch (op.code) {
    case ir::Code::mov:
      set(t, op.dst[0], a() & mask(w));
      return Flow::next;
    case ir::Code::ld:
      load_store(t, op, true);
      return Flow::next;
    case ir::Code::st:
      load_store(t, op, false);
      return Flow::next;
    case ir::Code::cvta:
      set(t, op.dst[0], convert_address(t, op) & mask(w));
      return Flow::next;
    case ir::Code::add:
      set(t, op.dst[0], (a() + b()) & mask(w));
      return Flow::next;
    case ir::Code::sub:
      set(t, op.dst[0], (a() - b()) & mask(w));
      return Flow::next;
    case ir::Code::mul_lo:
      set(t, op.dst[0], (a() * b()) & mask(w));
      return Flow::next;
    case ir::Code::mul_hi:
      set(t, op.dst[0], mul_hi(a(), b(), ty) & mask(w));
      return Flow::next;
    case ir::Code::mul_wide:
      set(t, op.dst[0], (a() * b()) & mask(2 * w));
      return Flow::next;
    case ir::Code::mad_lo:
      set(t, op.dst[0], (a() * b() + get(t, op.src[2], ty)) & mask(w));
      return Flow::next;
    case ir::Code::mad_wide: {
      ir::Type wide{static_cast<std::uint8_t>(2 * w), ty.is_signed};
      set(t, op.dst[0], (a() * b() + get(t, op.src[2], wide)) & mask(2 * w));
      return Flow::next;
    }
    case ir::Code::div:
    case ir::Code::rem:
      set(t, op.dst[0], divide(t, op, a(), b()) & mask(w));
      return Flow::next;
    case ir::Code::min:
    case ir::Code::max: {
      bool less = ty.is_signed ? static_cast<std::int64_t>(a()) < static_cast<std::int64_t>(b())
                               : a() < b();
      bool take_a = op.code == ir::Code::min ? less : !less;
      set(t, op.dst[0], (take_a ? a() : b()) & mask(w));
      return Flow::next;
    }
    case ir::Code::shl: {
      std::uint64_t s = get(t, op.src[1], ir::Type{32, false});
      set(t, op.dst[0], s >= w ? 0 : (a() << s) & mask(w));
      return Flow::next;
    }
    case ir::Code::shr:
      set(t, op.dst[0], shift_right(a(), get(t, op.src[1], ir::Type{32, false}), ty) & mask(w));
      return Flow::next;
    case ir::Code::bfe:
      set(t, op.dst[0],
          bit_field_extract(a(), get(t, op.src[1], ir::Type{32, false}),
                            get(t, op.src[2], ir::Type{32, false}), ty) &
              mask(w));
      return Flow::next;
    case ir::Code::and_:
      set(t, op.dst[0], a() & b() & mask(w));
      return Flow::next;
    case ir::Code::or_:
      set(t, op.dst[0], (a() | b()) & mask(w));
      return Flow::next;
    case ir::Code::xor_:
      set(t, op.dst[0], (a() ^ b()) & mask(w));
      return Flow::next;
    case ir::Code::not_:
      set(t, op.dst[0], ~a() & mask(w));
      return Flow::next;
    case ir::Code::neg:
      set(t, op.dst[0], (0 - a()) & mask(w));
      return Flow::next;
    case ir::Code::cvt:
      set(t, op.dst[0], get(t, op.src[0], op.type2) & mask(w));
      return Flow::next;
    case ir::Code::setp:
      set(t, op.dst[0], compare(op.cmp, a(), b(), ty.is_signed) ? 1 : 0);
      return Flow::next;
    case ir::Code::selp:
      set(t, op.dst[0], (t.regs[op.src[2].reg] != 0 ? a() : b()) & mask(w));
      return Flow::next;
    case ir::Code::isspacep: {
      const std::uint64_t v = raw(t, op.src[0]);
      const bool shared = v >= shared_window_base && v - shared_window_base < smem_.size();
      const bool local = v >= local_window_base && v - local_window_base < e_.frame_bytes;
      const bool in = op.space == ir::Space::shared  ? shared
                      : op.space == ir::Space::local ? local
                                                     : !shared && !local;
      set(t, op.dst[0], in ? 1 : 0);
      return Flow::next;
    }
    case ir::Code::mov_unpack: {
      const unsigned eb = w / op.vec;
      const std::uint64_t v = raw(t, op.src[0]);
      for (unsigned k = 0; k < op.vec; ++k)
        set(t, op.dst[k], (v >> (k * eb)) & mask(eb));
      return Flow::next;
    }
    case ir::Code::mov_pack: {
      const unsigned eb = w / op.vec;
      std::uint64_t v = 0;
      for (unsigned k = 0; k < op.vec; ++k)
        v |= (raw(t, op.src[k]) & mask(eb)) << (k * eb);
      set(t, op.dst[0], v);
      return Flow::next;
    }
    case ir::Code::bfind:
      set(t, op.dst[0], find_msb(a(), ty, op.shiftamt));
      return Flow::next;
    default:
      unreachable("integer_op(): not an integer, move or load/store instruction");
    }
  }

  Flow execute(Thread& t, const ir::Op& op) {
    if (float_form(op))
      return arith(t, op);
    switch (op.code) {
    case ir::Code::cp_async:
      issue(t, op);
      return Flow::next;
    case ir::Code::commit_group:
      ++t.open_group; // a commit with no copy since the last one is a real, empty group
      return Flow::next;
    case ir::Code::wait_group: {
      // All but the n newest committed groups complete; uncommitted copies stay pending.
      auto n = static_cast<std::uint64_t>(op.n);
      complete(t, t.open_group > n ? t.open_group - static_cast<std::uint32_t>(n) : 0);
      return Flow::next;
    }
    case ir::Code::wait_all: // commits, then completes everything
      ++t.open_group;
      complete(t, ~0u);
      return Flow::next;
    case ir::Code::createpolicy:
      // A policy is a hint; any 64-bit value will do.
      set(t, op.dst[0], 0x1000000000000000ull);
      return Flow::next;
    case ir::Code::isspacep:
    case ir::Code::mov_unpack:
    case ir::Code::mov_pack:
    case ir::Code::bfind:
    case ir::Code::mov:
    case ir::Code::ld:
    case ir::Code::st:
    case ir::Code::cvta:
    case ir::Code::add:
    case ir::Code::sub:
    case ir::Code::mul_lo:
    case ir::Code::mul_hi:
    case ir::Code::mul_wide:
    case ir::Code::mad_lo:
    case ir::Code::mad_wide:
    case ir::Code::div:
    case ir::Code::rem:
    case ir::Code::min:
    case ir::Code::max:
    case ir::Code::shl:
    case ir::Code::shr:
    case ir::Code::bfe:
    case ir::Code::and_:
    case ir::Code::or_:
    case ir::Code::xor_:
    case ir::Code::not_:
    case ir::Code::neg:
    case ir::Code::cvt:
    case ir::Code::setp:
    case ir::Code::selp:
      return integer_op(t, op);
    case ir::Code::prmt:
    case ir::Code::bfi:
    case ir::Code::shf:
    case ir::Code::lop3:
    case ir::Code::popc:
    case ir::Code::clz:
    case ir::Code::brev:
    case ir::Code::abs:
    case ir::Code::fmul:
    case ir::Code::fma:
      return arith(t, op);
    case ir::Code::nanosleep: // hints: the scheduler runs the others anyway, and
    case ir::Code::prefetch:  // a prefetch of a bad address does not fault either
      return Flow::next;
    case ir::Code::ldmatrix:
    case ir::Code::shfl:
    case ir::Code::vote:
      return warp_collective(t, op);
    case ir::Code::bar:
      t.state = State::at_barrier;
      t.barrier = op.n >= 0 ? op.n : static_cast<std::int64_t>(raw(t, op.src[0]) & mask(32));
      if (t.barrier > 15)
        fault_at(FaultKind::undefined_behavior, t, op,
                 "barrier number " + std::to_string(t.barrier) + " is outside 0..15");
      t.stop_line = op.line;
      return Flow::stop;
    case ir::Code::ret:
      if (!t.calls.empty() && op.n == 0) {
        return_from_call(t);
        return Flow::next;
      }
      exit_thread(t, op.line);
      return Flow::stop;
    case ir::Code::call:
      call(t, op);
      return Flow::next;
    case ir::Code::trap:
      fault_at(FaultKind::trap, t, op, "the kernel trapped");
    case ir::Code::bra: {
      const bool backward = static_cast<std::uint32_t>(op.n) < t.pc;
      t.pc = static_cast<std::uint32_t>(op.n);
      if (backward && t.spin_read) { // a polling loop: let the others run (simulator.hpp)
        t.spin_read = false;
        return Flow::stop;
      }
      return Flow::next;
    }
    case ir::Code::atom:
    case ir::Code::red:
      atomic(t, op);
      return Flow::next;
    case ir::Code::fence: // see instructions.def
      return Flow::next;
    case ir::Code::activemask:
      return active_mask(t, op);
    case ir::Code::match_any:
      return warp_collective(t, op);
    case ir::Code::mbar_init:
    case ir::Code::mbar_arrive:
    case ir::Code::mbar_arrive_drop:
    case ir::Code::mbar_arrive_tx:
    case ir::Code::mbar_expect_tx:
    case ir::Code::mbar_wait:
    case ir::Code::mbar_wait_parity:
    case ir::Code::mbar_inval:
    case ir::Code::cp_mbar_arrive:
    case ir::Code::bulk_copy:
      return mbarrier_op(t, op);
    case ir::Code::mbar_pending_count: // the low half of an arrival state (mbarrier.hpp)
      set(t, op.dst[0], raw(t, op.src[0]) & 0xffffffffull);
      return Flow::next;
    case ir::Code::async_fence: // see instructions.def
      return Flow::next;
    case ir::Code::unsupported:
      fault_at(FaultKind::unsupported, t, op, e_.texts[static_cast<std::size_t>(op.n)]);
    }
    return Flow::next;
  }

  /// A warp-collective instruction (ldmatrix): the thread waits until every
  /// lane of its warp is at the same instruction; the last to arrive performs
  /// it for the warp, and all run on.
  Flow warp_collective(Thread& t, const ir::Op& op) {
    t.state = State::at_warp;
    t.stop_line = op.line;
    const std::size_t first = t.tid & ~31u;
    const std::size_t last = std::min<std::size_t>(first + 32, threads_.size());
    for (std::size_t k = first; k < last; ++k) {
      const Thread& u = threads_[k];
      if (u.state == State::exited || (u.state == State::at_warp && u.pc != t.pc))
        fault_at(FaultKind::barrier_divergence, t, op,
                 "every lane of the warp must execute this .sync.aligned instruction together, "
                 "but " +
                     other(u.tid) + " is at PTX line " + std::to_string(u.stop_line));
      if (u.state != State::at_warp)
        return Flow::stop;
    }
    if (op.code == ir::Code::ldmatrix)
      load_matrices(first, last, op);
    else
      exchange(first, last, op);
    for (std::size_t k = first; k < last; ++k)
      threads_[k].state = State::running;
    return Flow::next;
  }

  /// activemask: the thread waits until no lane of its warp can run on; the lanes then at
  /// this same instruction are the active ones (simulator.hpp, "Warp queries").
  Flow active_mask(Thread& t, const ir::Op& op) {
    t.state = State::at_warp;
    t.stop_line = op.line;
    const std::size_t first = t.tid & ~31u;
    const std::size_t last = std::min<std::size_t>(first + 32, threads_.size());
    for (std::size_t k = first; k < last; ++k) {
      if (threads_[k].state == State::running)
        return Flow::stop;
    }
    settle_active_mask(first, last, t.pc);
    return Flow::next;
  }

  /// Gives the lanes of [first, last) waiting in the activemask before `pc` their mask.
  void settle_active_mask(std::size_t first, std::size_t last, std::uint32_t pc) {
    std::uint64_t lanes = 0;
    for (std::size_t k = first; k < last; ++k) {
      if (threads_[k].state == State::at_warp && threads_[k].pc == pc)
        lanes |= 1ull << (k - first);
    }
    for (std::size_t k = first; k < last; ++k) {
      Thread& u = threads_[k];
      if (u.state == State::at_warp && u.pc == pc) {
        set(u, e_.ops[pc - 1].dst[0], lanes);
        u.state = State::running;
      }
    }
  }

  /// When no thread can run: settles every warp waiting in an activemask. Whether any did.
  bool settle_active_masks() {
    bool any = false;
    for (const Thread& t : threads_) {
      if (t.state == State::at_warp && e_.ops[t.pc - 1].code == ir::Code::activemask) {
        const std::size_t first = t.tid & ~31u;
        settle_active_mask(first, std::min<std::size_t>(first + 32, threads_.size()), t.pc);
        any = true;
      }
    }
    return any;
  }

  /// shfl.sync and vote.sync for the warp of lanes [first, last) (PTX ISA
  /// pseudocode; a lane outside the warp reads its own value).
  void exchange(std::size_t first, std::size_t last, const ir::Op& op) {
    std::uint64_t result[32] = {};
    const std::size_t lanes = last - first;
    std::uint32_t ballot = 0;
    for (std::size_t l = 0; l < lanes; ++l) {
      const Thread& u = threads_[first + l];
      if (op.code == ir::Code::vote)
        ballot |= static_cast<std::uint32_t>((u.regs[op.src[0].reg] != 0) != op.src_neg) << l;
    }
    for (std::size_t l = 0; l < lanes; ++l) {
      const Thread& u = threads_[first + l];
      if (op.code == ir::Code::match_any) {
        const std::uint64_t members = raw(u, op.src[1]);
        const std::uint64_t v = get(u, op.src[0], op.type);
        for (std::size_t j = 0; j < lanes; ++j) {
          if ((members >> j & 1) != 0 && get(threads_[first + j], op.src[0], op.type) == v)
            result[l] |= 1ull << j;
        }
        continue;
      }
      if (op.code == ir::Code::vote) {
        const std::uint32_t all = lanes >= 32 ? ~0u : (1u << lanes) - 1;
        result[l] = op.vote == ir::Vote::ballot ? ballot
                    : op.vote == ir::Vote::all  ? ballot == all
                    : op.vote == ir::Vote::any  ? ballot != 0
                                                : (ballot == 0 || ballot == all);
        continue;
      }
      const auto lane = static_cast<std::int64_t>(l);
      const auto b = static_cast<std::int64_t>(raw(u, op.src[1]) & 31);
      const std::uint64_t c = raw(u, op.src[2]);
      const std::int64_t seg = static_cast<std::int64_t>((c >> 8) & 31);
      const std::int64_t max_lane = (lane & seg) | (static_cast<std::int64_t>(c & 31) & ~seg);
      const std::int64_t min_lane = lane & seg;
      std::int64_t j = lane;
      bool ok = false;
      switch (op.shuffle) {
      case ir::Shuffle::up:
        j = lane - b;
        ok = j >= max_lane;
        break;
      case ir::Shuffle::down:
        j = lane + b;
        ok = j <= max_lane;
        break;
      case ir::Shuffle::bfly:
        j = lane ^ b;
        ok = j <= max_lane;
        break;
      case ir::Shuffle::idx:
        j = min_lane | (b & ~seg);
        ok = j <= max_lane;
        break;
      }
      if (!ok || j < 0 || j >= static_cast<std::int64_t>(lanes))
        j = lane;
      result[l] = raw(threads_[first + static_cast<std::size_t>(j)], op.src[0]);
    }
    for (std::size_t l = 0; l < lanes; ++l)
      set(threads_[first + l], op.dst[0], result[l]);
  }

  /// ldmatrix for the warp of lanes [first, last): lane i (< 8 * Op::vec) gives
  /// the address of row i % 8 of matrix i / 8 (16 bytes); lane l receives of
  /// each matrix row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1, or with .trans
  /// column l / 4 of rows 2 (l % 4) and 2 (l % 4) + 1 (the first in the low half).
  void load_matrices(std::size_t first, std::size_t last, const ir::Op& op) {
    std::uint64_t rows[32] = {};
    const std::size_t lanes = last - first;
    for (std::size_t i = 0; i < 8u * op.vec; ++i) {
      if (i >= lanes)
        fault_at(FaultKind::undefined_behavior, threads_[first], op,
                 "ldmatrix .x" + std::to_string(op.vec) + " takes row addresses from lanes 0.." +
                     std::to_string(8 * op.vec - 1) + "; this warp has " + std::to_string(lanes) +
                     " lanes");
      const Thread& u = threads_[first + i];
      rows[i] = address(u, op.addr);
      check_align(u, op, rows[i], 16, "ldmatrix row");
      check_shared(u, op, rows[i], 16, "ldmatrix row");
      on_read(u, op, rows[i], 16);
    }
    auto u16 = [&](std::uint64_t a) {
      return static_cast<std::uint32_t>(smem_[a] | (smem_[a + 1] << 8));
    };
    for (std::size_t l = 0; l < lanes; ++l) {
      for (std::uint32_t m = 0; m < op.vec; ++m) {
        const std::uint64_t* r = rows + 8 * m;
        const std::uint32_t v =
            op.trans
                ? u16(r[2 * (l % 4)] + 2 * (l / 4)) | u16(r[2 * (l % 4) + 1] + 2 * (l / 4)) << 16
                : u16(r[l / 4] + 4 * (l % 4)) | u16(r[l / 4] + 4 * (l % 4) + 2) << 16;
        set(threads_[first + l], op.dst[m], v);
      }
    }
  }

  /// A call: the arguments copied into the callee's parameters, then its first op.
  void call(Thread& t, const ir::Op& op) {
    const ir::Call* pc = &e_.calls[static_cast<std::size_t>(op.n)];
    if (pc->indirect) {
      const std::uint64_t to = raw(t, op.src[0]);
      const ir::Call* found = nullptr;
      for (const std::uint32_t k : pc->alternatives) {
        if (e_.calls[k].address == to)
          found = &e_.calls[k];
      }
      if (found == nullptr)
        fault_at(FaultKind::illegal_address, t, op,
                 "indirect call of address " + hex(to) + ", which is no function of the module");
      pc = found;
    }
    const ir::Call& c = *pc;
    for (const ir::Move& m : c.in)
      std::memmove(t.frame + m.to, t.frame + m.from, m.bytes);
    t.calls.push_back(t.pc - 1);
    t.call_index.push_back(static_cast<std::size_t>(&c - e_.calls.data()));
    t.pc = c.target;
  }

  /// A function's ret: its results copied to the caller, which runs on after the call.
  void return_from_call(Thread& t) {
    const std::uint32_t at = t.calls.back();
    t.calls.pop_back();
    const ir::Call& c = e_.calls[t.call_index.back()];
    t.call_index.pop_back();
    for (const ir::Move& m : c.out)
      std::memmove(t.frame + m.to, t.frame + m.from, m.bytes);
    t.pc = at + 1;
  }

  /// Whether `op` is the float form of an instruction that also takes integers.
  static bool float_form(const ir::Op& op) {
    switch (op.code) {
    case ir::Code::add:
    case ir::Code::sub:
    case ir::Code::min:
    case ir::Code::max:
    case ir::Code::neg:
    case ir::Code::setp:
      return op.type.num != ir::Num::integer || op.sat;
    case ir::Code::cvt:
      return op.type.num != ir::Num::integer || op.type2.num != ir::Num::integer || op.sat;
    default:
      return false;
    }
  }

  /// The instructions computed by driver/sim/alu (bit operations, floats, cvt).
  Flow arith(Thread& t, const ir::Op& op) {
    const unsigned w = op.type.bits;
    auto r = [&](std::size_t k) { return raw(t, op.src[k]); };
    auto u32 = [&](std::size_t k) { return static_cast<std::uint32_t>(r(k)); };
    const alu::FloatMode m{op.round == ir::Round::none ? ir::Round::rn : op.round, op.ftz, op.sat};
    auto fp = [&](alu::FloatOp f) { return alu::float_op(f, op.type.num, m, r(0), r(1), r(2)); };
    const bool integer = op.type.num == ir::Num::integer;
    std::uint64_t v = 0;
    switch (op.code) {
    case ir::Code::prmt:
      v = alu::prmt(u32(0), u32(1), u32(2), op.prmt);
      break;
    case ir::Code::bfi:
      v = alu::bfi(r(0), r(1), u32(2), u32(3), w);
      break;
    case ir::Code::shf:
      v = alu::shf(u32(0), u32(1), u32(2), op.left, op.clamp);
      break;
    case ir::Code::lop3:
      v = alu::lop3(u32(0), u32(1), u32(2), static_cast<std::uint8_t>(op.n));
      break;
    case ir::Code::popc:
      v = alu::popc(r(0), w);
      break;
    case ir::Code::clz:
      v = alu::clz(r(0), w);
      break;
    case ir::Code::brev:
      v = alu::brev(r(0), w);
      break;
    case ir::Code::abs: {
      const auto a = static_cast<std::int64_t>(get(t, op.src[0], op.type));
      v = integer ? static_cast<std::uint64_t>(a < 0 ? 0 - a : a) : fp(alu::FloatOp::abs);
      break;
    }
    case ir::Code::add:
    case ir::Code::sub:
      v = integer ? alu::add_sat_s32(u32(0), u32(1), op.code == ir::Code::sub)
                  : fp(op.code == ir::Code::add ? alu::FloatOp::add : alu::FloatOp::sub);
      break;
    case ir::Code::fmul:
      v = fp(alu::FloatOp::mul);
      break;
    case ir::Code::fma:
      v = fp(alu::FloatOp::fma);
      break;
    case ir::Code::min:
      v = fp(alu::FloatOp::min);
      break;
    case ir::Code::max:
      v = fp(alu::FloatOp::max);
      break;
    case ir::Code::neg:
      v = fp(alu::FloatOp::neg);
      break;
    case ir::Code::setp:
      v = alu::float_compare(op.cmp, op.type.num, op.ftz, r(0), r(1)) ? 1 : 0;
      break;
    case ir::Code::cvt:
      v = alu::convert(op.type, op.type2, op, r(0));
      if (op.type.num == ir::Num::f16x2 || op.type.num == ir::Num::bf16x2) {
        const ir::Type half{16, false,
                            op.type.num == ir::Num::f16x2 ? ir::Num::f16 : ir::Num::bf16};
        v = (alu::convert(half, op.type2, op, r(0)) << 16) | alu::convert(half, op.type2, op, r(1));
      }
      break;
    default:
      unreachable("arith(): not an alu instruction");
    }
    set(t, op.dst[0], v & mask(op.code == ir::Code::setp ? 1 : w));
    return Flow::next;
  }

  /// atom / red: a read-modify-write of shared or global memory. On shared memory it is a
  /// read and a write for the race rules, strong (ir::Op::strong).
  void atomic(Thread& t, const ir::Op& op) {
    const std::uint32_t n = op.type.bits / 8u;
    std::uint64_t addr = address(t, op.addr);
    const char* what = op.code == ir::Code::atom ? "atom" : "red";
    check_align(t, op, addr, n, what);
    bool shared = op.space == ir::Space::shared;
    if (op.space == ir::Space::generic && addr >= shared_window_base &&
        addr - shared_window_base < smem_.size()) {
      shared = true;
      addr -= shared_window_base;
    }
    std::uint8_t* p = nullptr;
    if (shared) {
      check_shared(t, op, addr, n, what);
      not_an_mbarrier(t, op, addr, n, what);
      on_read(t, op, addr, n);
      const Access self = now(t, op);
      check_write(t, self, addr, n, false, false);
      mark_written(self, addr, n);
      p = smem_.data() + addr;
    } else {
      p = global_bytes(t, op, addr, n, what);
    }
    std::uint64_t old = 0;
    std::memcpy(&old, p, n); // little-endian host
    const std::uint64_t v = atomic_result(op.atomic, op.type, old, raw(t, op.src[0]),
                                          op.atomic == ir::Atomic::cas ? raw(t, op.src[1]) : 0);
    std::memcpy(p, &v, n);
    if (op.code == ir::Code::atom)
      set(t, op.dst[0],
          op.type.is_signed ? static_cast<std::uint64_t>(sext(old, op.type.bits)) : old);
    t.spin_read = false;
  }

  /// The value an atomic operation `a` stores over `old` (PTX ISA, atom).
  static std::uint64_t atomic_result(ir::Atomic a, ir::Type ty, std::uint64_t old, std::uint64_t b,
                                     std::uint64_t c) {
    const unsigned w = ty.bits;
    old &= mask(w);
    b &= mask(w);
    const bool less = ty.is_signed ? sext(old, w) < sext(b, w) : old < b;
    std::uint64_t v = 0;
    switch (a) {
    case ir::Atomic::add:
      v = old + b;
      break;
    case ir::Atomic::inc:
      v = old >= b ? 0 : old + 1;
      break;
    case ir::Atomic::dec:
      v = old == 0 || old > b ? b : old - 1;
      break;
    case ir::Atomic::cas:
      v = old == b ? c : old;
      break;
    case ir::Atomic::exch:
      v = b;
      break;
    case ir::Atomic::min:
      v = less ? old : b;
      break;
    case ir::Atomic::max:
      v = less ? b : old;
      break;
    case ir::Atomic::and_:
      v = old & b;
      break;
    case ir::Atomic::or_:
      v = old | b;
      break;
    case ir::Atomic::xor_:
      v = old ^ b;
      break;
    }
    return v & mask(w);
  }

  /// bfind: the bit position of the most significant non-sign bit of `a` (of a negative
  /// signed value: its most significant 0), counted from the msb with .shiftamt;
  /// 0xffffffff when there is none.
  static std::uint64_t find_msb(std::uint64_t a, ir::Type ty, bool shiftamt) {
    const unsigned w = ty.bits;
    a &= mask(w);
    if (ty.is_signed && (a >> (w - 1) & 1) != 0)
      a = ~a & mask(w);
    if (a == 0)
      return 0xffffffffull;
    const auto pos = static_cast<unsigned>(std::bit_width(a)) - 1;
    return shiftamt ? w - 1 - pos : pos;
  }

  std::uint64_t convert_address(const Thread& t, const ir::Op& op) const {
    std::uint64_t v = raw(t, op.src[0]);
    if (op.space == ir::Space::shared)
      v = op.to ? v - shared_window_base : v + shared_window_base;
    if (op.space == ir::Space::local)
      v = op.to ? v - local_window_base : v + local_window_base;
    return v;
  }

  static std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b, ir::Type ty) {
    if (ty.is_signed)
      return static_cast<std::uint64_t>(static_cast<i128>(static_cast<std::int64_t>(a)) *
                                            static_cast<std::int64_t>(b) >>
                                        ty.bits);
    return static_cast<std::uint64_t>(static_cast<u128>(a) * b >> ty.bits);
  }

  std::uint64_t divide(const Thread& t, const ir::Op& op, std::uint64_t a, std::uint64_t b) const {
    if (b == 0)
      fault_at(FaultKind::undefined_behavior, t, op,
               "integer division by zero (the result is unspecified in PTX)");
    bool div = op.code == ir::Code::div;
    if (!op.type.is_signed)
      return div ? a / b : a % b;
    auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
    if (sb == -1)
      return div ? 0 - a : 0; // avoids INT64_MIN / -1
    return static_cast<std::uint64_t>(div ? sa / sb : sa % sb);
  }

  static std::uint64_t shift_right(std::uint64_t a, std::uint64_t s, ir::Type ty) {
    if (ty.is_signed)
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(a) >>
                                        std::min<std::uint64_t>(s, 63));
    return s >= ty.bits ? 0 : a >> s;
  }

  /// bfe (PTX ISA): bits [pos, pos+len) of `a`; above them, and where the
  /// field runs past the msb, the sign bit a[min(pos+len-1, msb)] when signed,
  /// else 0. A zero-length field is 0.
  static std::uint64_t bit_field_extract(std::uint64_t a, std::uint64_t b, std::uint64_t c,
                                         ir::Type ty) {
    const std::uint64_t msb = ty.bits - 1u, pos = b & 0xff, len = c & 0xff;
    if (len == 0)
      return 0;
    const std::uint64_t sbit = ty.is_signed ? (a >> std::min(pos + len - 1, msb)) & 1 : 0;
    std::uint64_t d = 0;
    for (std::uint64_t i = 0; i <= msb; ++i) {
      std::uint64_t bit = i < len && pos + i <= msb ? (a >> (pos + i)) & 1 : sbit;
      d |= bit << i;
    }
    return d;
  }

  /// setp: `a` and `b` are already sign- or zero-extended to 64 bits.
  static bool compare(ir::Cmp cmp, std::uint64_t a, std::uint64_t b, bool is_signed) {
    auto sa = static_cast<std::int64_t>(a), sb = static_cast<std::int64_t>(b);
    switch (cmp) {
    case ir::Cmp::eq:
      return a == b;
    case ir::Cmp::ne:
      return a != b;
    case ir::Cmp::lt:
      return is_signed ? sa < sb : a < b;
    case ir::Cmp::le:
      return is_signed ? sa <= sb : a <= b;
    case ir::Cmp::gt:
      return is_signed ? sa > sb : a > b;
    case ir::Cmp::ge:
      return is_signed ? sa >= sb : a >= b;
    case ir::Cmp::lo:
      return a < b;
    case ir::Cmp::ls:
      return a <= b;
    case ir::Cmp::hi:
      return a > b;
    case ir::Cmp::hs:
      return a >= b;
    case ir::Cmp::equ: // float comparisons: the decoder takes them only with float types
    case ir::Cmp::neu:
    case ir::Cmp::ltu:
    case ir::Cmp::leu:
    case ir::Cmp::gtu:
    case ir::Cmp::geu:
    case ir::Cmp::num:
    case ir::Cmp::nan:
      break;
    }
    return false;
  }

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
  std::uint32_t phase_ = 0;
  detail::Mbarriers mb_;
  std::optional<CtaProfile> prof_; ///< issue 13: set when the launch is profiled

#include "driver/sim/executor_mbarrier.inc"
};

Fault launch_fault(FaultKind k, std::string message, std::uint32_t line = 0) {
  Fault f;
  f.kind = k;
  f.message = std::move(message);
  f.ptx_line = line;
  return f;
}

/// Why `launch` does not fit entry `e` (a fault of kind invalid_launch / unsupported), if it does
/// not.
std::optional<Fault> check_launch(const ir::Entry& e, const Launch& launch) {
  for (const auto& op : e.ops) {
    if (op.code == ir::Code::unsupported)
      return launch_fault(FaultKind::unsupported,
                          "PTX line " + std::to_string(op.line) + " `" + e.texts[op.text] +
                              "`: " + e.texts[static_cast<std::size_t>(op.n)],
                          op.line);
  }
  if (launch.params.size() != e.params.size())
    return launch_fault(FaultKind::invalid_launch,
                        "the launch passes " + std::to_string(launch.params.size()) +
                            " parameters; entry `" + e.name + "` declares " +
                            std::to_string(e.params.size()),
                        e.line);
  bool dims_ok = launch.block_total() <= static_cast<std::uint64_t>(ptx::max_block_threads);
  for (std::size_t k = 0; k < 3; ++k) {
    dims_ok = dims_ok && launch.grid_dim[k] >= 1 && launch.grid_dim[k] <= ptx::max_grid_dims[k] &&
              launch.block_dim[k] >= 1 && launch.block_dim[k] <= ptx::max_block_dims[k];
  }
  if (!dims_ok)
    return launch_fault(
        FaultKind::invalid_launch,
        "grid (" + dim_text(launch.grid_dim) + ") x block (" + dim_text(launch.block_dim) +
            ") is not a valid launch (every dimension at least 1, block at most (" +
            limits_text(ptx::max_block_dims) + ") and " + std::to_string(ptx::max_block_threads) +
            " threads in all, grid at most (" + limits_text(ptx::max_grid_dims) + "))");
  if (e.reqntid && *e.reqntid != launch.block_dim)
    return launch_fault(FaultKind::invalid_launch,
                        "entry `" + e.name + "` requires .reqntid " + dim_text(*e.reqntid) +
                            " but the launch has block (" + dim_text(launch.block_dim) + ")",
                        e.line);
  if (const std::uint64_t total = e.shared_bytes + launch.dynamic_shared_bytes;
      total > static_cast<std::uint64_t>(ptx::max_dynamic_shared_bytes_any_target()))
    return launch_fault(FaultKind::invalid_launch,
                        "entry `" + e.name + "` with " +
                            std::to_string(launch.dynamic_shared_bytes) +
                            " dynamic shared bytes needs " + std::to_string(total) +
                            " bytes of shared memory; no target has more than " +
                            std::to_string(ptx::max_dynamic_shared_bytes_any_target()),
                        e.line);
  return std::nullopt;
}

/// Whether the CTAs of a launch may run on several host threads and give what one after
/// the other gives: no atomics (CTAs may read-modify-write the same global bytes) and no
/// %clock / %globaltimer read (its value is the launch's instruction count so far). Other
/// global bytes that one CTA writes and another reads or writes are a race the contract
/// forbids; everything else a CTA touches (shared memory, mbarriers, registers) is its own.
bool ctas_independent(const ir::Entry& e) {
  for (const ir::Op& op : e.ops) {
    if (op.code == ir::Code::atom || op.code == ir::Code::red)
      return false;
    for (const ir::Val& v : op.src) {
      if (v.kind == ir::Val::Kind::special &&
          (v.special == ir::Special::clock || v.special == ir::Special::clock64 ||
           v.special == ir::Special::globaltimer))
        return false;
    }
  }
  return true;
}

/// One CTA's part of a launch: its own count, exit warnings and fault.
struct CtaRun {
  SimResult res;
  ExitWarnings exits;
};

/// Runs CTA `bid` alone into `r`, with `limit` instructions to spend.
void run_one_cta(const LaunchContext& c, std::uint64_t bid, std::uint64_t limit, CtaRun& r) {
  const LaunchContext own{
      c.e,   c.l,     c.mem, c.params, c.slot, c.slots, c.uses_mbarriers, c.uses_reserved,
      r.res, r.exits, limit};
  try {
    Cta cta(own, bid);
    cta.run();
  } catch (const FaultThrow& f) {
    r.res.fault = f.fault;
  }
}

void merge_exits(ExitWarnings& into, const ExitWarnings& from) {
  if (into.threads == 0)
    into.first = from.first;
  into.threads += from.threads;
}

/// The CTAs one after the other, as the launch's semantics reads: the first fault stops it.
void run_ctas_in_order(const LaunchContext& c, std::uint64_t grid) {
  try {
    for (std::uint64_t bid = 0; bid < grid; ++bid) {
      Cta cta(c, bid);
      cta.run();
    }
  } catch (const FaultThrow& f) {
    c.res.fault = f.fault;
  }
}

/// The CTAs on `workers` host threads, each CTA with its own count and warnings, merged in
/// CTA order into what run_ctas_in_order gives: counts summed up to the first CTA that
/// faults (whose fault is the launch's; CTAs are claimed in order, so every CTA before it
/// ran) or that takes the sum past the limit (rerun alone with what the CTAs before it left,
/// to fault where the in-order run does). Once a CTA faults no new CTA starts.
void run_ctas_in_parallel(const LaunchContext& c, std::uint64_t grid, unsigned workers) {
  std::vector<CtaRun> runs(grid);
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&] {
    while (!stop) {
      const std::uint64_t bid = next++; // claimed: it runs (a CTA after a fault may)
      if (bid >= grid)
        return;
      run_one_cta(c, bid, c.max_instructions, runs[bid]);
      if (runs[bid].res.fault)
        stop = true;
    }
  };
  std::vector<std::jthread> pool;
  for (unsigned w = 1; w < workers; ++w)
    pool.emplace_back(work);
  work();
  pool.clear(); // joins
  std::uint64_t total = 0;
  for (std::uint64_t bid = 0; bid < grid; ++bid) {
    CtaRun& r = runs[bid];
    if (r.res.instructions_executed > c.max_instructions - total) {
      CtaRun again;
      run_one_cta(c, bid, c.max_instructions - total, again);
      c.res.instructions_executed = total + again.res.instructions_executed;
      c.res.fault = std::move(again.res.fault);
      merge_exits(c.exits, again.exits);
      return;
    }
    total += r.res.instructions_executed;
    merge_exits(c.exits, r.exits);
    if (r.res.fault) {
      c.res.fault = std::move(r.res.fault);
      break;
    }
  }
  c.res.instructions_executed = total;
}

} // namespace

SimResult run(const Program& p, std::string_view entry, const Launch& launch,
              std::vector<GlobalBuffer>& memory) {
  SimResult res;
  const ir::Module& m = p.module();
  const ir::Entry* e = nullptr;
  std::string names;
  for (const auto& x : m.entries) {
    names += (names.empty() ? "`" : ", `") + x.name + "`";
    if (x.name == entry)
      e = &x;
  }
  if (e == nullptr) {
    res.fault = launch_fault(FaultKind::invalid_launch,
                             "the module has no entry `" + std::string(entry) +
                                 "` (entries: " + (names.empty() ? "none" : names) + ")");
    return res;
  }
  if (!e->problems.empty()) {
    // Only this entry's problems (and those of the .funcs it calls) refuse it.
    const bool all_unsupported =
        std::all_of(e->problems.begin(), e->problems.end(),
                    [](const Diagnostic& d) { return d.id == DiagId::sim_unsupported_construct; });
    std::string message;
    for (const auto& d : e->problems)
      message += (message.empty() ? "" : "\n") + ptxgen::format(d);
    res.fault = launch_fault(all_unsupported ? FaultKind::unsupported : FaultKind::invalid_ptx,
                             std::move(message), e->problems.front().line);
    return res;
  }
  if (auto bad = check_launch(*e, launch)) {
    res.fault = std::move(bad);
    return res;
  }
  std::vector<std::uint8_t> params(e->param_bytes, 0);
  for (std::size_t k = 0; k < e->params.size(); ++k)
    std::memcpy(params.data() + e->params[k].offset, &launch.params[k], e->params[k].size);
  std::vector<std::int32_t> slot(e->ops.size(), -1);
  std::uint32_t slots = 0;
  bool uses_mbarriers = false;
  bool uses_reserved = false;
  for (std::size_t k = 0; k < e->ops.size(); ++k) {
    if (is_memory_op(e->ops[k].code))
      slot[k] = static_cast<std::int32_t>(slots++);
    uses_mbarriers = uses_mbarriers || is_mbarrier_op(e->ops[k].code);
    for (const ir::Val& v : e->ops[k].src)
      uses_reserved = uses_reserved || (v.kind == ir::Val::Kind::special &&
                                        v.special >= ir::Special::reserved_smem_begin);
  }
  ExitWarnings exits;
  // The module's own .global / .const variables: fresh copies for this launch.
  std::vector<std::vector<std::uint8_t>> data;
  data.reserve(m.data.size());
  std::vector<GlobalBuffer> all = memory;
  for (const auto& d : m.data) {
    data.push_back(d.init);
    all.push_back(GlobalBuffer{d.address, &data.back(), d.name});
  }
  const LaunchContext context{*e,
                              launch,
                              all,
                              params,
                              slot,
                              slots,
                              uses_mbarriers,
                              uses_reserved,
                              res,
                              exits,
                              launch.max_instructions};
  const std::uint64_t grid = launch.grid_total();
  const unsigned workers = static_cast<unsigned>(std::min<std::uint64_t>(
      grid,
      launch.workers != 0 ? launch.workers : std::max(1u, std::thread::hardware_concurrency())));
  if (workers > 1 && ctas_independent(*e))
    run_ctas_in_parallel(context, grid, workers);
  else
    run_ctas_in_order(context, grid);
  if (exits.threads > 0)
    res.warnings.push_back(
        std::to_string(exits.threads) +
        " thread(s) exited with cp.async copies never waited for (first: " + exits.first +
        "); the simulator performed them at exit, as the hardware "
        "eventually would");
  return res;
}

} // namespace ptxgen::sim
