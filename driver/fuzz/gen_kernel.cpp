// A model built through the emitter's builder (build_kernel() in generator.hpp): the
// model's typed fields become build::Builder calls, as the TOML reader's tables do, so
// that every rule a generated spec must keep is the builder's. This file holds only the
// model's syntax (spellings of enums, which call a field goes to); no rule and no DiagId of
// its own: a mutant's misspelt dtype, scope or key goes to the builder's call for it.

#include "driver/fuzz/generator.hpp"
#include "driver/reference/expect.hpp"
#include "driver/run/to_toml.hpp"
#include "emitter/builder/builder.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/expr.hpp"
#include "emitter/tile/pipeline.hpp"

#include <array>
#include <charconv>
#include <map>
#include <span>
#include <variant>

namespace ptxgen::driver::fuzz {

namespace {

using Axes = std::map<std::string, std::size_t, std::less<>>;

class KernelFromModel {
public:
  explicit KernelFromModel(const SpecModel& m) : m_(m), b_(m.name + ".generated") {}

  Result<std::unique_ptr<tile::Kernel>> build() && {
    declarations();
    for (const ModelOp& op : m_.ops) {
      next_line();
      std::visit(*this, op.body);
    }
    b_.close_loops();
    for (const auto& e : m_.expects) {
      next_line();
      if (auto x = b_.expectation(text(e)))
        b_.expectation(std::move(*x));
    }
    return std::move(b_).finish();
  }

  // ------------------------------------------------------------------ ops

  void operator()(const ModelApply& m) {
    if (auto a = apply(m))
      b_.push(tile::Op{std::move(*a), pos()});
  }
  void operator()(const ModelCommitGroup&) { b_.push(tile::Op{tile::CommitGroupOp{}, pos()}); }
  void operator()(const ModelWaitGroup& w) {
    if (b_.wait_group(w.n, at()))
      b_.push(tile::Op{tile::WaitGroupOp{w.n}, pos()});
  }
  void operator()(const ModelWaitAll&) { b_.push(tile::Op{tile::WaitAllOp{}, pos()}); }
  void operator()(const ModelCtaSync&) { b_.push(tile::Op{tile::CtaSyncOp{}, pos()}); }
  void operator()(const ModelFill& f) {
    if (auto op = fill(f))
      b_.push(std::move(*op));
  }
  void operator()(const ModelCopy& c) {
    if (auto op = copy(c))
      b_.push(std::move(*op));
  }
  void operator()(const ModelFor& f) {
    tile::ForOp op;
    auto var = loop_var(f.var);
    bool ok = var.has_value();
    ok = bound("start", f.start, op.start) && ok;
    ok = bound("stop", f.stop, op.stop) && ok;
    op.step = {tile::make_constant(1), "1", pos()};
    if (f.step)
      ok = bound("step", *f.step, op.step) && ok;
    ok = unroll(f.unroll, op.unroll) && ok;
    if (ok)
      op.var = std::move(*var);
    b_.begin_for(f.var, ok ? std::optional<tile::ForOp>(std::move(op)) : std::nullopt, pos());
  }
  void operator()(const ModelEnd&) { b_.end_for(at()); }
  void operator()(const ModelPipeline& m) {
    tile::Pipeline p;
    p.pos = pos();
    auto var = loop_var(m.loop.var);
    bool ok = var.has_value();
    if (var)
      p.var = *var;
    ok = bound("start", m.loop.start, p.start) && ok;
    ok = bound("stop", m.loop.stop, p.stop) && ok;
    const auto stages = b_.stages(m.stages, at());
    ok = stages.has_value() && ok;
    p.stages = stages.value_or(p.stages);
    if (m.loop.step) {
      const auto* n = std::get_if<std::int64_t>(&*m.loop.step);
      ok = b_.pipeline_step(n ? std::optional(*n) : std::nullopt, at()) && ok;
    }
    ok = unroll(m.loop.unroll, p.unroll) && ok;
    p.stage_var = m.stage_var.value_or(std::string(tile::kDefaultStageVar));
    ok = b_.stage_var(text(p.stage_var), m.loop.var, m.stage_var.has_value(), at()) && ok;
    const std::size_t open = b_.open_pipeline_vars(m.loop.var, p.stage_var, pos());
    for (const ModelApply& l : m.loads) {
      auto a = apply(l);
      ok = a && b_.pipeline_load_stage(p, a->dst.value, at()) && ok;
      if (a)
        p.loads.push_back(tile::Op{std::move(*a), pos()});
    }
    if (m.ring)
      ok = ring(m, p) && ok;
    for (const auto& body : m.body) {
      const bool is_copy = std::holds_alternative<ModelCopy>(body);
      ok = b_.pipeline_body_kind(is_copy ? "copy" : "fill", at()) && ok;
      auto op = is_copy ? copy(std::get<ModelCopy>(body)) : fill(std::get<ModelFill>(body));
      ok = op.has_value() && ok;
      if (op)
        p.body.push_back(std::move(*op));
    }
    b_.close_pipeline_vars(open);
    if (ok)
      b_.pipeline(std::move(p), at());
  }
  void operator()(const ModelMbarrierInit& m) {
    tile::MbarrierInitOp op;
    op.count = {m.count, std::to_string(m.count), pos()};
    push_barrier(m.barrier, std::move(op));
  }
  void operator()(const ModelCopyArrive& m) {
    tile::CopyArriveOp op;
    op.noinc = m.noinc;
    push_barrier(m.barrier, std::move(op));
  }
  void operator()(const ModelMbarrierArrive& m) {
    tile::MbarrierArriveOp op;
    if (pred(m.pred, op.pred))
      push_barrier(m.barrier, std::move(op));
  }
  void operator()(const ModelMbarrierWait& m) {
    tile::MbarrierWaitOp op;
    const Axes none;
    auto parity = value(m.parity, none);
    if (parity && pred(m.pred, op.pred)) {
      op.parity = std::move(*parity);
      push_barrier(m.barrier, std::move(op));
    }
  }

