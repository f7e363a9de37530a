#include "emitter/tile/pipeline.hpp"

#include "emitter/tile/op_table.hpp"

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

  /// Every op: the loop leaves in each field of it (ops.def) that holds expressions.
  template <class Op>
  void operator()(Op& op) const {
    for_each_field(op, [&](const FieldRow&, auto& member) { rewrite(member); });
  }
  void rewrite(Located<View>& v) const { view(v); }
  void rewrite(std::optional<Located<View>>& v) const {
    if (v)
      view(*v);
  }
  void rewrite(Located<ExprPtr>& e) const { located(e); }
  void rewrite(std::optional<Located<ExprPtr>>& e) const { optional(e); }
  void rewrite(std::vector<Located<ExprPtr>>& coords) const {
    for (auto& c : coords)
      located(c);
  }
  void rewrite(std::optional<std::vector<Located<ExprPtr>>>& offsets) const {
    if (offsets)
      rewrite(*offsets);
  }
  // Fields without expressions.
  void rewrite(const Located<ptx::CpAsyncOpcode>&) const {}
  void rewrite(const Located<std::int64_t>&) const {}
  void rewrite(const Located<std::string>&) const {}
  void rewrite(const std::optional<Located<CachePolicy>>&) const {}
  void rewrite(const std::vector<std::uint8_t>&) const {}
  void rewrite(std::int64_t) const {}
  void rewrite(bool) const {}
  void rewrite(Scope) const {}
  void rewrite(FenceSpace) const {}
  void rewrite(ReduceKind) const {}
  void rewrite(TensormapField) const {}
  void rewrite(TensormapSem) const {}
  void rewrite(const std::optional<Located<std::string>>&) const {}
  void rewrite(RegAction) const {}

private:
  const Pipeline& p_;
  ExprPtr tile_;
  ExprPtr stage_;
};

/// The pred of a warp-specialized ring's role, `warp OP producer_warps` (ge: the consumers,
/// lt: the producer), located at producer_warps; nullopt for a ring without roles.
std::optional<Located<ExprPtr>> role_pred(const PipelineRing& r, ExprOp op) {
  if (!r.roles)
    return std::nullopt;
  const Located<std::int64_t>& p = r.roles->producer_warps;
  const ExprPtr e = make_binary(op, make_leaf(ExprKind::warp), make_constant(p.value));
  return Located<ExprPtr>{spanned(e, 0, text_length(p.text)), p.text, p.pos};
}

/// The multicast form's cluster size N (PipelineRing::multicast); nullopt without it.
std::optional<std::int64_t> multicast_ctas(const PipelineRing& r) {
  if (!r.multicast)
    return std::nullopt;
  return r.multicast->ctas.value;
}

/// `pred` joined with the consumers' role pred (when the ring has roles): the consumer ops
/// of a warp-specialized ring run on the consumer warps only.
void add_role(std::optional<Located<ExprPtr>>& pred, const PipelineRing& r) {
  const auto role = role_pred(r, ExprOp::ge);
  if (!role)
    return;
  if (!pred) {
    pred = role;
    return;
  }
  pred->value = make_binary(ExprOp::logical_and, pred->value,
                            spanned(role->value, 0, text_length(pred->text)));
}

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
    if (p_.ring)
      return run_ring();
    using Role = OpOrigin::Role;
    if (p_.sync_before)
      plain(CtaSyncOp{}, {Role::pipeline_sync});
    for (std::int64_t s = 0; s + 1 < p_.stages; ++s) {
      const ExprPtr tile = s == 0
                               ? p_.start.value
                               : folded(make_binary(ExprOp::add, p_.start.value, make_constant(s)));
      loads(tile, pipeline_stage(tile, p_.stages), /*in_loop=*/false, {Role::prologue_load, s});
      plain(CommitGroupOp{}, {Role::prologue_commit, s});
    }
    const std::size_t for_index = first_ + out_.size();
    plain(ForOp{}, {Role::steady_loop});
    plain(WaitGroupOp{p_.stages - 2}, {Role::steady_wait});
    plain(CtaSyncOp{}, {Role::steady_sync});
    const ExprPtr var = make_leaf(ExprKind::loop, p_.var.value);
    const ExprPtr next = make_binary(ExprOp::add, var, make_constant(p_.stages - 1));
    loads(next, pipeline_stage(next, p_.stages), /*in_loop=*/true, {Role::steady_load});
    plain(CommitGroupOp{}, {Role::steady_commit});
    const Rewriter consumer(p_, nullptr, pipeline_stage(var, p_.stages));
    for (Op op : p_.body) {
      std::visit(consumer, op.body);
      op.origin = {Role::consumer};
      out_.push_back(std::move(op));
    }
    const std::size_t end_index = first_ + out_.size();
    plain(EndOp{for_index}, {Role::steady_loop});
    close_loop(for_index, end_index);
    return std::move(out_);
  }

