// The sm_90 bulk family: the 1-D copies, bulk groups, proxy fences and transaction bytes.
// Loads land at the first mbarrier_wait on their barrier and stores read and write at the
// bulk_wait that covers their group: the latest times both may, so that an access of their
// bytes in between is seen.

#include "driver/reference/evaluator.hpp"
#include "driver/reference/reduce_values.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::driver::evaluation {

bool Evaluator::issues(std::size_t op, const std::optional<tile::Located<tile::ExprPtr>>& pred,
                       const tile::ExprEnv& e) {
  if (!pred) {
    return true;
  }
  const auto p = eval(op, *pred, "pred", e);
  return p && *p != 0;
}

bool Evaluator::view_runs(std::size_t op, const tile::Located<tile::View>& v, const Buffer& b,
                          const tile::ExprEnv& e, Runs& out) {
  const NaivePlan& p = plan(v.value);
  const auto& shape = p.shape();
  const std::int64_t n = shape.empty() ? 1 : shape.back();
  const std::optional<Fast> fast = form(op_form(v, e), e);
  bool ok = true;
  for_each_row(shape, [&](const std::vector<std::int64_t>& c) {
    if (!ok) {
      return;
    }
    if (const auto r = row(fast, b, c, n)) {
      out.append(*r);
      return;
    }
    std::vector<std::int64_t> x = c;
    for (std::int64_t i = 0; i < n && ok; ++i) {
      if (!shape.empty()) {
        x.back() = i;
      }
      ok = locate(op, v, b, e, x, fast, out);
    }
  });
  return ok;
}

std::vector<Piece> Evaluator::zip_runs(const Runs& d, const Runs& s) {
  std::vector<Run> dr;
  std::vector<Run> sr;
  d.each([&](Run r) { dr.push_back(r); });
  s.each([&](Run r) { sr.push_back(r); });
  std::vector<Piece> out;
  std::size_t i = 0;
  std::size_t j = 0;
  std::int64_t di = 0;
  std::int64_t sj = 0;
  while (i < dr.size() && j < sr.size()) {
    const std::int64_t k = std::min(dr[i].len - di, sr[j].len - sj);
    out.push_back({dr[i].off + di, sr[j].off + sj, k});
    di += k;
    sj += k;
    if (di == dr[i].len) {
      ++i;
      di = 0;
    }
    if (sj == sr[j].len) {
      ++j;
      sj = 0;
    }
  }
  return out;
}

void Evaluator::step_op(std::size_t op, const tile::BulkLoadOp& m) {
  if (!prepare(op, m.dst, "dst") || !prepare(op, m.src, "src")) {
    return;
  }
  Cta& cta = cta_state_;
  Buffer& db = buffer(*slot(m.dst.value), cta);
  const Buffer& sb = buffer(*slot(m.src.value), cta);
  each_receiving(op, m.pred, m.multicast, [&](std::int64_t tid, const tile::ExprEnv& e) {
    const auto id = used_barrier(op, m.barrier, tid);
    Runs d;
    Runs s;
    if (!id || !view_runs(op, m.dst, db, e, d) || !view_runs(op, m.src, sb, e, s)) {
      return;
    }
    if (!db.shared || sb.shared || d.bytes() != s.bytes()) {
      problems_.add(op, DiagId::check_views_do_not_fit, "dst and src do not fit together", [&] {
        return "a bulk load copies " + std::to_string(s.bytes()) + " bytes of a global view into " +
               std::to_string(d.bytes()) + " bytes of a shared one";
      });
      return;
    }
    PendingLoad l{.access = model::Access::bulk_load,
                  .op = op,
                  .tid = tid,
                  .barrier = *id,
                  .bytes = d.bytes()};
    l.dst = &db;
    l.src = &sb;
    l.pieces = zip_runs(d, s);
    l.writes = std::move(d);
    issue_load(std::move(l));
  });
}

