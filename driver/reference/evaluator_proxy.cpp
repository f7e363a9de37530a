// Proxy fences: which state spaces a proxy_fence orders, and the fence a generic write needs
// before an async-proxy access of its bytes. Which pairs need one, and which finding a missing
// fence is, come from the model's table (async_model.hpp).

#include "driver/reference/evaluator.hpp"

#include <algorithm>

namespace ptxgen::driver::evaluation {

void Evaluator::step_op(std::size_t, const tile::ProxyFenceOp& f) {
  const model::Mem orders = model::fence_orders(f.space);
  for (ThreadState& ts : cta_state_.threads) {
    if ((orders & model::shared) != 0) {
      ts.fence_time = cta_state_.clock;
      ts.shared_fences.push_back(cta_state_.clock);
    }
    if ((orders & model::global) != 0) {
      ts.global_fence_time = cta_state_.clock;
      ts.global_fences.push_back(cta_state_.clock);
    }
  }
}

bool Evaluator::fence_ordered(std::int64_t tid, std::int32_t writer, std::int64_t time,
                              bool global) const {
  const ThreadState& wt = cta_state_.threads[static_cast<std::size_t>(writer)];
  // The writer's fence after the write; for another thread's access, ordered before it by a
  // cta_sync after the fence, or by an mbarrier phase: an arrival of the writer after the
  // fence that the accessing thread learnt through its waits (the release/acquire chain of a
  // ring's empty barrier, CUTLASS's consumer-release pattern).
  if (writer == tid) {
    return (global ? wt.global_fence_time : wt.fence_time) > time;
  }
  if ((global ? wt.synced_global_fence : wt.synced_fence) > time) {
    return true;
  }
  const Cta& cta = cta_state_;
  if (cta.ordered.empty()) {
    return false;
  }
  const std::int64_t learnt =
      cta.ordered[static_cast<std::size_t>(tid) * static_cast<std::size_t>(k_.block) +
                  static_cast<std::size_t>(writer)];
  const std::vector<std::int64_t>& fences = global ? wt.global_fences : wt.shared_fences;
  const auto before = std::lower_bound(fences.begin(), fences.end(), learnt);
  return before != fences.begin() && *std::prev(before) > time;
}

bool Evaluator::shared_fence_between(std::int64_t tid, std::int32_t writer,
                                     std::int64_t time) const {
  return fence_ordered(tid, writer, time, false);
}

std::string Evaluator::fence_missing_text(std::int32_t w, std::int64_t tid,
                                          std::string_view access) const {
  return " with no " + tile::op_to_add(k_, "proxy_fence") + " of that thread after the write" +
         (w == tid ? std::string() : std::string(" (then a cta_sync)")) + " before this " +
         std::string(access);
}

void Evaluator::check_load_fence(std::size_t op, model::Access load, std::int64_t tid,
                                 const Buffer& b, std::size_t g, std::int64_t off) {
  const ref::SharedBytes& h = b.hz;
  const std::int32_t w = h.generic_tid[g];
  if (w == ref::none ||
      !model::needs_proxy_fence(model::Access::generic_store, load, model::shared) ||
      shared_fence_between(tid, w, h.generic_time[g])) {
    return;
  }
  const ThreadState& wt = cta_state_.threads[static_cast<std::size_t>(w)];
  const std::string kind(model::row(load).name);
  problems_.add(
      op, model::missing_fence_id(load, model::shared),
      "a " + kind + " writes shared bytes an ordinary write left, with no proxy_fence between them",
      [&] {
        std::string s = where(cta_, tid, op) + "'s " + kind + " writes " + byte_text(b, off) +
                        ", which thread " + std::to_string(w) +
                        role(static_cast<std::size_t>(h.generic_op[g]), w) + " wrote at " +
                        tile::op_label(k_, static_cast<std::size_t>(h.generic_op[g]));
        if (w != tid && wt.fence_time > h.generic_time[g]) {
          return s + "; that thread's proxy_fence after the write has no cta_sync after it, "
                     "and no mbarrier arrival after it that this thread waited for, before "
                     "this load";
        }
        return s + " (the generic proxy)" + fence_missing_text(w, tid, "load (the async proxy)");
      },
      Severity::error, b.granule());
}

void Evaluator::mark_async_read() {
  for (const tile::Op& o : k_.ops) {
    if (const auto* m = std::get_if<tile::BulkLoadOp>(&o.body)) {
      if (const auto s = slot(m->src.value); s && !s->shared) {
        globals_[s->index].async_read = true;
      }
    } else if (const auto* t = std::get_if<tile::TensorLoadOp>(&o.body)) {
      if (const auto it = by_name_.find(t->tensor.value);
          it != by_name_.end() && !it->second.shared) {
        globals_[it->second.index].async_read = true;
      }
    }
  }
}

void Evaluator::global_generic_write(std::size_t op, std::int64_t tid, Buffer& b, Run r) {
  if (b.async_read) {
    // Cheap: only tensors a load reads record their writes (typically none).
    b.generic_writes.push_back({r.off, r.len, tid, op, cta_state_.clock});
  }
  if (b.pending_writes.empty()) {
    return;
  }
  const auto hit = pending_hit(b, r);
  if (!hit) {
    return;
  }
  problems_.add(
      op, DiagId::check_bulk_global_write_race,
      "writes global bytes that a pending bulk store still writes",
      [&] {
        return where(cta_, tid, op) + " writes " + byte_text(b, hit->first) +
               ", which the store of " + tile::op_label(k_, hit->newest) +
               " still writes (the two writes' order is undefined): no bulk_wait without "
               "read = true has covered its group yet";
      },
      Severity::error, hit->count);
}

std::optional<Evaluator::PendingHit> Evaluator::pending_hit(const Buffer& b, Run r) {
  // The parts of r the pending writes cover, sorted: their union's bytes are the count, its
  // first byte the one named, with the newest write that covers it.
  const std::vector<const PendingWrite*> over = b.pending_writes.overlapping(r.off, r.len);
  std::vector<Run> hit;
  for (const PendingWrite* w : over) {
    const std::int64_t from = std::max(r.off, w->off);
    const std::int64_t to = std::min(r.off + r.len, w->off + w->len);
    if (from < to) {
      hit.push_back({from, to - from});
    }
  }
  if (hit.empty()) {
    return std::nullopt;
  }
  std::sort(hit.begin(), hit.end(), [](const Run& a, const Run& c) { return a.off < c.off; });
  PendingHit out;
  out.first = hit.front().off;
  std::int64_t end = out.first; // the union so far ends here
  for (const Run& h : hit) {
    const std::int64_t from = std::max(h.off, end);
    out.count += std::max<std::int64_t>(0, h.off + h.len - from);
    end = std::max(end, h.off + h.len);
  }
  for (const PendingWrite* w : over) { // out.first is in r: its writes overlap r
    if (w->off <= out.first && out.first < w->off + w->len) {
      out.newest = w->op;
    }
  }
  return out;
}

void Evaluator::check_global_fence(std::size_t op, model::Access load, std::int64_t tid,
                                   const Buffer& b, Run r) {
  if (!model::needs_proxy_fence(model::Access::generic_store, load, model::global)) {
    return;
  }
  // The bytes of r that unfenced generic writes cover (their union: the count does not
  // depend on how the writes were split into runs), the first one named with the newest
  // write that covers it.
  std::vector<Run> hit;
  const GenericWrite* named = nullptr;
  std::int64_t first = -1;
  for (const GenericWrite& w : b.generic_writes) {
    const std::int64_t from = std::max(r.off, w.off);
    const std::int64_t to = std::min(r.off + r.len, w.off + w.len);
    if (from >= to) {
      continue;
    }
    if (fence_ordered(tid, static_cast<std::int32_t>(w.tid), w.time, true)) {
      continue;
    }
    hit.push_back({from, to - from});
    if (first < 0 || from <= first) {
      first = from;
      named = &w;
    }
  }
  if (named == nullptr) {
    return;
  }
  std::sort(hit.begin(), hit.end(), [](const Run& x, const Run& y) { return x.off < y.off; });
  std::int64_t count = 0;
  std::int64_t end = first;
  for (const Run& h : hit) {
    count += std::max<std::int64_t>(0, h.off + h.len - std::max(h.off, end));
    end = std::max(end, h.off + h.len);
  }
  const GenericWrite& w = *named;
  const std::string kind(model::row(load).name);
  problems_.add(
      op, model::missing_fence_id(load, model::global),
      "a " + kind +
          " reads global bytes an ordinary write left, with no global proxy_fence "
          "between them",
      [&] {
        return where(cta_, tid, op) + "'s " + kind + " reads " + byte_text(b, first) +
               ", which thread " + std::to_string(w.tid) + role(w.op, w.tid) + " wrote at " +
               tile::op_label(k_, w.op) + " (the generic proxy) with no " +
               tile::op_to_add(k_, "proxy_fence") +
               " with space = \"global\" (or \"all\") of "
               "that thread after the write" +
               (w.tid == tid ? std::string() : std::string(" (then a cta_sync)")) +
               " before this load (the async proxy)";
      },
      Severity::error, count);
}

} // namespace ptxgen::driver::evaluation
