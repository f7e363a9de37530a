// `ptxgen show`: the walk over CTA 0's threads and every loop iteration (see picture.hpp).

#include "driver/show/picture.hpp"

#include "driver/reference/naive_view.hpp"
#include "emitter/support/overloaded.hpp"
#include "emitter/tile/multicast_contract.hpp"
#include "emitter/tile/op_table.hpp"

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

/// (thread, flat element of the base tensor) pairs one view of one op instance touches.
using Touches = std::vector<std::pair<std::int64_t, std::int64_t>>;

struct ViewTouches {
  const tile::Located<tile::View>* view = nullptr;
  std::string role;
  Touches touches;
  std::string problem;
};

/// One op as executed once (at one iteration of its loops).
struct Instance {
  std::size_t op = 0;
  std::vector<ViewTouches> views;
};

using Loops = std::map<std::string, std::int64_t, std::less<>>;

struct Walker {
  const tile::Kernel& k;
  std::string note; ///< a loop cut at max_iterations
};

/// The touches of one view for every thread of CTA 0. `groups`: 2 for an apply at CTA
/// scope (the (warp, lane) axes), else 0. `chunk_axis`: the last axis is inside a chunk.
ViewTouches walk_view(const Walker& w, const Loops& loops, const tile::Located<tile::View>& view,
                      std::string role, std::size_t groups, bool chunk_axis,
                      const tile::Expr* pred = nullptr, const tile::Expr* ignore = nullptr) {
  ViewTouches out{&view, std::move(role), {}, {}};
  const NaivePlan plan = naive_plan(view.value);
  if (!plan.ok()) {
    out.problem = plan.error;
    return out;
  }
  const auto& shape = plan.shape();
  const std::vector<std::int64_t> outer(shape.begin(),
                                        shape.end() - (chunk_axis && !shape.empty() ? 1 : 0));
  const std::int64_t inner = chunk_axis && !shape.empty() ? shape.back() : 1;
  if (outer.size() < groups || std::any_of(outer.begin() + static_cast<std::ptrdiff_t>(groups),
                                           outer.end(), [](std::int64_t n) { return n <= 0; }))
    return out;
  const std::int64_t eb = naive_dtype_bytes(view.value.tensor->dtype);
  for (std::int64_t tid = 0; tid < w.k.block; ++tid) {
    tile::ExprEnv env = w.k.env_for(0, tid);
    for (const auto& [name, value] : loops)
      env.loops[name] = value;
    // A false `pred` skips the thread's copy; a true `ignore_src` its read of the source.
    if ((pred != nullptr && tile::evaluate(*pred, env).value_or(1) == 0) ||
        (ignore != nullptr && tile::evaluate(*ignore, env).value_or(0) != 0))
      continue;
    std::vector<std::int64_t> coord(outer.size(), 0);
    if (groups == 2) {
      coord[0] = tid / sim::warp_lanes;
      coord[1] = tid % sim::warp_lanes;
      if (coord[0] >= outer[0] || coord[1] >= outer[1])
        continue;
    }
    do {
      std::vector<std::int64_t> full = coord;
      if (chunk_axis)
        full.push_back(0);
      for (std::int64_t x = 0; x < inner; ++x) {
        if (chunk_axis)
          full.back() = x;
        NaiveLocation at = naive_locate(plan, view.value, env, full);
        if (at.offsets.empty() || !at.in_bounds) {
          if (out.problem.empty())
            out.problem = at.error;
          continue;
        }
        for (std::int64_t o : at.offsets)
          if (o >= 0)
            out.touches.emplace_back(tid, o / eb);
      }
    } while (next_coord(coord, outer, groups));
  }
  std::sort(out.touches.begin(), out.touches.end());
  out.touches.erase(std::unique(out.touches.begin(), out.touches.end()), out.touches.end());
  return out;
}

std::int64_t value_of(const tile::Kernel& k, const Loops& loops, const tile::Expr& e) {
  tile::ExprEnv env = k.env_for(0, 0);
  for (const auto& [name, value] : loops)
    env.loops[name] = value;
  return tile::evaluate(e, env).value_or(0);
}