void Evaluator::issue_load(PendingLoad&& l) {
  Cta& cta = cta_state_;
  Buffer& db = *l.dst;
  ref::SharedBytes& h = db.hz;
  for (const Piece& p : l.pieces) {
    if (p.src != filled) {
      note_global(l.op, l.tid, *l.src, {p.src, p.len}, false);
    }
  }
  if (!l.src->pending_writes.empty()) {
    for (const Piece& p : l.pieces) {
      if (p.src != filled) {
        check_global_read(l.op, l.tid, *l.src, {p.src, p.len});
      }
    }
  }
  if (!l.src->generic_writes.empty()) {
    for (const Piece& p : l.pieces) {
      if (p.src != filled) {
        check_global_fence(l.op, l.access, l.tid, *l.src, {p.src, p.len});
      }
    }
  }
  if (!cta.retired.empty()) {
    l.writes.each([&](Run r) { check_bulk_scope(l.op, l.tid, db, r, true); });
    for (const Piece& p : l.pieces) {
      if (p.src != filled) {
        check_bulk_scope(l.op, l.tid, *l.src, {p.src, p.len}, false);
      }
    }
  }
  l.writes.each([&](Run r) {
    each_granule(db, r, [&](std::size_t g, std::int64_t o) {
      check_pending_write(l.op, DiagId::check_pending_overlap,
                          "two pending copies write the same shared bytes", cta_, l.tid, db, g, o,
                          " issues a load into ", " will still write (not yet waited)");
      check_refill(l.op, cta, cta_, l.tid, db, g, o, true);
      check_bulk_refill(l.op, l.tid, db, g, o, " issues a load into ");
      check_load_fence(l.op, l.access, l.tid, db, g, o);
      used_again(cta, h, g);
      ++h.pending[g];
      h.pending_tid[g] = static_cast<std::int32_t>(l.tid);
      h.pending_op[g] = op32(l.op);
      h.pending_group[g] = 0;
    });
  });
  cta.loads.push_back(std::move(l));
}

void Evaluator::land_loads(std::size_t id) {
  Cta& cta = cta_state_;
  // Every thread's wait comes here: after the first, nothing is left to land.
  if (std::none_of(cta.loads.begin(), cta.loads.end(),
                   [id](const PendingLoad& l) { return l.barrier == id; })) {
    return;
  }
  std::vector<PendingLoad> rest;
  for (PendingLoad& l : cta.loads) {
    if (l.barrier != id) {
      rest.push_back(std::move(l));
      continue;
    }
    Buffer& db = *l.dst;
    for (const Piece& p : l.pieces) {
      if (p.src == filled) {
        for (std::int64_t k = 0; k < p.len; ++k) {
          db.bytes[static_cast<std::size_t>(p.dst + k)] =
              l.fill[static_cast<std::size_t>(k) % l.fill.size()];
        }
        put_defined(db, p.dst, nullptr, p.len);
      } else {
        if (l.src->holds_values()) {
          std::memmove(&db.bytes[static_cast<std::size_t>(p.dst)],
                       &l.src->bytes[static_cast<std::size_t>(p.src)],
                       static_cast<std::size_t>(p.len));
        }
        put_defined(db, p.dst, defined_at(*l.src, p.src), p.len);
      }
    }
    // The bytes count in the barrier's current phase, which then guards them: a thread reads
    // them after its wait for that phase. They are the async proxy's write.
    RefBarrier& bar = cta.barriers[id];
    ref::SharedBytes& h = db.hz;
    l.writes.each([&](Run r) {
      each_granule(db, r, [&](std::size_t g, std::int64_t) {
        store_granule(cta, l.tid, h, g, l.op);
        h.generic_tid[g] = ref::none;
        if (--h.pending[g] == 0) {
          h.skipped_by_wait[g] = ref::none;
        }
        h.guard_barrier[g] = static_cast<std::int32_t>(id);
        h.guard_phase[g] = bar.phase;
      });
    });
    end_peer_reads(l);
    bar.tx_delivered += l.bytes;
    if (bar.pending == 0) {
      complete_if_tx_done(bar);
    }
  }
  cta.loads = std::move(rest);
}

void Evaluator::step_op(std::size_t op, const tile::ExpectTxOp& m) {
  each_issuing_thread(op, m.pred, [&](std::int64_t tid, const tile::ExprEnv& e) {
    const auto id = used_barrier(op, m.barrier, tid);
    const auto bytes = id ? eval(op, m.bytes, "bytes", e) : std::nullopt;
    if (!bytes) {
      return;
    }
    cta_state_.barriers[*id].tx_expected += *bytes;
    if (m.arrive) {
      release(*id, tid);
      arrive_on(cta_state_, *id);
    }
  });
}

