// The replay of CTAs: a CTA like the recorded one moves its bytes without the checks
// while its accesses are compared with the recording (cta_trace.hpp).

#include "driver/reference/evaluator.hpp"
#include "emitter/tile/op_table.hpp"

#include <algorithm>
#include <cstring>

namespace ptxgen::driver::evaluation {

namespace {

/// Whether ops of the family may be replayed: mbarriers and the bulk family are not (phases,
/// transaction bytes and bulk groups are each CTA's own).
bool replayable_family(tile::OpFamily f) {
  switch (f) {
  case tile::OpFamily::sync:
  case tile::OpFamily::data:
  case tile::OpFamily::loop:
  case tile::OpFamily::cp_async:
    return true;
  case tile::OpFamily::mbarrier:
  case tile::OpFamily::bulk:
  case tile::OpFamily::tensor:
    return false;
  }
  return false;
}

} // namespace

bool Evaluator::replayable() {
  if (!in_.fast || !in_.replay || ctas_may_meet()) {
    return false;
  }
  auto space = [](const tile::Located<tile::View>& v) {
    return v.value.tensor == nullptr ? std::optional<tile::Space>() : v.value.tensor->space;
  };
  return std::all_of(k_.ops.begin(), k_.ops.end(), [&](const tile::Op& op) {
    if (const auto* a = std::get_if<tile::ApplyOp>(&op.body)) {
      return space(a->dst) == tile::Space::shared && space(a->src) == tile::Space::global;
    }
    return replayable_family(tile::op_row(op.body).family);
  });
}

bool Evaluator::replay_cta() {
  trace_.replay();
  for (std::size_t i = 0; i < k_.ops.size();) {
    const bool ok =
        trace_.match_op(i) &&
        std::visit([&](const auto& body) { return replay_op(i, body); }, k_.ops[i].body);
    if (!ok) {
      active_.clear();
      loop_values_.clear();
      return false;
    }
    i = next_op_;
  }
  return trace_.matched();
}

const Points& Evaluator::op_points(std::size_t op, const std::vector<std::int64_t>& shape,
                                   std::size_t from, std::size_t to, const AffineSkeleton& d,
                                   const AffineSkeleton& s) {
  if (points_.size() != k_.ops.size()) {
    points_.resize(k_.ops.size());
  }
  if (!points_[op]) {
    points_[op] = std::make_unique<Points>(shape, from, to, d.stride, s.stride);
  }
  return *points_[op];
}

bool Evaluator::replay_alike(std::size_t op, const std::vector<std::int64_t>& ds,
                             const OpForm& dview, const OpForm& sview, Buffer& db, const Buffer& sb,
                             std::int64_t chunk, std::int64_t read) {
  const Points& p = op_points(op, ds, 0, ds.size() - 1, *dview.skeleton, *sview.skeleton);
  const std::int64_t* const dpart = dview.thread_part->data();
  const std::int64_t* const spart = sview.thread_part->data();
  const std::int64_t dsize = db.size;
  const std::int64_t ssize = sb.size;
  const auto dindex = static_cast<std::uint32_t>(db.index);
  firsts_.clear();
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    if (dpart[tid] == no_part || spart[tid] == no_part) {
      return false;
    }
    const std::int64_t d0 = *dview.shared + dpart[tid];
    const std::int64_t s0 = *sview.shared + spart[tid];
    if (!p.inside(d0, dsize, s0, ssize, chunk) ||
        !trace_.match_points(ref::CtaTrace::Kind::issue, dindex, tid, d0, p.d.data(), p.d.size(),
                             p.d_even, p.d_step, chunk)) {
      return false;
    }
    firsts_.push_back({d0, s0});
  }
  if (!db.holds_values() || !sb.holds_values()) {
    return true; // the accesses matched: no values to move
  }
  // Chunk by chunk across the threads: neighbouring threads' chunks are neighbours in
  // memory (the processor fetches ahead), where one thread's lie a row apart. The order is
  // free: in a CTA whose checks find nothing no two chunks of an apply write the same shared
  // bytes (they would be two pending copies of them), and the sources do not change.
  std::uint8_t* const dst = db.bytes.data();
  const std::uint8_t* const src = sb.bytes.data();
  for (std::size_t i = 0; i < p.d.size(); ++i) {
    const std::int64_t pd = p.d[i];
    const std::int64_t ps = p.s[i];
    for (const auto& [d0, s0] : firsts_) {
      copy_bytes(dst + d0 + pd, src + s0 + ps, read);
      if (read < chunk) {
        std::memset(dst + d0 + pd + read, 0, static_cast<std::size_t>(chunk - read));
      }
    }
  }
  return true;
}

