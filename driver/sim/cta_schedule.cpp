// The executor's CTA: the scheduler that runs its threads in passes, and the
// warp-collective instructions that wait for a warp's lanes (cta.hpp).

#include "driver/sim/cta.hpp"

#include <algorithm>

namespace ptxgen::sim::exec {

void Cta::run() {
  while (advance()) {
  }
  stuck();
  finish();
}

bool Cta::advance() {
  for (std::size_t k = 0; k < threads_.size(); ++k) {
    Thread& t = threads_[order_.empty() ? k : order_[k]];
    if (t.state == State::running)
      step(t);
  }
  release_barriers(); // the uses of named barriers completed in the pass
  if (wake_mbarrier_waiters())
    return true;
  if (std::any_of(threads_.begin(), threads_.end(),
                  [](const Thread& t) { return t.state == State::running; }))
    return true; // lanes a warp collective or a barrier released
  return settle_active_masks() || settle_warp_groups();
}

void Cta::stuck() const {
  for (const auto& t : threads_) {
    if (t.state == State::at_mbarrier)
      deadlock(t);
  }
  const Thread* waiting = nullptr;
  for (const auto& t : threads_) {
    if (t.state == State::at_warp)
      warp_stuck(t);
    if (t.state == State::at_cluster)
      cluster_stuck(t);
    if (t.state == State::at_barrier && waiting == nullptr)
      waiting = &t;
  }
  if (waiting != nullptr)
    barrier_stuck(*waiting);
}

void Cta::finish() {
  flush_async_copies();
}

std::pair<std::size_t, std::size_t> Cta::enter_warp(Thread& t, const ir::Op& op) {
  t.state = State::at_warp;
  t.stop_line = op.line;
  const std::size_t first = t.tid & ~31u;
  return {first, std::min<std::size_t>(first + 32, threads_.size())};
}

bool Cta::converging(const ir::Op& op) {
  switch (op.code) {
  case ir::Code::shfl:
  case ir::Code::vote:
  case ir::Code::match_any:
  case ir::Code::warp_sync:
  case ir::Code::redux:
  case ir::Code::elect:
    return true;
  default:
    return false; // .sync.aligned: ldmatrix, setmaxnreg, tensormap.cp_fenceproxy
  }
}

std::uint32_t Cta::member_mask(const Thread& t, const ir::Op& op) const {
  const std::size_t at = op.code == ir::Code::shfl ? 3
                         : op.code == ir::Code::warp_sync || op.code == ir::Code::elect
                             ? 0
                             : 1; // vote, match.any, redux
  return static_cast<std::uint32_t>(raw(t, op.src[at]));
}

bool Cta::same_sync(const Thread& t, const Thread& u) const {
  const ir::Op& op = e_.ops[t.pc - 1];
  const ir::Op& uop = e_.ops[u.pc - 1];
  // The same instruction kind, qualifiers and membermask (PTX ISA, shfl.sync and the others)
  return uop.code == op.code && uop.shuffle == op.shuffle && uop.vote == op.vote &&
         uop.atomic == op.atomic && uop.type.bits == op.type.bits &&
         member_mask(u, uop) == member_mask(t, op);
}

std::optional<std::uint32_t> Cta::warp_group(const Thread& t) const {
  const ir::Op& op = e_.ops[t.pc - 1];
  const std::uint32_t members = member_mask(t, op);
  const std::size_t first = t.tid & ~31u;
  std::uint32_t group = 0;
  for (std::uint32_t l = 0; l < 32 && first + l < threads_.size(); ++l) {
    const Thread& u = threads_[first + l];
    if ((members >> l & 1) == 0 || u.state == State::exited)
      continue;
    if (u.state != State::at_warp)
      return std::nullopt;
    if (!same_sync(t, u))
      return std::nullopt;
    group |= 1u << l;
  }
  return group;
}

bool Cta::settle_warp_group(const Thread& t) {
  const std::optional<std::uint32_t> group = warp_group(t);
  if (!group)
    return false;
  const std::size_t first = t.tid & ~31u;
  const std::size_t last = std::min<std::size_t>(first + 32, threads_.size());
  const ir::Op& op = e_.ops[t.pc - 1];
  if (op.code != ir::Code::warp_sync)
    exchange(first, last, op, *group);
  // bar.warp.sync also orders memory among its lanes (PTX ISA): what each lane did before it is
  // ordered before what every lane does after, as at a named barrier of those lanes (a consumer
  // warp's reads, then __syncwarp(), then one lane's mbarrier arrival for the whole warp).
  std::vector<std::uint32_t> release;
  const bool orders = op.code == ir::Code::warp_sync;
  for (std::size_t k = first; k < last; ++k) {
    if (orders && (*group >> (k - first) & 1) != 0)
      mb_.release_into(static_cast<std::uint32_t>(k), release);
  }
  for (std::size_t k = first; k < last; ++k) {
    if ((*group >> (k - first) & 1) == 0)
      continue;
    if (orders)
      mb_.acquire(static_cast<std::uint32_t>(k), release);
    threads_[k].state = State::running;
  }
  return true;
}

bool Cta::settle_warp_groups() {
  for (const Thread& t : threads_) {
    if (t.state == State::at_warp && converging(e_.ops[t.pc - 1]) && settle_warp_group(t))
      return true;
  }
  return false;
}

void Cta::warp_stuck(const Thread& t) const {
  const ir::Op& op = e_.ops[t.pc - 1];
  if (!converging(op))
    fault_at(FaultKind::barrier_divergence, t, op,
             "it waits for the other lanes of warp " + std::to_string(t.tid / 32) +
                 " in a .sync.aligned instruction they do not all reach");
  const std::uint32_t members = member_mask(t, op);
  const std::size_t first = t.tid & ~31u;
  std::string where;
  for (std::uint32_t l = 0; l < 32 && first + l < threads_.size(); ++l) {
    const Thread& u = threads_[first + l];
    if ((members >> l & 1) != 0 && u.state == State::at_warp && !same_sync(t, u)) {
      where = "; lane " + std::to_string(l) + " waits at PTX line " + std::to_string(u.stop_line) +
              " in another instruction (or with another membermask)";
      break;
    }
  }
  fault_at(FaultKind::barrier_divergence, t, op,
           "it waits for the lanes of membermask " + hex(members) + " of warp " +
               std::to_string(t.tid / 32) + " in a .sync instruction they never all reach" + where);
}

Cta::Flow Cta::warp_collective(Thread& t, const ir::Op& op) {
  const auto [first, last] = enter_warp(t, op);
  if (converging(op)) {
    if ((member_mask(t, op) >> (t.tid - first) & 1) == 0)
      fault_at(FaultKind::undefined_behavior, t, op,
               "the executing lane " + std::to_string(t.tid - first) +
                   " is not in the membermask " + hex(member_mask(t, op)));
    return settle_warp_group(t) ? Flow::next : Flow::stop;
  }
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
  if (op.code == ir::Code::tensormap_copy)
    for (std::size_t k = first; k < last; ++k)
      tensormap_copy(threads_[k], op);
  // setmaxnreg: a register budget; no value changes
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

void Cta::exchange(std::size_t first, std::size_t last, const ir::Op& op, std::uint32_t members) {
  std::uint64_t result[32] = {};
  bool in_range[32] = {}; ///< shfl's `|p`: the source lane was in range
  const std::size_t lanes = last - first;
  const auto in = [&](std::size_t l) { return (members >> l & 1) != 0; };
  // Each member by the instruction it waits in: a group's lanes may wait in different ones.
  const auto lane_op = [&](std::size_t l) -> const ir::Op& {
    return in(l) ? e_.ops[threads_[first + l].pc - 1] : op;
  };
  if (op.code == ir::Code::elect) { // the lowest lane of the group leads
    std::size_t leader = 0;
    while (leader < lanes && !in(leader))
      ++leader;
    for (std::size_t l = 0; l < lanes; ++l) {
      if (!in(l))
        continue;
      const ir::Op& mine = lane_op(l);
      if (!mine.sink)
        set(threads_[first + l], mine.dst[0], leader);
      if (mine.pred_dst >= 0)
        set(threads_[first + l], static_cast<std::uint32_t>(mine.pred_dst), l == leader ? 1 : 0);
    }
    return;
  }
  if (op.code == ir::Code::redux) {
    const std::uint64_t v = warp_reduce(first, members, op);
    for (std::size_t l = 0; l < lanes; ++l) {
      if (in(l))
        set(threads_[first + l], lane_op(l).dst[0], v);
    }
    return;
  }
  std::uint32_t ballot = 0;
  for (std::size_t l = 0; l < lanes; ++l) {
    const Thread& u = threads_[first + l];
    const ir::Op& mine = lane_op(l);
    if (op.code == ir::Code::vote && in(l))
      ballot |= static_cast<std::uint32_t>((u.regs[mine.src[0].reg] != 0) != mine.src_neg) << l;
  }
  for (std::size_t l = 0; l < lanes; ++l) {
    if (!in(l))
      continue;
    const Thread& u = threads_[first + l];
    const ir::Op& mine = lane_op(l);
    if (op.code == ir::Code::match_any) {
      const std::uint64_t v = get(u, mine.src[0], mine.type);
      for (std::size_t j = 0; j < lanes; ++j) {
        if (in(j) && get(threads_[first + j], lane_op(j).src[0], mine.type) == v)
          result[l] |= 1ull << j;
      }
      continue;
    }
    if (op.code == ir::Code::vote) { // over the non-exited lanes of the membermask
      result[l] = mine.vote == ir::Vote::ballot ? ballot
                  : mine.vote == ir::Vote::all  ? ballot == members
                  : mine.vote == ir::Vote::any  ? ballot != 0
                                                : (ballot == 0 || ballot == members);
      continue;
    }
    const auto lane = static_cast<std::int64_t>(l);
    const auto b = static_cast<std::int64_t>(raw(u, mine.src[1]) & 31);
    const std::uint64_t c = raw(u, mine.src[2]);
    const std::int64_t seg = static_cast<std::int64_t>((c >> 8) & 31);
    const std::int64_t max_lane = (lane & seg) | (static_cast<std::int64_t>(c & 31) & ~seg);
    const std::int64_t min_lane = lane & seg;
    std::int64_t j = lane;
    bool ok = false;
    switch (mine.shuffle) {
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
    const auto src = static_cast<std::size_t>(j);
    result[l] = raw(threads_[first + src], lane_op(src).src[0]);
  }
  for (std::size_t l = 0; l < lanes; ++l) {
    if (!in(l))
      continue;
    const ir::Op& mine = lane_op(l);
    if (!mine.sink)
      set(threads_[first + l], mine.dst[0], result[l]);
    if (mine.pred_dst >= 0)
      set(threads_[first + l], static_cast<std::uint32_t>(mine.pred_dst), in_range[l] ? 1 : 0);
  }
}

std::uint64_t Cta::warp_reduce(std::size_t first, std::uint32_t members, const ir::Op& op) const {
  const ir::Type type{32, op.type.is_signed, ir::Num::integer};
  std::uint64_t acc = 0;
  bool any = false;
  for (std::uint32_t l = 0; l < 32; ++l) {
    if ((members >> l & 1) == 0)
      continue;
    const Thread& u = threads_[first + l];
    const std::uint64_t v = get(u, e_.ops[u.pc - 1].src[0], op.type) & mask(32);
    if (!any) {
      acc = v;
      any = true;
      continue;
    }
    // The same combination as atom's (the decoder admits add, min, max, and, or, xor).
    acc = atomic_result(op.atomic, type, acc, v, 0);
  }
  return acc;
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
      if (op.dst[m] != ir::no_register) // the sink `_`
        set(threads_[first + l], op.dst[m], v);
    }
  }
}

} // namespace ptxgen::sim::exec
