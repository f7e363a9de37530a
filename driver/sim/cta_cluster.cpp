// The executor's CTA in a cluster (cta.hpp; the model: simulator.hpp, "Clusters"): the cluster
// barrier, mapa and distributed shared memory, operations on a peer's mbarriers, bulk copies into
// a peer and multicast copies, and the hazards between the CTAs of a cluster.
//
// Ordering between CTAs: only the cluster barrier orders one CTA's accesses before another's
// (the mbarriers' vector clocks are per CTA). An access made after k non-relaxed arrivals of its
// thread is ordered before the phase of its thread's (k+1)-th non-relaxed arrival, and so before
// whatever a thread does after its wait has seen that phase complete (Thread::cl_release).

#include "driver/sim/cluster.hpp"
#include "driver/sim/cta.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::sim::exec {

// ------------------------------------------------ the cluster barrier

Cta::Flow Cta::cluster_arrive(Thread& t, const ir::Op& op) {
  if (cluster_ == nullptr)
    return Flow::next; // a cluster of one CTA: the wait is a whole-CTA barrier (cluster_wait)
  if (t.cl_arrived != t.cl_waited)
    fault_at(FaultKind::undefined_behavior, t, op,
             "it arrives at the cluster barrier again before the barrier.cluster.wait of its "
             "previous arrival");
  ClusterBarrier& b = cluster_->barrier();
  ++t.cl_arrived;
  ++b.arrived;
  if (op.relaxed)
    b.relaxed[rank_] = true;
  else
    t.cl_release.push_back(b.phase);
  // Its mbarrier.inits become visible cluster-wide with this phase: those a
  // fence.mbarrier_init.release.cluster covers, or all of them with a release arrival.
  std::vector<std::uint64_t> later;
  for (std::size_t k = 0; k < t.cl_inits.size(); ++k) {
    if (k >= t.cl_fenced && op.relaxed) {
      later.push_back(t.cl_inits[k]);
      continue;
    }
    if (auto it = inits_.find(t.cl_inits[k]); it != inits_.end() && !it->second.published)
      it->second.published = b.phase;
  }
  t.cl_inits = std::move(later);
  t.cl_fenced = 0;
  cluster_->settle_barrier();
  return Flow::next;
}

Cta::Flow Cta::cluster_wait(Thread& t, const ir::Op& op) {
  if (cluster_ == nullptr)
    return cluster_barrier(t, op);
  if (t.cl_waited == t.cl_arrived)
    fault_at(FaultKind::undefined_behavior, t, op,
             "barrier.cluster.wait with no barrier.cluster.arrive of this thread since its last "
             "wait");
  if (cluster_->barrier().phase > t.cl_waited) {
    ++t.cl_waited;
    return Flow::next;
  }
  t.state = State::at_cluster;
  t.stop_line = op.line;
  return Flow::stop;
}

void Cta::cluster_released(bool relaxed) {
  const std::uint32_t phase = cluster_->barrier().phase;
  for (Thread& t : threads_) {
    if (t.state == State::at_cluster && phase > t.cl_waited) {
      ++t.cl_waited;
      t.state = State::running;
    }
  }
  if (!relaxed) { // every live thread arrived before and waits after: a CTA phase, as bar.sync
    ++phase_;
    global_phase_done();
  }
}

void Cta::cluster_stuck(const Thread& t) const {
  const ClusterBarrier& b = cluster_->barrier();
  std::string missing;
  for (std::uint32_t r = 0; r < cluster_->size() && missing.empty(); ++r) {
    const Cta& c = cluster_->cta(r);
    for (const Thread& u : c.threads_) {
      if (u.state != State::exited && u.cl_arrived <= b.phase) {
        missing = c.who(u.tid) + " (CTA rank " + std::to_string(r) +
                  ") has not arrived: it waits at PTX line " + std::to_string(u.stop_line);
        break;
      }
    }
  }
  if (missing.empty())
    missing = "no live thread can arrive";
  fault_at(FaultKind::deadlock, t, e_.ops[t.pc - 1],
           "it waits at barrier.cluster.wait for phase " + std::to_string(b.phase) +
               " of the cluster barrier, which never completes: " + std::to_string(b.arrived) +
               " arrival(s), " + std::to_string(b.live) + " live thread(s) in the cluster; " +
               missing);
}