private:
  void plain(OpBody b, OpOrigin origin) { out_.push_back(Op{std::move(b), p_.pos, origin}); }

  /// The mbarrier ring's schedule (pipeline.hpp); its inits are pipeline_ring_init's.
  std::vector<Op> run_ring() {
    using Role = OpOrigin::Role;
    const auto cluster = multicast_ctas(*p_.ring);
    // A multicast prologue writes the peers' stages too: only a cluster_sync orders it after
    // their earlier use.
    if (p_.sync_before)
      plain(cluster ? OpBody{ClusterSyncOp{}} : OpBody{CtaSyncOp{}}, {Role::pipeline_sync});
    for (std::int64_t s = 0; s + 1 < p_.stages; ++s) {
      const ExprPtr tile = plus(p_.start.value, s);
      const ExprPtr use = plus(offset(), s);
      const ExprPtr guard = folded(make_binary(ExprOp::lt, tile, p_.stop.value));
      const ExprPtr on = tile_exists(*guard, false) ? nullptr : guard;
      if (!is_constant(*offset(), 0))
        producer_wait(use, on, s);
      produce(tile, use, on, /*in_loop=*/false, s);
    }
    const std::size_t for_index = first_ + out_.size();
    plain(ForOp{}, {Role::steady_loop});
    const ExprPtr var = make_leaf(ExprKind::loop, p_.var.value);
    const ExprPtr since = tiles_since_start(var);
    const ExprPtr use = plus(offset(), since);
    const ExprPtr next = plus(var, p_.stages - 1);
    const ExprPtr refill = plus(use, p_.stages - 1);
    const ExprPtr guard = make_binary(ExprOp::lt, next, p_.stop.value);
    producer_wait(refill, guard, -1);
    produce(next, refill, guard, /*in_loop=*/true, -1);
    consume(use);
    const std::size_t end_index = first_ + out_.size();
    plain(EndOp{for_index}, {Role::steady_loop});
    close_loop(for_index, end_index);
    // The consumers' last arrivals on the peers' empty barriers are remote: no CTA may exit
    // (and free its barriers) before they are in.
    if (cluster && p_.exit_sync)
      plain(ClusterSyncOp{}, {Role::ring_exit, -1});
    return std::move(out_);
  }

  /// k - start, the tiles of this pipeline before tile k. The loop runs only while
  /// k >= start, but intervals cannot relate k to a start that varies (a parameter,
  /// `bid * 5`): then it is written max(k - start, 0), equal inside the loop, so that the
  /// proof sees a non-negative use index (one max per iteration, none for a start whose
  /// bounds already prove it).
  ExprPtr tiles_since_start(const ExprPtr& var) const {
    const ExprPtr& start = p_.start.value;
    if (is_constant(*start, 0))
      return var;
    const ExprPtr since = make_binary(ExprOp::sub, var, start);
    if (constant_value(*start))
      return since;
    return make_binary(ExprOp::max, since, make_constant(0));
  }

  /// The ring's uses before this pipeline (0 when unset).
  ExprPtr offset() const { return p_.ring->offset ? p_.ring->offset->value : make_constant(0); }

  static bool is_constant(const Expr& e, std::int64_t v) {
    const auto c = constant_value(e);
    return c && *c == v;
  }

  /// a + b, folded, a itself when b is 0.
  static ExprPtr plus(const ExprPtr& a, const ExprPtr& b) {
    if (is_constant(*b, 0))
      return a;
    if (is_constant(*a, 0))
      return b;
    return folded(make_binary(ExprOp::add, a, b));
  }
  static ExprPtr plus(const ExprPtr& a, std::int64_t b) { return plus(a, make_constant(b)); }

  /// Thread 0, and `guard` when set.
  static ExprPtr producer_pred(const ExprPtr& guard) {
    const ExprPtr first = make_binary(ExprOp::eq, make_leaf(ExprKind::tid), make_constant(0));
    return guard ? make_binary(ExprOp::logical_and, first, guard) : first;
  }

  /// A ring barrier view (full or empty) at the slot of use `use`.
  Located<View> barrier(const Located<View>& v, const ExprPtr& use) const {
    Located<View> out = v;
    Rewriter(p_, nullptr, pipeline_stage(use, p_.stages)).view(out);
    return out;
  }

  /// `e` located at the ring's barrier view `v`, where a parity finding points.
  static Located<ExprPtr> at_view(const ExprPtr& e, const Located<View>& v) {
    return {spanned(e, 0, text_length(v.text)), v.text, v.pos};
  }

  /// Thread 0 waits until use `use` of its slot is free: the release of use - S, the empty
  /// phase use / S - 1, parity (use / S + 1) % 2 (parity 1 passes at once on a fresh one).
  void producer_wait(const ExprPtr& use, const ExprPtr& guard, std::int64_t step) {
    const PipelineRing& r = *p_.ring;
    const ExprPtr round = folded(make_binary(ExprOp::div, use, make_constant(p_.stages)));
    const ExprPtr parity = folded(make_binary(
        ExprOp::bit_xor, make_binary(ExprOp::rem, round, make_constant(2)), make_constant(1)));
    MbarrierWaitOp w{barrier(r.empty, use), at_view(parity, r.empty),
                     at_stop(producer_pred(guard))};
    plain(std::move(w), {OpOrigin::Role::producer_wait, step});
  }

  /// Thread 0's expect_tx on full and its loads of tile `tile`, use `use` of the ring. A
  /// multicast ring's full receives every CTA's share: N times this CTA's loads.
  void produce(const ExprPtr& tile, const ExprPtr& use, const ExprPtr& guard, bool in_loop,
               std::int64_t step) {
    const PipelineRing& r = *p_.ring;
    const std::int64_t bytes = r.multicast ? r.multicast->stage_bytes : tile_bytes();
    ExpectTxOp e{barrier(r.full, use),
                 {make_constant(bytes), std::to_string(bytes), p_.pos},
                 true,
                 at_stop(producer_pred(guard))};
    plain(std::move(e), {OpOrigin::Role::producer_expect, step});
    const OpOrigin origin = step >= 0 ? OpOrigin{OpOrigin::Role::prologue_load, step}
                                      : OpOrigin{OpOrigin::Role::steady_load};
    loads(tile, pipeline_stage(use, p_.stages), in_loop, origin, producer_pred(nullptr));
  }

  /// The bytes of one tile's loads: each one's dst view (the contract proves a tensor
  /// load's is its box).
  std::int64_t tile_bytes() const {
    std::int64_t total = 0;
    for (const Op& op : p_.loads)
      total += pipeline_load_bytes(op);
    return total;
  }

  /// Every thread waits for use `use` to land, consumes it and releases its slot.
  void consume(const ExprPtr& use) {
    using Role = OpOrigin::Role;
    const PipelineRing& r = *p_.ring;
    const ExprPtr round = folded(make_binary(ExprOp::div, use, make_constant(p_.stages)));
    const ExprPtr parity = folded(make_binary(ExprOp::rem, round, make_constant(2)));
    const auto consumers = role_pred(r, ExprOp::ge);
    plain(MbarrierWaitOp{barrier(r.full, use), at_view(parity, r.full), consumers},
          {Role::consumer_wait, -1});
    const Rewriter consumer(p_, nullptr, pipeline_stage(use, p_.stages));
    for (Op op : p_.body) {
      std::visit(consumer, op.body);
      // The loader admits only copies in a warp-specialized ring's consumer (a fill has no
      // pred to keep it off the producer warps).
      if (auto* c = std::get_if<CopyOp>(&op.body))
        add_role(c->pred, r);
      op.origin = {Role::consumer};
      out_.push_back(std::move(op));
    }
    // A generic write to a stage meets the async proxy of the load that refills it: the
    // writer's fence.proxy.async, before the release that orders thread 0's refill.
    if (pipeline_writes_stages(p_, p_.body))
      plain(ProxyFenceOp{}, {Role::consumer_release, -1});
    if (r.roles && r.roles->consumer_barrier) {
      const Located<std::int64_t>& id = *r.roles->consumer_barrier;
      NamedBarrierOp bar{id, {r.consumers, std::to_string(r.consumers), id.pos}, false, consumers};
      plain(std::move(bar), {Role::consumer_release, -1});
    }
    if (r.multicast && !r.roles)
      plain(CtaSyncOp{}, {Role::consumer_release, -1});
    if (r.multicast)
      plain(release_cluster(use), {Role::consumer_release, -1});
    else
      plain(MbarrierArriveOp{barrier(r.empty, use), consumers}, {Role::consumer_release, -1});
  }

  /// The multicast release, after the consumers' named barrier (a ring without roles: after a
  /// cta_sync of every thread): consumer thread F + r (r < N; F = 32 P, or 0 without roles)
  /// arrives on the empty barrier of cluster rank r, `empty@(tid - F)`, so that every CTA's
  /// empty hears one arrival from each CTA whose stage its multicast fills.
  MbarrierArriveOp release_cluster(const ExprPtr& use) const {
    const PipelineRing& r = *p_.ring;
    const PipelineMulticast& m = *r.multicast;
    const std::int64_t n = m.ctas.value;
    const std::int64_t f = r.roles ? 32 * r.roles->producer_warps.value : 0;
    const ExprPtr first = make_constant(f);
    const ExprPtr tid = make_leaf(ExprKind::tid);
    Located<View> empty = barrier(r.empty, use);
    // The rank is located at the whole `empty` view (the key a finding about it points at).
    const std::uint32_t length = text_length(empty.text);
    empty.value.peer = spanned(f == 0 ? tid : make_binary(ExprOp::sub, tid, first), 0, length);
    empty.value.peer_offset = 0;
    empty.value.peer_length = length;
    // tid < F + N: the first N consumer threads, one per rank; with masks of part of the
    // cluster, && (U >> (tid - F)) & 1: the ranks whose loads land here.
    ExprPtr below = make_binary(ExprOp::lt, tid, make_constant(f + n));
    if (m.release_mask) {
      // min(max(tid, F) - F, N - 1): tid - F where the pred holds, and a shift count inside
      // 0..N-1 for every thread (the 32-bit rule's bounds see no narrowing by the
      // conjunction's left side).
      const ExprPtr rank = make_binary(
          ExprOp::min,
          f == 0 ? tid : make_binary(ExprOp::sub, make_binary(ExprOp::max, tid, first), first),
          make_constant(n - 1));
      const ExprPtr bit =
          make_binary(ExprOp::ne,
                      make_binary(ExprOp::bit_and, make_binary(ExprOp::shr, m.release_mask, rank),
                                  make_constant(1)),
                      make_constant(0));
      below = make_binary(ExprOp::logical_and, below, bit);
    }
    // warp >= P && ... for a ring with roles, located at producer_warps; at `multicast`
    // without.
    if (!r.roles)
      return MbarrierArriveOp{std::move(empty), at_key(below, m.ctas)};
    Located<ExprPtr> pred = *role_pred(r, ExprOp::ge);
    pred.value =
        make_binary(ExprOp::logical_and, pred.value, spanned(below, 0, text_length(pred.text)));
    return MbarrierArriveOp{std::move(empty), std::move(pred)};
  }

  /// Fills in the steady-state ForOp at `for_index` whose EndOp is at `end_index`.
  void close_loop(std::size_t for_index, std::size_t end_index) {
    out_.front().origin.opens = true;
    ForOp f;
    f.var = p_.var;
    f.start = p_.start;
    f.stop = p_.stop;
    f.step = {make_constant(1), "1", p_.pos};
    f.unroll = p_.unroll;
    f.end = end_index;
    out_[for_index - first_].body = std::move(f);
  }

  /// The loads of tile `tile` (unclamped) into slot `stage`: predicated on
  /// tile < stop and with the tile clamped into the existing ones, unless the
  /// tile provably exists. A ring's loads are thread 0's (`producer`).
  void loads(const ExprPtr& tile, const ExprPtr& stage, bool in_loop, OpOrigin origin,
             const ExprPtr& producer = nullptr) {
    const ExprPtr& stop = p_.stop.value;
    const ExprPtr guard = folded(make_binary(ExprOp::lt, tile, stop));
    ExprPtr index = tile;
    const bool exists = tile_exists(*guard, in_loop);
    if (!exists) {
      const ExprPtr last = folded(make_binary(ExprOp::sub, stop, make_constant(1)));
      index = folded(make_binary(ExprOp::min, tile, last));
      if (!provably_at_least(*make_binary(ExprOp::sub, last, p_.start.value), 0, launch_))
        index = folded(make_binary(ExprOp::max, p_.start.value, index));
    }
    const Rewriter rewrite(p_, index, stage);
    const ExprPtr on = issue_pred(producer, exists ? nullptr : guard);
    const auto mask = multicast_mask();
    for (Op op : p_.loads) {
      std::visit(rewrite, op.body);
      // A load with a mask of its own keeps it (part of the cluster).
      if (auto* b = std::get_if<BulkLoadOp>(&op.body); b && mask && !b->multicast)
        b->multicast = mask;
      if (auto* t = std::get_if<TensorLoadOp>(&op.body); t && mask && !t->multicast)
        t->multicast = mask;
      if (auto* a = std::get_if<ApplyOp>(&op.body); a && on)
        add_guard(a->pred, on);
      if (auto* b = std::get_if<BulkLoadOp>(&op.body); b && on)
        add_guard(b->pred, on);
      if (auto* t = std::get_if<TensorLoadOp>(&op.body); t && on)
        add_guard(t->pred, on);
      op.origin = origin;
      out_.push_back(std::move(op));
    }
  }

  /// A multicast ring's load mask, every CTA of the cluster (2^N - 1), at the multicast key:
  /// the mask of a load that has none of its own.
  std::optional<Located<ExprPtr>> multicast_mask() const {
    if (!p_.ring || !p_.ring->multicast)
      return std::nullopt;
    const Located<std::int64_t>& key = p_.ring->multicast->ctas;
    return at_key(make_constant((std::int64_t{1} << key.value) - 1), key);
  }

  /// `e` located at the key that gave `key`.
  static Located<ExprPtr> at_key(const ExprPtr& e, const Located<std::int64_t>& key) {
    return {spanned(e, 0, text_length(key.text)), key.text, key.pos};
  }

  bool tile_exists(const Expr& guard, bool in_loop) const {
    return !in_loop && provably_at_least(guard, 1, launch_);
  }

  /// producer && guard, either of them, or nullptr when both are.
  static ExprPtr issue_pred(const ExprPtr& producer, const ExprPtr& guard) {
    if (producer && guard)
      return make_binary(ExprOp::logical_and, producer, guard);
    return producer ? producer : guard;
  }

  /// pred = guard, or (pred) && guard, pointing at the pred or at `stop`.
  void add_guard(std::optional<Located<ExprPtr>>& pred, const ExprPtr& guard) const {
    if (pred) {
      const ExprPtr g = spanned(guard, 0, text_length(pred->text));
      pred->value = make_binary(ExprOp::logical_and, pred->value, g);
      return;
    }
    pred = at_stop(guard);
  }

  /// `e` located at the pipeline's `stop`, the key every generated guard comes from.
  Located<ExprPtr> at_stop(const ExprPtr& e) const {
    return {spanned(e, 0, text_length(p_.stop.text)), p_.stop.text, p_.stop.pos};
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

/// True for an op that reads or writes one of `tensors`: a view field (ops.def) of one.
struct TensorUse {
  const std::set<const Tensor*>& tensors;
  template <class Op>
  bool operator()(const Op& op) const {
    bool uses = false;
    for_each_field(op, [&](const FieldRow&, const auto& member) { uses = has(member) || uses; });
    return uses;
  }
  bool has(const Located<View>& v) const { return tensors.count(v.value.tensor) != 0; }
  bool has(const std::optional<Located<View>>& v) const { return v && has(*v); }
  // Fields that hold no view (a tensor op's map tensor is its global side, never a stage).
  bool has(const Located<ptx::CpAsyncOpcode>&) const { return false; }
  bool has(const Located<std::int64_t>&) const { return false; }
  bool has(const Located<std::string>&) const { return false; }
  bool has(const Located<ExprPtr>&) const { return false; }
  bool has(const std::optional<Located<ExprPtr>>&) const { return false; }
  bool has(const std::vector<Located<ExprPtr>>&) const { return false; }
  bool has(const std::optional<std::vector<Located<ExprPtr>>>&) const { return false; }
  bool has(const std::optional<Located<CachePolicy>>&) const { return false; }
  bool has(const std::vector<std::uint8_t>&) const { return false; }
  bool has(std::int64_t) const { return false; }
  bool has(bool) const { return false; }
  bool has(Scope) const { return false; }
  bool has(FenceSpace) const { return false; }
  bool has(ReduceKind) const { return false; }
  bool has(TensormapField) const { return false; }
  bool has(TensormapSem) const { return false; }
  bool has(const std::optional<Located<std::string>>&) const { return false; }
  bool has(RegAction) const { return false; }
};

/// True for an op whose generic-proxy write reaches one of `tensors` (fill, copy, the
/// cp.async of an apply): an async-proxy load of the same bytes needs a proxy fence after it.
bool generic_write(const Op& o, const std::set<const Tensor*>& tensors) {
  const Located<View>* dst = nullptr;
  if (const auto* f = std::get_if<FillOp>(&o.body))
    dst = &f->dst;
  else if (const auto* c = std::get_if<CopyOp>(&o.body))
    dst = &c->dst;
  else if (const auto* a = std::get_if<ApplyOp>(&o.body))
    dst = &a->dst;
  return dst && tensors.count(dst->value.tensor) != 0;
}

} // namespace