Instance instance_of(const Walker& w, const Loops& loops, std::size_t i) {
  Instance in{i, {}};
  std::visit(overloaded{
                 [&](const tile::ApplyOp& a) {
                   const std::size_t groups = a.scope == tile::Scope::cta ? 2 : 0;
                   const tile::Expr* pred = a.pred ? a.pred->value.get() : nullptr;
                   const tile::Expr* ignore = a.ignore_src ? a.ignore_src->value.get() : nullptr;
                   in.views.push_back(walk_view(w, loops, a.dst, "dst", groups, true, pred));
                   in.views.push_back(
                       walk_view(w, loops, a.src, "src", groups, true, pred, ignore));
                 },
                 [&](const tile::CopyOp& c) {
                   const tile::Expr* pred = c.pred ? c.pred->value.get() : nullptr;
                   in.views.push_back(walk_view(w, loops, c.dst, "dst", 0, false, pred));
                   in.views.push_back(walk_view(w, loops, c.src, "src", 0, false, pred));
                 },
                 [&](const tile::FillOp& f) {
                   in.views.push_back(walk_view(w, loops, f.dst, "dst", 0, false));
                 },
                 // Ops without views: the panel names them, nothing to walk.
                 [](const tile::ForOp&) {},
                 [](const tile::EndOp&) {},
                 [](const tile::WaitGroupOp&) {},
                 [](const tile::MbarrierInitOp&) {},
                 [](const tile::CopyArriveOp&) {},
                 [](const tile::MbarrierArriveOp&) {},
                 [](const tile::MbarrierWaitOp&) {},
                 [](const tile::BulkLoadOp&) {},
                 [](const tile::BulkStoreOp&) {},
                 [](const tile::BulkReduceOp&) {},
                 [](const tile::BulkCopyPeerOp&) {},
                 [](const tile::BulkWaitOp&) {},
                 [](const tile::ExpectTxOp&) {},
                 [&](const tile::TensorLoadOp& t) {
                   // An im2col load's rows are pixels: its dst shows which thread lands them.
                   if (t.offsets)
                     in.views.push_back(walk_view(w, loops, t.dst, "dst (pixels x channels)", 0,
                                                  false, t.pred ? t.pred->value.get() : nullptr));
                 },
                 [](const tile::TensorStoreOp&) {},
                 [](const tile::TensormapCopyOp&) {},
                 [](const tile::TensormapReplaceOp&) {},
                 [](const tile::TensormapFenceOp&) {},
                 [](const tile::TensorReduceOp&) {},
                 [](const tile::PrefetchTensormapOp&) {},
                 [](const tile::NamedBarrierOp&) {},
                 [](const tile::SetmaxnregOp&) {},
                 // No view at all (ops.def's plain ops).
                 [](const tile::PlainOp auto&) {},
             },
             w.k.ops[i].body);
  return in;
}

/// Every instance of ops [begin, end), loops walked through every iteration.
void walk_range(Walker& w, std::size_t begin, std::size_t end, Loops& loops,
                std::vector<Instance>& out) {
  for (std::size_t i = begin; i < end; ++i) {
    const auto* f = std::get_if<tile::ForOp>(&w.k.ops[i].body);
    if (f == nullptr) {
      out.push_back(instance_of(w, loops, i));
      continue;
    }
    const std::int64_t start = value_of(w.k, loops, *f->start.value);
    const std::int64_t stop = value_of(w.k, loops, *f->stop.value);
    const std::int64_t step = std::max<std::int64_t>(1, value_of(w.k, loops, *f->step.value));
    std::size_t n = 0;
    for (std::int64_t v = start; v < stop; v += step) {
      if (++n > max_iterations) {
        w.note = "for " + f->var.value + ": only its first " + std::to_string(max_iterations) +
                 " iterations are drawn";
        break;
      }
      loops[f->var.value] = v;
      walk_range(w, i + 1, f->end, loops, out);
    }
    loops.erase(f->var.value);
    i = f->end;
  }
}

