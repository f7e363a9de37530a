// The executor's CTA: bulk stores (cp.async.bulk.global.shared::cta.bulk_group, and the tensor
// stores queued the same way), their bulk groups and waits, and the async-proxy rule on shared
// memory (cta.hpp; the model: simulator.hpp).

#include "driver/sim/alu.hpp"
#include "driver/sim/cta.hpp"
#include "emitter/support/unreachable.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::sim::exec {

Cta::BulkOperands Cta::bulk_operands(Thread& t, const ir::Op& op) {
  constexpr std::uint32_t granule = 16; // size and both addresses are multiples of 16 (PTX)
  const std::uint64_t dst = address(t, op.addr), src = address(t, op.addr2);
  const std::uint64_t size = get(t, op.src[0], ir::Type{32, false});
  if (size == 0 || size % granule != 0)
    fault_at(FaultKind::undefined_behavior, t, op,
             "the bulk copy size " + std::to_string(size) +
                 " is not a positive multiple of 16 (undefined in PTX)");
  check_align(t, op, dst, granule, "cp.async.bulk destination");
  check_align(t, op, src, granule, "cp.async.bulk source");
  return {dst, src, size};
}

void Cta::bulk_store_issue(Thread& t, const ir::Op& op) {
  const auto [dst, src, size] = bulk_operands(t, op);
  check_shared(t, op, src, size, "cp.async.bulk source");
  not_an_mbarrier(t, op, src, size, "cp.async.bulk source");
  global_bytes(t, op, dst, size, "cp.async.bulk destination");
  BulkStore s;
  s.dst = dst;
  s.src = src;
  s.size = static_cast<std::uint32_t>(size);
  s.buffer = find_buffer(dst, size);
  if (op.code == ir::Code::bulk_reduce) {
    s.reduce = true;
    s.atomic = op.atomic;
    s.elem = op.type2;
    check_align(t, op, dst, op.type2.bits / 8u, "cp.reduce.async.bulk destination");
  }
  queue_bulk_store(t, op, std::move(s));
}

void Cta::queue_bulk_store(Thread& t, const ir::Op& op, BulkStore s) {
  const Access self = now(t, op);
  check_proxy(t, self, s.src, s.size);
  on_read(t, op, s.src, s.size); // the issuing thread's view: earlier writes must be ordered
  s.group = t.bulk_group;
  s.op = self.op;
  s.iteration = self.iteration;
  s.clock = self.clock;
  for (std::uint64_t b = s.src; b < s.src + s.size; ++b) {
    ++track_[b].bulk_reads;
    track_[b].bulk_reader = static_cast<std::int32_t>(t.tid);
  }
  t.stores.push_back(std::move(s));
  ++pending_stores_;
}

void Cta::reduce_into(const BulkStore& s, std::uint8_t* p, const std::uint8_t* from,
                      std::uint64_t bytes) const {
  const std::uint32_t n = s.elem.bits / 8u;
  for (std::uint64_t k = 0; k + n <= bytes; k += n) {
    std::uint64_t old = 0, v = 0;
    std::memcpy(&old, p + k, n); // little-endian host
    std::memcpy(&v, from + k, n);
    const bool float_pick = s.elem.num != ir::Num::integer &&
                            (s.atomic == ir::Atomic::min || s.atomic == ir::Atomic::max);
    // .add.f32 flushes subnormals (as red.add.f32); .f64 and the 16-bit adds keep them
    const std::uint64_t r =
        float_pick
            ? alu::float_op(s.atomic == ir::Atomic::min ? alu::FloatOp::min : alu::FloatOp::max,
                            s.elem.num, alu::FloatMode{}, old, v, 0)
            : atomic_result(s.atomic, s.elem, old, v, 0);
    std::memcpy(p + k, &r, n);
  }
}

void Cta::write_bulk_store(const BulkStore& s) {
  if (!s.tensor) {
    const auto& buf = mem_[static_cast<std::size_t>(s.buffer)];
    std::uint8_t* p = buf.bytes->data() + (s.dst - buf.address);
    if (s.reduce)
      reduce_into(s, p, s.data.data(), s.size);
    else
      std::memcpy(p, s.data.data(), s.size);
    return;
  }
  // A tensor store's runs inside the tensor (the plan left out the box's elements outside it);
  // a reduction's runs are whole elements of a box row.
  for (const TensorRun& r : s.tensor->runs) {
    const auto& buf = mem_[static_cast<std::size_t>(r.buffer)];
    std::uint8_t* p = buf.bytes->data() + (r.global - buf.address);
    if (s.reduce)
      reduce_into(s, p, s.data.data() + r.shared, r.bytes);
    else
      std::memcpy(p, s.data.data() + r.shared, r.bytes);
  }
}

std::optional<std::pair<std::uint64_t, std::int32_t>>
Cta::store_overlap(const BulkStore& s, std::uint64_t addr, std::uint64_t n) const {
  const auto first =
      [&](std::uint64_t at, std::uint64_t bytes,
          std::int32_t buffer) -> std::optional<std::pair<std::uint64_t, std::int32_t>> {
    if (addr >= at + bytes || at >= addr + n)
      return std::nullopt;
    return std::pair{std::max(addr, at), buffer};
  };
  if (!s.tensor)
    return first(s.dst, s.size, s.buffer);
  for (const TensorRun& r : s.tensor->runs) {
    if (auto hit = first(r.global, r.bytes, r.buffer))
      return hit;
  }
  return std::nullopt;
}