std::set<const Tensor*> pipeline_stage_tensors(const Pipeline& p) {
  std::set<const Tensor*> stages;
  for (const Op& l : p.loads) {
    if (const auto* a = std::get_if<ApplyOp>(&l.body))
      stages.insert(a->dst.value.tensor);
    else if (const auto* b = std::get_if<BulkLoadOp>(&l.body))
      stages.insert(b->dst.value.tensor);
    else if (const auto* t = std::get_if<TensorLoadOp>(&l.body))
      stages.insert(t->dst.value.tensor);
  }
  return stages;
}

bool pipeline_writes_stages(const Pipeline& p, std::span<const Op> ops) {
  const std::set<const Tensor*> stages = pipeline_stage_tensors(p);
  return std::any_of(ops.begin(), ops.end(), [&](const Op& o) { return generic_write(o, stages); });
}

std::optional<std::size_t> pipeline_fence_after(const Pipeline& p, std::span<const Op> before) {
  if (!p.ring)
    return std::nullopt;
  const std::set<const Tensor*> stages = pipeline_stage_tensors(p);
  for (std::size_t i = before.size(); i-- > 0;) {
    if (std::holds_alternative<ProxyFenceOp>(before[i].body))
      return std::nullopt;
    if (generic_write(before[i], stages))
      return i + 1;
  }
  return std::nullopt;
}

