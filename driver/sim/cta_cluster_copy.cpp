// The executor's CTA in a cluster (cta.hpp): operations on a peer's mbarriers, bulk copies into a
// peer, multicast copies, and their hazards (an init not visible cluster-wide, bytes beyond a
// barrier's expected tx-count).
//
// A copy into a peer is queued in the peer (Cta::remote_copies_) and performed when the peer's
// barrier phase it completes on completes, as late as PTX allows, like the CTA's own bulk copies.
// Its bytes are written as by no thread of the peer (kRemoteWriter): the peer's threads read them
// after their wait on that barrier.

#include "driver/sim/cluster.hpp"
#include "driver/sim/cta.hpp"

#include <cstring>

namespace ptxgen::sim::exec {

void Cta::check_init_visible(const Thread& t, const ir::Op& op, const Cta& home,
                             std::uint64_t bar) {
  const auto it = home.inits_.find(bar);
  if (it == home.inits_.end())
    return; // no init at all: the mbarrier operation itself refuses an invalid object
  const InitRecord& r = it->second;
  if (r.published && *r.published < t.cl_waited)
    return;
  const auto [symbol, at] = symbol_of(bar);
  const RaceAccess o = use_access(r.who);
  cluster_race(RaceKind::remote_before_init, t, use_access(cluster_use(t, op)), o, symbol, at,
               "the mbarrier at `" + symbol + "`+" + std::to_string(at) + " of CTA rank " +
                   std::to_string(home.rank_) + " was initialised at PTX line " +
                   std::to_string(o.ptx_line) + " by " + home.who(r.who.tid) +
                   ", and that init is not visible to this thread: no "
                   "fence.mbarrier_init.release.cluster (or release arrival) of that thread "
                   "followed by a cluster barrier phase this thread has waited for");
}

void Cta::check_overfed(const Thread& t, const ir::Op& op, Cta& home, std::uint64_t bar) {
  const auto it = home.remote_tx_.find(bar);
  if (it == home.remote_tx_.end())
    return;
  const detail::Mbarrier* m = home.mb_.find(bar);
  if (m == nullptr || m->phase != it->second.second || !home.mb_.overfed(bar))
    return;
  const auto [symbol, at] = symbol_of(bar);
  const RaceAccess o = use_access(it->second.first);
  const std::string state = home.mb_.describe(bar);
  cluster_race(
      RaceKind::multicast_without_expect_tx, t, use_access(cluster_use(t, op)), o, symbol, at,
      "the mbarrier at `" + symbol + "`+" + std::to_string(at) + " of CTA rank " +
          std::to_string(home.rank_) + " has all its arrivals but " + std::to_string(m->landing) +
          " bytes coming in for a tx-count of " + std::to_string(m->tx) + " (" + state +
          "), among them a multicast or peer "
          "copy at PTX line " +
          std::to_string(o.ptx_line) +
          ": no expect_tx of that CTA matches those bytes (on the GPU the surplus falls "
          "into the next phase)");
  home.mb_.absorb(bar); // the phase completes, as the GPU's would
}

Cta::Flow Cta::remote_mbarrier(Thread& t, const ir::Op& op, Cta& home, std::uint64_t bar) {
  if (bar % 8 != 0 || bar + 8 > home.smem_.size())
    fault_at(FaultKind::illegal_address, t, op,
             "the mbarrier address " + hex(bar) + " of CTA rank " + std::to_string(home.rank_) +
                 " is not an 8-byte aligned location of its shared memory");
  const auto u32 = [&](std::size_t k) {
    return static_cast<std::int64_t>(get(t, op.src[k], ir::Type{32, false}));
  };
  switch (op.code) {
  case ir::Code::mbar_arrive:
  case ir::Code::mbar_arrive_tx:
  case ir::Code::mbar_expect_tx: {
    check_init_visible(t, op, home, bar);
    home.settle(bar);
    remote_use(t, op, home, bar, /*bar=*/true);
    if (op.code == ir::Code::mbar_expect_tx) {
      home.mb_.expect_tx(detail::remote_thread, bar, u32(0));
    } else {
      const bool tx = op.code == ir::Code::mbar_arrive_tx;
      home.mb_.arrive(detail::remote_thread, bar, tx ? 1 : u32(0), tx ? u32(0) : 0, false);
      if (!op.sink) // the .shared::cluster forms return no state; the register is left as is
        set(t, op.dst[0], 0);
    }
    if (!home.remote_tx_.empty())
      check_overfed(t, op, home, bar);
    return Flow::next;
  }
  default:
    fault_at(FaultKind::unsupported, t, op,
             "only mbarrier.arrive, arrive.expect_tx and expect_tx on a peer CTA's barrier are "
             "simulated");
  }
}

void Cta::bulk_peer_issue(Thread& t, const ir::Op& op) {
  auto [dst, src, size] = bulk_operands(t, op);
  src = own_shared(t, op, src, "the source of a bulk copy to a peer");
  check_shared(t, op, src, size, "cp.async.bulk source");
  not_an_mbarrier(t, op, src, size, "cp.async.bulk source");
  const Access self = now(t, op);
  check_proxy(t, self, src, size); // the async proxy reads it
  on_read(t, op, src, size);       // at issue (the simulator takes the bytes then)
  std::uint64_t bar = address(t, op.addr3);
  Cta& home = shared_home(t, op, dst);
  if (&shared_home(t, op, bar) != &home)
    fault_at(FaultKind::undefined_behavior, t, op,
             "the destination and the mbarrier of a bulk copy to a peer are in different CTAs");
  check_home(t, op, home, dst, size, "cp.async.bulk destination");
  Copy c;
  c.dst = dst;
  c.size = static_cast<std::uint32_t>(size);
  c.src_bytes = c.size;
  c.data = std::make_shared<const std::vector<std::uint8_t>>(smem_.begin() + src,
                                                             smem_.begin() + src + size);
  c.bar = bar;
  if (&home == this) {
    queue_load_at(t, op, std::move(c), size, mbar_offset(t, op, op.addr3));
    return;
  }
  check_init_visible(t, op, home, bar);
  queue_remote_landing(t, op, home, std::move(c), size);
}

void Cta::queue_remote_landing(Thread& t, const ir::Op& op, Cta& home, Copy c, std::uint64_t tx) {
  const std::uint64_t bar = c.bar;
  home.settle(bar);
  remote_use(t, op, home, bar, /*bar=*/true);
  home.mb_.bulk(detail::remote_thread, bar, static_cast<std::int64_t>(tx));
  const Access self = now(t, op);
  c.op = self.op;
  c.iteration = self.iteration;
  c.bulk = true;
  home.remote_copies_.push_back(std::move(c));
  home.remote_tx_[bar] = {cluster_use(t, op), home.mb_.find(bar)->phase};
  check_overfed(t, op, home, bar);
}

void Cta::multicast(Thread& t, const ir::Op& op, const Copy& c, std::uint64_t tx) {
  const std::uint64_t ranks = get(t, op.cta_mask, ir::Type{16, false});
  if (ranks == 0 || (ranks >> cluster_size_) != 0)
    fault_at(FaultKind::undefined_behavior, t, op,
             "the multicast CTA mask " + hex(ranks) +
                 " names no CTA or a rank outside the "
                 "cluster of " +
                 std::to_string(cluster_size_) + " CTA(s)");
  for (std::uint32_t r = 0; r < cluster_size_; ++r) {
    if ((ranks >> r & 1) == 0)
      continue;
    if (r == rank_) { // its own copy, counted as a multicast's for the tx rule
      settle(c.bar);
      remote_tx_[c.bar] = {cluster_use(t, op),
                           mb_.find(c.bar) != nullptr ? mb_.find(c.bar)->phase : 0};
      queue_load_at(t, op, c, tx, c.bar);
      continue;
    }
    Cta& home = cluster_->cta(r);
    check_home(t, op, home, c.dst, c.size, "multicast destination");
    check_init_visible(t, op, home, c.bar);
    queue_remote_landing(t, op, home, c, tx);
  }
}

void Cta::land_remote(std::uint64_t bar) {
  std::size_t kept = 0;
  for (std::size_t k = 0; k < remote_copies_.size(); ++k) {
    Copy& c = remote_copies_[k];
    if (bar != ~0ull && c.bar != bar) {
      if (kept != k)
        remote_copies_[kept] = std::move(c);
      ++kept;
      continue;
    }
    std::uint8_t* d = smem_.data() + c.dst;
    if (c.tensor) {
      land_tensor(d, *c.tensor);
    } else if (c.data) {
      std::memcpy(d, c.data->data(), c.size);
    } else {
      const auto& buf = mem_[static_cast<std::size_t>(c.buffer)];
      std::memcpy(d, buf.bytes->data() + (c.src - buf.address), c.src_bytes);
    }
    mark_remote_written(c.dst, c.size, true);
  }
  remote_copies_.resize(kept);
}

} // namespace ptxgen::sim::exec
