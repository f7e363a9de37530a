// The ops other than apply and the mbarriers: loops, commit_group, wait_group, wait_all,
// cta_sync, fill and copy.

#include "driver/reference/evaluator.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::driver::evaluation {

void Evaluator::run_op(std::size_t op, const tile::ForOp& f) {
  if (!enter_loop(op, f)) {
    problems_.add(op, DiagId::check_loop_bounds, "loop bounds without a value or a step below 1",
                  [&] { return where(cta_, 0) + " at loop '" + f.var.value + "'"; });
  }
}

bool Evaluator::enter_loop(std::size_t op, const tile::ForOp& f) {
  // start, stop and step are the same for every thread of the CTA: thread 0's values.
  const tile::ExprEnv e = env(cta_, 0);
  auto start = naive_evaluate(*f.start.value, e);
  auto stop = naive_evaluate(*f.stop.value, e);
  auto step = naive_evaluate(*f.step.value, e);
  if (!start || !stop || !step || *step < 1) {
    next_op_ = f.end + 1;
    return false;
  }
  if (*start >= *stop) {
    next_op_ = f.end + 1;
    return true;
  }
  loop_values_[f.var.value] = *start;
  active_.push_back({op, f.var.value, *stop, *step, groups_committed()});
  next_op_ = op + 1;
  return true;
}

void Evaluator::run_op(std::size_t op, const tile::EndOp& e) {
  ActiveLoop& l = active_.back();
  const std::int64_t groups = groups_committed() - l.groups_before;
  if (const auto* first =
          loop_commits_.iteration_done(l.begin, groups, [&] { return iteration_text(); })) {
    problems_.add(
        l.begin, DiagId::check_loop_commit_count,
        "iterations of this loop commit different numbers of groups",
        [&] {
          return "CTA " + std::to_string(cta_) + " (" + iteration_text() + ") commits " +
                 std::to_string(groups) + ", (" + first->iteration + ") committed " +
                 std::to_string(first->groups) +
                 "; a wait_group count fixed in the loop's body means a different group in "
                 "such iterations";
        },
        Severity::note);
  }
  l.groups_before = groups_committed();
  next_iteration(op, e);
}

void Evaluator::next_iteration(std::size_t op, const tile::EndOp& e) {
  ActiveLoop& l = active_.back();
  std::int64_t& v = loop_values_[l.var];
  v += l.step;
  if (v < l.stop) {
    next_op_ = e.begin + 1;
    return;
  }
  loop_values_.erase(l.var);
  active_.pop_back();
  next_op_ = op + 1;
}

void Evaluator::step_op(std::size_t, const tile::CommitGroupOp&) {
  for (Cta& cta : this_cta()) {
    for (ThreadState& ts : cta.threads) {
      ++ts.open_group;
    }
  }
}

bool Evaluator::negative_wait(std::size_t op, std::int64_t n, std::string_view wait) {
  if (n >= 0) {
    return false;
  }
  problems_.add(op, DiagId::check_negative_wait, "negative " + std::string(wait) + " count",
                [&] { return "n = " + std::to_string(n); });
  return true;
}

void Evaluator::step_op(std::size_t op, const tile::WaitGroupOp& w) {
  if (negative_wait(op, w.n, "wait_group")) {
    return;
  }
  for (Cta& cta : this_cta()) {
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      ThreadState& ts = cta.threads[tid];
      mark_uncommitted(op, ts);
      const std::int64_t limit = ts.open_group - w.n;
      slack_.close(ts.live, limit);
      ++ts.waits;
      slack_.start(ts.live, op, ts.open_group, w.n);
      perform(
          cta, tid, [&](const Chunk& c) { return c.group < limit; }, true);
    }
  }
}

void Evaluator::step_op(std::size_t, const tile::WaitAllOp&) {
  for (Cta& cta : this_cta()) {
    for (std::int64_t tid = 0; tid < k_.block; ++tid) {
      ThreadState& ts = cta.threads[tid];
      ++ts.open_group; // wait_all = commit_group; wait_group 0
      slack_.close(ts.live, ts.open_group);
      ++ts.waits;
      perform(cta, tid, [](const Chunk&) { return true; });
    }
  }
}

void Evaluator::step_op(std::size_t, const tile::CtaSyncOp&) {
  for (Cta& cta : this_cta()) {
    ++cta.epoch;
    cta.retired.clear(); // every thread's bulk waits so far are ordered before what follows
    // A thread's proxy fences so far are ordered before every thread's later stores.
    for (ThreadState& ts : cta.threads) {
      ts.synced_fence = ts.fence_time;
      ts.synced_global_fence = ts.global_fence_time;
    }
  }
}

