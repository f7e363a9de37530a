// `ptxgen show`: the walk over CTA 0's threads (see picture.hpp).

#include "driver/show/picture.hpp"

#include "driver/reference/naive_view.hpp"
#include "emitter/support/overloaded.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <variant>

namespace ptxgen::driver::show {

namespace {

/// The next coordinate of `shape` in row-major order, axes `from`.. only; false after the last.
bool next_coord(std::vector<std::int64_t>& c, const std::vector<std::int64_t>& shape,
                std::size_t from) {
  for (std::size_t i = c.size(); i-- > from;) {
    if (++c[i] < shape[i])
      return true;
    c[i] = 0;
  }
  return false;
}

void set_grid(ViewPanel& v) {
  const auto& shape = v.tensor->shape;
  v.cols = shape.empty() ? 1 : shape.back();
  v.rows = 1;
  for (std::size_t i = 0; i + 1 < shape.size(); ++i)
    v.rows *= shape[i];
  v.shown_rows = std::min(v.rows, max_rows);
  v.shown_cols = std::min(v.cols, max_cols);
  v.cells.assign(static_cast<std::size_t>(std::max<std::int64_t>(0, v.shown_rows * v.shown_cols)),
                 Cell{});
}

/// Records a chunk of thread `tid` holding the base-tensor bytes `offsets`.
void add_chunk(ViewPanel& v, std::int64_t tid, const std::vector<std::int64_t>& repeat,
               const std::vector<std::int64_t>& offsets) {
  const std::int64_t eb = naive_dtype_bytes(v.tensor->dtype);
  std::set<std::int64_t> drawn;
  for (std::int64_t o : offsets) {
    const std::int64_t e = o / eb;
    const std::int64_t row = e / v.cols, col = e % v.cols;
    if (o >= 0 && row < v.shown_rows && col < v.shown_cols)
      drawn.insert(row * v.shown_cols + col);
  }
  if (drawn.empty())
    return;
  const auto index = static_cast<std::int64_t>(v.chunks.size());
  Chunk c{tid, repeat, *drawn.begin(), static_cast<std::int64_t>(drawn.size())};
  for (std::int64_t cell : drawn) {
    Cell& x = v.cells[static_cast<std::size_t>(cell)];
    if (x.threads++ == 0) {
      x.tid = tid;
      x.chunk = index;
    }
  }
  v.chunks.push_back(std::move(c));
}

struct Walk {
  const tile::Kernel& k;
  tile::SharedLayout layout;
  std::map<std::string, std::int64_t, std::less<>> loops; ///< the live loops' first values
};

/// Walks one view for every thread of CTA 0. `groups`: 2 for an apply at CTA scope (the
/// (warp, lane) axes), else 0. `chunk_axis`: the last axis is inside a chunk (apply);
/// otherwise every element is its own chunk (copy, fill).
ViewPanel walk_view(const Walk& w, const tile::Located<tile::View>& view, std::string role,
                    std::size_t groups, bool chunk_axis, std::uint32_t access_bytes) {
  ViewPanel panel;
  panel.role = std::move(role);
  panel.text = view.text;
  panel.tensor = view.value.tensor;
  panel.access_bytes = access_bytes;
  set_grid(panel);
  const NaivePlan plan = naive_plan(view.value);
  if (!plan.ok()) {
    panel.problem = plan.error;
    return panel;
  }
  const auto& shape = plan.shape();
  const std::vector<std::int64_t> outer(shape.begin(),
                                        shape.end() - (chunk_axis && !shape.empty() ? 1 : 0));
  const std::int64_t inner = chunk_axis && !shape.empty() ? shape.back() : 1;
  if (outer.size() < groups || std::any_of(outer.begin() + static_cast<std::ptrdiff_t>(groups),
                                           outer.end(), [](std::int64_t n) { return n <= 0; }))
    return panel;
  const bool shared = panel.tensor->space == tile::Space::shared;
  const auto* entry = shared ? w.layout.find(panel.tensor->name) : nullptr;
  std::vector<BankRow> banks;
  for (std::int64_t tid = 0; tid < w.k.block; ++tid) {
    tile::ExprEnv env = w.k.env_for(0, tid);
    env.loops.insert(w.loops.begin(), w.loops.end());
    std::vector<std::int64_t> coord(outer.size(), 0);
    if (groups == 2) {
      coord[0] = tid / sim::warp_lanes;
      coord[1] = tid % sim::warp_lanes;
      if (coord[0] >= outer[0] || coord[1] >= outer[1])
        continue;
    }
    std::size_t ordinal = 0;
    do {
      std::vector<std::int64_t> offsets, full = coord;
      if (chunk_axis)
        full.push_back(0);
      bool ok = true;
      for (std::int64_t x = 0; x < inner && ok; ++x) {
        if (chunk_axis)
          full.back() = x;
        NaiveLocation at = naive_locate(plan, view.value, env, full);
        ok = !at.offsets.empty() && at.in_bounds;
        if (!ok && panel.problem.empty())
          panel.problem = at.error;
        offsets.insert(offsets.end(), at.offsets.begin(), at.offsets.end());
      }
      if (!ok)
        continue;
      const std::vector<std::int64_t> repeat(coord.begin() + static_cast<std::ptrdiff_t>(groups),
                                             coord.end());
      add_chunk(panel, tid, repeat, offsets);
      if (entry != nullptr && tid < sim::warp_lanes) {
        if (ordinal == banks.size())
          banks.push_back(BankRow{repeat, {}, {}, {}});
        banks[ordinal].lanes.push_back({static_cast<std::uint32_t>(tid),
                                        static_cast<std::uint64_t>(entry->offset + offsets.front()),
                                        access_bytes});
      }
      ++ordinal;
    } while (next_coord(coord, outer, groups));
  }
  panel.bank_accesses = banks.size();
  if (banks.size() > max_bank_rows)
    banks.resize(max_bank_rows);
  for (auto& b : banks) {
    b.cost = sim::shared_request_cost(b.lanes);
    b.ways = sim::bank_ways(b.lanes);
  }
  panel.banks = std::move(banks);
  return panel;
}

std::uint32_t element_bytes(const tile::View& v) {
  return naive_plan(v).element_bytes();
}

} // namespace

Picture build_picture(const tile::Kernel& k) {
  Picture p;
  p.spec = k.file;
  p.kernel = k.name;
  p.threads = k.block;
  Walk w{k, tile::shared_layout(k), {}};
  for (std::size_t i = 0; i < k.ops.size(); ++i) {
    OpPanel op;
    op.line = k.ops[i].pos.line;
    op.label = tile::op_label(k, i);
    if (k.ops[i].origin.role == tile::OpOrigin::Role::written)
      op.label += " (line " + std::to_string(op.line) + ")";
    std::visit(
        overloaded{
            [&](const tile::ApplyOp& a) {
              op.kind = "apply";
              const std::size_t groups = a.scope == tile::Scope::cta ? 2 : 0;
              const auto bytes = static_cast<std::uint32_t>(a.chunk_bytes.value);
              op.views.push_back(walk_view(w, a.dst, "dst", groups, true, bytes));
              op.views.push_back(walk_view(w, a.src, "src", groups, true, bytes));
            },
            [&](const tile::CopyOp& c) {
              op.kind = "copy";
              const std::uint32_t bytes = element_bytes(c.dst.value);
              op.views.push_back(walk_view(w, c.dst, "dst", 0, false, bytes));
              op.views.push_back(walk_view(w, c.src, "src", 0, false, bytes));
            },
            [&](const tile::FillOp& f) {
              op.kind = "fill";
              op.views.push_back(walk_view(w, f.dst, "dst", 0, false, element_bytes(f.dst.value)));
            },
            [&](const tile::ForOp& f) {
              op.kind = "for " + f.var.value + " (drawn for its first iteration)";
              tile::ExprEnv env = k.env_for(0, 0);
              env.loops.insert(w.loops.begin(), w.loops.end());
              w.loops[f.var.value] = tile::evaluate(*f.start.value, env).value_or(0);
            },
            [&](const tile::EndOp& e) {
              op.kind = "end";
              if (const auto* f = std::get_if<tile::ForOp>(&k.ops[e.begin].body))
                w.loops.erase(f->var.value);
            },
            [&](const tile::CommitGroupOp&) { op.kind = "commit_group"; },
            [&](const tile::WaitGroupOp& g) { op.kind = "wait_group " + std::to_string(g.n); },
            [&](const tile::WaitAllOp&) { op.kind = "wait_all"; },
            [&](const tile::CtaSyncOp&) { op.kind = "cta_sync"; },
            [&](const tile::MbarrierInitOp&) { op.kind = "mbarrier_init"; },
            [&](const tile::CopyArriveOp&) { op.kind = "copy_arrive"; },
            [&](const tile::MbarrierArriveOp&) { op.kind = "mbarrier_arrive"; },
            [&](const tile::MbarrierWaitOp&) { op.kind = "mbarrier_wait"; },
            [&](const tile::BulkLoadOp&) { op.kind = "bulk_load"; },
            [&](const tile::BulkStoreOp&) { op.kind = "bulk_store"; },
            [&](const tile::BulkCommitOp&) { op.kind = "bulk_commit"; },
            [&](const tile::BulkWaitOp& g) {
              op.kind = "bulk_wait " + std::to_string(g.n) + (g.read ? " read" : "");
            },
            [&](const tile::ProxyFenceOp&) { op.kind = "proxy_fence"; },
            [&](const tile::ExpectTxOp&) { op.kind = "expect_tx"; },
            [&](const tile::TensorLoadOp&) { op.kind = "tensor_load"; },
            [&](const tile::TensorStoreOp&) { op.kind = "tensor_store"; },
        },
        k.ops[i].body);
    p.ops.push_back(std::move(op));
  }
  return p;
}

} // namespace ptxgen::driver::show
