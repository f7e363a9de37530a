// The ordering checks on shared bytes: reads and writes against pending copies, other
// threads and barrier phases, and missing commit_groups.

#include "driver/reference/evaluator.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::driver::evaluation {

bool Evaluator::read_granule(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid,
                             Buffer& b, std::size_t g, std::int64_t off) {
  bool moot = false;
  ref::SharedBytes& h = b.hz;
  const std::int64_t w = b.granule();
  // "... reads BYTES, which COPY by thread T will write": the pending writer of the granule.
  const auto pending_write = [&](const std::string& copy) {
    return where(bid, tid, op) + " reads " + byte_text(b, off) + ", which " + copy + " by thread " +
           std::to_string(h.pending_tid[g]) +
           role(static_cast<std::size_t>(h.pending_op[g]), h.pending_tid[g]) + " will write";
  };
  if (h.pending[g] > 0 && missing_commit(b, g)) {
    moot = true;
  } else if (h.pending[g] > 0 && is_load(static_cast<std::size_t>(h.pending_op[g]))) {
    // A load lands when its phase completes: no thread has waited for that phase yet.
    problems_.add(
        op, DiagId::check_mbarrier_unwaited_read,
        "reads shared bytes an mbarrier phase guards before waiting for that phase",
        [&] {
          return pending_write(load_of(static_cast<std::size_t>(h.pending_op[g]))) +
                 "; no thread has waited for the phase it completes in";
        },
        Severity::error, w);
  } else if (h.pending[g] > 0) {
    problems_.add(
        op, DiagId::check_read_pending,
        "reads shared bytes that a pending (not yet waited) copy will write",
        [&] {
          return pending_write(copy_of(static_cast<std::size_t>(h.pending_op[g]))) +
                 ": it is not yet waited" + pending_cause(cta, h, g, off);
        },
        Severity::error, w);
  }
  const std::int32_t guard = h.guard_barrier[g];
  if (guard != ref::none) {
    const auto& waited = cta.threads[static_cast<std::size_t>(tid)].waited;
    const auto it = waited.find(static_cast<std::size_t>(guard));
    if (it == waited.end() || it->second < h.guard_phase[g]) {
      problems_.add(
          op, DiagId::check_mbarrier_unwaited_read,
          "reads shared bytes an mbarrier phase guards before waiting for that phase",
          [&] {
            // A bulk or tensor load's bytes are the async proxy's (no generic writer).
            const auto by = static_cast<std::size_t>(h.generic_op[g]);
            const bool load = h.generic_tid[g] == ref::none;
            const bool tensor = load && std::holds_alternative<tile::TensorLoadOp>(k_.ops[by].body);
            return where(bid, tid, op) + " reads " + byte_text(b, off) +
                   (load ? ", landed by the " + std::string(tensor ? "tensor_load" : "bulk_load") +
                               " of " + tile::op_label(k_, by) + ", which completes phase "
                         : ", landed by copies whose copy_arrive arrives in phase ") +
                   std::to_string(h.guard_phase[g]) + " of barrier '" +
                   cta.barriers[static_cast<std::size_t>(guard)].name +
                   "'; the thread has not waited for that phase";
          },
          Severity::error, w);
    }
  } else if (h.writer[g] >= 0 && h.writer[g] != tid && h.write_epoch[g] == cta.epoch &&
             !(h.generic_tid[g] == h.writer[g] &&
               reads_ordered(cta, tid, h.writer[g], h.generic_time[g]))) {
    // (a named barrier or an mbarrier phase between the write and this read orders them)
    problems_.add(
        op, DiagId::check_read_without_sync,
        "reads shared bytes another thread wrote with no cta_sync in between",
        [&] {
          // The writer's op: store_granule sets writer and generic_op together.
          return where(bid, tid, op) + " reads " + byte_text(b, off) + " written by thread " +
                 std::to_string(h.writer[g]) +
                 role(static_cast<std::size_t>(h.generic_op[g]), h.writer[g]);
        },
        Severity::error, w);
  }
  used_again(cta, h, g);
  h.note_read(g, static_cast<std::int32_t>(tid), cta.epoch, op32(op), cta.clock);
  return moot;
}

std::string Evaluator::copy_of(std::size_t apply) const {
  if (k_.ops[apply].origin.role == tile::OpOrigin::Role::written) {
    return tile::op_label(k_, apply) + "'s copy";
  }
  return "the copy of " + tile::op_label(k_, apply);
}

std::string Evaluator::load_of(std::size_t load) const {
  // A pipeline's load is named by its role ("the pipeline's steady-state load ...").
  if (k_.ops[load].origin.role == tile::OpOrigin::Role::written) {
    return "the load of " + tile::op_label(k_, load);
  }
  return tile::op_label(k_, load);
}

