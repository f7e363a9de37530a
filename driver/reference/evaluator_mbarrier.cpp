// mbarriers: init, arrive, copy_arrive (a deferred arrival when copies land) and
// test_wait.parity.

#include "driver/reference/evaluator.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::driver::evaluation {

void Evaluator::arrive_on(Cta& cta, std::size_t id) {
  RefBarrier& bar = cta.barriers[id];
  if (--bar.pending == 0) {
    complete_if_tx_done(bar);
  }
}

void Evaluator::release(std::size_t id, std::int64_t tid) {
  Cta& cta = cta_state_;
  const auto block = static_cast<std::size_t>(k_.block);
  if (cta.ordered.empty()) {
    cta.ordered.assign(block * block, 0);
  }
  RefBarrier& bar = cta.barriers[id];
  if (bar.release.empty()) {
    bar.release.assign(block, -1);
  }
  // What the thread has been ordered after so far goes into the phase with its own ops.
  const std::int64_t* known = &cta.ordered[static_cast<std::size_t>(tid) * block];
  for (std::size_t r = 0; r < block; ++r) {
    bar.release[r] = std::max(bar.release[r], known[r]);
  }
  bar.release[static_cast<std::size_t>(tid)] = cta.clock;
}

void Evaluator::acquire(std::size_t id, std::int64_t tid) {
  Cta& cta = cta_state_;
  const RefBarrier& bar = cta.barriers[id];
  if (bar.done.empty() || cta.ordered.empty()) {
    return;
  }
  const auto block = static_cast<std::size_t>(k_.block);
  std::int64_t* row = &cta.ordered[static_cast<std::size_t>(tid) * block];
  for (std::size_t r = 0; r < block; ++r) {
    row[r] = std::max(row[r], bar.done[r]);
  }
}

void Evaluator::fire(Cta& cta, std::size_t d) {
  Deferred& def = cta.deferred[d];
  if (def.fired)
    return;
  def.fired = true;
  --cta.barriers[def.barrier].unfired;
  arrive_on(cta, def.barrier);
}

std::optional<std::size_t> Evaluator::barrier_id(std::size_t op, const tile::Located<tile::View>& v,
                                                 std::int64_t tid) {
  if (!prepare(op, v, "barrier"))
    return std::nullopt;
  const Slot s = *slot(v.value);
  Buffer& b = buffer(s, cta_state_);
  const std::vector<std::int64_t> zeros(plan(v.value).shape().size(), 0);
  Runs o;
  if (!locate(op, v, b, env(cta_, tid), zeros, std::nullopt, o) || o.first.len == 0)
    return std::nullopt;
  auto [it, fresh] =
      cta_state_.barrier_ids.try_emplace({s.index, o.first.off}, cta_state_.barriers.size());
  if (fresh)
    cta_state_.barriers.push_back(RefBarrier{v.text});
  return it->second;
}

std::optional<std::size_t>
Evaluator::used_barrier(std::size_t op, const tile::Located<tile::View>& v, std::int64_t tid) {
  const auto id = barrier_id(op, v, tid);
  if (id && !cta_state_.barriers[*id].initialised) {
    problems_.add(op, DiagId::check_mbarrier_hang, "uses an mbarrier never initialised",
                  [&] { return where(cta_, tid) + ": '" + v.text + "'"; });
    return std::nullopt;
  }
  return id;
}

void Evaluator::step_op(std::size_t op, const tile::MbarrierInitOp& m) {
  // Thread 0 initialises: phase 0, count arrivals pending.
  if (const auto id = barrier_id(op, m.barrier, 0)) {
    RefBarrier& bar = cta_state_.barriers[*id];
    bar.initialised = true;
    bar.count = m.count.value;
    bar.pending = m.count.value;
    bar.phase = 0;
    bar.release.clear();
    bar.done.clear();
    // The phases seen, and the bytes they guard, were the old initialisation's: a thread
    // that waited for them has seen those bytes.
    for (ThreadState& ts : cta_state_.threads)
      ts.waited.erase(*id);
    for (Buffer& b : cta_state_.shared)
      for (auto& g : b.hz.guard_barrier)
        if (g == static_cast<std::int32_t>(*id))
          g = ref::none;
  }
}