  void operator()(const ModelExpectTx& m) {
    tile::ExpectTxOp op;
    op.bytes = {tile::make_constant(m.bytes), std::to_string(m.bytes), pos()};
    if (pred(m.pred, op.pred))
      push_barrier(m.barrier, std::move(op));
  }
  void operator()(const ModelBulkLoad& m) {
    tile::BulkLoadOp op;
    auto dst = bulk_view(m.dst, tile::Space::shared, "dst");
    auto src = bulk_view(m.src, tile::Space::global, "src");
    auto bar = barrier_view(m.barrier);
    if (pred(m.pred, op.pred) && mask(m.multicast, op.multicast) && dst && src && bar) {
      op.dst = std::move(*dst);
      op.src = std::move(*src);
      op.barrier = std::move(*bar);
      b_.push(tile::Op{std::move(op), pos()});
    }
  }
  void operator()(const ModelBulkStore& m) {
    tile::BulkStoreOp op;
    auto dst = bulk_view(m.dst, tile::Space::global, "dst");
    auto src = bulk_view(m.src, tile::Space::shared, "src");
    if (pred(m.pred, op.pred) && dst && src) {
      op.dst = std::move(*dst);
      op.src = std::move(*src);
      b_.push(tile::Op{std::move(op), pos()});
    }
  }
  void operator()(const ModelBulkCommit&) { b_.push(tile::Op{tile::BulkCommitOp{}, pos()}); }
  void operator()(const ModelBulkWait& w) {
    if (b_.wait_group(w.n, at()))
      b_.push(tile::Op{tile::BulkWaitOp{w.n, w.read}, pos()});
  }
  void operator()(const ModelProxyFence& f) {
    b_.push(tile::Op{tile::ProxyFenceOp{f.space}, pos()});
  }
  void operator()(const ModelTensorLoad& m) {
    tile::TensorLoadOp op;
    auto dst = bulk_view(m.dst, tile::Space::shared, "dst");
    auto bar = barrier_view(m.barrier);
    if (tensor_operand(m.tensor, m.coords, op.tensor, op.coords) && pred(m.pred, op.pred) &&
        mask(m.multicast, op.multicast) && dst && bar) {
      op.dst = std::move(*dst);
      op.barrier = std::move(*bar);
      b_.push(tile::Op{std::move(op), pos()});
    }
  }
  void operator()(const ModelTensorStore& m) {
    tile::TensorStoreOp op;
    auto src = bulk_view(m.src, tile::Space::shared, "src");
    if (tensor_operand(m.tensor, m.coords, op.tensor, op.coords) && pred(m.pred, op.pred) && src) {
      op.src = std::move(*src);
      b_.push(tile::Op{std::move(op), pos()});
    }
  }