void Evaluator::step_op(std::size_t op, const tile::BulkStoreOp& m) {
  issue_bulk_store(op, m.dst, m.src, m.pred, std::nullopt);
}

void Evaluator::step_op(std::size_t op, const tile::BulkReduceOp& m) {
  issue_bulk_store(op, m.dst, m.src, m.pred, m.reduce);
}

void Evaluator::issue_bulk_store(std::size_t op, const tile::Located<tile::View>& dst,
                                 const tile::Located<tile::View>& src,
                                 const std::optional<tile::Located<tile::ExprPtr>>& pred,
                                 std::optional<tile::ReduceKind> reduce) {
  if (!prepare(op, dst, "dst") || !prepare(op, src, "src")) {
    return;
  }
  Cta& cta = cta_state_;
  Buffer& db = buffer(*slot(dst.value), cta);
  Buffer& sb = buffer(*slot(src.value), cta);
  each_issuing_thread(op, pred, [&](std::int64_t tid, const tile::ExprEnv& e) {
    Runs d;
    Runs s;
    if (!view_runs(op, dst, db, e, d) || !view_runs(op, src, sb, e, s)) {
      return;
    }
    if (db.shared || !sb.shared || d.bytes() != s.bytes()) {
      problems_.add(op, DiagId::check_views_do_not_fit, "dst and src do not fit together", [&] {
        return std::string(reduce ? "a bulk reduction combines " : "a bulk store copies ") +
               std::to_string(s.bytes()) + " bytes of a shared view into " +
               std::to_string(d.bytes()) + " bytes of a global one";
      });
      return;
    }
    PendingStore st;
    st.op = op;
    st.src = &sb;
    st.dst = &db;
    st.reduce = reduce;
    st.dtype = dst.value.dtype;
    Runs staged;
    staged.append({0, s.bytes()});
    st.pieces = zip_runs(d, staged);
    st.reads = std::move(s);
    issue_store(tid, std::move(st));
  });
}

void Evaluator::issue_store(std::int64_t tid, PendingStore&& st) {
  Cta& cta = cta_state_;
  ThreadState& ts = cta.threads[static_cast<std::size_t>(tid)];
  st.group = ts.bulk_open;
  Buffer& sb = *st.src;
  st.reads.each([&](Run r) {
    // Read from now until its wait: the ordering checks of a read at the issue, and the
    // bytes are read at the wait (a write in between is check_bulk_refill).
    read_run(st.op, cta, cta_, tid, sb, r, 0, [](std::int64_t, std::int64_t) {});
    ref::SharedBytes& h = sb.hz;
    each_granule(sb, r, [&](std::size_t g, std::int64_t off) {
      check_proxy_fence(st.op, tid, sb, g, off);
      ++h.bulk_reads[g];
      h.bulk_read_tid[g] = static_cast<std::int32_t>(tid);
      h.bulk_read_op[g] = op32(st.op);
    });
  });
  st.serial = ++stores_issued_;
  check_pending_stores(tid, st);
  for (const Piece& p : st.pieces) {
    st.dst->pending_writes.add({p.dst, p.len, st.op, st.serial, st.reduce.has_value()});
  }
  ts.stores.push_back(std::move(st));
}

void Evaluator::check_pending_stores(std::int64_t tid, const PendingStore& st) {
  // Two asynchronous writes of one byte still pending (any threads' of the CTA, the same
  // thread's too) land in an undefined order, unless both are reductions (atomic per element).
  const Buffer& b = *st.dst;
  std::int64_t count = 0, first = -1;
  const PendingWrite* named = nullptr;
  for (const Piece& p : st.pieces) {
    for (const PendingWrite* pw : b.pending_writes.overlapping(p.dst, p.len)) {
      const PendingWrite& w = *pw;
      const std::int64_t from = std::max(p.dst, w.off);
      const std::int64_t to = std::min(p.dst + p.len, w.off + w.len);
      if (from >= to || (w.reduce && st.reduce)) {
        continue;
      }
      count += to - from;
      if (named == nullptr) {
        named = &w;
        first = from;
      }
    }
  }
  if (named == nullptr) {
    return;
  }
  problems_.add(
      st.op, DiagId::check_bulk_global_write_race,
      "writes global bytes that a pending bulk store still writes",
      [&] {
        return where(cta_, tid, st.op) + "'s " + (st.reduce ? "reduction" : "store") + " writes " +
               byte_text(b, first) + ", which the " + (named->reduce ? "reduction" : "store") +
               " of " + tile::op_label(k_, named->op) +
               " still writes (the two asynchronous writes land in an undefined order; two "
               "reductions would not race): no bulk_wait without read = true has covered its "
               "group yet";
      },
      Severity::error, count);
}

