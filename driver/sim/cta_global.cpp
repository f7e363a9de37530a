// The executor's CTA: its threads' accesses of global bytes against its bulk stores (pending,
// or completed by another thread's wait) and the global side of the async proxy; the log of
// plain global accesses for the cross-CTA check (cta.hpp; the model: simulator.hpp).

#include "driver/sim/cta.hpp"

#include <algorithm>

namespace ptxgen::sim::exec {

void Cta::global_access(const Thread& t, const ir::Op& op, std::uint64_t addr, std::uint64_t n,
                        GlobalUse use, const std::uint8_t* written) {
  const bool checks = pending_stores_ > 0 || !waited_stores_.empty();
  const bool proxy = async_global_reads_ && use != GlobalUse::read;
  if (!checks && !proxy && !logs_global_)
    return;
  const Access self = now(t, op);
  if (checks)
    check_bulk_destinations(t, self, addr, n, use);
  if (!proxy && (!logs_global_ || op.strong))
    return;
  const std::int32_t buffer = find_buffer(addr, n);
  if (use == GlobalUse::async_read && async_global_reads_)
    check_global_proxy(t, self, addr, n, buffer);
  if (use == GlobalUse::write && async_global_reads_) {
    auto& writes = generic_writes_[static_cast<std::size_t>(buffer)];
    GlobalWrite w{addr, addr + n, buffer, self, phase_, t.global_fences, false};
    // a thread's run of stores by one op: one entry (the first store's iteration)
    if (!writes.empty() && writes.back().end == addr && writes.back().who.tid == self.tid &&
        writes.back().who.op == self.op && writes.back().phase == phase_ &&
        writes.back().fences == w.fences)
      writes.back().end = addr + n;
    else
      writes.push_back(w);
  }
  if (!logs_global_ || op.strong)
    return;
  const auto& buf = mem_[static_cast<std::size_t>(buffer)];
  if (use == GlobalUse::write)
    glog_.write(addr, static_cast<std::uint32_t>(n), buffer, t.tid, self.op, self.iteration,
                written != nullptr ? written : buf.bytes->data() + (addr - buf.address));
  else
    glog_.read(addr, static_cast<std::uint32_t>(n), buffer, t.tid, self.op, self.iteration);
}

void Cta::check_bulk_destinations(const Thread& t, const Access& self, std::uint64_t addr,
                                  std::uint64_t n, GlobalUse use) const {
  const RaceKind pending = use == GlobalUse::write ? RaceKind::write_before_bulk_write
                                                   : RaceKind::read_before_bulk_write;
  for (const Thread& u : threads_) {
    for (const BulkStore& s : u.stores) {
      if (const auto hit = store_overlap(s, addr, n))
        return global_race(pending, t, self, hit->first, hit->second,
                           Access{static_cast<std::int32_t>(u.tid), s.op, s.iteration, s.clock});
    }
  }
  if (addr >= waited_hi_ || waited_lo_ >= addr + n)
    return;
  for (const GlobalWrite& w : waited_stores_) {
    if (addr >= w.end || w.addr >= addr + n)
      continue;
    // The issuer itself is ordered after its own wait; another thread needs a barrier since
    // (waited_stores_ holds this phase's only) or an mbarrier phase after the wait.
    if (w.exited)
      return global_race(pending, t, self, std::max(addr, w.addr), w.buffer, w.who);
    if (w.who.tid != self.tid && !ordered(w.who, self))
      return global_race(RaceKind::bulk_wait_scope, t, self, std::max(addr, w.addr), w.buffer,
                         w.who);
  }
}

void Cta::check_global_proxy(const Thread& t, const Access& self, std::uint64_t addr,
                             std::uint64_t n, std::int32_t buffer) const {
  for (const GlobalWrite& g : generic_writes_[static_cast<std::size_t>(buffer)]) {
    if (addr >= g.end || g.addr >= addr + n)
      continue;
    // As for shared bytes (check_proxy): the writer's latest global fence must follow the write
    // and, for another thread's load, be ordered before it.
    const Thread& w = threads_[static_cast<std::size_t>(g.who.tid)];
    const bool fenced = w.global_fences != g.fences;
    const bool ordered_fence = g.who.tid == self.tid || w.gfence_phase != phase_ ||
                               mb_.ordered(w.tid, w.gfence_clock, t.tid);
    if (!fenced || !ordered_fence)
      return global_race(RaceKind::missing_global_proxy_fence, t, self, std::max(addr, g.addr),
                         buffer, g.who);
  }
}

void Cta::global_race(RaceKind k, const Thread& t, const Access& self, std::uint64_t b,
                      std::int32_t buffer, const Access& earlier) const {
  const auto& buf = mem_[static_cast<std::size_t>(buffer)];
  report_race(k, t, self, earlier, buf.name, b - buf.address, "global");
}

void Cta::bulk_store_written(const Thread& t, const BulkStore& s, bool waited) {
  // Its issue with the clock of the wait (or the exit): what another thread must follow.
  const Access done{static_cast<std::int32_t>(t.tid), s.op, s.iteration, mb_.clock(t.tid)};
  const auto written = [&](std::uint64_t addr, std::uint32_t n, std::int32_t buffer,
                           const std::uint8_t* bytes) {
    waited_stores_.push_back(GlobalWrite{addr, addr + n, buffer, done, phase_, 0, !waited});
    waited_lo_ = std::min(waited_lo_, addr);
    waited_hi_ = std::max(waited_hi_, addr + n);
    if (logs_global_ && !s.reduce)
      glog_.write(addr, n, buffer, t.tid, s.op, s.iteration, bytes);
  };
  if (!s.tensor)
    return written(s.dst, s.size, s.buffer, s.data.data());
  for (const TensorRun& r : s.tensor->runs)
    written(r.global, r.bytes, r.buffer, s.data.data() + r.shared);
}

void Cta::global_phase_done() {
  waited_stores_.clear();
  waited_lo_ = ~0ull;
  waited_hi_ = 0;
  // A generic write whose writer has fenced since is now fenced and ordered for every thread.
  for (auto& writes : generic_writes_)
    std::erase_if(writes, [&](const GlobalWrite& g) {
      return threads_[static_cast<std::size_t>(g.who.tid)].global_fences != g.fences;
    });
}

} // namespace ptxgen::sim::exec