  void operator()(const ModelClusterSync& c) {
    b_.push(tile::Op{tile::ClusterSyncOp{c.relaxed}, pos()});
  }
  void operator()(const ModelMbarrierInitFence&) {
    b_.push(tile::Op{tile::MbarrierInitFenceOp{}, pos()});
  }
  void operator()(const ModelBulkCopyPeer& m) {
    tile::BulkCopyPeerOp op;
    auto dst = bulk_view(m.dst, tile::Space::shared, "dst");
    auto src = bulk_view(m.src, tile::Space::shared, "src");
    auto bar = barrier_view(m.barrier);
    if (pred(m.pred, op.pred) && dst && src && bar) {
      op.dst = std::move(*dst);
      op.src = std::move(*src);
      op.barrier = std::move(*bar);
      b_.push(tile::Op{std::move(op), pos()});
    }
  }

private:
  /// A TMA pipeline's ring keys and its bulk / tensor loads, as the TOML reader takes them.
  bool ring(const ModelPipeline& m, tile::Pipeline& p) {
    bool ok = true;
    std::optional<tile::Located<tile::View>> views[2];
    const ViewText* texts[2] = {&m.ring->full, &m.ring->empty};
    const std::string_view keys[] = {"full", "empty", "ring_offset"};
    for (std::size_t i = 0; i < 3; ++i) {
      if (!b_.pipeline_ring_key(true, keys[i], i < 2 || m.ring->offset.has_value(), at())) {
        ok = false;
        continue;
      }
      if (i == 2)
        continue;
      views[i] = barrier_view(*texts[i]);
      ok = views[i] && b_.pipeline_ring_barrier(p, *views[i], keys[i], at()) && ok;
    }
    tile::Located<tile::ExprPtr> offset;
    if (m.ring->offset)
      ok = bound("ring_offset", *m.ring->offset, offset) && ok;
    if (!ok)
      return false;
    p.ring = tile::PipelineRing{std::move(*views[0]), std::move(*views[1]), std::nullopt, 1};
    if (m.ring->offset)
      p.ring->offset = std::move(offset);
    std::string_view first;
    for (const auto& l : m.ring_loads) {
      const auto* bl = std::get_if<ModelBulkLoad>(&l);
      const std::string_view kind = bl ? "bulk_load" : "tensor_load";
      ok = b_.pipeline_load_kind(kind, first, at()) && ok;
      first = first.empty() ? kind : first;
      auto op = bl ? ring_bulk_load(*bl, p.ring->full)
                   : ring_tensor_load(std::get<ModelTensorLoad>(l), p.ring->full);
      if (!op) {
        ok = false;
        continue;
      }
      const tile::View& dst = bl ? std::get<tile::BulkLoadOp>(*op).dst.value
                                 : std::get<tile::TensorLoadOp>(*op).dst.value;
      ok = b_.pipeline_load_stage(p, dst, at()) && ok;
      p.loads.push_back(tile::Op{std::move(*op), pos()});
    }
    return ok;
  }
  std::optional<tile::OpBody> ring_bulk_load(const ModelBulkLoad& m,
                                             const tile::Located<tile::View>& full) {
    auto dst = bulk_view(m.dst, tile::Space::shared, "dst");
    auto src = bulk_view(m.src, tile::Space::global, "src");
    if (!dst || !src)
      return std::nullopt;
    tile::BulkLoadOp op;
    op.dst = std::move(*dst);
    op.src = std::move(*src);
    op.barrier = full;
    return op;
  }
  std::optional<tile::OpBody> ring_tensor_load(const ModelTensorLoad& m,
                                               const tile::Located<tile::View>& full) {
    tile::TensorLoadOp op;
    auto dst = bulk_view(m.dst, tile::Space::shared, "dst");
    if (!tensor_operand(m.tensor, m.coords, op.tensor, op.coords) || !dst)
      return std::nullopt;
    op.dst = std::move(*dst);
    op.barrier = full;
    return op;
  }