std::string Evaluator::pending_cause(const Cta& cta, const ref::SharedBytes& h, std::size_t g,
                                     std::int64_t off) const {
  const ThreadState& ts = cta.threads[static_cast<std::size_t>(h.pending_tid[g])];
  for (const Chunk& c : ts.queue) {
    if (c.op != static_cast<std::size_t>(h.pending_op[g]) || c.deferred.empty() ||
        !c.dst_runs.contains(off)) {
      continue;
    }
    return " (a copy_arrive on barrier '" +
           cta.barriers[cta.deferred[c.deferred.front()].barrier].name +
           "' tracks it: read it after the mbarrier_wait for that phase)";
  }
  const std::int64_t group = h.pending_group[g];
  if (ts.live.op == ref::none || group >= ts.live.open) {
    return " (no wait_group since its commit_group)";
  }
  const auto wait = static_cast<std::size_t>(ts.live.op);
  const bool written = k_.ops[wait].origin.role == tile::OpOrigin::Role::written;
  return "; that thread's last wait, " + tile::op_label(k_, wait) +
         (written ? " (wait_group " + std::to_string(ts.live.n) + ")" : std::string()) +
         ", left its newest " + std::to_string(ts.live.n) + " groups pending: wait_group " +
         std::to_string(ts.live.open - 1 - group) + " there would complete this one";
}

void Evaluator::check_refill(std::size_t op, const Cta& cta, std::int64_t bid, std::int64_t tid,
                             const Buffer& b, std::size_t g, std::int64_t off, bool copy) {
  const std::int32_t other = b.hz.other_reader(g, static_cast<std::int32_t>(tid), cta.epoch);
  if (other == ref::none || reads_ordered(cta, tid, other, b.hz.read_clock[g])) {
    return;
  }
  problems_.add(
      op, DiagId::check_refill_without_barrier,
      "writes shared bytes another thread read with no cta_sync in between (refill without a "
      "barrier)",
      [&] {
        const auto reader = static_cast<std::size_t>(b.hz.read_op[g]);
        const std::string who = other == ref::many_threads
                                    ? std::string("several threads")
                                    : "thread " + std::to_string(other) + role(reader, other);
        // A bulk or tensor load completes on an mbarrier: its refill is ordered by the
        // readers' release (an arrival after the read) that the issuer waits for.
        const bool tensor = std::holds_alternative<tile::TensorLoadOp>(k_.ops[op].body);
        const bool load = tensor || std::holds_alternative<tile::BulkLoadOp>(k_.ops[op].body);
        const std::string access =
            !copy  ? " writes "
            : load ? std::string(" issues a ") + (tensor ? "tensor_load" : "bulk_load") + " into "
                   : " issues a copy into ";
        // A ring pipeline's load after its own consumer's read: the ring releases a stage
        // after the consumer of its tile, so the read was of another tile's stage, and a
        // cta_sync is nothing the user can put between two ops of the expansion.
        const bool ring = load && k_.ops[op].origin.role != tile::OpOrigin::Role::written &&
                          k_.ops[reader].origin.role == tile::OpOrigin::Role::consumer;
        const std::string fix =
            ring ? "; the pipeline refills a stage once the consumers of the tile in it have "
                   "released it, so a consumer reads only its own tile's stage ('stage' in "
                   "its view), never another"
            : load
                ? "; release the bytes after that read (the readers arrive on a barrier, "
                  "such as the ring's 'empty', and the issuing thread waits for that phase "
                  "before the load), or add " +
                      tile::op_to_add(k_, "cta_sync") + " between that read and the load"
                : "; add " + tile::op_to_add(k_, "cta_sync") + " between that read and this write";
        return where(bid, tid, op) + access + byte_text(b, off) + ", read by " + who + " at " +
               tile::op_label(k_, reader) + " since the last cta_sync" + fix;
      },
      Severity::error, b.granule());
}

bool Evaluator::reads_ordered(const Cta& cta, std::int64_t tid, std::int32_t reader,
                              std::int64_t read_clock) const {
  if (cta.ordered.empty()) {
    return false;
  }
  const auto block = static_cast<std::size_t>(k_.block);
  const std::size_t row = static_cast<std::size_t>(tid) * block;
  auto before = [&](std::size_t r) { return cta.ordered[row + r] > read_clock; };
  if (reader != ref::many_threads) {
    return before(static_cast<std::size_t>(reader));
  }
  // Several readers, not known one by one: every other thread's ops up to the latest read.
  for (std::size_t r = 0; r < block; ++r) {
    if (r != static_cast<std::size_t>(tid) && !before(r)) {
      return false;
    }
  }
  return true;
}