bool Evaluator::land_thread(std::int64_t tid, std::uint32_t dindex, std::int64_t d0,
                            std::int64_t s0, const Points& p, std::uint8_t* dst,
                            const std::uint8_t* src, std::int64_t chunk, std::int64_t read) {
  const std::size_t n = p.d.size();
  if (!trace_.match_points(ref::CtaTrace::Kind::issue, dindex, tid, d0, p.d.data(), n, p.d_even,
                           p.d_step, chunk)) {
    return false;
  }
  if (dst == nullptr || src == nullptr) {
    return true; // no values to move
  }
  const std::int64_t* const pd = p.d.data();
  const std::int64_t* const ps = p.s.data();
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t d = d0 + pd[i];
    copy_bytes(dst + d, src + s0 + ps[i], read);
    if (read < chunk) {
      std::memset(dst + d + read, 0, static_cast<std::size_t>(chunk - read));
    }
  }
  return true;
}

bool Evaluator::land_chunk(ChunkLanding& l, std::int64_t d, std::int64_t s) {
  const std::size_t rank = l.x.size();
  const std::int64_t chunk = l.a.chunk_bytes.value;
  if (!l.axis_names) {
    l.axis_names = naive_axis_names(l.a.src.value, l.sp.levels.front().shape.size());
  }
  if (!l.chunk_env) {
    l.chunk_env = l.e;
  }
  l.chunk_env->tid = l.tid;
  for (std::size_t i = l.groups; i + 1 < rank && i < l.axis_names->size(); ++i) {
    if (!(*l.axis_names)[i].empty()) {
      l.chunk_env->axes[(*l.axis_names)[i]] = l.x[i];
    }
  }
  const ChunkRead r = chunk_read(l.a, *l.chunk_env, l.known);
  if (r.what == ChunkRead::What::none) {
    return true;
  }
  if (r.what != ChunkRead::What::copy || d < 0 || d + chunk > l.db.size || s < 0 ||
      s + chunk > l.sb.size ||
      !trace_.match(ref::CtaTrace::Kind::issue, static_cast<std::uint32_t>(l.db.index), l.tid, d,
                    chunk)) {
    return false;
  }
  if (!l.db.holds_values() || !l.sb.holds_values()) {
    return true;
  }
  copy_bytes(l.db.bytes.data() + d, l.sb.bytes.data() + s, r.bytes);
  if (r.bytes < chunk) {
    std::memset(l.db.bytes.data() + d + r.bytes, 0, static_cast<std::size_t>(chunk - r.bytes));
  }
  return true;
}

