// The executor's CTA: the mbarrier instructions. The objects' state and phase rules are in
// mbarrier.{hpp,cpp}; here: operands, scheduling of blocked waits, the copies that land at a
// phase's completion, deadlocks (cta.hpp).

#include "driver/sim/cta.hpp"
#include "emitter/support/unreachable.hpp"

namespace ptxgen::sim::exec {

std::uint64_t Cta::mbar_offset(const Thread& t, const ir::Op& op, const ir::Addr& a) const {
  std::uint64_t off = address(t, a);
  if (op.space == ir::Space::generic) {
    if (!in_shared_window(off))
      fault_at(FaultKind::illegal_address, t, op,
               "the mbarrier address " + hex(off) +
                   " is not a shared-memory address (an mbarrier object lives in shared memory)");
    off -= shared_window_base;
  }
  off = own_shared(t, op, off, "an mbarrier operand of this instruction");
  check_shared(t, op, off, 8, "mbarrier object");
  check_align(t, op, off, 8, "mbarrier object");
  return off;
}

void Cta::not_an_mbarrier(const Thread& t, const ir::Op& op, std::uint64_t off, std::uint64_t n,
                          std::string_view what) const {
  if (auto bar = mb_.overlapping(off, n)) {
    const auto [sym, at] = symbol_of(*bar);
    fault_at(FaultKind::undefined_behavior, t, op,
             std::string(what) + " of " + std::to_string(n) + " bytes at shared address " +
                 hex(off) + " touches the valid mbarrier object at `" + sym + "`+" +
                 std::to_string(at) + " (" + mb_.describe(*bar) +
                 "); only mbarrier instructions may access it before mbarrier.inval");
  }
}

std::string Cta::mbar_text(std::uint64_t off) const {
  const auto [sym, at] = symbol_of(off);
  return "`" + sym + "`+" + std::to_string(at) + " (" + mb_.describe(off) + ")";
}

Cta::Flow Cta::mbarrier_op(Thread& t, const ir::Op& op) {
  try {
    return mbarrier_step(t, op);
  } catch (const detail::MbarrierError& e) {
    fault_at(e.kind, t, op, e.detail);
  }
}

Cta::Flow Cta::mbarrier_step(Thread& t, const ir::Op& op) {
  const auto u32 = [&](std::size_t k) {
    return static_cast<std::int64_t>(get(t, op.src[k], ir::Type{32, false}));
  };
  if (op.code == ir::Code::bulk_copy) {
    bulk_issue(t, op);
    return Flow::next;
  }
  if (op.code == ir::Code::tensor_load) {
    tensor_load_issue(t, op);
    return Flow::next;
  }
  if (op.code == ir::Code::bulk_peer) {
    bulk_peer_issue(t, op);
    return Flow::next;
  }
  if (op.cluster || op.space == ir::Space::generic) { // maybe a peer's barrier (cta_cluster.cpp)
    std::uint64_t at = address(t, op.addr);
    if (resolve_shared(op, at)) {
      if (Cta& home = shared_home(t, op, at); &home != this)
        return remote_mbarrier(t, op, home, at);
    }
  }
  const std::uint64_t off = mbar_offset(t, op, op.addr);
  switch (op.code) {
  case ir::Code::mbar_init:
    mb_.init(off, u32(0), op.line);
    if (cluster_ != nullptr) { // published cluster-wide at a cluster barrier (cta_cluster.cpp)
      inits_[off] = InitRecord{cluster_use(t, op), std::nullopt};
      t.cl_inits.push_back(off);
    }
    return Flow::next;
  case ir::Code::mbar_inval:
    mb_.inval(off);
    return Flow::next;
  case ir::Code::mbar_arrive:
  case ir::Code::mbar_arrive_drop:
  case ir::Code::mbar_arrive_tx: {
    settle(off);
    const bool tx = op.code == ir::Code::mbar_arrive_tx;
    const std::uint64_t state = mb_.arrive(t.tid, off, tx ? 1 : u32(0), tx ? u32(0) : 0,
                                           op.code == ir::Code::mbar_arrive_drop);
    if (!op.sink)
      set(t, op.dst[0], state);
    if (!remote_tx_.empty())
      check_overfed(t, op, *this, off);
    return Flow::next;
  }
  case ir::Code::mbar_expect_tx:
    settle(off);
    mb_.expect_tx(t.tid, off, u32(0));
    return Flow::next;
  case ir::Code::cp_mbar_arrive:
    settle(off);
    mb_.track(t.tid, off, t.seq, op.noinc);
    t.tracked_seq = t.seq;
    return Flow::next;
  case ir::Code::mbar_wait:
  case ir::Code::mbar_wait_parity:
    return mbarrier_wait(t, op, off);
  default:
    unreachable("mbarrier_step(): not an mbarrier code");
  }
}

Cta::Flow Cta::mbarrier_wait(Thread& t, const ir::Op& op, std::uint64_t off) {
  settle(off);
  const bool parity = op.code == ir::Code::mbar_wait_parity;
  const std::uint64_t token = parity ? get(t, op.src[0], ir::Type{32, false}) : raw(t, op.src[0]);
  const bool done = mb_.test(t.tid, off, token, parity);
  if (done && cluster_ != nullptr) { // the phases seen here (Cta::observed_)
    std::uint64_t& seen = observed_[off];
    seen = std::max(seen, parity ? mb_.find(off)->phase : (token >> 32) + 1);
  }
  if (done || t.wake_false) {
    t.wake_false = false;
    set(t, op.dst[0], done ? 1 : 0);
    return Flow::next;
  }
  --t.pc; // retried when resumed
  t.state = State::at_mbarrier;
  t.barrier = static_cast<std::int64_t>(off);
  t.blocked_at = mb_.events();
  t.stop_line = op.line;
  return Flow::stop;
}

void Cta::settle(std::uint64_t off) {
  if (!mb_.completable(off))
    return;
  for (const detail::Tracker& tr : mb_.complete(off)) {
    Thread& owner = threads_[tr.tid];
    perform_if(owner, [&](const Copy& c) { return !c.bulk && c.seq < tr.seq; });
  }
  for (auto& th : threads_)
    perform_if(th, [&](const Copy& c) { return c.bulk && c.bar == off; });
  if (!remote_copies_.empty())
    land_remote(off);
}

void Cta::bulk_issue(Thread& t, const ir::Op& op) {
  auto [dst, src, size] = bulk_operands(t, op);
  dst = own_shared(t, op, dst, "the destination of a non-multicast bulk load");
  check_shared(t, op, dst, size, "cp.async.bulk destination");
  not_an_mbarrier(t, op, dst, size, "cp.async.bulk destination");
  global_bytes(t, op, src, size, "cp.async.bulk source");
  global_access(t, op, src, size, GlobalUse::async_read);
  Copy c;
  c.dst = dst;
  c.src = src;
  c.size = static_cast<std::uint32_t>(size);
  c.src_bytes = c.size;
  c.buffer = find_buffer(src, size);
  queue_bulk_load(t, op, std::move(c), size);
}

void Cta::queue_bulk_load(Thread& t, const ir::Op& op, Copy c, std::uint64_t tx) {
  const std::uint64_t bar = mbar_offset(t, op, op.addr3);
  if (op.multicast) {
    c.bar = bar;
    multicast(t, op, c, tx);
    return;
  }
  queue_load_at(t, op, std::move(c), tx, bar);
}

void Cta::queue_load_at(Thread& t, const ir::Op& op, Copy c, std::uint64_t tx, std::uint64_t bar) {
  const Access self = now(t, op);
  check_write(t, self, c.dst, c.size, true, false);
  check_proxy(t, self, c.dst, c.size);
  settle(bar);
  mb_.bulk(t.tid, bar, static_cast<std::int64_t>(tx));
  c.op = self.op;
  c.iteration = self.iteration;
  c.clock = self.clock;
  c.seq = t.seq++;
  c.bulk = true;
  c.bar = bar;
  for (std::uint64_t b = c.dst; b < c.dst + c.size; ++b)
    track_[b].pending = static_cast<std::int32_t>(t.tid);
  t.copies.push_back(std::move(c));
  if (!remote_tx_.empty())
    check_overfed(t, op, *this, bar);
}

bool Cta::wake_mbarrier_waiters() {
  bool woke = false;
  for (auto& t : threads_) {
    if (t.state == State::at_mbarrier && t.blocked_at != mb_.events()) {
      t.state = State::running;
      woke = true;
    }
  }
  if (woke)
    return true;
  for (auto& t : threads_) {
    if (t.state == State::at_mbarrier && t.false_at != mb_.events()) {
      t.false_at = mb_.events();
      t.wake_false = true;
      t.state = State::running;
      woke = true;
    }
  }
  return woke;
}

[[noreturn]] void Cta::deadlock(const Thread& t) const {
  std::uint64_t blocked = 0, at_bar = 0, exited = 0;
  for (const auto& u : threads_) {
    blocked += u.state == State::at_mbarrier ? 1 : 0;
    at_bar += u.state == State::at_barrier ? 1 : 0;
    exited += u.state == State::exited ? 1 : 0;
  }
  fault_at(FaultKind::deadlock, t, e_.ops[t.pc],
           "it waits on the mbarrier object at " +
               mbar_text(static_cast<std::uint64_t>(t.barrier)) +
               ", a phase no thread can complete: " + std::to_string(blocked) +
               " thread(s) wait on mbarriers, " + std::to_string(at_bar) + " at bar.sync, " +
               std::to_string(exited) + " exited");
}

void Cta::flush_async_copies() {
  land_remote(~0ull);
  for (auto& t : threads_) {
    if (t.copies.empty())
      continue;
    if (exits_.threads++ == 0)
      exits_.first = who(t.tid) + " (an mbarrier-tracked copy at PTX line " +
                     std::to_string(e_.ops[t.copies.front().op].line) +
                     " whose phase never completed)";
    perform_if(t, [](const Copy&) { return true; });
  }
}

} // namespace ptxgen::sim::exec