/// What makes two iterations alike: per op instance, each view's (thread, element) pairs
/// shifted so that the first element touched is 0.
std::vector<std::int64_t> pattern_key(const std::vector<Instance>& instances) {
  std::vector<std::int64_t> key;
  for (const auto& in : instances) {
    key.push_back(static_cast<std::int64_t>(in.op));
    for (const auto& v : in.views) {
      std::int64_t lowest = 0;
      if (!v.touches.empty())
        lowest = std::min_element(v.touches.begin(), v.touches.end(), [](auto& a, auto& b) {
                   return a.second < b.second;
                 })->second;
      key.push_back(static_cast<std::int64_t>(v.touches.size()));
      for (const auto& [tid, e] : v.touches) {
        key.push_back(tid);
        key.push_back(e - lowest);
      }
    }
  }
  return key;
}

/// A plain op (ops.def) as a heading: its spelling, then each word and each flag that is set.
template <class Op>
std::string plain_label(const Op& op) {
  std::string out(tile::op_rows[tile::op_index<Op>].spelling);
  tile::for_each_field(op, overloaded{[&](const tile::FieldRow& r, bool set) {
                                        if (set)
                                          out += " " + std::string(r.key);
                                      },
                                      [&](const tile::FieldRow&, tile::FenceSpace s) {
                                        out +=
                                            " " + std::string(name_of(tile::fence_space_names, s));
                                      }});
  return out;
}

/// The op's kind as the panel heading names it.
std::string kind_of(const tile::Op& op) {
  return std::visit(
      overloaded{
          [](const tile::ApplyOp&) { return std::string("apply"); },
          [](const tile::CopyOp&) { return std::string("copy"); },
          [](const tile::FillOp&) { return std::string("fill"); },
          [](const tile::ForOp& f) { return "for " + f.var.value; },
          [](const tile::EndOp&) { return std::string("end"); },
          [](const tile::WaitGroupOp& g) { return "wait_group " + std::to_string(g.n); },
          [](const tile::MbarrierInitOp&) { return std::string("mbarrier_init"); },
          [](const tile::CopyArriveOp&) { return std::string("copy_arrive"); },
          [](const tile::MbarrierArriveOp&) { return std::string("mbarrier_arrive"); },
          [](const tile::MbarrierWaitOp&) { return std::string("mbarrier_wait"); },
          [](const tile::BulkLoadOp&) { return std::string("bulk_load"); },
          [](const tile::BulkStoreOp&) { return std::string("bulk_store"); },
          [](const tile::BulkCopyPeerOp&) { return std::string("bulk_copy_peer"); },
          [](const tile::BulkReduceOp& r) {
            return "bulk_reduce " + std::string(name_of(tile::reduce_kind_names, r.reduce));
          },
          [](const tile::BulkWaitOp& g) {
            return "bulk_wait " + std::to_string(g.n) + (g.read ? " read" : "");
          },
          [](const tile::ExpectTxOp&) { return std::string("expect_tx"); },
          [](const tile::TensorLoadOp& t) {
            return std::string(t.offsets ? "tensor_load im2col" : "tensor_load");
          },
          [](const tile::TensorStoreOp&) { return std::string("tensor_store"); },
          [](const tile::TensormapCopyOp&) { return std::string("tensormap_copy"); },
          [](const tile::TensormapReplaceOp& r) {
            return "tensormap_replace " +
                   std::string(name_of(tile::tensormap_field_names, r.field));
          },
          [](const tile::TensormapFenceOp& f) {
            return "tensormap_fence " + std::string(name_of(tile::tensormap_sem_names, f.sem));
          },
          [](const tile::TensorReduceOp& r) {
            return "tensor_reduce " + std::string(name_of(tile::reduce_kind_names, r.reduce));
          },
          [](const tile::PrefetchTensormapOp& p) { return "prefetch_tensormap " + p.tensor.value; },
          [](const tile::NamedBarrierOp& b) {
            return std::string(b.arrive ? "named_barrier arrive " : "named_barrier ") +
                   std::to_string(b.id.value) + " of " + std::to_string(b.count.value) +
                   " threads" + (b.pred ? " where " + b.pred->text : std::string());
          },
          [](const tile::SetmaxnregOp& s) {
            return "setmaxnreg." + std::string(name_of(tile::reg_action_names, s.action)) + " " +
                   std::to_string(s.regs.value) +
                   (s.pred ? " where " + s.pred->text : std::string());
          },
          [](const tile::PlainOp auto& plain) { return plain_label(plain); },
      },
      op.body);
}