void Evaluator::check_proxy_fence(std::size_t op, std::int64_t tid, const Buffer& b, std::size_t g,
                                  std::int64_t off) {
  const ref::SharedBytes& h = b.hz;
  const std::int32_t w = h.generic_tid[g];
  if (w == ref::none) {
    return;
  }
  const ThreadState& wt = cta_state_.threads[static_cast<std::size_t>(w)];
  if (shared_fence_between(tid, w, h.generic_time[g])) {
    return;
  }
  problems_.add(
      op, DiagId::check_proxy_fence_missing,
      "a bulk store reads shared bytes an ordinary write left, with no proxy_fence between them",
      [&] {
        std::string s = where(cta_, tid, op) + "'s store reads " + byte_text(b, off) +
                        ", which thread " + std::to_string(w) +
                        role(static_cast<std::size_t>(h.generic_op[g]), w) + " wrote at " +
                        tile::op_label(k_, static_cast<std::size_t>(h.generic_op[g]));
        if (w != tid && wt.fence_time > h.generic_time[g]) {
          return s + "; that thread's proxy_fence after the write has no cta_sync after it "
                     "before this store";
        }
        return s + fence_missing_text(w, tid, "store");
      },
      Severity::error, b.granule());
}

void Evaluator::step_op(std::size_t, const tile::BulkCommitOp&) {
  for (ThreadState& ts : cta_state_.threads) {
    ++ts.bulk_open;
  }
}

void Evaluator::step_op(std::size_t op, const tile::BulkWaitOp& w) {
  if (negative_wait(op, w.n, "bulk_wait")) {
    return;
  }
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    ThreadState& ts = cta_state_.threads[static_cast<std::size_t>(tid)];
    const std::int64_t limit = ts.bulk_open - w.n;
    std::vector<PendingStore> rest;
    for (PendingStore& st : ts.stores) {
      if (st.group < limit) {
        retire(op, tid, st, !w.read);
        st.waited = true;
        if (!w.read) {
          bulk_write(st, tid);
          continue;
        }
        bulk_read(st, tid);
      }
      rest.push_back(std::move(st));
    }
    ts.stores = std::move(rest);
  }
}

void Evaluator::bulk_read(PendingStore& st, std::int64_t) {
  if (st.read_done) {
    return;
  }
  st.read_done = true;
  Buffer& sb = *st.src;
  st.staged.clear();
  st.staged_defined.clear();
  st.reads.each([&](Run r) {
    // Values only for a destination that holds them (Buffer::holds_values).
    if (st.dst->holds_values()) {
      const auto* first = sb.bytes.data() + r.off;
      st.staged.insert(st.staged.end(), first, first + r.len);
    }
    if (sb.defined.empty()) {
      st.staged_defined.insert(st.staged_defined.end(), static_cast<std::size_t>(r.len), 1);
    } else {
      const auto* d = sb.defined.data() + r.off;
      st.staged_defined.insert(st.staged_defined.end(), d, d + r.len);
    }
    each_granule(sb, r, [&](std::size_t g, std::int64_t) { --sb.hz.bulk_reads[g]; });
  });
}

void Evaluator::bulk_write(PendingStore& st, std::int64_t tid) {
  bulk_read(st, tid);
  Buffer& db = *st.dst;
  for (const Piece& p : st.pieces) {
    if (db.holds_values()) {
      std::uint8_t* to = &db.bytes[static_cast<std::size_t>(p.dst)];
      const std::uint8_t* from = &st.staged[static_cast<std::size_t>(p.src)];
      if (st.reduce) {
        // Pieces hold whole elements: both views are contiguous runs of them.
        const std::int64_t es = tile::size_bytes(st.dtype);
        for (std::int64_t k = 0; k + es <= p.len; k += es)
          reduce_element(*st.reduce, st.dtype, to + k, from + k);
      } else {
        std::memcpy(to, from, static_cast<std::size_t>(p.len));
      }
    }
    put_defined(db, p.dst, &st.staged_defined[static_cast<std::size_t>(p.src)], p.len);
    note_global(st.op, tid, db, {p.dst, p.len}, true, st.reduce.has_value());
    store_global(st.op, cta_, tid, db, {p.dst, p.len}, 0);
  }
  db.pending_writes.erase_store(st.serial);
}