void Evaluator::step_op(std::size_t op, const tile::NamedBarrierOp& b) {
  Cta& cta = cta_state_;
  Cta::NamedArrivals& n = cta.named[b.id.value];
  const auto block = static_cast<std::size_t>(k_.block);
  if (cta.ordered.empty()) {
    cta.ordered.assign(block * block, 0);
  }
  if (n.known.empty()) {
    n.known.assign(block, 0);
  }
  each_issuing_thread(op, b.pred, [&](std::int64_t tid, const tile::ExprEnv&) {
    n.arrivals.emplace_back(tid, cta.clock);
    // What the thread was ordered after when it arrived (not what a bar.arrive learns later).
    const std::int64_t* row = &cta.ordered[static_cast<std::size_t>(tid) * block];
    for (std::size_t r = 0; r < block; ++r) {
      n.known[r] = std::max(n.known[r], row[r]);
    }
    if (!b.arrive) {
      n.waiters.push_back(tid);
    }
  });
  if (static_cast<std::int64_t>(n.arrivals.size()) < b.count.value) {
    return; // the contract proves the count: the other arrivals come at a later op
  }
  // The barrier completes: every arriving thread's ops before its arrival, and what it was
  // ordered after then, are ordered before each waiting thread's later ones (as an mbarrier
  // phase orders them, Cta::ordered).
  for (const std::int64_t w : n.waiters) {
    std::int64_t* row = &cta.ordered[static_cast<std::size_t>(w) * block];
    for (std::size_t r = 0; r < block; ++r) {
      row[r] = std::max(row[r], n.known[r]);
    }
    for (const auto& [r, at] : n.arrivals) {
      row[r] = std::max(row[r], at);
    }
  }
  n = {};
}

void Evaluator::step_op(std::size_t op, const tile::FillOp& f) {
  if (!prepare(op, f.dst, "dst")) {
    return;
  }
  if (f.pattern.empty()) {
    problems_.add(op, DiagId::check_empty_pattern, "empty fill pattern",
                  [] { return std::string(); });
    return;
  }
  if (f.dst.value.peer) {
    step_peer_fill(op, f);
    return;
  }
  const NaivePlan& p = plan(f.dst.value);
  const Slot s = *slot(f.dst.value);
  const std::int64_t eb = p.element_bytes();
  const std::int64_t bid = cta_;
  Cta& cta = cta_state_;
  Buffer& b = buffer(s, cta);
  const auto& shape = p.shape();
  const std::int64_t n = shape.empty() ? 1 : shape.back();
  tile::ExprEnv e = env(bid, 0);
  const OpForm view = op_form(f.dst, e);
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    e.tid = tid;
    std::int64_t element = 0;
    const std::optional<Fast> fast = form(view, e);
    // Byte k of the thread's view (k counts from `element`'s first byte) gets pattern[k % size].
    auto store = [&](Run r, std::int64_t k) {
      put_pattern(b, r, k, f.pattern);
      put_defined(b, r.off, nullptr, r.len);
      write_run(op, cta, bid, tid, b, r, 0);
    };
    // A row (the last axis) at a time where it is contiguous, else element by element.
    for_each_row(shape, [&](const std::vector<std::int64_t>& c) {
      if (const auto r = row(fast, b, c, n)) {
        store(*r, element * eb);
        element += n;
        return;
      }
      std::vector<std::int64_t> x = c;
      for (std::int64_t i = 0; i < n; ++i, ++element) {
        if (!shape.empty()) {
          x.back() = i;
        }
        Runs runs;
        if (locate(op, f.dst, b, e, x, fast, runs)) {
          std::int64_t k = element * eb;
          runs.each([&](Run r) {
            store(r, k);
            k += r.len;
          });
        }
      }
    });
  }
}

void Evaluator::put_pattern(Buffer& b, Run r, std::int64_t k,
                            const std::vector<std::uint8_t>& pattern) {
  if (!b.holds_values()) {
    return;
  }
  for (std::int64_t i = 0; i < r.len; ++i) {
    b.bytes[static_cast<std::size_t>(r.off + i)] =
        pattern[static_cast<std::size_t>(k + i) % pattern.size()];
  }
}

