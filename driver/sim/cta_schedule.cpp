// The executor's CTA: the scheduler that runs its threads in passes, and the
// warp-collective instructions that wait for a warp's lanes (cta.hpp).

#include "driver/sim/cta.hpp"

#include <algorithm>

namespace ptxgen::sim::exec {

void Cta::run() {
  while (true) {
    for (std::size_t k = 0; k < threads_.size(); ++k) {
      Thread& t = threads_[order_.empty() ? k : order_[k]];
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
                   other(exited->tid) + " exited at PTX line " + std::to_string(exited->stop_line) +
                   " without reaching it; every thread of the CTA must arrive");
    }
    for (const auto& t : threads_) {
      if (t.barrier != waiting->barrier) {
        fault_at(FaultKind::barrier_divergence, t, e_.ops[t.pc - 1],
                 "it waits at barrier " + std::to_string(t.barrier) + " while " +
                     other(waiting->tid) + " waits at barrier " + std::to_string(waiting->barrier) +
                     " (PTX line " + std::to_string(waiting->stop_line) + ")");
      }
    }
    ++phase_;
    global_phase_done();
    for (auto& t : threads_)
      t.state = State::running;
  }
}

std::pair<std::size_t, std::size_t> Cta::enter_warp(Thread& t, const ir::Op& op) {
  t.state = State::at_warp;
  t.stop_line = op.line;
  const std::size_t first = t.tid & ~31u;
  return {first, std::min<std::size_t>(first + 32, threads_.size())};
}

Cta::Flow Cta::warp_collective(Thread& t, const ir::Op& op) {
  const auto [first, last] = enter_warp(t, op);
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

Cta::Flow Cta::active_mask(Thread& t, const ir::Op& op) {
  const auto [first, last] = enter_warp(t, op);
  for (std::size_t k = first; k < last; ++k) {
    if (threads_[k].state == State::running)
      return Flow::stop;
  }
  settle_active_mask(first, last, t.pc);
  return Flow::next;
}

void Cta::settle_active_mask(std::size_t first, std::size_t last, std::uint32_t pc) {
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

bool Cta::settle_active_masks() {
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

void Cta::exchange(std::size_t first, std::size_t last, const ir::Op& op) {
  std::uint64_t result[32] = {};
  bool in_range[32] = {}; ///< shfl's `|p`: the source lane was in range
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
    in_range[l] = ok && j >= 0 && j < static_cast<std::int64_t>(lanes);
    if (!in_range[l])
      j = lane;
    result[l] = raw(threads_[first + static_cast<std::size_t>(j)], op.src[0]);
  }
  for (std::size_t l = 0; l < lanes; ++l) {
    if (!op.sink)
      set(threads_[first + l], op.dst[0], result[l]);
    if (op.pred_dst >= 0)
      set(threads_[first + l], static_cast<std::uint32_t>(op.pred_dst), in_range[l] ? 1 : 0);
  }
}

void Cta::load_matrices(std::size_t first, std::size_t last, const ir::Op& op) {
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
          op.trans ? u16(r[2 * (l % 4)] + 2 * (l / 4)) | u16(r[2 * (l % 4) + 1] + 2 * (l / 4)) << 16
                   : u16(r[l / 4] + 4 * (l % 4)) | u16(r[l / 4] + 4 * (l % 4) + 2) << 16;
      set(threads_[first + l], op.dst[m], v);
    }
  }
}

} // namespace ptxgen::sim::exec