  bool pred(const std::optional<ExprText>& p, std::optional<tile::Located<tile::ExprPtr>>& out) {
    if (!p)
      return true;
    const Axes none;
    out = value(IntOrExpr{*p}, none);
    return out.has_value();
  }
  /// A multicast's CTA mask, an expression as the TOML reader takes it.
  bool mask(const std::optional<ExprText>& m, std::optional<tile::Located<tile::ExprPtr>>& out) {
    if (!m)
      return true;
    out = b_.expr(text(m->text));
    return out.has_value();
  }
  std::optional<tile::Located<tile::View>> bulk_view(const ViewText& v, tile::Space want,
                                                     std::string_view role) {
    auto view = b_.view(text(v.text));
    if (!view || !b_.bulk_space(view->value, want, role, at()))
      return std::nullopt;
    return view;
  }
  std::optional<tile::Located<tile::View>> barrier_view(const ViewText& v) {
    auto view = b_.view(text(v.text));
    if (!view || !b_.barrier(view->value, at()))
      return std::nullopt;
    return view;
  }
  bool tensor_operand(const std::string& tensor, const std::vector<ExprText>& coords,
                      tile::Located<std::string>& name,
                      std::vector<tile::Located<tile::ExprPtr>>& out) {
    const tile::TensorDecl* d = b_.mapped_tensor(text(tensor));
    if (!d || !b_.tensor_coords(*d, coords.size(), at()))
      return false;
    name = {tensor, tensor, pos()};
    const Axes none;
    for (const ExprText& c : coords) {
      auto e = value(IntOrExpr{c}, none);
      if (!e)
        return false;
      out.push_back(std::move(*e));
    }
    return true;
  }

  /// Each declaration and op is on a line of its own: diagnostics say which.
  void next_line() { ++line_; }
  tile::SourcePos pos() const { return {m_.name + ".generated", line_, 1, {}}; }
  build::At at() const { return {pos(), 1}; }
  build::Text text(std::string s) const { return {std::move(s), pos(), false, 1}; }

  void declarations() {
    next_line();
    b_.kernel_name(m_.name, at());
    tile::Dim3 grid{1, 1, 1}, block{1, 1, 1};
    if (auto g = dims(build::LaunchPart::grid, m_.grid, m_.grid_as_array))
      grid = *g;
    if (auto b = dims(build::LaunchPart::block, m_.block, m_.block_as_array))
      block = *b;
    b_.launch(grid, block);
    if (!m_.cluster.empty()) {
      std::array<std::int64_t, 3> c{1, 1, 1};
      for (std::size_t i = 0; i < m_.cluster.size() && i < c.size(); ++i)
        c[i] = m_.cluster[i];
      b_.cluster(c, false, at());
    }
    for (const ModelParam& p : m_.params) {
      next_line();
      build::ParamDecl d;
      d.name = p.name;
      d.name_at = at();
      d.pos = pos();
      d.is_u64 = p.u64;
      d.value = build::ParamValue{build::ParamValue::Form::unsigned_integer, 0, p.value, {}};
      d.value_at = at();
      if (p.range)
        d.range = build::ParamRange{true, static_cast<std::int64_t>((*p.range)[0]),
                                    static_cast<std::int64_t>((*p.range)[1]), at()};
      b_.param(d);
    }
    for (const ModelTensor& t : m_.tensors) {
      next_line();
      tensor(t);
    }
    if (!m_.abi.empty()) {
      next_line();
      std::vector<std::pair<std::string, build::At>> names;
      for (const auto& n : m_.abi)
        names.emplace_back(n, at());
      b_.abi(names, at(), true);
    }
  }

  std::optional<tile::Dim3> dims(build::LaunchPart part, const std::vector<std::int64_t>& v,
                                 bool as_array) {
    std::array<std::int64_t, 3> d{1, 1, 1};
    for (std::size_t i = 0; i < v.size() && i < d.size(); ++i)
      d[i] = v[i];
    return b_.dims(part, d, v.size() == 1 && !as_array, at());
  }

