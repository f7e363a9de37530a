// The thread scope of a bulk wait: cp.async.bulk.wait_group{.read} completes the executing
// thread's own bulk groups only (the model's `issuing_thread` row, async_model.hpp). Another
// thread that writes the shared bytes a waited store read, or touches the global bytes it
// wrote, is ordered after the store only by a barrier after the wait: a cta_sync (which
// drops the retired stores) or an mbarrier phase the issuer released after its wait.

#include "driver/reference/evaluator.hpp"

#include <algorithm>

namespace ptxgen::driver::evaluation {

void Evaluator::retire(std::size_t wait, std::int64_t tid, const PendingStore& st, bool wrote) {
  static_assert(!model::completes_for_others(model::Access::bulk_wait));
  Cta& cta = cta_state_;
  // A store covered again by a later wait: the first record stands, the global writes join.
  for (RetiredStore& r : cta.retired) {
    if (r.serial == st.serial) {
      if (wrote && r.writes.empty()) {
        for (const Piece& p : st.pieces) {
          r.writes.push_back({p.dst, p.len});
        }
      }
      return;
    }
  }
  RetiredStore r;
  r.op = st.op;
  r.wait = wait;
  r.tid = tid;
  r.clock = cta.clock;
  r.serial = st.serial;
  r.src = st.src;
  r.reads = st.reads;
  r.dst = st.dst;
  if (wrote) {
    for (const Piece& p : st.pieces) {
      r.writes.push_back({p.dst, p.len});
    }
  }
  cta.retired.push_back(std::move(r));
}

namespace {

/// The first byte of `r` that `runs` cover (-1 none) and how many of its bytes they cover
/// (the runs of one store do not overlap): a count that does not depend on how the access
/// was split into runs (by row on the fast path, by element on the naive one).
struct Common {
  std::int64_t first = -1;
  std::int64_t bytes = 0;
};

template <class Each>
Common common(Run r, Each&& each) {
  Common c;
  each([&](Run x) {
    const std::int64_t from = std::max(r.off, x.off);
    const std::int64_t to = std::min(r.off + r.len, x.off + x.len);
    if (from < to) {
      c.bytes += to - from;
      if (c.first < 0 || from < c.first) {
        c.first = from;
      }
    }
  });
  return c;
}

} // namespace

void Evaluator::check_bulk_scope(std::size_t op, std::int64_t tid, const Buffer& b, Run r,
                                 bool write) {
  const Cta& cta = cta_state_;
  for (const RetiredStore& s : cta.retired) {
    if (s.tid == tid) {
      continue; // the waiting thread itself: its wait completed the store for it
    }
    if (!cta.ordered.empty() &&
        cta.ordered[static_cast<std::size_t>(tid) * static_cast<std::size_t>(k_.block) +
                    static_cast<std::size_t>(s.tid)] > s.clock) {
      continue; // an mbarrier phase the issuer released after its wait orders it
    }
    Common c;
    if (&b == s.src && write) {
      c = common(r, [&](auto f) { s.reads.each(f); });
    } else if (&b == s.dst) {
      c = common(r, [&](auto f) { std::for_each(s.writes.begin(), s.writes.end(), f); });
    }
    if (c.first < 0) {
      continue;
    }
    const std::int64_t byte = c.first;
    problems_.add(
        op, DiagId::check_bulk_wait_scope,
        "another thread's bulk_wait does not order this access after the bulk store",
        [&] {
          return where(cta_, tid, op) + (write ? " writes " : " reads ") + byte_text(b, byte) +
                 ", which the store of " + tile::op_label(k_, s.op) + " by thread " +
                 std::to_string(s.tid) + role(s.op, s.tid) + (b.shared ? " read" : " wrote") +
                 "; that thread's " + tile::op_label(k_, s.wait) +
                 " completes the store for that thread only: a cta_sync after it is needed "
                 "before this access";
        },
        Severity::error, c.bytes);
    return;
  }
}

} // namespace ptxgen::driver::evaluation