/// A view's cells while a panel's instances are added: flat element -> cell.
struct ViewAccum {
  const tile::Located<tile::View>* view = nullptr;
  std::string role, problem;
  std::map<std::int64_t, Cell> cells;
  std::map<std::int64_t, std::set<std::int64_t>> threads;
};

struct OpAccum {
  std::size_t op = 0;
  std::vector<ViewAccum> views;
};

/// Collects one panel's op instances, those of one table and role merged (the prologue's
/// loads of every stage are one panel, each cell naming its stage's step).
class PanelBuilder {
public:
  explicit PanelBuilder(const tile::Kernel& k) : k_(k) {}

  void add(const Instance& in, std::optional<std::int64_t> value) {
    const tile::Op& op = k_.ops[in.op];
    std::size_t merge = in.op;
    if (op.origin.role == tile::OpOrigin::Role::prologue_load) {
      for (std::size_t j = 0; j < in.op; ++j)
        if (k_.ops[j].origin.role == op.origin.role && k_.ops[j].pos.line == op.pos.line &&
            k_.ops[j].pos.column == op.pos.column) {
          merge = j;
          break;
        }
      value = op.origin.step;
    }
    auto [it, fresh] = index_.try_emplace(merge, ops_.size());
    if (fresh)
      ops_.push_back({in.op, {}});
    OpAccum& acc = ops_[it->second];
    if (acc.views.empty())
      for (const auto& v : in.views)
        acc.views.push_back({v.view, v.role, v.problem, {}, {}});
    for (std::size_t vi = 0; vi < in.views.size() && vi < acc.views.size(); ++vi) {
      ViewAccum& va = acc.views[vi];
      if (va.problem.empty())
        va.problem = in.views[vi].problem;
      for (const auto& [tid, e] : in.views[vi].touches) {
        Cell& c = va.cells[e];
        if (c.tid < 0)
          c.tid = tid;
        va.threads[e].insert(tid);
        if (value && (c.iterations.empty() || c.iterations.back() != *value))
          c.iterations.push_back(*value);
      }
    }
  }

  std::vector<OpPanel> finish() const {
    std::vector<OpPanel> out;
    for (const auto& acc : ops_) {
      const tile::Op& op = k_.ops[acc.op];
      OpPanel p;
      p.line = op.pos.line;
      p.kind = kind_of(op);
      p.label = tile::op_label(k_, acc.op);
      if (op.origin.role == tile::OpOrigin::Role::written)
        p.label += " (line " + std::to_string(p.line) + ")";
      for (const auto& va : acc.views)
        p.views.push_back(view_panel(va));
      out.push_back(std::move(p));
    }
    return out;
  }

private:
  static ViewPanel view_panel(const ViewAccum& va) {
    ViewPanel v;
    v.role = va.role;
    v.text = va.view->text;
    v.tensor = va.view->value.tensor;
    v.problem = va.problem;
    const auto& shape = v.tensor->shape;
    const std::size_t rank = shape.size();
    v.cols = rank == 0 ? 1 : shape[rank - 1];
    v.rows = rank < 2 ? 1 : shape[rank - 2];
    for (std::size_t i = 0; i + 2 < rank; ++i)
      v.blocks *= shape[i];
    v.shown_rows = std::min(v.rows, max_rows);
    v.shown_cols = std::min(v.cols, max_cols);
    const std::int64_t per_block = std::max<std::int64_t>(1, v.rows * v.cols);
    std::set<std::int64_t> touched;
    for (const auto& [e, cell] : va.cells)
      touched.insert(e / per_block);
    v.touched_blocks = static_cast<std::int64_t>(touched.size());
    for (std::int64_t b : touched)
      if (static_cast<std::int64_t>(v.shown_blocks.size()) < max_blocks)
        v.shown_blocks.push_back(b);
    const std::int64_t cells_per_block = v.shown_rows * v.shown_cols;
    v.cells.assign(v.shown_blocks.size() * static_cast<std::size_t>(cells_per_block), Cell{});
    for (std::size_t bi = 0; bi < v.shown_blocks.size(); ++bi)
      for (auto it = va.cells.lower_bound(v.shown_blocks[bi] * per_block);
           it != va.cells.end() && it->first < (v.shown_blocks[bi] + 1) * per_block; ++it) {
        const std::int64_t in_block = it->first % per_block;
        const std::int64_t row = in_block / v.cols, col = in_block % v.cols;
        if (row >= v.shown_rows || col >= v.shown_cols)
          continue;
        Cell c = it->second;
        c.threads = static_cast<std::uint32_t>(va.threads.at(it->first).size());
        v.cells[bi * static_cast<std::size_t>(cells_per_block) +
                static_cast<std::size_t>(row * v.shown_cols + col)] = std::move(c);
      }
    return v;
  }

