// Selection of the sm_90 bulk-copy family: each op is the one PTX instruction of its name
// (emitter/ptx/bulk.hpp), its operands computed as the other ops compute theirs: 32-bit
// shared addresses, 64-bit global ones, constants folded into [reg+imm], invariant
// registers hoisted out of loops.

#include "emitter/lower/lowerer.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/reduce.hpp"

namespace ptxgen::lower::impl {

namespace {

/// The bytes a bulk view moves: its elements, contiguous (the contract proved it).
std::uint32_t bulk_bytes(const tile::View& v) {
  std::int64_t n = tile::size_bytes(v.dtype);
  for (const auto& a : v.axes)
    n *= a.size;
  return static_cast<std::uint32_t>(n);
}

TensorRank tensor_rank(std::size_t coords) {
  return static_cast<TensorRank>(coords - 1);
}

/// A value's largest value where a condition holds, by the value's tree.
using UpperBounds = std::vector<std::pair<ExprPtr, std::int64_t>>;

/// The upper bounds `c` gives where it holds: `x < k`, `x <= k` (k constant, either side)
/// and those of both sides of `&&`.
void upper_bounds(const ExprPtr& c, UpperBounds& out) {
  if (c->kind != ExprKind::binary)
    return;
  if (c->op == ExprOp::logical_and) {
    upper_bounds(c->args[0], out);
    upper_bounds(c->args[1], out);
    return;
  }
  ExprOp op = c->op;
  ExprPtr x = c->args[0];
  auto k = tile::constant_value(*c->args[1]);
  if (!k) {
    op = tile::info(op).swapped; // `k > x` is `x < k`
    x = c->args[1];
    k = tile::constant_value(*c->args[0]);
  }
  if (!k)
    return;
  if (op == ExprOp::lt)
    out.emplace_back(x, *k - 1);
  else if (op == ExprOp::le)
    out.emplace_back(x, *k);
}

/// e with each `min(x, k)` whose x is at most k by `b` replaced by x (min is the
/// mathematical one, as is the comparison that bounds x).
ExprPtr drop_inactive_clamps(const ExprPtr& e, const UpperBounds& b) {
  if (e->kind == ExprKind::binary && e->op == ExprOp::min)
    for (std::size_t i : {0u, 1u}) {
      auto k = tile::constant_value(*e->args[1 - i]);
      for (const auto& [x, hi] : b)
        if (k && hi <= *k && compare(*x, *e->args[i]) == 0)
          return drop_inactive_clamps(e->args[i], b);
    }
  std::vector<ExprPtr> args;
  bool changed = false;
  for (const auto& a : e->args) {
    args.push_back(drop_inactive_clamps(a, b));
    changed = changed || args.back() != a;
  }
  if (!changed)
    return e;
  auto copy = std::make_shared<tile::Expr>(*e);
  copy->args = std::move(args);
  return copy;
}

} // namespace

ExprPtr Lowerer::where_holds(const ExprPtr& e,
                             const std::optional<tile::Located<ExprPtr>>& pred) const {
  if (!pred)
    return e;
  UpperBounds b;
  upper_bounds(bind(pred->value), b);
  return b.empty() ? e : drop_inactive_clamps(e, b);
}

Address Lowerer::view_address(const tile::View& v,
                              const std::optional<tile::Located<ExprPtr>>& pred) {
  Linear l = thread_linear(v, 0, pred);
  Register base = address(*v.tensor, l);
  return Address{base, l.constant};
}

Register Lowerer::tensor_map_address(const std::string& tensor) {
  if (auto it = cache_.tensor_map.find(tensor); it != cache_.tensor_map.end())
    return it->second;
  AtLevel at(*this, 0);
  Register param = reg(RegClass::b64);
  emit(Mov{ScalarType::b64, param, Symbol{map_param_symbol(tensor)}});
  Register generic = reg(RegClass::b64);
  emit(Cvta{StateSpace::param, ScalarType::u64, generic, param, true});
  remember(&Caches::tensor_map, 0, tensor, generic);
  return generic;
}

std::vector<Operand> Lowerer::tensor_coords(const std::vector<tile::Located<ExprPtr>>& coords) {
  std::vector<Operand> out;
  for (auto it = coords.rbegin(); it != coords.rend(); ++it)
    out.push_back(typed(value(bind(it->value)), ScalarType::s32));
  return out;
}

Lowerer::RepeatGuard Lowerer::op_guard(const std::optional<tile::Located<ExprPtr>>& pred) {
  if (!pred)
    return {};
  // As apply's pred (pred_guard()): a pred that folds to false once an unrolled loop's
  // variable is bound drops the instruction; a written `false` keeps it, guarded.
  ExprPtr p = bind(pred->value);
  p = p == pred->value ? p : tile::fold_truth(p);
  auto k = tile::constant_value(*p);
  if (k && *k != 0)
    return {};
  if (k && p != pred->value)
    return {true, std::nullopt};
  return {false, predicate(p)};
}

CachePolicy Lowerer::op_cache_policy(const std::optional<tile::Located<tile::CachePolicy>>& p) {
  if (!p)
    return std::nullopt;
  return cache_policy(p->value);
}

template <class Op, class Operands>
void Lowerer::emit_bulk(const Op& op, Operands&& operands) {
  const RepeatGuard g = op_guard(op.pred);
  if (g.skip)
    return;
  auto c = operands();
  c.cache_policy = op_cache_policy(op.cache_policy);
  c.cache_hint = c.cache_policy.has_value();
  emit(c, g.guard);
}

std::optional<Operand> Lowerer::cta_mask(const std::optional<tile::Located<ExprPtr>>& mask) {
  if (!mask)
    return std::nullopt;
  const Operand v = value(bind(mask->value));
  if (std::holds_alternative<Immediate>(v))
    return v;
  Register r = reg(RegClass::b16);
  emit(Cvt{ScalarType::u16, ScalarType::u32, r, v});
  return r;
}

std::optional<std::vector<Operand>>
Lowerer::im2col_offsets(const std::optional<std::vector<tile::Located<ExprPtr>>>& offsets) {
  if (!offsets)
    return std::nullopt;
  // `.b16` operands, innermost first as the coordinates: an immediate as written, else the
  // value narrowed as the CTA mask is (the contract proved it in the offset range).
  std::vector<Operand> out;
  for (auto it = offsets->rbegin(); it != offsets->rend(); ++it) {
    Operand v = value(bind(it->value));
    if (!std::holds_alternative<Immediate>(v)) {
      const Register r = reg(RegClass::b16);
      emit(Cvt{ScalarType::u16, ScalarType::u32, r, v});
      v = Operand{r};
    }
    out.push_back(std::move(v));
  }
  return out;
}

void Lowerer::lower(const tile::BulkLoadOp& b) {
  emit_bulk(b, [&] {
    CpAsyncBulkLoad c;
    c.dst = view_address(b.dst.value, b.pred);
    c.src = view_address(b.src.value, b.pred);
    c.size = Immediate{bulk_bytes(b.dst.value)};
    c.mbar = barrier_address(b.barrier);
    c.cta_mask = cta_mask(b.multicast);
    return c;
  });
}

void Lowerer::lower(const tile::BulkCopyPeerOp& b) {
  const RepeatGuard g = op_guard(b.pred);
  if (g.skip)
    return;
  // dst and barrier name the same CTA (the builder's rule): each its own mapa of the CTA's
  // own address.
  PeerSide dside = peer_side(b.dst.value);
  PeerSide bside = peer_side(b.barrier.value);
  CpAsyncBulkPeer c;
  c.dst = peer_address(dside, view_address(b.dst.value, b.pred), g.guard);
  c.src = view_address(b.src.value, b.pred);
  c.size = Immediate{bulk_bytes(b.src.value)};
  c.mbar = peer_address(bside, barrier_address(b.barrier), g.guard);
  emit(c, g.guard);
}

void Lowerer::lower(const tile::BulkStoreOp& b) {
  emit_bulk(b, [&] {
    CpAsyncBulkStore c;
    c.dst = view_address(b.dst.value, b.pred);
    c.src = view_address(b.src.value, b.pred);
    c.size = Immediate{bulk_bytes(b.src.value)};
    return c;
  });
}

void Lowerer::lower(const tile::BulkReduceOp& b) {
  emit_bulk(b, [&] {
    CpReduceAsyncBulk c;
    c.op = tile::ptx_reduce_op(b.reduce);
    // The contract refused a pair with no form (contract_reduce_type) before lowering.
    const auto type = tile::reduce_ptx_type(b.reduce, b.dst.value.dtype);
    if (!type)
      unreachable("lower(BulkReduceOp): the contract proves the reduction has a PTX form");
    c.type = *type;
    c.dst = view_address(b.dst.value);
    c.src = view_address(b.src.value);
    c.size = Immediate{bulk_bytes(b.src.value)};
    return c;
  });
}

void Lowerer::lower(const tile::ExpectTxOp& e) {
  const RepeatGuard g = op_guard(e.pred);
  if (g.skip)
    return;
  const Address a = barrier_address(e.barrier);
  const Operand bytes = value(bind(e.bytes.value));
  if (e.arrive)
    emit(MbarrierArriveExpectTx{std::nullopt, SharedSpace::shared_cta, std::nullopt, a, bytes},
         g.guard);
  else
    emit(MbarrierExpectTx{std::nullopt, SharedSpace::shared_cta, a, bytes}, g.guard);
}

void Lowerer::lower(const tile::TensorLoadOp& t) {
  auto operands = [&] {
    CpAsyncBulkTensorLoad c;
    c.rank = tensor_rank(t.coords.size());
    c.dst = view_address(t.dst.value, t.pred);
    c.tensor =
        TensorOperand{op_map_address(t.tensor.value, t.map, t.pred), tensor_coords(t.coords)};
    c.mbar = barrier_address(t.barrier);
    c.cta_mask = cta_mask(t.multicast);
    c.im2col_offsets = im2col_offsets(t.offsets);
    return c;
  };
  const RepeatGuard g = op_guard(t.pred);
  if (g.skip)
    return;
  if (!g.guard || loops_.empty() || t.cache_policy) {
    emit_bulk(t, operands);
    return;
  }
  // In a loop, a guarded tensor load is a branch over the load and the computation of its
  // operands, not a predicated instruction: ptxas 13.0 computes a predicated sm_90 tensor
  // load's operands per thread and moves them to uniform registers at each iteration (a
  // persistent TMA ring's SASS loop body: 56 instructions predicated, 47 branched;
  // docs/benchmarks.md). The values computed in the branch exist only where it was taken:
  // they are forgotten after it, except those hoisted out of it (rejoin()).
  Guard skip = *g.guard;
  skip.negated = !skip.negated;
  const std::string label = "$L_tl_" + std::to_string(branches_emitted_++);
  emit(Bra{label, false}, skip);
  Caches before = cache_;
  emit(operands());
  emit(Label{label});
  rejoin(std::move(before));
}

void Lowerer::lower(const tile::TensorStoreOp& t) {
  emit_bulk(t, [&] {
    CpAsyncBulkTensorStore c;
    c.rank = tensor_rank(t.coords.size());
    c.tensor =
        TensorOperand{op_map_address(t.tensor.value, t.map, t.pred), tensor_coords(t.coords)};
    c.src = view_address(t.src.value, t.pred);
    return c;
  });
}

void Lowerer::lower(const tile::TensorReduceOp& t) {
  emit_bulk(t, [&] {
    CpReduceAsyncBulkTensor c;
    c.rank = tensor_rank(t.coords.size());
    c.op = tile::ptx_reduce_op(t.reduce);
    c.tensor = TensorOperand{tensor_map_address(t.tensor.value), tensor_coords(t.coords)};
    c.src = view_address(t.src.value, t.pred);
    return c;
  });
}

void Lowerer::lower(const tile::PrefetchTensormapOp& p) {
  const RepeatGuard g = op_guard(p.pred);
  if (g.skip)
    return;
  // The generic address the copies use (cached): ptxas takes `.param` too, but the copies need
  // the generic one anyway.
  emit(PrefetchTensormap{TensormapSpace::generic, Address{tensor_map_address(p.tensor.value), 0}},
       g.guard);
}

} // namespace ptxgen::lower::impl
