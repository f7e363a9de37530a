#include "emitter/api/kernel_builder.hpp"

#include "emitter/api/builder_operands.hpp"
#include "emitter/ptx/opcode_parser.hpp"
#include "emitter/tile/contract.hpp"

#include <algorithm>

namespace ptxgen::api {

using operands::at_of;
using operands::load_dst;
using operands::located;
using operands::text_of;

KernelBuilder::KernelBuilder(std::string name, Pos at)
    : b_(std::make_unique<build::Builder>(at.file())) {
  b_->built_in_code();
  b_->kernel_name(name, at_of(at));
}

KernelBuilder::KernelBuilder(KernelBuilder&&) noexcept = default;
KernelBuilder& KernelBuilder::operator=(KernelBuilder&&) noexcept = default;
KernelBuilder::~KernelBuilder() = default;

// ---------------------------------------------------------------- declarations

KernelBuilder& KernelBuilder::launch(Dim3 grid, Dim3 block, Pos at) {
  auto g = b_->dims(build::LaunchPart::grid, {grid.x, grid.y, grid.z}, false, at_of(at));
  auto b = b_->dims(build::LaunchPart::block, {block.x, block.y, block.z}, false, at_of(at));
  if (g && b)
    b_->launch(*g, *b);
  return *this;
}

KernelBuilder& KernelBuilder::dynamic_shared(std::int64_t bytes, Pos at) {
  b_->dynamic_shared(bytes, at_of(at));
  return *this;
}

KernelBuilder& KernelBuilder::ctas_per_sm(std::int64_t n, Pos at) {
  b_->ctas_per_sm(n, at_of(at));
  return *this;
}

KernelBuilder& KernelBuilder::cluster(Dim3 dims, bool non_portable, Pos at) {
  b_->cluster({dims.x, dims.y, dims.z}, non_portable, at_of(at));
  return *this;
}

Tensor KernelBuilder::global(std::string name, std::vector<std::int64_t> shape, DType dtype,
                             GlobalOptions options, Pos at) {
  return declare(tile::Space::global, std::move(name), std::move(shape), dtype, options, at);
}

Tensor KernelBuilder::shared(std::string name, std::vector<std::int64_t> shape, DType dtype,
                             std::uint32_t align, Pos at) {
  return shared(std::move(name), std::move(shape), dtype, SharedOptions{.align = align}, at);
}

Tensor KernelBuilder::shared(std::string name, std::vector<std::int64_t> shape, DType dtype,
                             const SharedOptions& options, Pos at) {
  GlobalOptions o;
  o.align = options.align;
  return declare(tile::Space::shared, std::move(name), std::move(shape), dtype, o, at,
                 options.swizzle);
}

namespace {

/// A TensorMap as the builder's declaration of `[tensor.NAME.map]`, every part at `at`.
build::TensorMapDecl map_decl(const TensorMap& m, const Pos& at) {
  const build::At a = at_of(at);
  const auto dims = [&a](const std::vector<std::int64_t>& v) {
    std::vector<build::Dim> out;
    for (std::int64_t n : v)
      out.push_back(build::Dim{n, a});
    return out;
  };
  build::TensorMapDecl d{a, std::nullopt, a, std::nullopt,   a, m.swizzle,
                         a, m.oob_fill,   a, m.l2_promotion, a, true};
  if (!m.box.empty()) // else the builder's "no box" error
    d.box = dims(m.box);
  if (!m.element_strides.empty())
    d.element_strides = dims(m.element_strides);
  if (m.mode == tile::TensorMapMode::im2col) {
    d.mode = m.mode;
    d.mode_at = a;
    d.lower_corner = dims(m.lower_corner);
    d.lower_corner_at = a;
    d.upper_corner = dims(m.upper_corner);
    d.upper_corner_at = a;
    d.channels = m.channels;
    d.channels_at = a;
    d.pixels = m.pixels;
    d.pixels_at = a;
  }
  return d;
}

} // namespace

Tensor KernelBuilder::declare(tile::Space space, std::string name, std::vector<std::int64_t> shape,
                              DType dtype, const GlobalOptions& options, const Pos& at,
                              TensorMapSwizzle swizzle) {
  build::TensorDecl d;
  d.name = std::move(name);
  d.name_at = at_of(at);
  d.pos = at.source_pos();
  d.space = space;
  d.dtype = dtype;
  d.shape.emplace();
  for (std::int64_t n : shape)
    d.shape->push_back(build::Dim{n, at_of(at)});
  d.shape_at = at_of(at);
  d.align = options.align;
  d.align_at = at_of(at);
  if (space == tile::Space::global) {
    d.init = options.init;
    d.output = options.output;
    if (options.map)
      d.map = map_decl(*options.map, at);
  } else if (swizzle != TensorMapSwizzle::none) {
    d.swizzle = swizzle;
    d.swizzle_at = at_of(at);
  }
  // A tensor in error is still returned (its views are refused quietly) and the
  // builder's diagnostics keep the kernel from being emitted.
  return Tensor(*b_->tensor(d));
}

Expr KernelBuilder::param_u32(std::string name, std::uint64_t value,
                              std::optional<tile::Interval> range, Pos at) {
  build::ParamDecl d;
  d.name = name;
  d.name_at = at_of(at);
  d.pos = at.source_pos();
  d.is_u64 = false;
  d.value = build::ParamValue{build::ParamValue::Form::unsigned_integer, 0, value, {}};
  d.value_at = at_of(at);
  if (range)
    d.range = build::ParamRange{true, range->lo, range->hi, at_of(at)};
  b_->param(d);
  return Expr(tile::make_leaf(tile::ExprKind::param, std::move(name)));
}

void KernelBuilder::param_u64(std::string name, std::uint64_t value, Pos at) {
  build::ParamDecl d;
  d.name = std::move(name);
  d.name_at = at_of(at);
  d.pos = at.source_pos();
  d.is_u64 = true;
  d.value = build::ParamValue{build::ParamValue::Form::unsigned_integer, 0, value, {}};
  d.value_at = at_of(at);
  b_->param(d);
}

std::optional<Diagnostic> KernelBuilder::set_param_value(std::string_view name,
                                                         std::uint64_t value) {
  return b_->set_param_value(name, value);
}

View KernelBuilder::view(std::string_view text, Pos at) const {
  tile::ExprNames names;
  const build::Builder& b = *b_;
  names.is_param = [&b](std::string_view n) { return b.is_param(n); };
  names.is_loop = [&b](std::string_view n) { return b.is_open_loop(n); };
  // Slice bounds may name parameters, as an expectation's side takes them; an op refuses such
  // a view where it is used (check_view).
  auto r = tile::parse_view(
      text, [&b](std::string_view n) { return b.find_any_tensor(n); }, names,
      tile::SliceBounds::parameters);
  if (r)
    return View::parsed(std::move(*r), std::string(text));
  Diagnostic d = r.diagnostics.items().front();
  if (at.line() != 0)
    d = rebase(std::move(d), at.file(), at.line(), at.column(), at.source_pos().source_line);
  return View::failed(std::move(d), std::string(text));
}

// ---------------------------------------------------------------- operands

bool KernelBuilder::check_expect_view(const View& v, const Pos& at) {
  if (!v.ok()) {
    b_->report(*v.error());
    return false;
  }
  return b_->check_view(v.tile(), text_of(v.text(), at));
}

bool KernelBuilder::check_view(const View& v, const Pos& at) {
  if (!check_expect_view(v, at))
    return false;
  if (!has_parameter_bounds(v.tile()))
    return true;
  Diagnostic d(DiagId::view_slice_not_constant,
               "slice bounds of an op's view must be constants (" + v.text() +
                   "): an op's shape is fixed; only an expectation's side may slice up to a "
                   "parameter");
  b_->report(rebase(std::move(d), at.file(), at.line(), at.column(), at.source_pos().source_line));
  return false;
}

bool KernelBuilder::check_expr(const Expr& e, const Pos& at, const tile::ApplyOp* apply) {
  return b_->check_expr(e.ptr(), text_of(e.str(), at), apply);
}

void KernelBuilder::push(tile::OpBody body, const Pos& at) {
  tile::Op op{std::move(body), at.source_pos()};
  if (capture_)
    capture_->push_back(std::move(op));
  else
    b_->push(std::move(op));
}

// ---------------------------------------------------------------- ops

std::optional<tile::ApplyOp> KernelBuilder::apply_operands(const View& dst, const View& src,
                                                           std::int64_t chunk_bytes,
                                                           const ApplyOptions& options,
                                                           const Pos& at) {
  bool ok = check_view(dst, at);
  ok = check_view(src, at) && ok;
  if (!ok)
    return std::nullopt;
  tile::ApplyOp a;
  a.dst = located(dst, at);
  a.src = located(src, at);
  a.chunk_bytes = {chunk_bytes, std::to_string(chunk_bytes), at.source_pos()};
  a.scope = options.scope;
  const std::pair<const std::optional<Expr>*, std::optional<tile::Located<tile::ExprPtr>>*>
      exprs[] = {{&options.src_size, &a.src_size},
                 {&options.ignore_src, &a.ignore_src},
                 {&options.pred, &a.pred}};
  for (const auto& [in, out] : exprs) {
    if (!*in)
      continue;
    ok = check_expr(**in, at, &a) && ok;
    *out = located(**in, at);
  }
  ok = cache_policy_operand(options.cache_policy, at, a.cache_policy) && ok;
  const build::At call = at_of(at);
  ok =
      b_->operand_forms(options.src_size ? &call : nullptr, options.ignore_src ? &call : nullptr) &&
      ok;
  if (!ok)
    return std::nullopt;
  return a;
}

void KernelBuilder::apply(const CpAsyncOpcode& opcode, const View& dst, const View& src,
                          std::int64_t chunk_bytes, const ApplyOptions& options, Pos at) {
  note_load("apply");
  auto a = apply_operands(dst, src, chunk_bytes, options, at);
  if (!a)
    return;
  a->opcode = {opcode, ptx::print(opcode), at.source_pos()};
  push(std::move(*a), at);
}

void KernelBuilder::apply(std::string_view opcode, const View& dst, const View& src,
                          std::int64_t chunk_bytes, const ApplyOptions& options, Pos at) {
  note_load("apply");
  auto parsed = ptx::parse_opcode(opcode);
  if (!parsed) {
    for (Diagnostic d : parsed.diagnostics.items())
      b_->report(at.line() != 0 ? rebase(std::move(d), at.file(), at.line(), at.column(),
                                         at.source_pos().source_line)
                                : std::move(d));
    return;
  }
  auto a = apply_operands(dst, src, chunk_bytes, options, at);
  if (!a)
    return;
  a->opcode = {*parsed, std::string(opcode), at.source_pos()};
  push(std::move(*a), at);
}

void KernelBuilder::commit_group(Pos at) {
  push(tile::CommitGroupOp{}, at);
}
void KernelBuilder::wait_group(std::int64_t n, Pos at) {
  if (b_->wait_group(n, at_of(at)))
    push(tile::WaitGroupOp{n}, at);
}
void KernelBuilder::wait_all(Pos at) {
  push(tile::WaitAllOp{}, at);
}
void KernelBuilder::cta_sync(Pos at) {
  push(tile::CtaSyncOp{}, at);
}

void KernelBuilder::fill(const View& dst, std::vector<std::uint8_t> pattern, Pos at) {
  bool ok = check_view(dst, at);
  ok = b_->pattern_size(pattern.size(), text_of({}, at)) && ok;
  if (ok)
    push(tile::FillOp{located(dst, at), std::move(pattern)}, at);
}

void KernelBuilder::copy(const View& dst, const View& src, Pos at) {
  copy(dst, src, std::nullopt, at);
}

void KernelBuilder::copy(const View& dst, const View& src, std::optional<Expr> pred, Pos at) {
  bool ok = check_view(dst, at);
  ok = check_view(src, at) && ok;
  if (pred)
    ok = check_expr(*pred, at) && ok;
  if (!ok)
    return;
  tile::CopyOp c{located(dst, at), located(src, at), std::nullopt};
  if (pred)
    c.pred = located(*pred, at);
  push(std::move(c), at);
}

void KernelBuilder::named_barrier(std::int64_t id, std::int64_t count, bool arrive,
                                  std::optional<Expr> pred, Pos at) {
  if (pred && !check_expr(*pred, at))
    return;
  tile::NamedBarrierOp b{{id, std::to_string(id), at.source_pos()},
                         {count, std::to_string(count), at.source_pos()},
                         arrive,
                         std::nullopt};
  if (pred)
    b.pred = located(*pred, at);
  push(std::move(b), at);
}

void KernelBuilder::setmaxnreg(tile::RegAction action, std::int64_t regs, std::optional<Expr> pred,
                               Pos at) {
  if (pred && !check_expr(*pred, at))
    return;
  tile::SetmaxnregOp s{action, {regs, std::to_string(regs), at.source_pos()}, std::nullopt};
  if (pred)
    s.pred = located(*pred, at);
  push(std::move(s), at);
}

bool KernelBuilder::check_bound(std::string_view key, const Expr& bound, const Pos& at) {
  return check_expr(bound, at) && b_->loop_bound(key, bound.node(), text_of(bound.str(), at));
}

Expr KernelBuilder::begin_for(std::string var, const Expr& start, const Expr& stop,
                              const Expr& step, std::int64_t unroll, Pos at) {
  Expr leaf(tile::make_leaf(tile::ExprKind::loop, var));
  bool ok = b_->loop_var(text_of(var, at));
  ok = check_bound("start", start, at) && ok;
  ok = check_bound("stop", stop, at) && ok;
  ok = check_bound("step", step, at) && ok;
  ok = b_->unroll(unroll, at_of(at)).has_value() && ok;
  std::optional<tile::ForOp> f;
  if (ok) {
    f.emplace();
    f->var = {var, var, at.source_pos()};
    f->start = located(start, at);
    f->stop = located(stop, at);
    f->step = located(step, at);
    f->unroll = unroll;
  }
  b_->begin_for(var, std::move(f), at.source_pos());
  return leaf;
}

void KernelBuilder::end_for(Pos at) {
  b_->end_for(at_of(at));
}

// ---------------------------------------------------------------- pipelines

/// Runs `make` and moves the ops it made into `out`: applies whose dst depends on the
/// tile or the stage (loads), or copies and fills (the consumer).
bool KernelBuilder::capture(const std::function<void(const PipelineVars&)>& make,
                            const PipelineVars& vars, const tile::Pipeline& p, bool loads,
                            std::vector<tile::Op>& out, std::string_view* first_load) {
  std::vector<tile::Op> made;
  const std::size_t errors_before = b_->diagnostics().items().size();
  capture_ = &made;
  capturing_loads_ = loads;
  first_load_ = {};
  if (make)
    make(vars);
  capture_ = nullptr;
  capturing_loads_ = false;
  bool ok = b_->diagnostics().items().size() == errors_before;
  const std::string_view first =
      first_load_.empty() && !made.empty() ? tile::op_kind(made.front().body) : first_load_;
  if (first_load)
    *first_load = first;
  for (tile::Op& op : made) {
    const build::At at{op.pos, 1};
    const std::string_view name = tile::op_kind(op.body);
    const bool fits = loads ? b_->pipeline_load_kind(name, first, at) &&
                                  b_->pipeline_load_stage(p, load_dst(op.body), at)
                            : b_->pipeline_body_kind(name, at);
    if (fits)
      out.push_back(std::move(op));
    ok = fits && ok;
  }
  return ok;
}

void KernelBuilder::pipeline(const PipelineOptions& o,
                             const std::function<void(const PipelineVars&)>& loads,
                             const std::function<void(const PipelineVars&)>& body, Pos at) {
  bool ok = b_->loop_var(text_of(o.var, at));
  ok = b_->stage_var(text_of(o.stage_var, at), o.var, true, at_of(at)) && ok;
  ok = check_bound("start", o.start, at) && ok;
  ok = check_bound("stop", o.stop, at) && ok;
  ok = b_->stages(o.stages, at_of(at)).has_value() && ok;
  ok = b_->unroll(o.unroll, at_of(at)).has_value() && ok;
  tile::Pipeline p;
  p.var = {o.var, o.var, at.source_pos()};
  p.start = located(o.start, at);
  p.stop = located(o.stop, at);
  p.stages = o.stages;
  p.unroll = o.unroll;
  p.stage_var = o.stage_var;
  p.pos = at.source_pos();
  // Before the pipeline's variables open: the tiles before it cannot name them.
  if (o.ring_offset)
    ok = check_bound("ring_offset", *o.ring_offset, at) && ok;
  // The loads and the consumer see the tile and the stage as loop variables.
  const std::size_t open = b_->open_pipeline_vars(o.var, o.stage_var, at.source_pos());
  const PipelineVars vars{Expr(tile::make_leaf(tile::ExprKind::loop, o.var)),
                          Expr(tile::make_leaf(tile::ExprKind::loop, o.stage_var))};
  auto full = ring_barrier(o.full, vars, at);
  auto empty = ring_barrier(o.empty, vars, at);
  ring_full_ = full ? &*full : nullptr;
  std::string_view first_load;
  ok = capture(loads, vars, p, true, p.loads, &first_load) && ok;
  ring_full_ = nullptr;
  ok = capture(body, vars, p, false, p.body) && ok;
  ok = pipeline_ring(o, p, first_load, std::move(full), std::move(empty), at) && ok;
  ok = ok && pipeline_roles(o, p, at);
  b_->close_pipeline_vars(open);
  if (ok)
    b_->pipeline(std::move(p), at_of(at));
}

// ---------------------------------------------------------------- mbarriers

void KernelBuilder::mbarrier_init(const View& barrier, std::int64_t count, Pos at) {
  if (check_view(barrier, at) && b_->barrier(barrier.tile(), at_of(at)))
    push(
        tile::MbarrierInitOp{located(barrier, at), {count, std::to_string(count), at.source_pos()}},
        at);
}

void KernelBuilder::copy_arrive(const View& barrier, bool noinc, Pos at) {
  if (check_view(barrier, at) && b_->barrier(barrier.tile(), at_of(at)))
    push(tile::CopyArriveOp{located(barrier, at), noinc}, at);
}

void KernelBuilder::mbarrier_arrive(const View& barrier, std::optional<Expr> pred, Pos at) {
  bool ok = check_view(barrier, at);
  if (pred)
    ok = check_expr(*pred, at) && ok;
  if (!ok || !b_->barrier(barrier.tile(), at_of(at)))
    return;
  tile::MbarrierArriveOp m{located(barrier, at), std::nullopt};
  if (pred)
    m.pred = located(*pred, at);
  push(std::move(m), at);
}

void KernelBuilder::mbarrier_wait(const View& barrier, const Expr& parity, Pos at) {
  mbarrier_wait(barrier, parity, std::nullopt, std::move(at));
}

void KernelBuilder::mbarrier_wait(const View& barrier, const Expr& parity, std::optional<Expr> pred,
                                  Pos at) {
  bool ok = check_view(barrier, at);
  ok = check_expr(parity, at) && ok;
  if (pred)
    ok = check_expr(*pred, at) && ok;
  if (!ok || !b_->barrier(barrier.tile(), at_of(at)))
    return;
  tile::MbarrierWaitOp w{located(barrier, at), located(parity, at), std::nullopt};
  if (pred)
    w.pred = located(*pred, at);
  push(std::move(w), at);
}

// ---------------------------------------------------------------- expectations

void KernelBuilder::expect_equal(const View& lhs, const View& rhs, Pos at) {
  bool ok = check_expect_view(lhs, at);
  ok = check_expect_view(rhs, at) && ok;
  if (!ok)
    return;
  const build::Text l = text_of(lhs.text(), at);
  const build::Text r = text_of(rhs.text(), at);
  if (!b_->expect_side(lhs.tile(), l) || !b_->expect_side(rhs.tile(), r) ||
      !b_->expect_same_shape(lhs.tile(), rhs.tile(), l, r))
    return;
  const std::string that = lhs.text() + " == " + rhs.text();
  b_->expectation(
      tile::Expectation{located(lhs, at), located(rhs, at), {that, that, at.source_pos()}});
}

void KernelBuilder::expect_value(const View& lhs, std::int64_t value, Pos at) {
  if (!check_expect_view(lhs, at) || !b_->expect_side(lhs.tile(), text_of(lhs.text(), at)) ||
      !b_->expect_value(lhs.tile(), value, text_of(std::to_string(value), at), lhs.text()))
    return;
  const std::string that = lhs.text() + " == " + std::to_string(value);
  b_->expectation(tile::Expectation{located(lhs, at), value, {that, that, at.source_pos()}});
}

void KernelBuilder::expect_sentinel(const View& lhs, Pos at) {
  if (!check_expect_view(lhs, at) || !b_->expect_side(lhs.tile(), text_of(lhs.text(), at)))
    return;
  const std::string that = lhs.text() + " == sentinel";
  b_->expectation(
      tile::Expectation{located(lhs, at), tile::ExpectSentinel{}, {that, that, at.source_pos()}});
}

// ---------------------------------------------------------------- results

Diagnostics KernelBuilder::diagnostics() const {
  Diagnostics out = b_->diagnostics();
  out.append(b_->open_loop_diagnostics());
  out.append(b_->cluster_diagnostics());
  return out;
}

Result<std::unique_ptr<tile::Kernel>> KernelBuilder::finish() && {
  return std::move(*b_).finish();
}

} // namespace ptxgen::api