bool Evaluator::missing_commit(const Buffer& b, std::size_t g) {
  const std::int32_t wait = b.hz.skipped_by_wait[g];
  if (wait == ref::none) {
    return false;
  }
  report_missing_commit(static_cast<std::size_t>(wait),
                        static_cast<std::size_t>(b.hz.skipped_apply[g]));
  return true;
}

void Evaluator::report_missing_commit(std::size_t wait, std::size_t apply) {
  problems_.add_cause(wait, DiagId::check_missing_commit, "no commit_group before this wait", [&] {
    std::string line;
    // A kernel built in code names the apply by its call and position already (op_label).
    if (!k_.built_in_code) {
      const std::uint32_t at = k_.ops[apply].pos.line;
      line = " (apply" + (at != 0 ? " at line " + std::to_string(at) : std::string()) + ")";
    }
    return "the copies of " + tile::op_label(k_, apply) + line +
           " are in no committed group, so this wait does not wait for them; add " +
           tile::op_to_add(k_, "commit_group") + " between the apply and the wait";
  });
}

void Evaluator::mark_uncommitted(std::size_t wait, ThreadState& ts) {
  for (Chunk& c : ts.queue) {
    if (c.group != ts.open_group || c.skipped_by_wait != kernel_level) {
      continue;
    }
    c.skipped_by_wait = wait;
    if (!c.dst->shared) {
      continue;
    }
    ref::SharedBytes& h = c.dst->hz;
    c.dst_runs.each([&](Run r) {
      each_granule(*c.dst, r, [&](std::size_t g, std::int64_t) {
        if (h.skipped_by_wait[g] == ref::none) {
          h.skipped_by_wait[g] = op32(wait);
          h.skipped_apply[g] = op32(c.op);
        }
      });
    });
  }
}

void Evaluator::write_run(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& b,
                          Run r, std::int64_t eb) {
  if (!cta.retired.empty()) {
    check_bulk_scope(op, tid, b, r, true);
  }
  if (!b.shared) {
    note_global(op, tid, b, r, true);
    global_generic_write(op, tid, b, r);
    store_global(op, bid, tid, b, r, eb);
    return;
  }
  trace(ref::CtaTrace::Kind::write, b, tid, r);
  note_shared(op, tid, b, bid, r, true);
  ref::SharedBytes& h = b.hz;
  each_granule(b, r, [&](std::size_t g, std::int64_t off) {
    check_pending_write(op, DiagId::check_write_pending,
                        "writes shared bytes that a pending (not yet waited) copy will write", bid,
                        tid, b, g, off, " writes ", " will write");
    check_refill(op, cta, bid, tid, b, g, off, false);
    check_bulk_refill(op, tid, b, g, off, " writes ");
    used_again(cta, h, g);
    store_granule(cta, tid, h, g, op);
  });
}

void Evaluator::check_pending_write(std::size_t op, DiagId id, const std::string& kind,
                                    std::int64_t bid, std::int64_t tid, const Buffer& b,
                                    std::size_t g, std::int64_t off, std::string_view access,
                                    std::string_view tail) {
  const ref::SharedBytes& h = b.hz;
  if (h.pending[g] <= 0 || missing_commit(b, g)) {
    return;
  }
  problems_.add(
      op, id, kind,
      [&] {
        const auto copy = static_cast<std::size_t>(h.pending_op[g]);
        return where(bid, tid, op) + std::string(access) + byte_text(b, off) + ", which " +
               copy_of(copy) + " by thread " + std::to_string(h.pending_tid[g]) +
               role(copy, h.pending_tid[g]) + std::string(tail);
      },
      Severity::error, b.granule());
}

void Evaluator::issue(std::size_t op, Cta& cta, std::int64_t bid, std::int64_t tid, Buffer& db,
                      const Chunk& c) {
  ref::SharedBytes& h = db.hz;
  c.dst_runs.each([&](Run r) {
    trace(ref::CtaTrace::Kind::issue, db, tid, r);
    each_granule(db, r, [&](std::size_t g, std::int64_t o) {
      check_pending_write(op, DiagId::check_pending_overlap,
                          "two pending copies write the same shared bytes", bid, tid, db, g, o,
                          " issues a copy into ", " will still write (not yet waited)");
      check_refill(op, cta, bid, tid, db, g, o, true);
      check_bulk_refill(op, tid, db, g, o, " issues a copy into ");
      used_again(cta, h, g);
      ++h.pending[g];
      h.pending_tid[g] = static_cast<std::int32_t>(tid);
      h.pending_op[g] = op32(op);
      h.pending_group[g] = static_cast<std::int32_t>(c.group);
    });
  });
}

} // namespace ptxgen::driver::evaluation