// ------------------------------------------------ addresses: mapa, the CTA an address names

std::uint64_t Cta::map_address(const Thread& t, const ir::Op& op) const {
  const std::uint64_t a = get(t, op.src[0], op.type);
  const std::uint64_t rank = get(t, op.src[1], ir::Type{32, false});
  if (rank >= cluster_size_)
    fault_at(FaultKind::undefined_behavior, t, op,
             "mapa to CTA rank " + std::to_string(rank) + "; the cluster has " +
                 std::to_string(cluster_size_) + " CTA(s) (%cluster_nctarank)");
  const auto strip = [](std::uint64_t off) {
    return off >= cluster_window_stride ? off % cluster_window_stride : off;
  };
  if (op.space == ir::Space::shared)
    return (rank + 1) * cluster_window_stride + strip(a);
  if (!in_shared_window(a))
    fault_at(FaultKind::undefined_behavior, t, op,
             "mapa of the generic address " + hex(a) + ", which is not in shared memory");
  return shared_window_base + (rank + 1) * cluster_window_stride + strip(a - shared_window_base);
}

Cta& Cta::shared_home(const Thread& t, const ir::Op& op, std::uint64_t& off) {
  if (off < cluster_window_stride)
    return *this;
  const std::uint64_t rank = off / cluster_window_stride - 1;
  if (rank >= cluster_size_)
    fault_at(FaultKind::illegal_address, t, op,
             "the shared::cluster address " + hex(off) + " names CTA rank " + std::to_string(rank) +
                 "; the cluster has " + std::to_string(cluster_size_) + " CTA(s)");
  off %= cluster_window_stride;
  if (rank == rank_)
    return *this;
  if (!op.cluster && op.space == ir::Space::shared)
    fault_at(FaultKind::illegal_address, t, op,
             "a .shared::cta access of CTA rank " + std::to_string(rank) +
                 "'s shared memory (a peer's is reached through .shared::cluster)");
  return cluster_->cta(static_cast<std::uint32_t>(rank));
}

std::uint64_t Cta::own_shared(const Thread& t, const ir::Op& op, std::uint64_t off,
                              std::string_view what) const {
  if (off < cluster_window_stride)
    return off;
  if (off / cluster_window_stride - 1 != rank_)
    fault_at(FaultKind::unsupported, t, op,
             std::string(what) + " names a peer CTA's shared memory (" + hex(off) +
                 "); the simulator runs it on this CTA's only");
  return off % cluster_window_stride;
}

// ------------------------------------------------ distributed shared memory

void Cta::check_home(const Thread& t, const ir::Op& op, const Cta& home, std::uint64_t off,
                     std::uint64_t n, std::string_view what) const {
  if (off > home.smem_.size() || n > home.smem_.size() - off)
    fault_at(FaultKind::illegal_address, t, op,
             std::string(what) + " of " + std::to_string(n) + " bytes at shared address " +
                 hex(off) + " of CTA rank " + std::to_string(home.rank_) +
                 " lies outside its shared memory (" + std::to_string(home.smem_.size()) +
                 " bytes)");
  if (auto bar = home.mb_.overlapping(off, n))
    fault_at(FaultKind::undefined_behavior, t, op,
             std::string(what) + " of " + std::to_string(n) +
                 " bytes touches the valid mbarrier "
                 "object at " +
                 home.mbar_text(*bar) + " of CTA rank " + std::to_string(home.rank_) +
                 "; only mbarrier instructions may access it");
}

