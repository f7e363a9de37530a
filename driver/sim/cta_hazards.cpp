// The executor's CTA: race tracking over shared bytes (cta.hpp; the rules: simulator.hpp).

#include "driver/sim/cta.hpp"
#include "emitter/support/unreachable.hpp"

#include <tuple>

namespace ptxgen::sim::exec {

Access Cta::now(const Thread& t, const ir::Op& op) const {
  auto index = static_cast<std::uint32_t>(&op - e_.ops.data());
  return {static_cast<std::int32_t>(t.tid), index, t.iterations[slot_[index]], mb_.clock(t.tid)};
}

bool Cta::ordered(const Access& a, const Access& self) const {
  return mb_.ordered(static_cast<std::uint32_t>(a.tid), a.clock,
                     static_cast<std::uint32_t>(self.tid));
}

bool Cta::both_strong(const Access& a, const Access& b) const {
  return e_.ops[a.op].strong && e_.ops[b.op].strong;
}

Access Cta::pending_copy(std::int32_t tid, std::uint64_t b) const {
  for (const auto& c : threads_[static_cast<std::size_t>(tid)].copies) {
    if (b >= c.dst && b < c.dst + c.size)
      return {tid, c.op, c.iteration, c.clock};
  }
  unreachable("pending_copy(): a byte marked pending has no pending copy");
}

std::pair<std::string, std::uint64_t> Cta::symbol_of(std::uint64_t b) const {
  for (const auto& a : e_.shared) {
    if (b >= a.offset && (a.is_extern || b < a.offset + a.bytes))
      return {a.name, b - a.offset};
  }
  return {"(padding)", b}; // between arrays: only reachable through a stray address
}

bool Cta::race_known(RaceKind k, std::uint32_t line, std::uint32_t other_line) const {
  Observer* o = l_.observer;
  if (o == nullptr)
    return false;
  for (std::size_t i = 0; i < o->races.size(); ++i) {
    const Race& r = *o->races[i].race;
    if (r.kind == k && r.access.ptx_line == line && r.other.ptx_line == other_line) {
      ++o->race_hits[i];
      return true;
    }
  }
  if (o->races.size() < o->max_races)
    return false;
  ++o->dropped_races;
  return true;
}

void Cta::raise_race(Fault f) const {
  Observer* o = l_.observer;
  if (o == nullptr)
    throw FaultThrow{std::move(f)};
  o->races.push_back(std::move(f));
  o->race_hits.push_back(1);
}

void Cta::unwritten_read(const Thread& t, const Access& self, std::uint64_t b) const {
  Observer* o = l_.observer;
  const std::uint32_t line = e_.ops[self.op].line;
  for (const UnwrittenRead& u : o->unwritten_reads) {
    if (u.ptx_line == line)
      return;
  }
  UnwrittenRead u;
  u.ptx_line = line;
  u.bid = static_cast<std::int64_t>(bid_);
  u.tid = t.tid;
  u.iteration = self.iteration;
  std::tie(u.symbol, u.offset) = symbol_of(b);
  o->unwritten_reads.push_back(std::move(u));
}

void Cta::race(RaceKind k, const Thread& t, const Access& self, std::uint64_t b,
               const Access& earlier) const {
  auto [symbol, offset] = symbol_of(b);
  report_race(k, t, self, earlier, std::move(symbol), offset, "shared");
}

void Cta::report_race(RaceKind k, const Thread& t, const Access& self, const Access& earlier,
                      std::string symbol, std::uint64_t offset, std::string_view space) const {
  const ir::Op& op = e_.ops[self.op];
  if (race_known(k, op.line, e_.ops[earlier.op].line))
    return;
  Fault f = fault_for(FaultKind::race, t, op);
  Race r;
  r.kind = k;
  r.symbol = std::move(symbol);
  r.offset = offset;
  r.access = race_access(self);
  r.other = race_access(earlier);
  const std::string whose = earlier.tid == self.tid
                                ? std::string("this thread")
                                : other(static_cast<std::uint32_t>(earlier.tid));
  const auto [relation, consequence] = race_relation(k);
  f.message += ", iteration " + std::to_string(self.iteration) + ": " + std::string(name(k)) +
               ": byte " + std::to_string(r.offset) + " of " + std::string(space) + " `" +
               r.symbol + "` is " + std::string(relation) + " " + whose + " at PTX line " +
               std::to_string(r.other.ptx_line) + " (iteration " +
               std::to_string(earlier.iteration) + ")" + std::string(consequence);
  f.race = std::move(r);
  raise_race(std::move(f));
}

std::pair<std::string_view, std::string_view> Cta::race_relation(RaceKind k) {
  switch (k) {
  case RaceKind::read_before_wait:
    return {"to be written by an async copy that no wait (wait_group / wait_all, or an "
            "mbarrier wait on its phase) has completed, issued by",
            ""};
  case RaceKind::read_in_flight:
    return {"the destination of a pending cp.async issued by", ""};
  case RaceKind::read_after_write:
    return {"written, with no bar.sync both passed (nor an mbarrier phase ordering them) since, by",
            ""};
  case RaceKind::write_after_read:
    return {"read, with no bar.sync both passed (nor an mbarrier phase ordering them) since, by",
            "; a refill needs a barrier after the last read"};
  case RaceKind::write_after_write:
    return {"also written, with no bar.sync both passed (nor an mbarrier phase ordering them) "
            "since, by",
            ""};
  case RaceKind::write_after_write_same_value:
    return {"also written, with no bar.sync both passed (nor an mbarrier phase ordering them) "
            "since, by",
            "; both stores leave the same value (a note: the result is either store's)"};
  case RaceKind::pending_copies:
  case RaceKind::write_in_flight:
    return {"the destination of a pending cp.async issued by",
            "; the order of the two writes is undefined"};
  case RaceKind::refill_before_bulk_read:
    return {"the source of a bulk store whose read no wait_group.read has completed, issued by",
            "; refill before the bulk read completed"};
  case RaceKind::read_before_bulk_write:
    return {"the destination of a bulk store that no wait_group has completed, issued by", ""};
  case RaceKind::missing_proxy_fence:
    return {"last written through the generic proxy, with no fence.proxy.async since, by",
            "; the async proxy may see stale bytes"};
  case RaceKind::bulk_wait_scope:
    return {"written by a bulk store whose wait_group ran in another thread, with no bar.sync "
            "both passed (nor an mbarrier phase ordering them) since that wait; issued by",
            "; a bulk wait covers only the waiting thread's own groups"};
  case RaceKind::write_before_bulk_write:
    return {"the destination of a bulk store that no wait_group has completed, issued by",
            "; the order of the two writes is undefined"};
  case RaceKind::missing_global_proxy_fence:
    return {"last written through the generic proxy, with no fence.proxy.async (nor "
            "fence.proxy.async.global) ordered since, by",
            "; the async proxy may read stale bytes"};
  case RaceKind::cross_cta:
  case RaceKind::cross_cta_same_value: // CrossCta words these itself
    return {"also accessed, with nothing ordering the two CTAs, by", ""};
  case RaceKind::write_before_wgmma_read:
    return {"an operand of a wgmma.mma_async that no wgmma.wait_group ordered before this "
            "write has retired, issued by",
            "; the wgmma may read it at any time until then"};
  case RaceKind::wgmma_register_in_flight: // register_race words these itself
  case RaceKind::missing_wgmma_fence:
  case RaceKind::cross_cta_shared: // cluster_race words these itself
  case RaceKind::cluster_peer_exit:
  case RaceKind::remote_before_init:
  case RaceKind::multicast_without_expect_tx:
    return {"", ""};
  }
  unreachable("race_relation(): not a RaceKind value");
}

void Cta::on_read(const Thread& t, const ir::Op& op, std::uint64_t off, std::uint64_t n,
                  bool record) {
  const Access self = now(t, op);
  for (std::uint64_t b = off; b < off + n; ++b) {
    ByteState& s = track_[b];
    // One race per byte and access (with an observer the access goes on after it).
    if (s.pending == self.tid)
      race(RaceKind::read_before_wait, t, self, b, pending_copy(s.pending, b));
    else if (s.pending >= 0)
      race(RaceKind::read_in_flight, t, self, b, pending_copy(s.pending, b));
    else if (s.writer.tid >= 0 && s.writer.tid != self.tid && s.wphase == phase_ &&
             !ordered(s.writer, self) && !both_strong(s.writer, self))
      race(RaceKind::read_after_write, t, self, b, s.writer);
    else if (s.writer.tid == -1 && l_.observer != nullptr) // not kRemoteWriter
      unwritten_read(t, self, b);
    if (!record)
      continue;
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

void Cta::check_write(const Thread& t, const Access& self, std::uint64_t off, std::uint64_t n,
                      bool copy, bool own_pending_ok, const std::uint8_t* data) const {
  if (!wgmmas_.empty())
    wgmma_overwrite(t, self, off, n);
  for (std::uint64_t b = off; b < off + n; ++b) {
    const ByteState& s = track_[b];
    const bool unordered_writer = s.writer.tid >= 0 && s.writer.tid != self.tid &&
                                  s.wphase == phase_ && !ordered(s.writer, self) &&
                                  !both_strong(s.writer, self);
    // The byte already holds what this store writes: whichever store lands last, the result is
    // the same (a note, then the read checks as for any write).
    const bool same_value = unordered_writer && data != nullptr && smem_[b] == data[b - off];
    if (same_value && l_.observer != nullptr)
      race(RaceKind::write_after_write_same_value, t, self, b, s.writer);
    // One race per byte and access (with an observer the access goes on after it).
    if (s.bulk_reads > 0)
      refill_race(t, self, b);
    else if (s.pending >= 0 && !(own_pending_ok && s.pending == self.tid))
      race(copy ? RaceKind::pending_copies : RaceKind::write_in_flight, t, self, b,
           pending_copy(s.pending, b));
    else if (unordered_writer && !same_value)
      race(RaceKind::write_after_write, t, self, b, s.writer);
    else if (s.rphase == phase_ && s.reader.tid >= 0) {
      if (s.reader.tid != self.tid && !ordered(s.reader, self) && !both_strong(s.reader, self))
        race(RaceKind::write_after_read, t, self, b, s.reader);
      else if (s.reader2.tid >= 0 && s.reader2.tid != self.tid && !ordered(s.reader2, self) &&
               !both_strong(s.reader2, self))
        race(RaceKind::write_after_read, t, self, b, s.reader2);
    }
  }
}

void Cta::mark_written(const Access& self, std::uint64_t off, std::uint64_t n, bool async_proxy) {
  const std::uint32_t fences = threads_[static_cast<std::size_t>(self.tid)].proxy_fences;
  for (std::uint64_t b = off; b < off + n; ++b) {
    ByteState& s = track_[b];
    s.writer = self;
    s.wphase = phase_;
    s.async_written = async_proxy;
    s.wfence = fences;
  }
}

} // namespace ptxgen::sim::exec
