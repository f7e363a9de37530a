// apply (cp.async): its operands (pred, ignore_src, src_size) and its chunks' issue.

#include "driver/reference/evaluator.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::driver::evaluation {

std::optional<std::int64_t> Evaluator::eval(std::size_t op, const tile::Located<tile::ExprPtr>& x,
                                            const char* what, const tile::ExprEnv& e) {
  std::optional<std::int64_t> v;
  if (x.value) {
    v = naive_evaluate(*x.value, e);
  }
  if (!v) {
    report_no_value(op, x, what, e);
  }
  return v;
}

void Evaluator::report_no_value(std::size_t op, const tile::Located<tile::ExprPtr>& x,
                                const char* what, const tile::ExprEnv& e) {
  problems_.add(op, DiagId::check_expr_not_evaluable, std::string(what) + " does not evaluate",
                [&] { return where(e.bid, e.tid) + ": '" + x.text + "'"; });
}

std::optional<std::int64_t>
Evaluator::chunk_read_bytes(std::size_t op, const tile::ApplyOp& a, const tile::ExprEnv& e,
                            const std::array<std::optional<std::int64_t>, 3>& known) {
  static const char* const names[] = {"pred", "ignore_src", "src_size"};
  const ChunkRead r = chunk_read(a, e, known);
  switch (r.what) {
  case ChunkRead::What::copy:
    return r.bytes;
  case ChunkRead::What::none:
    break;
  case ChunkRead::What::no_value:
    report_no_value(op, **operands(a)[r.operand], names[r.operand], e);
    break;
  case ChunkRead::What::range:
    problems_.add(op, DiagId::check_src_size_range,
                  "src_size outside 0..chunk_bytes (nothing copied)", [&] {
                    return where(e.bid, e.tid) + ": src_size " + std::to_string(r.bytes) +
                           ", chunk_bytes " + std::to_string(a.chunk_bytes.value);
                  });
    break;
  }
  return std::nullopt;
}

bool Evaluator::chunk_runs(std::size_t op, const tile::Located<tile::View>& v, const Buffer& b,
                           const tile::ExprEnv& e, const std::vector<std::int64_t>& rep,
                           std::int64_t n, const std::optional<Fast>& fast,
                           std::vector<std::int64_t>& full, Runs& runs) {
  // The chunk's row: its coordinates without the last axis are those of its first element (the
  // last one is 0).
  if (const auto r = row(fast, b, rep, n)) {
    runs.first = *r;
    return true;
  }
  full.assign(rep.begin(), rep.end());
  full.push_back(0);
  for (std::int64_t x = 0; x < n; ++x) {
    full.back() = x;
    if (!locate(op, v, b, e, full, fast, runs)) {
      return false;
    }
  }
  return true;
}

void Evaluator::step_op(std::size_t op, const tile::ApplyOp& a) {
  if (!prepare(op, a.dst, "dst") || !prepare(op, a.src, "src")) {
    return;
  }
  const NaivePlan& dp = plan(a.dst.value);
  const NaivePlan& sp = plan(a.src.value);
  const auto& ds = dp.shape();
  const auto& ss = sp.shape();
  const std::int64_t chunk = a.chunk_bytes.value;
  const std::size_t groups = a.scope == tile::Scope::cta ? 2 : 0; // (warp, lane) axes
  if (const std::string why = misfit(a, dp, sp); !why.empty()) {
    problems_.add(op, DiagId::check_views_do_not_fit, "dst and src do not fit together",
                  [&] { return why; });
    return;
  }
  const Slot dslot = *slot(a.dst.value);
  const Slot sslot = *slot(a.src.value);
  // The repeat axes: everything but the group axes and the last.
  std::vector<std::int64_t> repeat_shape(ds.begin(), ds.end() - 1);
  const std::vector<std::string> axis_names =
      naive_axis_names(a.src.value, sp.levels.front().shape.size());
  const bool has_operands = a.pred || a.ignore_src || a.src_size; // evaluated per chunk
  const std::int64_t bid = cta_;
  Cta& cta = cta_state_;
  Buffer& db = buffer(dslot, cta);
  Buffer& sb = buffer(sslot, cta);
  tile::ExprEnv e = env(bid, 0);
  tile::ExprEnv chunk_env = e; // e with the chunk's repeat axes bound
  std::vector<std::int64_t> coords(repeat_shape.size());
  std::vector<std::int64_t> full; // a chunk's coordinates, its last axis's included
  const OpForm dview = op_form(a.dst, e);
  const OpForm sview = op_form(a.src, e);
  std::array<std::optional<std::int64_t>, 3> op_known;
  const std::array<NaiveDependence, 3> deps = operand_dependence(a);
  known_operands(a, deps, e, false, op_known);
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    e.tid = tid;
    chunk_env.tid = tid;
    std::array<std::optional<std::int64_t>, 3> known = op_known;
    known_operands(a, deps, e, true, known);
    if (groups == 2) {
      coords[0] = tid / 32;
      coords[1] = tid % 32;
      if (coords[0] >= ds[0] || coords[1] >= ds[1]) {
        problems_.add(op, DiagId::check_thread_outside_group,
                      "thread outside the (warp, lane) group axes (no copy)", [&] {
                        return where(bid, tid) + " is (warp " + std::to_string(coords[0]) +
                               ", lane " + std::to_string(coords[1]) + "); the group axes are (" +
                               std::to_string(ds[0]) + ", " + std::to_string(ds[1]) + ")";
                      });
        continue;
      }
    }
    ThreadState& ts = cta.threads[tid];
    const std::optional<Fast> dform = form(dview, e);
    const std::optional<Fast> sform = form(sview, e);
    const std::optional<ChunkRead> same = thread_read(a, e, known);
    for_each_coord(repeat_shape, groups, coords, [&](const std::vector<std::int64_t>& rep) {
      std::optional<std::int64_t> read_bytes = chunk;
      if (same && same->what == ChunkRead::What::none) {
        return;
      }
      if (same && same->what == ChunkRead::What::copy) {
        read_bytes = same->bytes;
      } else if (has_operands) {
        // The operands for this chunk: its repeat axes' names bound to its coordinates.
        for (std::size_t i = groups; i < rep.size() && i < axis_names.size(); ++i) {
          if (!axis_names[i].empty()) {
            chunk_env.axes[axis_names[i]] = rep[i];
          }
        }
        read_bytes = chunk_read_bytes(op, a, chunk_env, known);
        if (!read_bytes) {
          return;
        }
      }
      Chunk c(op, ts.open_group, &db, &sb, *read_bytes);
      // src is checked even when nothing is read.
      if (!chunk_runs(op, a.dst, db, e, rep, ds.back(), dform, full, c.dst_runs) ||
          !chunk_runs(op, a.src, sb, e, rep, ss.back(), sform, full, c.src_runs)) {
        return;
      }
      if (db.shared) {
        issue(op, cta, bid, tid, db, c);
      }
      if (!sb.pending_writes.empty()) {
        c.src_runs.each([&](Run r) { check_global_read(op, tid, sb, r); });
      }
      ts.queue.push_back(std::move(c));
    });
  }
}

} // namespace ptxgen::driver::evaluation