  const tile::Kernel& k_;
  std::vector<OpAccum> ops_;
  std::map<std::size_t, std::size_t> index_;
};

/// The panels of one top-level loop: its iterations grouped by pattern_key.
void add_loop_panels(Walker& w, std::size_t i, Picture& p) {
  const auto& f = std::get<tile::ForOp>(w.k.ops[i].body);
  Loops loops;
  const std::int64_t start = value_of(w.k, loops, *f.start.value);
  const std::int64_t stop = value_of(w.k, loops, *f.stop.value);
  const std::int64_t step = std::max<std::int64_t>(1, value_of(w.k, loops, *f.step.value));
  std::map<std::vector<std::int64_t>, std::size_t> groups;
  std::vector<PanelBuilder> builders;
  std::vector<IterationPanel> panels;
  std::size_t n = 0;
  for (std::int64_t v = start; v < stop; v += step) {
    if (++n > max_iterations) {
      w.note = "for " + f.var.value + ": only its first " + std::to_string(max_iterations) +
               " iterations are drawn";
      break;
    }
    loops[f.var.value] = v;
    std::vector<Instance> body;
    walk_range(w, i + 1, f.end, loops, body);
    auto [it, fresh] = groups.try_emplace(pattern_key(body), builders.size());
    if (fresh) {
      builders.emplace_back(w.k);
      panels.push_back({{}, f.var.value, {}, {}});
    }
    panels[it->second].values.push_back(v);
    for (const auto& in : body)
      builders[it->second].add(in, v);
  }
  const std::string loop = tile::op_label(w.k, i);
  for (std::size_t g = 0; g < panels.size(); ++g) {
    IterationPanel& panel = panels[g];
    panel.title = loop + ": " + f.var.value + " = " + values_text(panel.values) + " (" +
                  std::to_string(panel.values.size()) +
                  (panel.values.size() == 1 ? " iteration" : " iterations") +
                  (panels.size() > 1 ? ", pattern " + std::to_string(g + 1) + " of " +
                                           std::to_string(panels.size())
                                     : std::string()) +
                  ")";
    panel.ops = builders[g].finish();
    p.panels.push_back(std::move(panel));
  }
}

/// The multicast op's mask, pred and shared view, when op is a multicast load; a
/// bulk_copy_peer's dst rank (`rank`: the one CTA it fills) in place of the mask.
struct MulticastOf {
  const tile::Located<tile::ExprPtr>* mask = nullptr;
  const std::optional<tile::Located<tile::ExprPtr>>* pred = nullptr;
  const tile::Located<tile::View>* dst = nullptr;
  const tile::Expr* rank = nullptr;
};

