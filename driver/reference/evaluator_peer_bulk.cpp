// The async side of distributed shared memory: bulk_copy_peer (cp.async.bulk.shared::cluster.
// shared::cta) and remote mbarrier arrivals (mbarrier_arrive on `B@rank`). Both act on another
// CTA of the cluster: its shared bytes and its barriers are in its own Cta state, suspended
// between its turns (evaluator_cluster.cpp). A copy is issued into the receiving CTA's pending
// loads, where it lands at that CTA's first wait on its barrier (as a bulk_load does in its
// own CTA), reading the sender's source then: the latest time it may. Until it lands the
// source counts as read by the async proxy, so a write of it in between is
// check_peer_copy_refill.

#include "driver/reference/evaluator.hpp"

namespace ptxgen::driver::evaluation {

std::optional<std::size_t> Evaluator::peer_barrier(std::size_t op,
                                                   const tile::Located<tile::View>& v,
                                                   const tile::ExprEnv& e, Cta& target,
                                                   std::int64_t owner) {
  if (!prepare(op, v, "barrier"))
    return std::nullopt;
  const Slot s = *slot(v.value);
  const std::vector<std::int64_t> zeros(plan(v.value).shape().size(), 0);
  Runs o;
  // The barrier's offset as the issuing thread names it; the bytes are the peer's.
  if (!locate(op, v, target.shared[s.index], e, zeros, std::nullopt, o) || o.first.len == 0)
    return std::nullopt;
  const auto it = target.barrier_ids.find({s.index, o.first.off});
  if (it == target.barrier_ids.end() || !target.barriers[it->second].initialised) {
    problems_.add(op, DiagId::check_mbarrier_hang, "uses an mbarrier never initialised", [&] {
      return where(cta_, e.tid) + ": '" + v.text + "', the barrier of CTA " + std::to_string(owner);
    });
    return std::nullopt;
  }
  return it->second;
}

void Evaluator::step_op(std::size_t op, const tile::BulkCopyPeerOp& c) {
  if (!prepare(op, c.dst, "dst") || !prepare(op, c.src, "src"))
    return;
  const Slot ds = *slot(c.dst.value);
  Buffer& sb = buffer(*slot(c.src.value), cta_state_);
  each_issuing_thread(op, c.pred, [&](std::int64_t tid, const tile::ExprEnv& e) {
    std::int64_t owner = cta_;
    Cta* target = peer_cta(op, c.dst, e, owner);
    if (target == nullptr)
      return;
    const auto id = peer_barrier(op, c.barrier, e, *target, owner);
    Buffer& db = target->shared[ds.index];
    Runs d;
    Runs s;
    if (!id || !view_runs(op, c.dst, db, e, d) || !view_runs(op, c.src, sb, e, s))
      return;
    if (d.bytes() != s.bytes()) {
      problems_.add(op, DiagId::check_views_do_not_fit, "dst and src do not fit together", [&] {
        return "a bulk_copy_peer copies " + std::to_string(s.bytes()) + " bytes into " +
               std::to_string(d.bytes()) + " bytes";
      });
      return;
    }
    read_peer_source(op, tid, sb, s);
    PendingLoad l{.access = model::Access::bulk_load,
                  .op = op,
                  .tid = tid,
                  .barrier = *id,
                  .bytes = d.bytes()};
    l.dst = &db;
    l.src = &sb;
    l.pieces = zip_runs(d, s);
    l.writes = std::move(d);
    l.source_reads = std::move(s);
    l.peer_source = &sb;
    land_in(owner, *target, std::move(l));
  });
}

void Evaluator::read_peer_source(std::size_t op, std::int64_t tid, Buffer& sb, const Runs& s) {
  ref::SharedBytes& h = sb.hz;
  s.each([&](Run r) {
    read_run(op, cta_state_, cta_, tid, sb, r, 0, [](std::int64_t, std::int64_t) {});
    each_granule(sb, r, [&](std::size_t g, std::int64_t off) {
      check_proxy_fence(op, tid, sb, g, off);
      ++h.bulk_reads[g];
      h.bulk_read_tid[g] = static_cast<std::int32_t>(tid);
      h.bulk_read_op[g] = op32(op);
    });
  });
}

void Evaluator::land_in(std::int64_t owner, Cta& target, PendingLoad&& l) {
  // The receiving CTA's checks of a load into its shared memory, in its own state.
  const std::int64_t self = cta_;
  const bool swap = &target != &cta_state_;
  if (swap) {
    std::swap(cta_state_, target);
    cta_ = owner;
  }
  Cta& cta = cta_state_;
  Buffer& db = *l.dst;
  ref::SharedBytes& h = db.hz;
  l.writes.each([&](Run r) {
    each_granule(db, r, [&](std::size_t g, std::int64_t o) {
      check_pending_write(l.op, DiagId::check_pending_overlap,
                          "two pending copies write the same shared bytes", cta_, l.tid, db, g, o,
                          " issues a load into ", " will still write (not yet waited)");
      check_bulk_refill(l.op, l.tid, db, g, o, " issues a load into ");
      used_again(cta, h, g);
      ++h.pending[g];
      h.pending_tid[g] = static_cast<std::int32_t>(l.tid);
      h.pending_op[g] = op32(l.op);
      h.pending_group[g] = 0;
    });
  });
  cta.loads.push_back(std::move(l));
  if (swap) {
    std::swap(cta_state_, target);
    cta_ = self;
  }
}

void Evaluator::end_peer_reads(const PendingLoad& l) {
  Buffer* sb = l.peer_source;
  if (sb == nullptr)
    return;
  l.source_reads.each([&](Run r) {
    each_granule(*sb, r, [&](std::size_t g, std::int64_t) { --sb->hz.bulk_reads[g]; });
  });
}

void Evaluator::remote_arrive(std::size_t op, const tile::MbarrierArriveOp& m, std::int64_t tid,
                              const tile::ExprEnv& e) {
  std::int64_t owner = cta_;
  Cta* target = peer_cta(op, m.barrier, e, owner);
  if (target == nullptr)
    return;
  if (const auto id = peer_barrier(op, m.barrier, e, *target, owner)) {
    if (target == &cta_state_)
      release(*id, tid);
    arrive_on(*target, *id);
  }
}

bool Evaluator::wait_blocks(std::size_t op, const tile::MbarrierWaitOp& m) {
  bool blocks = false;
  each_issuing_thread(op, m.pred, [&](std::int64_t tid, const tile::ExprEnv& e) {
    if (blocks)
      return;
    const auto id = barrier_id(op, m.barrier, tid);
    if (!id || !cta_state_.barriers[*id].initialised)
      return;
    land_tracked(*id);
    land_loads(*id);
    const auto q = naive_evaluate(*m.parity.value, e);
    blocks = q && (cta_state_.barriers[*id].phase % 2) == *q;
  });
  return blocks;
}

} // namespace ptxgen::driver::evaluation