void Cta::remote_load_store(Thread& t, const ir::Op& op, Cta& home, std::uint64_t off, bool is_ld) {
  const std::uint32_t size = op.type.bits / 8u;
  const std::uint64_t total = static_cast<std::uint64_t>(size) * op.vec;
  check_home(t, op, home, off, total, is_ld ? "load" : "store");
  remote_use(t, op, home, off);
  dsmem_track(t, op, home, off, total, !is_ld);
  t.spin_read = is_ld && (op.strong || t.spin_read);
  std::uint8_t* bytes = home.smem_.data() + off;
  for (std::uint32_t k = 0; k < op.vec; ++k) {
    std::uint8_t* p = bytes + static_cast<std::size_t>(k) * size;
    std::uint64_t v = 0;
    if (is_ld) {
      std::memcpy(&v, p, size); // little-endian host
      if (op.type.is_signed)
        v = static_cast<std::uint64_t>(sext(v, op.type.bits));
      set(t, op.dst[k], v);
    } else {
      v = raw(t, op.src[k]);
      std::memcpy(p, &v, size);
    }
  }
  if (!is_ld)
    home.mark_remote_written(off, total, false);
}

void Cta::mark_remote_written(std::uint64_t off, std::uint64_t n, bool async_proxy) {
  for (std::uint64_t b = off; b < off + n; ++b) {
    ByteState& s = track_[b];
    s.writer = Access{kRemoteWriter, 0, 0, 0};
    s.wphase = phase_;
    s.async_written = async_proxy;
    s.wfence = 0;
  }
}

ClusterUse Cta::cluster_use(const Thread& t, const ir::Op& op) const {
  const auto index = static_cast<std::uint32_t>(&op - e_.ops.data());
  ClusterUse u;
  u.rank = static_cast<std::int32_t>(rank_);
  u.tid = t.tid;
  u.op = index;
  u.iteration = slot_[index] >= 0 ? t.iterations[slot_[index]] : 0;
  u.released = static_cast<std::uint32_t>(t.cl_release.size());
  u.strong = op.strong || op.code == ir::Code::atom || op.code == ir::Code::red;
  return u;
}

bool Cta::cluster_ordered(const ClusterUse& u, std::uint32_t waited) const {
  const Cta& c = u.rank == static_cast<std::int32_t>(rank_)
                     ? *this
                     : cluster_->cta(static_cast<std::uint32_t>(u.rank));
  const Thread& w = c.threads_[u.tid];
  return u.released < w.cl_release.size() && w.cl_release[u.released] < waited;
}

RaceAccess Cta::use_access(const ClusterUse& u) const {
  const Cta& c = u.rank == static_cast<std::int32_t>(rank_)
                     ? *this
                     : cluster_->cta(static_cast<std::uint32_t>(u.rank));
  return RaceAccess{u.tid, e_.ops[u.op].line, u.iteration, static_cast<std::int64_t>(c.bid_)};
}

void Cta::dsmem_track(const Thread& t, const ir::Op& op, Cta& home, std::uint64_t off,
                      std::uint64_t n, bool write) {
  if (home.ctrack_.empty())
    return;
  const ClusterUse self = cluster_use(t, op);
  const auto unordered = [&](const ClusterUse& u) {
    return u.rank >= 0 && u.rank != self.rank && !(u.strong && self.strong) &&
           !cluster_ordered(u, t.cl_waited);
  };
  bool reported = false; // one race per access
  for (std::uint64_t b = off; b < off + n; ++b) {
    ClusterByte& s = home.ctrack_[b];
    const ClusterUse* other = unordered(s.writer)            ? &s.writer
                              : write && unordered(s.reader) ? &s.reader
                                                             : nullptr;
    if (other != nullptr && !reported) {
      reported = true;
      const auto [symbol, at] = symbol_of(b);
      const RaceAccess o = use_access(*other);
      const Cta& oc = cluster_->cta(static_cast<std::uint32_t>(other->rank));
      cluster_race(RaceKind::cross_cta_shared, t, use_access(self), o, symbol, at,
                   std::string(write ? "its write of" : "its read of") + " byte " +
                       std::to_string(at) + " of shared `" + symbol + "` of CTA rank " +
                       std::to_string(home.rank_) + " and the " +
                       (other == &s.writer ? "write" : "read") + " by " + oc.who(other->tid) +
                       " (CTA rank " + std::to_string(other->rank) + ") at PTX line " +
                       std::to_string(o.ptx_line) + " (iteration " + std::to_string(o.iteration) +
                       ") are not ordered: no cluster barrier phase that the earlier one's "
                       "thread arrived at after it (without .relaxed) and this thread waited for");
    }
    if (write) {
      s.writer = self;
      s.reader = ClusterUse{};
    } else {
      s.reader = self;
    }
  }
}