void Cta::bulk_read(const Thread& t, BulkStore& s) {
  if (s.read)
    return;
  s.data.assign(smem_.begin() + static_cast<std::ptrdiff_t>(s.src),
                smem_.begin() + static_cast<std::ptrdiff_t>(s.src + s.size));
  // The read is known complete only at the wait: another thread's write must be ordered after
  // it (a barrier or mbarrier phase since), so the wait counts as the store's read, now.
  const Access done{static_cast<std::int32_t>(t.tid), s.op, s.iteration, mb_.clock(t.tid)};
  for (std::uint64_t b = s.src; b < s.src + s.size; ++b) {
    ByteState& st = track_[b];
    if (--st.bulk_reads == 0)
      st.bulk_reader = -1;
    if (st.rphase != phase_) {
      st.reader = done;
      st.reader2 = Access{};
      st.rphase = phase_;
    } else if (st.reader.tid != done.tid) {
      st.reader2 = st.reader;
      st.reader = done;
    } else {
      st.reader = done;
    }
  }
  s.read = true;
}

void Cta::bulk_wait(Thread& t, const ir::Op& op) {
  // All but the n newest committed bulk groups; stores not yet committed stay pending.
  const auto n = static_cast<std::uint64_t>(op.n);
  const std::uint32_t limit = t.bulk_group > n ? t.bulk_group - static_cast<std::uint32_t>(n) : 0;
  std::size_t kept = 0;
  for (std::size_t k = 0; k < t.stores.size(); ++k) {
    BulkStore& s = t.stores[k];
    if (s.group < limit) {
      bulk_read(t, s);
      if (!op.read) {
        write_bulk_store(s);
        bulk_store_written(t, s, true);
        --pending_stores_;
        continue;
      }
    }
    if (kept != k)
      t.stores[kept] = std::move(s);
    ++kept;
  }
  t.stores.resize(kept);
}

void Cta::refill_race(const Thread& t, const Access& self, std::uint64_t b) const {
  const auto tid = static_cast<std::size_t>(track_[b].bulk_reader);
  for (const BulkStore& s : threads_[tid].stores) {
    if (!s.read && b >= s.src && b < s.src + s.size)
      return race(RaceKind::refill_before_bulk_read, t, self, b,
                  Access{static_cast<std::int32_t>(tid), s.op, s.iteration, s.clock});
  }
  // another thread's store still reads the byte; any of them will do as the earlier access
  for (const Thread& u : threads_) {
    for (const BulkStore& s : u.stores) {
      if (!s.read && b >= s.src && b < s.src + s.size)
        return race(RaceKind::refill_before_bulk_read, t, self, b,
                    Access{static_cast<std::int32_t>(u.tid), s.op, s.iteration, s.clock});
    }
  }
  unreachable("refill_race(): a byte marked as read by a bulk store has no such store");
}

void Cta::check_proxy(const Thread& t, const Access& self, std::uint64_t off,
                      std::uint64_t n) const {
  for (std::uint64_t b = off; b < off + n; ++b) {
    const ByteState& s = track_[b];
    if (s.writer.tid < 0 || s.async_written)
      continue;
    // The writer's fence must follow its write and, for another thread's bulk operation, be
    // ordered before it: by a barrier since (an earlier phase) or an mbarrier phase. The
    // first fence after the write is the one to look at: the writer may have run ahead and
    // fenced again (its next stage of a ring) where the other thread does not see it yet.
    const Thread& w = threads_[static_cast<std::size_t>(s.writer.tid)];
    const bool fenced = w.proxy_fences != s.wfence;
    const bool ordered_fence =
        fenced && (s.writer.tid == self.tid || w.fence_marks[s.wfence].first != phase_ ||
                   mb_.ordered(w.tid, w.fence_marks[s.wfence].second, t.tid));
    if (!fenced || !ordered_fence)
      race(RaceKind::missing_proxy_fence, t, self, b, s.writer);
  }
}

void Cta::finish_bulk_stores(Thread& t, std::uint32_t line) {
  // PTX does not say that exit waits for a bulk store's read of shared memory, and the CTA's
  // shared memory is released when it ends: the strict reading makes an unread source an
  // error. A store whose read has completed (wait_group.read) writes global memory before the
  // grid completes, as CUTLASS's epilogues rely on.
  for (BulkStore& s : t.stores) {
    if (!s.read)
      fault_at(FaultKind::undefined_behavior, t, e_.ops[s.op],
               "the thread exits at PTX line " + std::to_string(line) +
                   " with the bulk store at PTX line " + std::to_string(e_.ops[s.op].line) +
                   " (iteration " + std::to_string(s.iteration) +
                   ") not waited for: no cp.async.bulk.wait_group{.read} covers its group, so "
                   "its read of shared memory may outlive the CTA");
    write_bulk_store(s);
    bulk_store_written(t, s, false);
    --pending_stores_;
  }
  t.stores.clear();
}

} // namespace ptxgen::sim::exec