bool Evaluator::replay_op(std::size_t op, const tile::ApplyOp& a) {
  next_op_ = op + 1;
  if (!usable(a.dst) || !usable(a.src)) {
    return false;
  }
  const NaivePlan& dp = plan(a.dst.value);
  const NaivePlan& sp = plan(a.src.value);
  if (!misfit(a, dp, sp).empty()) {
    return false;
  }
  Buffer& db = buffer(*slot(a.dst.value), cta_state_);
  const Buffer& sb = buffer(*slot(a.src.value), cta_state_);
  const auto& ds = dp.shape();
  const std::size_t rank = ds.size();
  const std::size_t groups = a.scope == tile::Scope::cta ? 2 : 0;
  const std::int64_t chunk = a.chunk_bytes.value;
  const bool none = any_empty(ds, groups, rank - 1);
  tile::ExprEnv e = env(cta_, 0);
  const OpForm dview = op_form(a.dst, e);
  const OpForm sview = op_form(a.src, e);
  const std::array<NaiveDependence, 3> deps = operand_dependence(a);
  std::array<std::optional<std::int64_t>, 3> op_known;
  known_operands(a, deps, e, false, op_known);
  std::array<std::optional<std::int64_t>, 3> known;
  std::optional<ChunkRead> same;        // the thread's chunks' reads, where they are all the same
  const Points* points = nullptr;       // the chunks' offsets (op_points)
  std::vector<std::int64_t> x(rank, 0); // a chunk's coordinates, its last axis's 0
  const std::int64_t dsize = db.size;
  const std::int64_t ssize = sb.size;
  const auto dindex = static_cast<std::uint32_t>(db.index);
  std::int64_t tid = 0;
  ChunkLanding landing{a, sp, groups, x, e, known, db, sb};
  auto land = [&](std::int64_t d, std::int64_t s) {
    landing.tid = tid;
    return land_chunk(landing, d, s);
  };
  // Without an operand that uses the thread, every thread's chunks read the same.
  const bool thread_operands = uses_thread(a, deps);
  const std::optional<ChunkRead> op_same =
      thread_operands ? std::nullopt : thread_read(a, e, op_known);
  known = op_known;
  if (groups == 0 && !none && op_same && op_same->what == ChunkRead::What::copy &&
      dview.thread_part != nullptr && sview.thread_part != nullptr && dview.shared &&
      sview.shared && contiguous(*dview.skeleton, ds.back()) &&
      contiguous(*sview.skeleton, ds.back())) {
    return replay_alike(op, ds, dview, sview, db, sb, chunk, op_same->bytes);
  }
  for (; tid < k_.block; ++tid) {
    e.tid = tid;
    if (thread_operands) {
      known = op_known;
      known_operands(a, deps, e, true, known);
    }
    if (groups == 2) {
      x[0] = tid / 32;
      x[1] = tid % 32;
      if (x[0] >= ds[0] || x[1] >= ds[1]) {
        return false;
      }
    }
    if (none) {
      continue;
    }
    same = thread_operands ? thread_read(a, e, known) : op_same;
    if (same && same->what == ChunkRead::What::none) {
      continue;
    }
    if (same && same->what != ChunkRead::What::copy) {
      return false;
    }
    const std::optional<Fast> dform = form(dview, e);
    const std::optional<Fast> sform = form(sview, e);
    if (!dform || !sform || !contiguous(*dform, ds.back()) || !contiguous(*sform, ds.back())) {
      return false;
    }
    std::int64_t d0 = dform->base; // the first chunk: only the group axes' coordinates
    std::int64_t s0 = sform->base;
    for (std::size_t g = 0; g < groups; ++g) {
      d0 += x[g] * dform->skeleton->stride[g];
      s0 += x[g] * sform->skeleton->stride[g];
    }
    if (!same) { // operands per chunk
      if (!each_point(ds, groups, rank - 1, x, d0, s0, dform->skeleton->stride,
                      sform->skeleton->stride, land)) {
        return false;
      }
      continue;
    }
    if (!points) {
      points = &op_points(op, ds, groups, rank - 1, *dform->skeleton, *sform->skeleton);
    }
    if (!points->inside(d0, dsize, s0, ssize, chunk)) {
      return false;
    }
    const bool moves = db.holds_values() && sb.holds_values();
    if (!land_thread(tid, dindex, d0, s0, *points, moves ? db.bytes.data() : nullptr,
                     moves ? sb.bytes.data() : nullptr, chunk, same->bytes)) {
      return false;
    }
  }
  return true;
}