MulticastOf multicast_of(const tile::Op& op) {
  if (const auto* b = std::get_if<tile::BulkLoadOp>(&op.body); b && b->multicast)
    return {&*b->multicast, &b->pred, &b->dst};
  if (const auto* t = std::get_if<tile::TensorLoadOp>(&op.body); t && t->multicast)
    return {&*t->multicast, &t->pred, &t->dst};
  if (const auto* c = std::get_if<tile::BulkCopyPeerOp>(&op.body); c && c->dst.value.peer)
    return {nullptr, &c->pred, &c->dst, c->dst.value.peer.get()};
  return {};
}

/// Every multicast of the kernel in CTA 0's cluster, each loop at its start.
void add_multicasts(const tile::Kernel& k, Picture& p) {
  const tile::ClusterPlace place = tile::cluster_place(k, 0);
  std::map<std::string, std::int64_t, std::less<>> loops;
  for (const tile::Op& op : k.ops) {
    if (const auto* f = std::get_if<tile::ForOp>(&op.body)) {
      tile::ExprEnv env = k.env_for(0, 0);
      env.loops = loops;
      loops[f->var.value] = tile::evaluate(*f->start.value, env).value_or(0);
      continue;
    }
    const MulticastOf m = multicast_of(op);
    if (m.mask == nullptr && m.rank == nullptr)
      continue;
    MulticastPanel mp;
    mp.label = std::string(kind_of(op)) + " at line " + std::to_string(op.pos.line) + ", dst " +
               m.dst->text + (m.mask ? ", multicast = " + m.mask->text : std::string());
    mp.ranks = static_cast<std::int64_t>(place.peers.size());
    for (const std::int64_t bid : place.peers) {
      std::uint32_t sends = 0;
      for (std::int64_t t = 0; t < k.block; ++t) {
        tile::ExprEnv env = k.env_for(bid, t);
        env.loops = loops;
        if (*m.pred) {
          const auto q = tile::evaluate(*(*m.pred)->value, env);
          if (!q || *q == 0)
            continue;
        }
        if (m.rank != nullptr) {
          const auto r = tile::evaluate(*m.rank, env);
          sends |= r && *r >= 0 && *r < 32 ? std::uint32_t{1} << *r : 0;
        } else {
          sends |= static_cast<std::uint32_t>(tile::evaluate(*m.mask->value, env).value_or(0));
        }
      }
      mp.sends.push_back(sends);
    }
    p.multicasts.push_back(std::move(mp));
  }
}

} // namespace

std::string values_text(const std::vector<std::int64_t>& values) {
  if (values.empty())
    return "none";
  if (values.size() == 1)
    return std::to_string(values.front());
  const std::int64_t step = values[1] - values[0];
  bool even = step > 0;
  for (std::size_t i = 1; i < values.size() && even; ++i)
    even = values[i] - values[i - 1] == step;
  if (even && step == 1)
    return std::to_string(values.front()) + ".." + std::to_string(values.back());
  if (even && values.size() > 4)
    return std::to_string(values[0]) + ", " + std::to_string(values[1]) + ", .., " +
           std::to_string(values.back());
  std::string s;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i == 6 && values.size() > 8) {
      s += ", .., " + std::to_string(values.back());
      break;
    }
    s += (i ? ", " : "") + std::to_string(values[i]);
  }
  return s;
}

Picture build_picture(const tile::Kernel& k) {
  Picture p;
  p.spec = k.file;
  p.kernel = k.name;
  p.threads = k.block;
  p.cluster_ctas = k.cluster_dim().count();
  Walker w{k, {}};
  std::optional<PanelBuilder> outside;
  auto close_outside = [&] {
    if (outside)
      p.panels.push_back({"outside loops", {}, {}, outside->finish()});
    outside.reset();
  };
  for (std::size_t i = 0; i < k.ops.size(); ++i) {
    if (const auto* f = std::get_if<tile::ForOp>(&k.ops[i].body)) {
      close_outside();
      add_loop_panels(w, i, p);
      i = f->end;
      continue;
    }
    if (!outside)
      outside.emplace(k);
    outside->add(instance_of(w, {}, i), std::nullopt);
  }
  close_outside();
  add_multicasts(k, p);
  p.walk_note = w.note;
  return p;
}

} // namespace ptxgen::driver::show