void Evaluator::finish_bulk() {
  Cta& cta = cta_state_;
  if (!cta.loads.empty()) {
    const PendingLoad& first = cta.loads.front();
    problems_.add(first.op, DiagId::check_never_waited, "loads issued but never waited for", [&] {
      return where(cta_, first.tid) + "'s load of " + std::to_string(first.bytes) +
             " bytes is in flight at the end of the kernel: no mbarrier_wait on '" +
             cta.barriers[first.barrier].name + "' after it";
    });
    while (!cta.loads.empty()) {
      land_loads(cta.loads.front().barrier);
    }
  }
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    ThreadState& ts = cta.threads[static_cast<std::size_t>(tid)];
    for (PendingStore& st : ts.stores) {
      if (!st.waited) {
        problems_.add(st.op, DiagId::check_bulk_never_waited,
                      "bulk group never waited before the kernel ends", [&] {
                        return where(cta_, tid) + "'s store is in bulk group " +
                               std::to_string(st.group) +
                               (st.group >= ts.bulk_open ? ", which no bulk_commit closed"
                                                         : ", which no later bulk_wait covers");
                      });
      }
      bulk_write(st, tid);
    }
    ts.stores.clear();
  }
}

void Evaluator::check_bulk_refill(std::size_t op, std::int64_t tid, const Buffer& b, std::size_t g,
                                  std::int64_t off, std::string_view access) {
  const ref::SharedBytes& h = b.hz;
  if (h.bulk_reads[g] <= 0) {
    return;
  }
  const auto reader = static_cast<std::size_t>(h.bulk_read_op[g]);
  if (std::holds_alternative<tile::BulkCopyPeerOp>(k_.ops[reader].body)) {
    problems_.add(
        op, DiagId::check_peer_copy_refill, "writes shared bytes that a bulk_copy_peer still reads",
        [&] {
          return where(cta_, tid, op) + std::string(access) + byte_text(b, off) + ", which " +
                 tile::op_label(k_, reader) + " by thread " + std::to_string(h.bulk_read_tid[g]) +
                 role(reader, h.bulk_read_tid[g]) +
                 " still copies to a peer: the copy reads them until it completes on the peer's "
                 "barrier, and nothing orders the peer's wait for that phase before this write "
                 "(a cluster_sync after the peer's wait, or a remote arrive after it that this "
                 "thread waits for)";
        },
        Severity::error, b.granule());
    return;
  }
  problems_.add(
      op, DiagId::check_bulk_refill, "writes shared bytes that a pending bulk store still reads",
      [&] {
        const auto store = static_cast<std::size_t>(h.bulk_read_op[g]);
        return where(cta_, tid, op) + std::string(access) + byte_text(b, off) +
               ", which the store of " + tile::op_label(k_, store) + " by thread " +
               std::to_string(h.bulk_read_tid[g]) + role(store, h.bulk_read_tid[g]) +
               " still reads: no bulk_wait has covered its group yet (bulk_wait with read = true "
               "and a count that covers it is enough)";
      },
      Severity::error, b.granule());
}

void Evaluator::check_global_read(std::size_t op, std::int64_t tid, const Buffer& b, Run r) {
  const auto hit = pending_hit(b, r);
  if (!hit) {
    return;
  }
  const std::int64_t first = hit->first;
  const std::int64_t count = hit->count;
  const std::size_t newest = hit->newest;
  problems_.add(
      op, DiagId::check_bulk_global_race,
      "reads global bytes that a pending bulk store still writes",
      [&] {
        return where(cta_, tid, op) + " reads " + byte_text(b, first) + ", which the store of " +
               tile::op_label(k_, newest) +
               " still writes: no bulk_wait without read = true has covered its group yet";
      },
      Severity::error, count);
}

} // namespace ptxgen::driver::evaluation
