#include "emitter/tile/pipeline.hpp"

#include <algorithm>
#include <set>
#include <utility>
#include <variant>

namespace ptxgen::tile {
namespace {

/// A copy of e whose every node spans [offset, offset + length) of the text a
/// diagnostic will point into (the leaf or the field it stands for).
ExprPtr spanned(const ExprPtr& e, std::uint32_t offset, std::uint32_t length) {
  auto c = std::make_shared<Expr>(*e);
  c->offset = offset;
  c->length = length;
  for (auto& a : c->args)
    a = spanned(a, offset, length);
  return c;
}

/// e folded to a constant when it has no leaf but constants.
ExprPtr folded(ExprPtr e) {
  if (auto v = constant_value(*e))
    return make_constant(*v);
  return e;
}

std::uint32_t text_length(const std::string& text) {
  return static_cast<std::uint32_t>(text.size());
}

/// Replaces the pipeline's loop leaves in the ops of one tile: `var` by `tile`
/// (when set) and `stage_var` by `stage`.
class Rewriter {
public:
  Rewriter(const Pipeline& p, ExprPtr tile, ExprPtr stage)
      : p_(p), tile_(std::move(tile)), stage_(std::move(stage)) {}

  ExprPtr expr(const ExprPtr& e) const {
    return substitute(e, [this](const Expr& x) -> ExprPtr {
      if (x.kind != ExprKind::loop)
        return nullptr;
      if (tile_ && x.name == p_.var.value)
        return spanned(tile_, x.offset, x.length);
      if (x.name == p_.stage_var)
        return spanned(stage_, x.offset, x.length);
      return nullptr;
    });
  }

  void located(Located<ExprPtr>& e) const { e.value = expr(e.value); }
  void optional(std::optional<Located<ExprPtr>>& e) const {
    if (e)
      located(*e);
  }

  void view(Located<View>& lv) const {
    View& v = lv.value;
    for (ViewStep& s : v.steps)
      if (auto* sub = std::get_if<SubStep>(&s))
        for (SubEntry& entry : sub->entries)
          if (!entry.is_slice)
            entry.index = expr(entry.index);
    for (RuntimeTerm& t : v.terms)
      t.index = expr(t.index);
  }

  void operator()(ApplyOp& a) const {
    view(a.dst);
    view(a.src);
    for (auto* f : {&a.src_size, &a.ignore_src, &a.pred})
      if (*f)
        located(**f);
  }
  void operator()(FillOp& f) const { view(f.dst); }
  void operator()(CopyOp& c) const {
    view(c.dst);
    view(c.src);
  }
  void operator()(ForOp& f) const {
    located(f.start);
    located(f.stop);
    located(f.step);
  }
  void operator()(CommitGroupOp&) const {}
  void operator()(WaitGroupOp&) const {}
  void operator()(WaitAllOp&) const {}
  void operator()(CtaSyncOp&) const {}
  void operator()(EndOp&) const {}
  void operator()(MbarrierInitOp& m) const { view(m.barrier); }
  void operator()(CopyArriveOp& m) const { view(m.barrier); }
  void operator()(MbarrierArriveOp& m) const {
    view(m.barrier);
    if (m.pred)
      located(*m.pred);
  }
  void operator()(MbarrierWaitOp& m) const {
    view(m.barrier);
    located(m.parity);
  }
  void operator()(BulkLoadOp& b) const {
    view(b.dst);
    view(b.src);
    view(b.barrier);
    optional(b.pred);
  }
  void operator()(BulkStoreOp& b) const {
    view(b.dst);
    view(b.src);
    optional(b.pred);
  }
  void operator()(BulkCommitOp&) const {}
  void operator()(BulkWaitOp&) const {}
  void operator()(ProxyFenceOp&) const {}
  void operator()(ExpectTxOp& e) const {
    view(e.barrier);
    located(e.bytes);
    optional(e.pred);
  }
  void operator()(TensorLoadOp& t) const {
    for (auto& c : t.coords)
      located(c);
    view(t.dst);
    view(t.barrier);
    optional(t.pred);
  }
  void operator()(TensorStoreOp& t) const {
    for (auto& c : t.coords)
      located(c);
    view(t.src);
    optional(t.pred);
  }

private:
  const Pipeline& p_;
  ExprPtr tile_;
  ExprPtr stage_;
};

/// True when `e` is provably at least `least` over `launch`.
bool provably_at_least(const Expr& e, std::int64_t least, const LaunchBounds& launch) {
  const auto b = bounds(e, launch);
  return b && b->lo >= least;
}

class Expander {
public:
  Expander(const Pipeline& p, std::size_t first_index, const LaunchBounds& launch)
      : p_(p), first_(first_index), launch_(launch) {}