bool pipeline_needs_sync(const Pipeline& p, std::span<const Op> before, bool in_loop) {
  if (!before.empty() && std::holds_alternative<CtaSyncOp>(before.back().body))
    return false;
  if (const auto* c = before.empty() ? nullptr : std::get_if<ClusterSyncOp>(&before.back().body);
      c && !c->relaxed)
    return false;
  if (in_loop)
    return !p.ring;
  const std::set<const Tensor*> stages = pipeline_stage_tensors(p);
  return std::any_of(before.begin(), before.end(),
                     [&](const Op& o) { return std::visit(TensorUse{stages}, o.body); });
}

std::int64_t pipeline_load_bytes(const Op& load) {
  const View* dst = nullptr;
  if (const auto* b = std::get_if<BulkLoadOp>(&load.body))
    dst = &b->dst.value;
  else if (const auto* t = std::get_if<TensorLoadOp>(&load.body))
    dst = &t->dst.value;
  if (!dst)
    return 0;
  std::int64_t n = size_bytes(dst->dtype);
  for (std::int64_t d : dst->shape())
    n *= d;
  return n;
}

std::vector<Op> pipeline_ring_init(const Pipeline& p) {
  using Role = OpOrigin::Role;
  std::vector<Op> out;
  auto init = [&](const Located<View>& v, std::int64_t slot, std::int64_t count) {
    Located<View> at = v;
    Rewriter(p, nullptr, make_constant(slot)).view(at);
    out.push_back(Op{MbarrierInitOp{std::move(at), {count, std::to_string(count), p.pos}},
                     p.pos,
                     {Role::ring_init, slot}});
  };
  // A multicast ring's empty hears one arrival from each CTA whose loads land in this one.
  const auto cluster = multicast_ctas(*p.ring);
  const std::int64_t arrivals = cluster ? p.ring->multicast->senders : p.ring->consumers;
  for (std::int64_t s = 0; s < p.stages; ++s) {
    init(p.ring->full, s, 1);
    init(p.ring->empty, s, arrivals);
  }
  // The peers' multicasts complete on this CTA's full barriers and their consumers arrive on
  // its empty ones: the inits are published to the cluster first.
  if (cluster) {
    out.push_back(Op{MbarrierInitFenceOp{}, p.pos, {Role::ring_init, -1}});
    out.push_back(Op{ClusterSyncOp{}, p.pos, {Role::ring_init, -1}});
  } else {
    out.push_back(Op{CtaSyncOp{}, p.pos, {Role::ring_init, -1}});
  }
  // The producer gives registers back before the consumers take them (an inc waits until the
  // CTA's pool has them).
  const auto& roles = p.ring->roles;
  const auto regs = [&](RegAction action, const std::optional<Located<std::int64_t>>& n,
                        ExprOp op) {
    if (n)
      out.push_back(
          Op{SetmaxnregOp{action, *n, role_pred(*p.ring, op)}, p.pos, {Role::ring_init, -1}});
  };
  if (roles) {
    regs(RegAction::dec, roles->producer_regs, ExprOp::lt);
    regs(RegAction::inc, roles->consumer_regs, ExprOp::ge);
  }
  return out;
}

} // namespace ptxgen::tile
