// The executor's CTA: the named barriers bar.sync / bar.arrive / bar.red (cta.hpp).
//
// A barrier's use needs its thread count of arrivals (the whole CTA without a count); the
// arrival that completes it queues its waiters' release for the end of the pass, and the next
// arrival starts a new use. Ordering: a use every thread of the CTA waited in is a CTA phase
// (Cta::phase_, the race rules' "bar.sync both passed"); any other orders what its arrivals did
// before it before what its waiters do after (Mbarriers' vector clocks, kept for entries with
// such uses: executor.cpp).

#include "driver/sim/cta.hpp"

#include <algorithm>

namespace ptxgen::sim::exec {

namespace {

std::uint32_t whole_warps(std::size_t threads) {
  return static_cast<std::uint32_t>((threads + warp_size - 1) / warp_size * warp_size);
}

} // namespace

std::uint32_t Cta::arrival_slots(const Thread& t) const {
  const std::size_t n = threads_.size();
  if (t.tid + 1u == n && n % warp_size != 0)
    return 1 + static_cast<std::uint32_t>(warp_size - n % warp_size);
  return 1;
}

Cta::Flow Cta::named_barrier(Thread& t, const ir::Op& op) {
  const std::int64_t id =
      op.n >= 0 ? op.n : static_cast<std::int64_t>(raw(t, op.src[0]) & mask(32));
  if (id > 15)
    fault_at(FaultKind::undefined_behavior, t, op,
             "barrier number " + std::to_string(id) + " is outside 0..15");
  const bool counted = op.src[1].kind != ir::Val::Kind::none;
  std::uint32_t count = whole_warps(threads_.size());
  if (counted) {
    const std::uint64_t c = raw(t, op.src[1]) & mask(32);
    if (c == 0 || c % warp_size != 0)
      fault_at(FaultKind::undefined_behavior, t, op,
               "the thread count " + std::to_string(c) + " of barrier " + std::to_string(id) +
                   " is not a positive multiple of the warp size (32)");
    count = static_cast<std::uint32_t>(c);
  }
  return arrive_at_barrier(t, op, id, count, counted);
}

Cta::Flow Cta::cluster_barrier(Thread& t, const ir::Op& op) {
  return arrive_at_barrier(t, op, kClusterBarrier, whole_warps(threads_.size()), false);
}

Cta::Flow Cta::arrive_at_barrier(Thread& t, const ir::Op& op, std::int64_t id, std::uint32_t count,
                                 bool counted) {
  NamedBarrier& b = bars_[static_cast<std::size_t>(id)];
  if (b.arrived == 0) {
    b = NamedBarrier{};
    b.expected = count;
    b.counted = counted;
    b.first_tid = t.tid;
    b.first_line = op.line;
  } else if (count != b.expected) {
    fault_at(FaultKind::deadlock, t, op,
             "it arrives at barrier " + std::to_string(id) + " for " + std::to_string(count) +
                 " threads, but " + other(b.first_tid) + " arrived at it for " +
                 std::to_string(b.expected) + " at PTX line " + std::to_string(b.first_line) +
                 " and " + std::to_string(b.arrived) +
                 " have arrived: the users of one barrier must give one thread count (the "
                 "barrier never completes, or completes early)");
  }
  b.arrived += arrival_slots(t);
  mb_.release_into(t.tid, b.release);
  if (op.code == ir::Code::bar_arrive) {
    b.arrive_only = true;
  } else {
    b.waiters.push_back(t.tid);
    if (op.code == ir::Code::bar_red && (t.regs[op.src[2].reg] != 0) != op.src_neg)
      ++b.votes;
    t.state = State::at_barrier;
    t.barrier = id;
    t.stop_line = op.line;
  }
  if (b.arrived >= b.expected) {
    BarrierRelease r;
    r.waiters = std::move(b.waiters);
    r.release = std::move(b.release);
    r.whole_cta = !b.arrive_only && r.waiters.size() == threads_.size();
    r.votes = b.votes;
    released_.push_back(std::move(r));
    b = NamedBarrier{};
  }
  return op.code == ir::Code::bar_arrive ? Flow::next : Flow::stop;
}

bool Cta::release_barriers() {
  if (released_.empty())
    return false;
  for (BarrierRelease& r : released_) {
    if (r.whole_cta) {
      ++phase_;
      global_phase_done();
    }
    for (const std::uint32_t tid : r.waiters) {
      Thread& u = threads_[tid];
      if (!r.whole_cta)
        mb_.acquire(tid, r.release);
      const ir::Op& op = e_.ops[u.pc - 1];
      if (op.code == ir::Code::bar_red) {
        const auto voters = static_cast<std::uint32_t>(r.waiters.size());
        const std::uint64_t v = op.vote == ir::Vote::ballot ? r.votes
                                : op.vote == ir::Vote::all  ? (r.votes == voters ? 1 : 0)
                                                            : (r.votes != 0 ? 1 : 0);
        set(u, op.dst[0], v);
      }
      u.state = State::running;
    }
  }
  released_.clear();
  return true;
}

void Cta::barrier_stuck(const Thread& waiting) const {
  const NamedBarrier& b = bars_[static_cast<std::size_t>(waiting.barrier)];
  const Thread* exited = nullptr;
  const Thread* elsewhere = nullptr; // waiting at another barrier
  for (const auto& t : threads_) {
    if (t.state == State::exited && exited == nullptr)
      exited = &t;
    if (t.state == State::at_barrier && t.barrier != waiting.barrier && elsewhere == nullptr)
      elsewhere = &t;
  }
  const ir::Op& op = e_.ops[waiting.pc - 1];
  if (b.counted || b.arrive_only) {
    std::string why =
        exited != nullptr
            ? other(exited->tid) + " exited at PTX line " + std::to_string(exited->stop_line)
        : elsewhere != nullptr
            ? other(elsewhere->tid) + " waits at barrier " + std::to_string(elsewhere->barrier) +
                  " (PTX line " + std::to_string(elsewhere->stop_line) + ")"
            : std::string("no other thread can arrive");
    fault_at(FaultKind::deadlock, waiting, op,
             "it waits at barrier " + std::to_string(waiting.barrier) + " for " +
                 std::to_string(b.expected) + " threads, but only " + std::to_string(b.arrived) +
                 " arrived (the first: " + other(b.first_tid) + " at PTX line " +
                 std::to_string(b.first_line) + ") and " + why + ": the barrier never completes");
  }
  if (exited != nullptr)
    fault_at(FaultKind::barrier_divergence, waiting, op,
             "it waits at bar.sync " + std::to_string(waiting.barrier) + ", but " +
                 other(exited->tid) + " exited at PTX line " + std::to_string(exited->stop_line) +
                 " without reaching it; every thread of the CTA must arrive");
  const Thread& t = elsewhere != nullptr ? *elsewhere : waiting;
  fault_at(FaultKind::barrier_divergence, t, e_.ops[t.pc - 1],
           "it waits at barrier " + std::to_string(t.barrier) + " while " + other(waiting.tid) +
               " waits at barrier " + std::to_string(waiting.barrier) + " (PTX line " +
               std::to_string(waiting.stop_line) + ")");
}

} // namespace ptxgen::sim::exec