bool Evaluator::replay_op(std::size_t op, const tile::CopyOp& c) {
  next_op_ = op + 1;
  if (c.pred || !usable(c.dst) || !usable(c.src)) {
    return false;
  }
  const NaivePlan& dp = plan(c.dst.value);
  const NaivePlan& sp = plan(c.src.value);
  Buffer& db = buffer(*slot(c.dst.value), cta_state_);
  const Buffer& sb = buffer(*slot(c.src.value), cta_state_);
  if (dp.shape() != sp.shape() || dp.element_bytes() != sp.element_bytes() || &db == &sb ||
      (db.shared && sb.shared)) {
    return false; // a finding, or a copy that runs element by element
  }
  const auto& shape = dp.shape();
  const std::size_t rank = shape.size();
  const std::int64_t n = shape.empty() ? 1 : shape.back();
  if (n <= 0 || (rank > 1 && any_empty(shape, 0, rank - 1))) {
    return true; // no elements
  }
  tile::ExprEnv e = env(cta_, 0);
  const OpForm sview = op_form(c.src, e);
  const OpForm dview = op_form(c.dst, e);
  const std::int64_t len = n * dp.element_bytes();
  const std::int64_t dsize = db.size;
  const std::int64_t ssize = sb.size;
  const auto dindex = static_cast<std::uint32_t>(db.index);
  const auto sindex = static_cast<std::uint32_t>(sb.index);
  const Points* points = nullptr; // the rows' offsets (op_points)
  const bool sshared = sb.shared;
  const bool dshared = db.shared;
  // A replayed row's bytes are defined: the recorded CTA stored no undefined byte into a
  // global tensor (a shared tensor's definedness is not kept).
  std::uint8_t* const defined = dshared || db.defined.empty() ? nullptr : db.defined.data();
  const bool defines = defined != nullptr;
  std::uint8_t* const dst = db.bytes.data();
  const std::uint8_t* const src = sb.bytes.data();
  const bool moves = db.holds_values() && sb.holds_values();
  // Threads that differ only in their bases (fixed thread parts): one addition each.
  const bool alike = dview.thread_part != nullptr && sview.thread_part != nullptr && dview.shared &&
                     sview.shared && contiguous(*dview.skeleton, n) &&
                     contiguous(*sview.skeleton, n);
  if (alike) {
    points = &op_points(op, shape, 0, rank == 0 ? 0 : rank - 1, *dview.skeleton, *sview.skeleton);
  }
  auto move_row = [&](std::int64_t tid, std::int64_t d, std::int64_t s) {
    if (!dshared) {
      note_global(op, tid, db, {d, len}, true);
    }
    if (moves) {
      copy_bytes(dst + d, src + s, len);
    }
    if (defines) {
      std::memset(defined + d, 1, static_cast<std::size_t>(len));
    }
  };
  for (std::int64_t tid = 0; tid < k_.block; ++tid) {
    std::int64_t d0 = 0; // the thread's first row
    std::int64_t s0 = 0;
    if (alike) {
      const std::int64_t dpart = (*dview.thread_part)[static_cast<std::size_t>(tid)];
      const std::int64_t spart = (*sview.thread_part)[static_cast<std::size_t>(tid)];
      if (dpart == no_part || spart == no_part) {
        return false;
      }
      d0 = *dview.shared + dpart;
      s0 = *sview.shared + spart;
    } else {
      e.tid = tid;
      const std::optional<Fast> sform = form(sview, e);
      const std::optional<Fast> dform = form(dview, e);
      if (!sform || !dform || !contiguous(*sform, n) || !contiguous(*dform, n)) {
        return false;
      }
      if (!points) {
        points =
            &op_points(op, shape, 0, rank == 0 ? 0 : rank - 1, *dform->skeleton, *sform->skeleton);
      }
      d0 = dform->base;
      s0 = sform->base;
    }
    if (!points->inside(d0, dsize, s0, ssize, len)) {
      return false;
    }
    const std::int64_t* const pd = points->d.data();
    const std::int64_t* const ps = points->s.data();
    // The thread's row events at once: its reads where src is shared, its writes where dst
    // is (not both: replay_op returned above), everything else in locals.
    const std::size_t rows = points->d.size();
    if ((sshared &&
         !trace_.match_points(ref::CtaTrace::Kind::read, sindex, tid, s0, points->s.data(), rows,
                              points->s_even, points->s_step, len)) ||
        (dshared &&
         !trace_.match_points(ref::CtaTrace::Kind::write, dindex, tid, d0, points->d.data(), rows,
                              points->d_even, points->d_step, len))) {
      return false;
    }
    for (std::size_t i = 0; i < rows; ++i) {
      move_row(tid, d0 + pd[i], s0 + ps[i]);
    }
  }
  return true;
}

bool Evaluator::replay_op(std::size_t op, const tile::FillOp& f) {
  next_op_ = op + 1;
  if (!usable(f.dst) || f.pattern.empty()) {
    return false;
  }
  const NaivePlan& p = plan(f.dst.value);
  Buffer& b = buffer(*slot(f.dst.value), cta_state_);
  const auto& shape = p.shape();
  const std::size_t rank = shape.size();
  const std::int64_t n = shape.empty() ? 1 : shape.back();
  if (n <= 0 || (rank > 1 && any_empty(shape, 0, rank - 1))) {
    return true;
  }
  tile::ExprEnv e = env(cta_, 0);
  const OpForm view = op_form(f.dst, e);
  std::vector<std::int64_t> x(rank, 0);
  const std::int64_t len = n * p.element_bytes();
  const std::int64_t size = b.size;
  const auto index = static_cast<std::uint32_t>(b.index);
  std::int64_t tid = 0;
  std::int64_t k = 0; // the thread's byte the row starts at
  auto store = [&](std::int64_t d, std::int64_t) {
    if (d < 0 || d + len > size ||
        (b.shared && !trace_.match(ref::CtaTrace::Kind::write, index, tid, d, len))) {
      return false;
    }
    if (!b.shared) {
      note_global(op, tid, b, {d, len}, true);
    }
    put_pattern(b, {d, len}, k, f.pattern);
    defined_again(b, {d, len});
    k += len;
    return true;
  };
  for (; tid < k_.block; ++tid) {
    e.tid = tid;
    k = 0;
    const std::optional<Fast> fast = form(view, e);
    if (!fast || !contiguous(*fast, n) ||
        !each_point(shape, 0, rank == 0 ? 0 : rank - 1, x, fast->offset(x), 0,
                    fast->skeleton->stride, fast->skeleton->stride, store)) {
      return false;
    }
  }
  return true;
}

void Evaluator::defined_again(Buffer& b, Run r) {
  if (!b.shared && !b.defined.empty()) {
    std::memset(b.defined.data() + r.off, 1, static_cast<std::size_t>(r.len));
  }
}

} // namespace ptxgen::driver::evaluation