void Evaluator::step_op(std::size_t op, const tile::CopyArriveOp& m) {
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    const auto id = used_barrier(op, m.barrier, tid);
    if (!id)
      continue;
    // Without noinc the pending count goes up now; the deferred arrival takes it down again.
    if (!m.noinc)
      ++cta_state_.barriers[*id].pending;
    const std::size_t d = cta_state_.deferred.size();
    cta_state_.deferred.push_back({*id, op, 0, false});
    ++cta_state_.barriers[*id].unfired;
    for (Chunk& c : cta_state_.threads[static_cast<std::size_t>(tid)].queue) {
      c.deferred.push_back(d);
      ++cta_state_.deferred[d].remaining;
    }
    if (cta_state_.deferred[d].remaining == 0)
      fire(cta_state_, d); // no copy pending: it arrives at once
  }
}

void Evaluator::step_op(std::size_t op, const tile::MbarrierArriveOp& m) {
  if (m.barrier.value.peer) {
    each_issuing_thread(op, m.pred, [&](std::int64_t tid, const tile::ExprEnv& e) {
      remote_arrive(op, m, tid, e);
    });
    return;
  }
  each_issuing_thread(op, m.pred, [&](std::int64_t tid, const tile::ExprEnv&) {
    if (const auto id = used_barrier(op, m.barrier, tid)) {
      release(*id, tid);
      arrive_on(cta_state_, *id);
    }
  });
}

void Evaluator::step_op(std::size_t op, const tile::MbarrierWaitOp& m) {
  // In a cluster a peer's arrival or copy may still complete the phase: the CTA stops here
  // and its peers run first (run_clusters), unless none of them can go on either.
  if (cluster_ctas_ != nullptr && !stalled_ && wait_blocks(op, m)) {
    blocked_ = true;
    return;
  }
  each_issuing_thread(op, m.pred, [&](std::int64_t tid, const tile::ExprEnv& e) {
    const auto id = used_barrier(op, m.barrier, tid);
    if (!id)
      return;
    land_tracked(*id);
    land_loads(*id);
    const auto q = eval(op, m.parity, "parity", e);
    if (!q)
      return;
    const RefBarrier& bar = cta_state_.barriers[*id];
    if ((bar.phase % 2) == *q) {
      problems_.add(op, DiagId::check_mbarrier_hang,
                    "waits for an mbarrier phase that cannot complete", [&] {
                      return where(cta_, tid) + " waits on parity " + std::to_string(*q) + " of '" +
                             bar.name + "', whose phase " + std::to_string(bar.phase) +
                             " still needs " + std::to_string(bar.pending) + " of " +
                             std::to_string(bar.count) + " arrivals" + tx_text(bar);
                    });
      return;
    }
    auto& waited = cta_state_.threads[static_cast<std::size_t>(tid)].waited;
    auto [seen, fresh] = waited.try_emplace(*id, bar.phase - 1);
    if (!fresh)
      seen->second = std::max(seen->second, bar.phase - 1);
    acquire(*id, tid);
  });
}

std::string Evaluator::tx_text(const RefBarrier& bar) {
  if (bar.tx_expected == 0 && bar.tx_delivered == 0)
    return {};
  return " and whose transaction count is not back at zero: its expect_tx ops announced " +
         std::to_string(bar.tx_expected) + " bytes, its loads delivered " +
         std::to_string(bar.tx_delivered);
}

void Evaluator::land_tracked(std::size_t id) {
  if (cta_state_.barriers[id].unfired == 0)
    return;
  for (std::int64_t t = 0; t < k_.block; ++t) {
    perform(
        cta_state_, t,
        [&](const Chunk& c) {
          return std::any_of(c.deferred.begin(), c.deferred.end(), [&](std::size_t d) {
            return cta_state_.deferred[d].barrier == id && !cta_state_.deferred[d].fired;
          });
        },
        false, id);
  }
}

} // namespace ptxgen::driver::evaluation