void Evaluator::step_op(std::size_t op, const tile::CopyOp& c) {
  if (!prepare(op, c.dst, "dst") || !prepare(op, c.src, "src")) {
    return;
  }
  if (c.dst.value.peer || c.src.value.peer) {
    step_peer_copy(op, c);
    return;
  }
  const NaivePlan& dp = plan(c.dst.value);
  const NaivePlan& sp = plan(c.src.value);
  if (dp.shape() != sp.shape() || dp.element_bytes() != sp.element_bytes()) {
    problems_.add(op, DiagId::check_views_do_not_fit, "dst and src do not fit together", [&] {
      return "dst " + coords_text(dp.shape()) + " of " + std::to_string(dp.element_bytes()) +
             "-byte elements, src " + coords_text(sp.shape()) + " of " +
             std::to_string(sp.element_bytes()) + "-byte elements";
    });
    return;
  }
  const Slot ds = *slot(c.dst.value);
  const Slot ss = *slot(c.src.value);
  const std::int64_t bid = cta_;
  Cta& cta = cta_state_;
  Buffer& db = buffer(ds, cta);
  Buffer& sb = buffer(ss, cta);
  const auto& shape = dp.shape();
  const std::int64_t n = shape.empty() ? 1 : shape.back();
  const std::int64_t eb = dp.element_bytes();
  // A row at a time only where one side is global (no problem comes from both the reads
  // and the writes; Problems::begin_batch) and the sides are different tensors.
  const bool batch = &db != &sb && (!db.shared || !sb.shared);
  tile::ExprEnv e = env(bid, 0);
  const OpForm sview = op_form(c.src, e);
  const OpForm dview = op_form(c.dst, e);
  std::vector<std::uint8_t> value;
  std::vector<std::uint8_t> defined;
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    e.tid = tid;
    if (c.pred && !issues(op, c.pred, e)) {
      continue; // a thread of another role (a ring's producer warp)
    }
    const std::optional<Fast> sform = form(sview, e);
    const std::optional<Fast> dform = form(dview, e);
    auto element = [&](const std::vector<std::int64_t>& x) {
      Runs so;
      Runs dO;
      const bool s_in = locate(op, c.src, sb, e, x, sform, so);
      const bool d_in = locate(op, c.dst, db, e, x, dform, dO);
      if (!s_in || !d_in) {
        return;
      }
      // ld, then st: the whole element is read before it is written.
      value.clear();
      defined.clear();
      so.each([&](Run r) {
        const std::size_t at = value.size();
        if (sb.holds_values()) {
          value.insert(value.end(), &sb.bytes[r.off], &sb.bytes[r.off] + r.len);
        } else {
          value.insert(value.end(), static_cast<std::size_t>(r.len), 0);
        }
        if (sb.defined.empty()) {
          defined.insert(defined.end(), r.len, 1);
        } else {
          defined.insert(defined.end(), &sb.defined[r.off], &sb.defined[r.off] + r.len);
        }
        read_run(op, cta, bid, tid, sb, r, 0, [&](std::int64_t from, std::int64_t len) {
          std::fill_n(defined.begin() + static_cast<std::ptrdiff_t>(at + from), len, 1);
        });
      });
      std::size_t at = 0;
      dO.each([&](Run r) {
        if (db.holds_values()) {
          std::memcpy(&db.bytes[r.off], &value[at], r.len);
        }
        put_defined(db, r.off, &defined[at], r.len);
        at += r.len;
        write_run(op, cta, bid, tid, db, r, 0);
      });
    };
    for_each_row(shape, [&](const std::vector<std::int64_t>& x) {
      const auto sr = batch ? row(sform, sb, x, n) : std::nullopt;
      const auto dr = sr ? row(dform, db, x, n) : std::nullopt;
      if (dr) {
        const std::size_t mark = problems_.begin_batch();
        std::vector<Run> moot;
        read_run(op, cta, bid, tid, sb, *sr, eb, [&](std::int64_t from, std::int64_t len) {
          moot.push_back({from, len});
        });
        if (db.holds_values() && sb.holds_values()) {
          std::memcpy(&db.bytes[dr->off], &sb.bytes[sr->off], dr->len);
        }
        put_defined(db, dr->off, defined_at(sb, sr->off), dr->len);
        for (const Run& m : moot) {
          put_defined(db, dr->off + m.off, nullptr, m.len);
        }
        write_run(op, cta, bid, tid, db, *dr, eb);
        problems_.end_batch(mark);
        return;
      }
      std::vector<std::int64_t> y = x;
      for (std::int64_t i = 0; i < n; ++i) {
        if (!shape.empty()) {
          y.back() = i;
        }
        element(y);
      }
    });
  }
}

} // namespace ptxgen::driver::evaluation
