// Selection of loops: counted loops, full unrolling, unrolled passes with a
// remainder or a tail loop.

#include "emitter/lower/lowerer.hpp"

namespace ptxgen::lower::impl {

void Lowerer::lower_ops(std::size_t begin, std::size_t end) {
  for (std::size_t i = begin; i < end; ++i) {
    if (const auto* f = std::get_if<tile::ForOp>(&k_.ops[i].body)) {
      lower_loop(*f, i);
      i = f->end;
      continue;
    }
    std::visit([&](const auto& body) { lower(body); }, k_.ops[i].body);
  }
}

ExprPtr Lowerer::bind(const ExprPtr& e) const {
  return tile::substitute(e, [&](const Expr& x) -> ExprPtr {
    if (auto n = launch_size(x)) // ntid, nbid and their axes: the launch is fixed
      return tile::make_constant(*n);
    if (x.kind != ExprKind::loop)
      return nullptr;
    if (auto it = bound_.find(x.name); it != bound_.end())
      return tile::make_constant(it->second);
    if (auto it = offset_.find(x.name); it != offset_.end() && it->second != 0)
      return tile::make_binary(ExprOp::add, tile::make_leaf(ExprKind::loop, x.name),
                               tile::make_constant(it->second));
    return nullptr;
  });
}

std::size_t Lowerer::frame_index(std::string_view var) const {
  for (std::size_t i = loops_.size(); i-- > 0;)
    if (loops_[i].var == var)
      return i;
  unreachable("a loop variable outside its loop");
}

unsigned Lowerer::level_of(const Expr& e) const {
  if (e.kind == ExprKind::loop)
    return static_cast<unsigned>(frame_index(e.name)) + 1;
  unsigned l = 0;
  for (const auto& a : e.args)
    l = std::max(l, level_of(*a));
  return l;
}

void Lowerer::lower_loop(const tile::ForOp& f, std::size_t index) {
  const ExprPtr start = bind(f.start.value);
  const ExprPtr stop = bind(f.stop.value);
  const ExprPtr step = bind(f.step.value);
  std::optional<std::int64_t> trip;
  auto c0 = tile::constant_value(*start), c1 = tile::constant_value(*stop),
       c2 = tile::constant_value(*step);
  if (c0 && c1 && c2 && *c2 > 0)
    trip = *c1 <= *c0 ? 0 : (*c1 - *c0 + *c2 - 1) / *c2;
  std::optional<std::int64_t> step_max;
  if (auto b = tile::bounds(*step, lb_))
    step_max = b->hi;
  const UnrollPlan plan = plan_unroll(trip, f.unroll, step_max);
  if (plan.full) {
    for (std::int64_t u = 0; u < plan.copies; ++u) {
      bound_[f.var.value] = *c0 + u * *c2;
      lower_ops(index + 1, f.end);
    }
    bound_.erase(f.var.value);
    return;
  }
  const Operand stop_op = value(stop);
  const std::size_t fi = open_loop(f, start, step, plan);
  const std::string id = "$L_" + f.var.value + "_" + std::to_string(loops_emitted_++);
  const std::int64_t n = plan.factor;
  if (n == 1) {
    counted_loop(index, fi, {start}, stop, stop_op, id, id + "_done");
  } else {
    // The unrolled loop runs while n more iterations remain: v < limit with
    // limit = max(stop, (n-1)*step) - (n-1)*step (no wrap below 0).
    const ExprPtr d = tile::make_binary(ExprOp::mul, step, tile::make_constant(n - 1));
    const ExprPtr limit =
        tile::make_binary(ExprOp::sub, tile::make_binary(ExprOp::max, stop, d), d);
    const Operand limit_op = value(limit);
    counted_loop(index, fi, {start, plan.runs}, limit, limit_op, id, id + "_rem", n);
    for (std::int64_t u = 0; u < plan.remainder; ++u)
      body_copy(index, fi);
    if (plan.tail)
      counted_loop(index, fi, {}, stop, stop_op, id + "_tail", id + "_done");
  }
  close_loop();
}

std::size_t Lowerer::open_loop(const tile::ForOp& f, const ExprPtr& start, const ExprPtr& step,
                               const UnrollPlan& plan) {
  LoopFrame frame;
  frame.var = f.var.value;
  frame.start = start;
  frame.step = step;
  frame.start_op = value(start);
  frame.step_op = value(step);
  frame.counter = reg(RegClass::b32);
  frame.saved = cache_;
  auto node = std::make_unique<Loop>();
  node->var = frame.var;
  node->counter = frame.counter;
  node->start = frame.start_op;
  node->step = frame.step_op;
  node->plan = plan;
  frame.node = node.get();
  (loops_.empty() ? form_.items : loops_.back().node->body).emplace_back(std::move(node));
  // The variable's range, as the contract computes it.
  constexpr std::int64_t kLimit = (std::int64_t{1} << 31) - 1;
  auto lo = tile::bounds(*start, lb_);
  auto hi = tile::bounds(*bind(f.stop.value), lb_);
  lb_.loops[f.var.value] =
      lo && hi ? tile::Interval{lo->lo, std::max(lo->lo, hi->hi - 1)} : tile::Interval{0, kLimit};
  loops_.push_back(std::move(frame));
  at_ = static_cast<unsigned>(loops_.size());
  emit(Mov{ScalarType::u32, loops_.back().counter, loops_.back().start_op});
  return loops_.size() - 1;
}

void Lowerer::close_loop() {
  cache_ = std::move(loops_.back().saved);
  lb_.loops.erase(loops_.back().var);
  loops_.pop_back();
  at_ = static_cast<unsigned>(loops_.size());
}

void Lowerer::counted_loop(std::size_t index, std::size_t fi, const LoopEntry& entry,
                           const ExprPtr& limit, const Operand& limit_op, const std::string& head,
                           const std::string& exit, std::int64_t copies) {
  bool may_skip = !entry.runs;
  if (may_skip && entry.value) {
    auto a = tile::bounds(*entry.value, lb_);
    auto b = tile::bounds(*limit, lb_);
    may_skip = !a || !b || a->hi >= b->lo;
  }
  const Register counter = loops_[fi].counter;
  if (may_skip) {
    Register skip = reg(RegClass::pred);
    emit(Setp{CompareOp::ge, ScalarType::u32, skip, counter, limit_op});
    emit(Bra{exit, true}, Guard{skip, false});
  }
  emit(Label{head});
  const auto* step = std::get_if<Immediate>(&loops_[fi].step_op);
  if (copies > 1 && step) {
    // One pass: copy u with v + u*step, then one advance by copies*step.
    const auto& f = std::get<tile::ForOp>(k_.ops[index].body);
    for (std::int64_t u = 0; u < copies; ++u) {
      offset_[loops_[fi].var] = u * step->value;
      lower_ops(index + 1, f.end);
    }
    offset_.erase(loops_[fi].var);
    loops_[fi].sealed = true;
    advance(fi, copies);
    cache_ = loops_[fi].saved;
  } else {
    for (std::int64_t u = 0; u < copies; ++u)
      body_copy(index, fi);
  }
  Register again = reg(RegClass::pred);
  emit(Setp{CompareOp::lt, ScalarType::u32, again, counter, limit_op});
  emit(Bra{head, true}, Guard{again, false});
  if (may_skip)
    emit(Label{exit});
}

void Lowerer::body_copy(std::size_t index, std::size_t fi) {
  const auto& f = std::get<tile::ForOp>(k_.ops[index].body);
  lower_ops(index + 1, f.end);
  loops_[fi].sealed = true;
  advance(fi);
  cache_ = loops_[fi].saved;
}

} // namespace ptxgen::lower::impl