  void tensor(const ModelTensor& t) {
    build::TensorDecl d;
    d.name = t.name;
    d.name_at = at();
    d.pos = pos();
    d.space = t.shared ? tile::Space::shared : tile::Space::global;
    d.dtype = b_.dtype(t.dtype.spelling, at());
    std::vector<build::Dim> shape;
    for (auto n : t.shape)
      shape.push_back(build::Dim{n, at()});
    d.shape = std::move(shape);
    d.shape_at = at();
    if (t.align) {
      d.align = t.align;
      d.align_at = at();
    }
    if (t.init) {
      d.init_at = at();
      d.init = b_.init(text(build::init_spelling(*t.init)));
    }
    if (t.output) {
      d.output_at = at();
      d.output = true;
    }
    if (t.swizzle != tile::TensorMapSwizzle::none) {
      d.swizzle = t.swizzle;
      d.swizzle_at = at();
    }
    if (t.map) {
      build::TensorMapDecl map;
      map.at = at();
      std::vector<build::Dim> box;
      for (auto n : t.map->box)
        box.push_back(build::Dim{n, at()});
      map.box = std::move(box);
      map.box_at = at();
      if (!t.map->element_strides.empty()) {
        std::vector<build::Dim> strides;
        for (auto n : t.map->element_strides)
          strides.push_back(build::Dim{n, at()});
        map.element_strides = std::move(strides);
        map.element_strides_at = at();
      }
      if (t.map->swizzle != tile::TensorMapSwizzle::none) {
        map.swizzle = t.map->swizzle;
        map.swizzle_at = at();
      }
      if (t.map->oob_fill != tile::TensorMapOobFill::zero) {
        map.oob_fill = t.map->oob_fill;
        map.oob_fill_at = at();
      }
      d.map = std::move(map);
    }
    b_.tensor(d);
  }

  std::optional<tile::Located<std::string>> loop_var(const std::string& name) {
    if (!b_.loop_var(text(name)))
      return std::nullopt;
    return tile::Located<std::string>{name, name, pos()};
  }

  /// A loop bound: a constant, or an expression the builder checks is CTA-uniform.
  bool bound(std::string_view key, const IntOrExpr& v, tile::Located<tile::ExprPtr>& out) {
    if (const auto* i = std::get_if<std::int64_t>(&v)) {
      out = {tile::make_constant(*i), std::to_string(*i), pos()};
      return true;
    }
    const build::Text t = text(std::get<ExprText>(v).text);
    auto r = b_.expr(t);
    if (!r || !b_.loop_bound(key, *r->value, t))
      return false;
    out = std::move(*r);
    return true;
  }

  bool unroll(const std::optional<std::int64_t>& u, std::int64_t& out) {
    if (!u)
      return true;
    const auto n = b_.unroll(*u, at());
    if (n)
      out = *n;
    return n.has_value();
  }

  std::optional<tile::Located<tile::ExprPtr>> value(const IntOrExpr& v, const Axes& axes) {
    if (const auto* i = std::get_if<std::int64_t>(&v))
      return tile::Located<tile::ExprPtr>{tile::make_constant(*i), std::to_string(*i), pos()};
    return b_.expr(text(std::get<ExprText>(v).text), &axes);
  }
  std::optional<tile::Located<tile::ExprPtr>> value(const BoolOrExpr& v, const Axes& axes) {
    if (const auto* b = std::get_if<bool>(&v))
      return tile::Located<tile::ExprPtr>{tile::make_constant(*b ? 1 : 0), *b ? "true" : "false",
                                          pos()};
    return b_.expr(text(std::get<ExprText>(v).text), &axes);
  }

