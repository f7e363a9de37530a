#include "emitter/api/kernel.hpp"

#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/opcode_parser.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/limits.hpp"

#include <algorithm>
#include <cctype>

namespace ptxgen::api {

namespace {

bool is_identifier(std::string_view s) {
  auto start = [](char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; };
  auto rest = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return !s.empty() && start(s[0]) && std::all_of(s.begin() + 1, s.end(), rest);
}

/// True when the expression grammar reads `name` as a name of the kernel's (a
/// parameter) rather than as a word of its own (tid, min, T.uint32, ...): the
/// grammar is the one list of reserved words.
bool grammar_leaves_free(const std::string& name) {
  auto r = tile::parse_expr(name, [](std::string_view) { return true; });
  return r && (*r)->kind == tile::ExprKind::param && (*r)->name == name;
}

std::string squote(std::string_view s) {
  return "'" + std::string(s) + "'";
}

} // namespace

KernelBuilder::KernelBuilder(std::string name, Pos at) : kernel_(std::make_unique<tile::Kernel>()) {
  kernel_->file = at.file();
  if (is_identifier(name))
    kernel_->name = std::move(name);
  else
    error(DiagId::spec_bad_name, at,
          "kernel name " + squote(name) +
              " is not an identifier (letters, digits and '_', not starting with a digit)");
}

KernelBuilder::KernelBuilder(KernelBuilder&&) noexcept = default;
KernelBuilder& KernelBuilder::operator=(KernelBuilder&&) noexcept = default;
KernelBuilder::~KernelBuilder() = default;

void KernelBuilder::error(DiagId id, const Pos& at, std::string message) {
  diags_.add(tile::diagnostic_at(id, at.source_pos(), std::move(message)));
}

bool KernelBuilder::is_param(std::string_view name) const {
  return kernel_->find_param(name) != nullptr;
}

bool KernelBuilder::is_open_loop(std::string_view name) const {
  return std::any_of(loops_.begin(), loops_.end(),
                     [&](const OpenLoop& l) { return l.var == name; });
}

bool KernelBuilder::check_name(const std::string& name, std::string_view what, const Pos& at) {
  if (!is_identifier(name)) {
    error(DiagId::spec_bad_name, at,
          std::string(what) + " name " + squote(name) +
              " is not an identifier (letters, digits and '_', not starting with a digit)");
    return false;
  }
  if (!grammar_leaves_free(name)) {
    error(DiagId::spec_reserved_name, at,
          std::string(what) + " name " + squote(name) +
              " is a word of the index expressions (tid, warp, lane, bid, min, ...)");
    return false;
  }
  if (is_param(name) || kernel_->find_tensor(name)) {
    error(DiagId::spec_name_clash, at,
          std::string(what) + " " + squote(name) + " has the name of a tensor or parameter");
    return false;
  }
  return true;
}

// ---------------------------------------------------------------- declarations

KernelBuilder& KernelBuilder::launch(Dim3 grid, Dim3 block, Pos at) {
  const std::int64_t g[] = {grid.x, grid.y, grid.z};
  const std::int64_t b[] = {block.x, block.y, block.z};
  bool ok = true;
  for (std::size_t i = 0; i < 3; ++i) {
    if (g[i] < 1 || g[i] > ptx::max_grid_dims[i]) {
      error(DiagId::spec_grid_range, at,
            "grid axis " + std::to_string(i) + " must be in 1.." +
                std::to_string(ptx::max_grid_dims[i]) + "; got " + std::to_string(g[i]));
      ok = false;
    }
    if (b[i] < 1 || b[i] > ptx::max_block_dims[i]) {
      error(DiagId::spec_block_range, at,
            "block axis " + std::to_string(i) + " must be in 1.." +
                std::to_string(ptx::max_block_dims[i]) + "; got " + std::to_string(b[i]));
      ok = false;
    }
  }
  if (ok && block.count() > ptx::max_block_threads) {
    error(DiagId::spec_block_range, at,
          "block has " + std::to_string(block.count()) + " threads in all; at most " +
              std::to_string(ptx::max_block_threads));
    ok = false;
  }
  if (ok)
    kernel_->set_launch(grid, block);
  return *this;
}

KernelBuilder& KernelBuilder::dynamic_shared(std::int64_t bytes, Pos at) {
  const std::int64_t max = ptx::max_dynamic_shared_bytes_any_target();
  if (bytes < 0 || bytes > max)
    error(DiagId::spec_dynamic_shared_range, at,
          "dynamic_shared must be in 0.." + std::to_string(max) + " bytes; got " +
              std::to_string(bytes));
  else
    kernel_->dynamic_shared = bytes;
  return *this;
}

Tensor KernelBuilder::global(std::string name, std::vector<std::int64_t> shape, DType dtype,
                             GlobalOptions options, Pos at) {
  return declare(tile::Space::global, std::move(name), std::move(shape), dtype, options, at);
}

Tensor KernelBuilder::shared(std::string name, std::vector<std::int64_t> shape, DType dtype,
                             std::uint32_t align, Pos at) {
  GlobalOptions o;
  o.align = align;
  return declare(tile::Space::shared, std::move(name), std::move(shape), dtype, o, at);
}

Tensor KernelBuilder::declare(tile::Space space, std::string name, std::vector<std::int64_t> shape,
                              DType dtype, const GlobalOptions& options, const Pos& at) {
  auto decl = std::make_unique<tile::TensorDecl>();
  decl->tensor.name = std::move(name);
  decl->tensor.space = space;
  decl->tensor.shape = std::move(shape);
  decl->tensor.dtype = dtype;
  decl->tensor.align = options.align;
  decl->init = options.init;
  decl->output = options.output;
  decl->pos = at.source_pos();
  check_name(decl->tensor.name, "tensor", at);
  const bool shape_ok = !decl->tensor.shape.empty() &&
                        std::none_of(decl->tensor.shape.begin(), decl->tensor.shape.end(),
                                     [](std::int64_t d) { return d < 1; });
  if (!shape_ok)
    error(DiagId::spec_bad_shape, at,
          "tensor " + squote(decl->tensor.name) +
              ": a shape has at least one dimension, each at least 1");
  if (check_align(decl->tensor, at) && shape_ok)
    check_size(decl->tensor, at);
  // A tensor in error is still declared (its views stay usable) but the
  // builder's diagnostics keep the kernel from being emitted.
  kernel_->tensors.push_back(std::move(decl));
  return Tensor(kernel_->tensors.back()->tensor);
}

bool KernelBuilder::check_align(const tile::Tensor& t, const Pos& at) {
  const bool shared = t.space == tile::Space::shared;
  const std::int64_t lo = shared ? tile::min_shared_align : 1;
  const std::int64_t a = t.align;
  if (a >= lo && a <= tile::kMaxAlign && (a & (a - 1)) == 0)
    return true;
  error(DiagId::spec_bad_align, at,
        "align of " + std::string(shared ? "shared" : "global") + " tensor " + squote(t.name) +
            " must be a power of two in " + std::to_string(lo) + ".." +
            std::to_string(tile::kMaxAlign) + "; got " + std::to_string(a));
  return false;
}

bool KernelBuilder::check_size(const tile::Tensor& t, const Pos& at) {
  const bool shared = t.space == tile::Space::shared;
  // Shared: what a CTA can have on any target (the contract checks the target's own).
  const std::int64_t max_shared = ptx::max_dynamic_shared_bytes_any_target();
  const std::int64_t limit = shared ? max_shared : tile::kMaxGlobalBytes;
  std::int64_t bytes = tile::size_bytes(t.dtype);
  for (std::int64_t d : t.shape) {
    if (d > limit / bytes) {
      error(DiagId::spec_tensor_too_large, at,
            "tensor " + squote(t.name) + " is larger than the " + std::to_string(limit) +
                " bytes allowed for a " + (shared ? "shared" : "global") + " tensor");
      return false;
    }
    bytes *= d;
  }
  if (!shared)
    return true;
  // After the shared tensors declared so far, laid out in order as the loader lays them out.
  const std::int64_t start = (shared_bytes_ + t.align - 1) / t.align * t.align;
  if (start + bytes <= max_shared) {
    shared_bytes_ = start + bytes;
    return true;
  }
  error(DiagId::spec_shared_total_too_large, at,
        "shared tensors need " + std::to_string(start + bytes) + " bytes together with " +
            squote(t.name) + "; a CTA has at most " + std::to_string(max_shared) +
            " bytes of shared memory on any target");
  return false;
}

Expr KernelBuilder::param_u32(std::string name, std::uint64_t value,
                              std::optional<tile::Interval> range, Pos at) {
  constexpr std::uint64_t u32_max = 0xffffffffu;
  bool ok = check_name(name, "parameter", at);
  if (value > u32_max) {
    error(DiagId::spec_param_value, at,
          "value " + std::to_string(value) + " does not fit u32 (0.." + std::to_string(u32_max) +
              ")");
    ok = false;
  }
  if (range &&
      (range->lo > range->hi || range->lo < 0 || static_cast<std::uint64_t>(range->hi) > u32_max)) {
    error(DiagId::spec_param_range, at,
          "range [" + std::to_string(range->lo) + ", " + std::to_string(range->hi) +
              "] is empty or does not fit u32");
    ok = false;
  } else if (range && ok && !range->contains(static_cast<std::int64_t>(value))) {
    error(DiagId::spec_param_outside_range, at,
          "value " + std::to_string(value) + " is outside the declared range [" +
              std::to_string(range->lo) + ", " + std::to_string(range->hi) + "]");
    ok = false;
  }
  if (ok)
    kernel_->params.push_back(tile::ScalarParam{name, false, value, range, at.source_pos()});
  return Expr(tile::make_leaf(tile::ExprKind::param, std::move(name)));
}

void KernelBuilder::param_u64(std::string name, std::uint64_t value, Pos at) {
  if (check_name(name, "parameter", at))
    kernel_->params.push_back(
        tile::ScalarParam{std::move(name), true, value, std::nullopt, at.source_pos()});
}

View KernelBuilder::view(std::string_view text, Pos at) const {
  tile::ExprNames names;
  names.is_param = [this](std::string_view n) { return is_param(n); };
  if (!loops_.empty())
    names.is_loop = [this](std::string_view n) { return is_open_loop(n); };
  auto r = tile::parse_view(
      text,
      [this](std::string_view n) -> const tile::Tensor* {
        const tile::TensorDecl* d = kernel_->find_tensor(n);
        return d ? &d->tensor : nullptr;
      },
      names);
  if (r)
    return View::parsed(std::move(*r), std::string(text));
  Diagnostic d = r.diagnostics.items().front();
  if (at.line() != 0)
    d = rebase(std::move(d), at.file(), at.line(), at.column(), at.source_pos().source_line);
  return View::failed(std::move(d), std::string(text));
}

// ---------------------------------------------------------------- operands

bool KernelBuilder::check_view(const View& v, const Pos& at) {
  if (!v.ok()) {
    diags_.add(*v.error());
    return false;
  }
  const tile::Tensor* t = v.tile().tensor;
  const tile::TensorDecl* d = t ? kernel_->find_tensor(t->name) : nullptr;
  if (!d || &d->tensor != t) {
    error(DiagId::view_unknown_tensor, at,
          "view '" + v.text() + "' is of a tensor another KernelBuilder declared");
    return false;
  }
  bool ok = true;
  for (const tile::RuntimeTerm& term : v.tile().terms)
    ok = check_names(Expr(term.index), at) && ok;
  return ok;
}

/// Every parameter leaf names a parameter, every loop leaf an open loop, and
/// every axis leaf a repeat axis of `apply`'s src (none outside an apply).
bool KernelBuilder::check_names(const Expr& e, const Pos& at, const tile::ApplyOp* apply) {
  const tile::Expr& x = e.node();
  bool ok = true;
  switch (x.kind) {
  case tile::ExprKind::param:
    if (!is_param(x.name)) {
      error(DiagId::expr_unknown_name, at, "unknown name " + squote(x.name) + ": no parameter");
      ok = false;
    } else if (apply && tile::repeat_axis_names(*apply).count(x.name)) {
      error(DiagId::spec_axis_shadows_param, at,
            squote(x.name) + " is both a kernel parameter and a repeat axis of the src view");
      ok = false;
    }
    break;
  case tile::ExprKind::loop:
    if (!is_open_loop(x.name)) {
      error(DiagId::expr_unknown_name, at,
            "unknown name " + squote(x.name) + ": no loop of that variable is open here");
      ok = false;
    }
    break;
  case tile::ExprKind::axis:
    if (!apply || tile::repeat_axis_names(*apply).count(x.name) == 0) {
      error(DiagId::expr_unknown_name, at,
            "unknown name " + squote(x.name) + ": not a repeat axis of this apply's src view");
      ok = false;
    }
    break;
  case tile::ExprKind::constant:
  case tile::ExprKind::tid:
  case tile::ExprKind::warp:
  case tile::ExprKind::lane:
  case tile::ExprKind::bid:
  case tile::ExprKind::special:
  case tile::ExprKind::unary:
  case tile::ExprKind::binary:
  case tile::ExprKind::select:
    break;
  }
  for (const tile::ExprPtr& a : x.args)
    ok = check_names(Expr(a), at, apply) && ok;
  return ok;
}

tile::Located<tile::View> KernelBuilder::located(const View& v, const Pos& at) const {
  return tile::Located<tile::View>{v.tile(), v.text(), at.source_pos()};
}

tile::Located<tile::ExprPtr> KernelBuilder::located(const Expr& e, const Pos& at) const {
  return tile::Located<tile::ExprPtr>{e.ptr(), e.str(), at.source_pos()};
}

void KernelBuilder::push(tile::OpBody body, const Pos& at) {
  kernel_->ops.push_back(tile::Op{std::move(body), at.source_pos()});
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
    ok = check_names(**in, at, &a) && ok;
    *out = located(**in, at);
  }
  if (options.cache_policy)
    a.cache_policy =
        tile::Located<tile::CachePolicy>{*options.cache_policy, "cache_policy", at.source_pos()};
  if (!ok)
    return std::nullopt;
  return a;
}