// ------------------------------------------------ a CTA's lifetime against its peers' uses

void Cta::remote_use(const Thread& t, const ir::Op& op, Cta& home, std::uint64_t off, bool bar) {
  const ClusterUse u = cluster_use(t, op);
  if (home.exited_) {
    const auto [symbol, at] = symbol_of(off);
    cluster_race(RaceKind::cluster_peer_exit, t, use_access(u), home.exit_, symbol, at,
                 "it uses `" + symbol + "`+" + std::to_string(at) + " of CTA rank " +
                     std::to_string(home.rank_) +
                     ", whose threads have all exited (the last at "
                     "PTX line " +
                     std::to_string(home.exit_.ptx_line) +
                     "): its shared memory and barriers are gone; a cluster barrier between "
                     "this use and that exit is missing");
    return;
  }
  const detail::Mbarrier* b = bar ? home.mb_.find(off) : nullptr;
  home.users_[{u.rank, u.tid}] = PeerUse{u, off, b != nullptr ? b->phase : PeerUse::no_phase};
}

void Cta::cta_exit(const Thread& t, std::uint32_t line) {
  ClusterBarrier& b = cluster_->barrier();
  --b.live;
  if (t.cl_arrived > b.phase) // it arrived for the current phase
    ++b.exited_arrived;
  cluster_->settle_barrier(); // the barrier no longer waits for it
  if (std::any_of(threads_.begin(), threads_.end(),
                  [](const Thread& u) { return u.state != State::exited; }))
    return;
  exited_ = true;
  exit_ = RaceAccess{t.tid, line, 1, static_cast<std::int64_t>(bid_)};
  std::uint32_t waited = 0; // the CTA ends after every wait of its threads
  for (const Thread& u : threads_)
    waited = std::max(waited, u.cl_waited);
  for (const auto& [key, use] : users_) {
    const ClusterUse& u = use.use;
    if (cluster_ordered(u, waited))
      continue;
    if (use.phase != PeerUse::no_phase) {
      const auto seen = observed_.find(use.off);
      if (seen != observed_.end() && seen->second > use.phase)
        continue; // a thread here waited for the phase the peer's arrival counts for
    }
    const auto [symbol, at] = symbol_of(use.off);
    const RaceAccess o = use_access(u);
    const Cta& oc = cluster_->cta(static_cast<std::uint32_t>(u.rank));
    cluster_race(RaceKind::cluster_peer_exit, t, exit_, o, symbol, at,
                 "the last thread of CTA rank " + std::to_string(rank_) + " exits while " +
                     oc.who(u.tid) + " (CTA rank " + std::to_string(u.rank) +
                     ") may still use its `" + symbol + "`+" + std::to_string(at) + " (PTX line " +
                     std::to_string(o.ptx_line) + ", iteration " + std::to_string(o.iteration) +
                     "): no cluster barrier phase orders that use before this exit, nor a wait "
                     "here for the mbarrier phase it counts for");
  }
}

// ------------------------------------------------ reporting

void Cta::cluster_race(RaceKind k, const Thread& t, const RaceAccess& self, const RaceAccess& other,
                       std::string symbol, std::uint64_t offset, const std::string& detail) const {
  if (race_known(k, self.ptx_line, other.ptx_line))
    return;
  Fault f;
  f.kind = FaultKind::race;
  f.bid = static_cast<std::int64_t>(bid_);
  f.tid = t.tid;
  f.ptx_line = self.ptx_line;
  f.message = who(t.tid) + ", PTX line " + std::to_string(self.ptx_line) + ", iteration " +
              std::to_string(self.iteration) + ": " + std::string(name(k)) + ": " + detail;
  Race r;
  r.kind = k;
  r.symbol = std::move(symbol);
  r.offset = offset;
  r.access = self;
  r.other = other;
  f.race = std::move(r);
  raise_race(std::move(f));
}

} // namespace ptxgen::sim::exec