  std::optional<tile::ApplyOp> apply(const ModelApply& m) {
    tile::ApplyOp a;
    a.opcode = {m.opcode, ptx::print(m.opcode), pos()};
    auto dst = b_.view(text(m.dst.text));
    auto src = b_.view(text(m.src.text));
    bool ok = dst && src;
    if (dst)
      a.dst = std::move(*dst);
    if (src)
      a.src = std::move(*src);
    a.chunk_bytes = {m.chunk_bytes, std::to_string(m.chunk_bytes), pos()};
    if (m.scope) {
      const auto scope = b_.scope(scope_spelling(*m.scope), at());
      ok = scope.has_value() && ok;
      a.scope = scope.value_or(tile::Scope::thread);
    }
    const Axes axes = tile::repeat_axis_names(a);
    const auto operand = [&](const auto& v, std::optional<tile::Located<tile::ExprPtr>>& out) {
      if (!v)
        return;
      out = value(*v, axes);
      ok = out.has_value() && ok;
    };
    operand(m.src_size, a.src_size);
    operand(m.ignore_src, a.ignore_src);
    operand(m.pred, a.pred);
    if (m.cache_policy) {
      a.cache_policy = std::visit(*this, *m.cache_policy);
      ok = a.cache_policy.has_value() && ok;
    }
    for (const auto& u : m.unknown) {
      b_.unknown_key(u.key, at(), {}, "the apply");
      ok = false;
    }
    if (!ok)
      return std::nullopt;
    return a;
  }

public:
  std::optional<tile::Located<tile::CachePolicy>> operator()(const PolicyParam& p) {
    switch (p.spelling) {
    case PolicyParam::Spelling::bare:
      return b_.cache_policy(text(p.name));
    case PolicyParam::Spelling::prefixed:
      return b_.cache_policy(text("param:" + p.name));
    case PolicyParam::Spelling::table: {
      build::PolicyParts parts;
      parts.param = text(p.name);
      return b_.cache_policy(parts, pos());
    }
    }
    return std::nullopt;
  }
  std::optional<tile::Located<tile::CachePolicy>> operator()(const PolicyCreate& c) {
    if (!c.table)
      return b_.cache_policy(text(spelling(c)));
    build::PolicyParts parts;
    parts.primary = text(std::string(c.primary));
    if (c.secondary)
      parts.secondary = text(std::string(*c.secondary));
    if (c.fraction) {
      double f = 0;
      std::from_chars(c.fraction->data(), c.fraction->data() + c.fraction->size(), f);
      parts.fraction = build::PolicyParts::Fraction{f, text(std::string(*c.fraction))};
    }
    return b_.cache_policy(parts, pos());
  }

private:
  std::optional<tile::Op> fill(const ModelFill& f) {
    auto dst = b_.view(text(f.dst.text));
    std::optional<std::vector<std::uint8_t>> pattern;
    const build::Text where = text({});
    switch (f.pattern.form) {
    case ModelPattern::Form::byte:
    case ModelPattern::Form::list: {
      std::vector<build::PatternByte> bytes;
      for (auto b : f.pattern.bytes)
        bytes.push_back(build::PatternByte{b, where});
      pattern = b_.pattern(bytes, f.pattern.form == ModelPattern::Form::byte, where);
      break;
    }
    case ModelPattern::Form::hex:
      pattern = b_.pattern(text(hex_spelling(f.pattern)));
      break;
    }
    if (!dst || !pattern)
      return std::nullopt;
    return tile::Op{tile::FillOp{std::move(*dst), std::move(*pattern)}, pos()};
  }

  std::optional<tile::Op> copy(const ModelCopy& c) {
    auto dst = b_.view(text(c.dst.text));
    auto src = b_.view(text(c.src.text));
    if (!dst || !src)
      return std::nullopt;
    return tile::Op{tile::CopyOp{std::move(*dst), std::move(*src)}, pos()};
  }

  template <class Op>
  void push_barrier(const ViewText& barrier, Op op) {
    auto v = b_.view(text(barrier.text));
    if (!v || !b_.barrier(v->value, at()))
      return;
    op.barrier = std::move(*v);
    b_.push(tile::Op{std::move(op), pos()});
  }

  const SpecModel& m_;
  build::Builder b_;
  std::uint32_t line_ = 0;
};

} // namespace

Result<std::unique_ptr<tile::Kernel>> build_kernel(const SpecModel& m) {
  return KernelFromModel(m).build();
}

std::string spec_toml(const SpecModel& m) {
  auto built = build_kernel(m);
  if (!built)
    return to_toml(m);
  return header_comment(m) + api::to_spec_toml(**built);
}

} // namespace ptxgen::driver::fuzz