  std::vector<Op> run() {
    using Role = OpOrigin::Role;
    if (p_.sync_before)
      plain(CtaSyncOp{}, {Role::pipeline_sync});
    for (std::int64_t s = 0; s + 1 < p_.stages; ++s) {
      const ExprPtr tile = s == 0
                               ? p_.start.value
                               : folded(make_binary(ExprOp::add, p_.start.value, make_constant(s)));
      loads(tile, /*in_loop=*/false, {Role::prologue_load, s});
      plain(CommitGroupOp{}, {Role::prologue_commit, s});
    }
    const std::size_t for_index = first_ + out_.size();
    plain(ForOp{}, {Role::steady_loop});
    plain(WaitGroupOp{p_.stages - 2}, {Role::steady_wait});
    plain(CtaSyncOp{}, {Role::steady_sync});
    const ExprPtr var = make_leaf(ExprKind::loop, p_.var.value);
    loads(make_binary(ExprOp::add, var, make_constant(p_.stages - 1)), /*in_loop=*/true,
          {Role::steady_load});
    plain(CommitGroupOp{}, {Role::steady_commit});
    const Rewriter consumer(p_, nullptr, pipeline_stage(var, p_.stages));
    for (Op op : p_.body) {
      std::visit(consumer, op.body);
      op.origin = {Role::consumer};
      out_.push_back(std::move(op));
    }
    const std::size_t end_index = first_ + out_.size();
    plain(EndOp{for_index}, {Role::steady_loop});
    out_.front().origin.opens = true;
    ForOp f;
    f.var = p_.var;
    f.start = p_.start;
    f.stop = p_.stop;
    f.step = {make_constant(1), "1", p_.pos};
    f.unroll = p_.unroll;
    f.end = end_index;
    out_[for_index - first_].body = std::move(f);
    return std::move(out_);
  }

private:
  void plain(OpBody b, OpOrigin origin) { out_.push_back(Op{std::move(b), p_.pos, origin}); }

  /// The loads of tile `tile` (unclamped): predicated on tile < stop and with
  /// the tile clamped into the existing ones, unless the tile provably exists.
  void loads(const ExprPtr& tile, bool in_loop, OpOrigin origin) {
    const ExprPtr& stop = p_.stop.value;
    const ExprPtr guard = folded(make_binary(ExprOp::lt, tile, stop));
    ExprPtr index = tile;
    const bool exists = !in_loop && provably_at_least(*guard, 1, launch_);
    if (!exists) {
      const ExprPtr last = folded(make_binary(ExprOp::sub, stop, make_constant(1)));
      index = folded(make_binary(ExprOp::min, tile, last));
      if (!provably_at_least(*make_binary(ExprOp::sub, last, p_.start.value), 0, launch_))
        index = folded(make_binary(ExprOp::max, p_.start.value, index));
    }
    const Rewriter rewrite(p_, index, pipeline_stage(tile, p_.stages));
    for (Op op : p_.loads) {
      std::visit(rewrite, op.body);
      if (!exists)
        if (auto* a = std::get_if<ApplyOp>(&op.body))
          add_guard(*a, guard);
      op.origin = origin;
      out_.push_back(std::move(op));
    }
  }

  /// pred = guard, or (pred) && guard, pointing at the pred or at `stop`.
  void add_guard(ApplyOp& a, const ExprPtr& guard) const {
    if (a.pred) {
      const ExprPtr g = spanned(guard, 0, text_length(a.pred->text));
      a.pred->value = make_binary(ExprOp::logical_and, a.pred->value, g);
      return;
    }
    a.pred =
        Located<ExprPtr>{spanned(guard, 0, text_length(p_.stop.text)), p_.stop.text, p_.stop.pos};
  }

  const Pipeline& p_;
  std::size_t first_;
  const LaunchBounds& launch_;
  std::vector<Op> out_;
};

} // namespace

ExprPtr pipeline_stage(const ExprPtr& tile, std::int64_t stages) {
  return folded(make_binary(ExprOp::rem, tile, make_constant(stages)));
}

std::vector<Op> expand_pipeline(const Pipeline& p, std::size_t first_index,
                                const LaunchBounds& launch) {
  return Expander(p, first_index, launch).run();
}

namespace {

/// True for an op that reads or writes one of `tensors`.
struct TensorUse {
  const std::set<const Tensor*>& tensors;
  bool has(const Located<View>& v) const { return tensors.count(v.value.tensor) != 0; }
  bool operator()(const ApplyOp& a) const { return has(a.dst) || has(a.src); }
  bool operator()(const FillOp& f) const { return has(f.dst); }
  bool operator()(const CopyOp& c) const { return has(c.dst) || has(c.src); }
  bool operator()(const CommitGroupOp&) const { return false; }
  bool operator()(const WaitGroupOp&) const { return false; }
  bool operator()(const WaitAllOp&) const { return false; }
  bool operator()(const CtaSyncOp&) const { return false; }
  bool operator()(const ForOp&) const { return false; }
  bool operator()(const EndOp&) const { return false; }
  bool operator()(const MbarrierInitOp& m) const { return has(m.barrier); }
  bool operator()(const CopyArriveOp& m) const { return has(m.barrier); }
  bool operator()(const MbarrierArriveOp& m) const { return has(m.barrier); }
  bool operator()(const MbarrierWaitOp& m) const { return has(m.barrier); }
  bool operator()(const BulkLoadOp& b) const { return has(b.dst) || has(b.src) || has(b.barrier); }
  bool operator()(const BulkStoreOp& b) const { return has(b.dst) || has(b.src); }
  bool operator()(const BulkCommitOp&) const { return false; }
  bool operator()(const BulkWaitOp&) const { return false; }
  bool operator()(const ProxyFenceOp&) const { return false; }
  bool operator()(const ExpectTxOp& e) const { return has(e.barrier); }
  bool operator()(const TensorLoadOp& t) const { return has(t.dst) || has(t.barrier); }
  bool operator()(const TensorStoreOp& t) const { return has(t.src); }
};

} // namespace

bool pipeline_needs_sync(const Pipeline& p, std::span<const Op> before, bool in_loop) {
  if (!before.empty() && std::holds_alternative<CtaSyncOp>(before.back().body))
    return false;
  if (in_loop)
    return true;
  std::set<const Tensor*> stages;
  for (const Op& l : p.loads)
    stages.insert(std::get<ApplyOp>(l.body).dst.value.tensor);
  return std::any_of(before.begin(), before.end(),
                     [&](const Op& o) { return std::visit(TensorUse{stages}, o.body); });
}

} // namespace ptxgen::tile