void KernelBuilder::apply(const CpAsyncOpcode& opcode, const View& dst, const View& src,
                          std::int64_t chunk_bytes, const ApplyOptions& options, Pos at) {
  auto a = apply_operands(dst, src, chunk_bytes, options, at);
  if (!a)
    return;
  a->opcode = {opcode, ptx::print(opcode), at.source_pos()};
  push(std::move(*a), at);
}

void KernelBuilder::apply(std::string_view opcode, const View& dst, const View& src,
                          std::int64_t chunk_bytes, const ApplyOptions& options, Pos at) {
  auto parsed = ptx::parse_opcode(opcode);
  if (!parsed) {
    for (Diagnostic d : parsed.diagnostics.items())
      diags_.add(at.line() != 0 ? rebase(std::move(d), at.file(), at.line(), at.column(),
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
  if (n < 0 || n > ptx::max_wait_group)
    error(DiagId::contract_wait_group_range, at,
          "wait_group n must be in 0.." + std::to_string(ptx::max_wait_group) + "; got " +
              std::to_string(n));
  else
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
  if (pattern.empty() || pattern.size() > tile::kMaxPatternBytes) {
    error(DiagId::spec_bad_pattern, at,
          "a pattern must have 1.." + std::to_string(tile::kMaxPatternBytes) + " bytes; got " +
              std::to_string(pattern.size()));
    ok = false;
  }
  if (ok)
    push(tile::FillOp{located(dst, at), std::move(pattern)}, at);
}

void KernelBuilder::copy(const View& dst, const View& src, Pos at) {
  bool ok = check_view(dst, at);
  ok = check_view(src, at) && ok;
  if (ok)
    push(tile::CopyOp{located(dst, at), located(src, at)}, at);
}

bool KernelBuilder::check_loop_var(const std::string& var, const Pos& at) {
  if (is_identifier(var) && grammar_leaves_free(var) && !is_param(var) &&
      !kernel_->find_tensor(var) && !is_open_loop(var))
    return true;
  error(DiagId::spec_loop_var_name, at,
        "loop variable " + squote(var) +
            " is not an identifier, or is reserved, a parameter, a tensor or the variable of "
            "an enclosing loop");
  return false;
}

bool KernelBuilder::check_loop_bound(const std::string& var, const Expr& bound, const Pos& at) {
  bool ok = check_names(bound, at);
  if (tile::uses_thread(bound.node())) {
    error(DiagId::spec_loop_bound_per_thread, at,
          "loop " + squote(var) + ": '" + bound.str() +
              "' differs between the threads of a CTA; every thread must run the same "
              "iterations");
    ok = false;
  }
  return ok;
}

bool KernelBuilder::check_unroll(std::int64_t unroll, const Pos& at) {
  if (unroll >= 1 && unroll <= tile::kMaxUnroll)
    return true;
  error(DiagId::spec_loop_unroll_range, at,
        "unroll must be in 1.." + std::to_string(tile::kMaxUnroll) + "; got " +
            std::to_string(unroll));
  return false;
}

Expr KernelBuilder::begin_for(std::string var, const Expr& start, const Expr& stop,
                              const Expr& step, std::int64_t unroll, Pos at) {
  Expr leaf(tile::make_leaf(tile::ExprKind::loop, var));
  bool ok = check_loop_var(var, at);
  for (const Expr* bound : {&start, &stop, &step})
    ok = check_loop_bound(var, *bound, at) && ok;
  ok = check_unroll(unroll, at) && ok;
  OpenLoop open{var, static_cast<std::size_t>(-1), at.source_pos()};
  if (ok) {
    tile::ForOp f;
    f.var = {var, var, at.source_pos()};
    f.start = located(start, at);
    f.stop = located(stop, at);
    f.step = located(step, at);
    f.unroll = unroll;
    open.index = kernel_->ops.size();
    push(std::move(f), at);
  }
  loops_.push_back(std::move(open));
  return leaf;
}

void KernelBuilder::end_for(Pos at) {
  if (loops_.empty()) {
    error(DiagId::spec_loop_stray_end, at, "end_for() without an open begin_for()");
    return;
  }
  const OpenLoop open = loops_.back();
  loops_.pop_back();
  if (open.index == static_cast<std::size_t>(-1))
    return; // its begin_for was rejected and reported
  std::get<tile::ForOp>(kernel_->ops[open.index].body).end = kernel_->ops.size();
  push(tile::EndOp{open.index}, at);
}

// ---------------------------------------------------------------- pipelines

namespace {

/// True when e uses a loop leaf named `a` or `b`.
bool uses_loop(const tile::Expr& e, const std::string& a, const std::string& b) {
  if (e.kind == tile::ExprKind::loop && (e.name == a || e.name == b))
    return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [&](const tile::ExprPtr& x) { return uses_loop(*x, a, b); });
}

} // namespace

/// Runs `make` and moves the ops it added into `out`: applies whose dst depends on
/// the tile or the stage (loads), or copies and fills (the consumer).
bool KernelBuilder::capture(const std::function<void(const PipelineVars&)>& make,
                            const PipelineVars& vars, const PipelineOptions& options, bool loads,
                            std::vector<tile::Op>& out) {
  auto& ops = kernel_->ops;
  const std::size_t before = ops.size();
  const std::size_t errors_before = diags_.items().size();
  if (make)
    make(vars);
  bool ok = diags_.items().size() == errors_before;
  for (std::size_t i = before; i < ops.size(); ++i) {
    tile::Op& op = ops[i];
    const auto* a = std::get_if<tile::ApplyOp>(&op.body);
    if (loads && !a) {
      diags_.add(tile::diagnostic_at(DiagId::spec_pipeline_load_op, op.pos,
                                     "a pipeline's loads are cp.async applies only"));
      ok = false;
    } else if (loads && std::none_of(a->dst.value.terms.begin(), a->dst.value.terms.end(),
                                     [&](const tile::RuntimeTerm& t) {
                                       return uses_loop(*t.index, options.var, options.stage_var);
                                     })) {
      diags_.add(tile::diagnostic_at(DiagId::spec_pipeline_load_stage, op.pos,
                                     "the load's dst does not depend on the stage: every tile "
                                     "would land in the same shared bytes"));
      ok = false;
    } else if (!loads && !std::holds_alternative<tile::CopyOp>(op.body) &&
               !std::holds_alternative<tile::FillOp>(op.body)) {
      diags_.add(tile::diagnostic_at(DiagId::spec_pipeline_body_op, op.pos,
                                     "a pipeline's consumer holds only copy and fill ops"));
      ok = false;
    } else {
      out.push_back(std::move(op));
    }
  }
  ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(before), ops.end());
  return ok;
}

void KernelBuilder::pipeline(const PipelineOptions& o,
                             const std::function<void(const PipelineVars&)>& loads,
                             const std::function<void(const PipelineVars&)>& body, Pos at) {
  bool ok = check_loop_var(o.var, at);
  if (o.stage_var == o.var || !check_loop_var(o.stage_var, at)) {
    if (o.stage_var == o.var)
      error(DiagId::spec_loop_var_name, at,
            "stage variable " + squote(o.stage_var) + " is the pipeline's tile variable");
    ok = false;
  }
  ok = check_loop_bound(o.var, o.start, at) && ok;
  ok = check_loop_bound(o.var, o.stop, at) && ok;
  if (o.stages < tile::kMinPipelineStages || o.stages > tile::kMaxPipelineStages) {
    error(DiagId::spec_pipeline_stages, at,
          "stages must be in " + std::to_string(tile::kMinPipelineStages) + ".." +
              std::to_string(tile::kMaxPipelineStages) + "; got " + std::to_string(o.stages));
    ok = false;
  }
  ok = check_unroll(o.unroll, at) && ok;
  tile::Pipeline p;
  p.var = {o.var, o.var, at.source_pos()};
  p.start = located(o.start, at);
  p.stop = located(o.stop, at);
  p.stages = o.stages;
  p.unroll = o.unroll;
  p.stage_var = o.stage_var;
  p.pos = at.source_pos();
  const bool in_loop = !loops_.empty();
  const std::size_t open = loops_.size();
  // The loads and the consumer see the tile and the stage as loop variables.
  constexpr std::size_t no_op = static_cast<std::size_t>(-1);
  loops_.push_back(OpenLoop{o.var, no_op, at.source_pos()});
  loops_.push_back(OpenLoop{o.stage_var, no_op, at.source_pos()});
  const PipelineVars vars{Expr(tile::make_leaf(tile::ExprKind::loop, o.var)),
                          Expr(tile::make_leaf(tile::ExprKind::loop, o.stage_var))};
  ok = capture(loads, vars, o, true, p.loads) && ok;
  ok = capture(body, vars, o, false, p.body) && ok;
  loops_.erase(loops_.begin() + static_cast<std::ptrdiff_t>(open), loops_.end());
  if (!ok || p.loads.empty() || p.body.empty()) {
    if (ok)
      error(DiagId::spec_missing_key, at, "a pipeline needs at least one load and one consumer op");
    return;
  }
  p.sync_before = tile::pipeline_needs_sync(p, kernel_->ops, in_loop);
  for (tile::Op& op : tile::expand_pipeline(p, kernel_->ops.size(), kernel_->launch_bounds()))
    kernel_->ops.push_back(std::move(op));
}

// ---------------------------------------------------------------- mbarriers

namespace {
/// The mbarrier ops' shared rule: a barrier lives in shared memory.
bool in_shared(const View& v) {
  return v.ok() && v.tile().tensor->space == tile::Space::shared;
}
} // namespace

void KernelBuilder::mbarrier_init(const View& barrier, std::int64_t count, Pos at) {
  if (!check_view(barrier, at))
    return;
  if (!in_shared(barrier))
    return error(DiagId::spec_mbarrier_operand, at,
                 "an mbarrier lives in shared memory; '" + barrier.text() + "' is global");
  push(tile::MbarrierInitOp{located(barrier, at), {count, std::to_string(count), at.source_pos()}},
       at);
}

void KernelBuilder::copy_arrive(const View& barrier, bool noinc, Pos at) {
  if (!check_view(barrier, at))
    return;
  if (!in_shared(barrier))
    return error(DiagId::spec_mbarrier_operand, at,
                 "an mbarrier lives in shared memory; '" + barrier.text() + "' is global");
  push(tile::CopyArriveOp{located(barrier, at), noinc}, at);
}

void KernelBuilder::mbarrier_arrive(const View& barrier, std::optional<Expr> pred, Pos at) {
  bool ok = check_view(barrier, at);
  if (pred)
    ok = check_names(*pred, at) && ok;
  if (!ok)
    return;
  if (!in_shared(barrier))
    return error(DiagId::spec_mbarrier_operand, at,
                 "an mbarrier lives in shared memory; '" + barrier.text() + "' is global");
  tile::MbarrierArriveOp m{located(barrier, at), std::nullopt};
  if (pred)
    m.pred = located(*pred, at);
  push(std::move(m), at);
}

void KernelBuilder::mbarrier_wait(const View& barrier, const Expr& parity, Pos at) {
  bool ok = check_view(barrier, at);
  ok = check_names(parity, at) && ok;
  if (!ok)
    return;
  if (!in_shared(barrier))
    return error(DiagId::spec_mbarrier_operand, at,
                 "an mbarrier lives in shared memory; '" + barrier.text() + "' is global");
  push(tile::MbarrierWaitOp{located(barrier, at), located(parity, at)}, at);
}

// ---------------------------------------------------------------- expectations

namespace {

std::int64_t view_bytes(const tile::View& v) {
  std::int64_t n = tile::size_bytes(v.dtype);
  for (std::int64_t s : v.shape())
    n *= s;
  return n;
}

/// Why `v` cannot be a side of an expectation (DiagId and message); nullopt when it can.
std::optional<std::pair<DiagId, std::string>> expect_side_problem(const View& v) {
  if (v.tile().tensor->space != tile::Space::global)
    return std::pair{DiagId::spec_expect_not_global,
                     "'" + v.text() +
                         "' is of a shared tensor; expectations are about "
                         "global tensors, whose bytes outlive the kernel"};
  for (const tile::ViewStep& step : v.tile().steps) {
    const auto* sub = std::get_if<tile::SubStep>(&step);
    if (!sub)
      return std::pair{DiagId::spec_expect_view_step,
                       "expectations take .sub views only; '" + v.text() + "' has another step"};
    for (const tile::SubEntry& e : sub->entries)
      if (!e.is_slice && !tile::is_constant(*e.index))
        return std::pair{DiagId::spec_expect_index_not_constant,
                         "an expectation's indices are constants; '" + v.text() +
                             "' is not the same for the whole launch"};
  }
  return std::nullopt;
}

} // namespace

void KernelBuilder::expect_equal(const View& lhs, const View& rhs, Pos at) {
  bool ok = check_view(lhs, at);
  ok = check_view(rhs, at) && ok;
  if (!ok)
    return;
  for (const View* side : {&lhs, &rhs})
    if (auto p = expect_side_problem(*side))
      return error(p->first, at, p->second);
  const tile::View& l = lhs.tile();
  const tile::View& r = rhs.tile();
  const bool whole = l.steps.empty() && r.steps.empty();
  const bool fits =
      whole ? view_bytes(l) == view_bytes(r)
            : l.shape() == r.shape() && tile::size_bytes(l.dtype) == tile::size_bytes(r.dtype);
  if (!fits)
    return error(DiagId::spec_expect_shape_mismatch, at,
                 "'" + rhs.text() + "' and '" + lhs.text() +
                     "' differ in shape or element size (two whole tensors: in byte size)");
  const std::string that = lhs.text() + " == " + rhs.text();
  kernel_->expectations.push_back(
      tile::Expectation{located(lhs, at), located(rhs, at), {that, that, at.source_pos()}});
}

void KernelBuilder::expect_value(const View& lhs, std::int64_t value, Pos at) {
  if (!check_view(lhs, at))
    return;
  if (auto p = expect_side_problem(lhs))
    return error(p->first, at, p->second);
  const std::string that = lhs.text() + " == " + std::to_string(value);
  kernel_->expectations.push_back(
      tile::Expectation{located(lhs, at), value, {that, that, at.source_pos()}});
}

void KernelBuilder::expect_sentinel(const View& lhs, Pos at) {
  if (!check_view(lhs, at))
    return;
  if (auto p = expect_side_problem(lhs))
    return error(p->first, at, p->second);
  const std::string that = lhs.text() + " == sentinel";
  kernel_->expectations.push_back(
      tile::Expectation{located(lhs, at), tile::ExpectSentinel{}, {that, that, at.source_pos()}});
}

// ---------------------------------------------------------------- results

Diagnostics KernelBuilder::diagnostics() const {
  Diagnostics out = diags_;
  for (const OpenLoop& l : loops_)
    out.add(tile::diagnostic_at(DiagId::spec_loop_unclosed, l.pos,
                                "loop " + squote(l.var) + " has no matching end_for()"));
  return out;
}

Result<std::unique_ptr<tile::Kernel>> KernelBuilder::finish() && {
  Diagnostics ds = diagnostics();
  if (ds.has_errors())
    return Result<std::unique_ptr<tile::Kernel>>::failure(std::move(ds));
  Result<std::unique_ptr<tile::Kernel>> r;
  r.value = std::move(kernel_);
  r.diagnostics = std::move(ds);
  return r;
}

} // namespace ptxgen::api
