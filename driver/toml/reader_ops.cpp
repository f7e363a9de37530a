// The TOML reader's [[op]] tables: plain ops, mbarriers, loops, pipelines and an
// apply's operands.

#include "driver/toml/reader.hpp"

namespace ptxgen::driver::toml_reader {

void Loader::load_ops(const toml::node& n) {
  each_table(n, "ops must be an array of tables: write each op as [[op]]", "[[op]]",
             [&](const toml::table& t, const std::string& where) { load_op(t, where); });
}

/// One [[op]] table; its op goes to `into` when given (a pipeline's consumer), else
/// to the kernel.
void Loader::load_op(const toml::table& t, const std::string& where, std::vector<tile::Op>* into) {
  const toml::node* kind_node = t.get("op");
  if (!kind_node) {
    b_.missing(at(t.source()), where + " has no 'op' key; expected op = one of: " + join(kOpKinds));
    return;
  }
  auto kind = get_string(*kind_node, "op", where, "a string naming the op");
  if (!kind)
    return;
  tile::Op op;
  op.pos = pos_of(t.source().begin);
  if (*kind == "pipeline") {
    check_keys(t, kPipelineKeys, where);
    load_pipeline(t, where + " (op \"pipeline\")", op.pos);
    return;
  }
  const std::size_t index = tile::find_op(*kind);
  if (index == tile::op_rows.size()) {
    error_at(DiagId::spec_unknown_op, kind_node->source(),
             "unknown op " + squote(*kind) + did_you_mean(*kind, kOpKinds) +
                 " (expected one of: " + join(kOpKinds) + ")");
    return;
  }
  if (!read_any(index, t, where, op))
    return;
  if (into)
    into->push_back(std::move(op));
  else
    b_.push(std::move(op));
}

/// The generic reader: each field of ops.def by its member's type.
template <class Op>
bool Loader::read_op(const toml::table& t, const std::string& where, tile::Op& op) {
  Op body;
  bool ok = true;
  tile::for_each_field(body, [&](const tile::FieldRow& r, auto& member) {
    ok = read_field(t, where, r.key, member) && ok;
  });
  if (ok)
    op.body = std::move(body);
  return ok;
}

bool Loader::read_any(std::size_t index, const toml::table& t, const std::string& where,
                      tile::Op& op) {
  // One reader per op of ops.def, in OpBody's order.
  using Reader = bool (Loader::*)(const toml::table&, const std::string&, tile::Op&);
  static constexpr Reader readers[] = {
#define PTXGEN_TILE_OP(Struct, ...) &Loader::read_op<tile::Struct>,
#define PTXGEN_TILE_FIELD(...)
#include "emitter/tile/ops.def"
#undef PTXGEN_TILE_FIELD
#undef PTXGEN_TILE_OP
  };
  static_assert(std::size(readers) == tile::op_rows.size());
  check_keys(t, tile::op_keys(index), where);
  const std::string where_kind =
      where + " (op \"" + std::string(tile::op_rows[index].spelling) + "\")";
  return (this->*readers[index])(t, where_kind, op);
}

bool Loader::read_field(const toml::table& t, const std::string& where, std::string_view key,
                        bool& out) {
  const toml::node* v = t.get(key);
  if (!v)
    return true; // the member's default
  const auto b = get_bool(*v, key, where);
  out = b.value_or(out);
  return b.has_value();
}

bool Loader::read_field(const toml::table& t, const std::string& where, std::string_view key,
                        tile::Located<std::int64_t>& out) {
  const toml::node* v = t.get(key);
  if (!v) {
    missing(t, key, where, "an integer");
    return false;
  }
  const auto i = get_int(*v, key, where, "an integer");
  if (i)
    out = {*i, std::to_string(*i), pos_of(v->source().begin)};
  return i.has_value();
}

bool Loader::read_field(const toml::table& t, const std::string& where, std::string_view key,
                        std::optional<tile::Located<tile::ExprPtr>>& out) {
  const toml::node* v = t.get(key);
  if (!v)
    return true; // none: every thread
  const std::map<std::string, std::size_t, std::less<>> no_axes;
  out = expr_field(*v, key, where, false, no_axes);
  return out.has_value();
}

bool Loader::read_field(const toml::table& t, const std::string& where, std::string_view key,
                        tile::Located<tile::View>& out) {
  auto v = view_field(t, key, where);
  if (v)
    out = std::move(*v);
  return v.has_value();
}

template <>
bool Loader::read_op<tile::ApplyOp>(const toml::table& t, const std::string& where, tile::Op& op) {
  tile::ApplyOp a;
  const bool ok = load_apply(t, where, a);
  op.body = std::move(a);
  return ok;
}

template <>
bool Loader::read_op<tile::WaitGroupOp>(const toml::table& t, const std::string& where,
                                        tile::Op& op) {
  const auto n = pending_groups(t, where, "groups");
  op.body = tile::WaitGroupOp{n.value_or(0)};
  return n.has_value();
}

template <>
bool Loader::read_op<tile::FillOp>(const toml::table& t, const std::string& where, tile::Op& op) {
  tile::FillOp f;
  auto dst = view_field(t, "dst", where);
  bool ok = dst.has_value();
  if (dst)
    f.dst = std::move(*dst);
  if (const toml::node* v = t.get("pattern")) {
    if (auto p = parse_pattern(*v))
      f.pattern = std::move(*p);
    else
      ok = false;
  } else {
    missing(t, "pattern", where, "a byte 0..255, an array of bytes or \"0x...\"");
    ok = false;
  }
  op.body = std::move(f);
  return ok;
}

/// `for` and `end` open and close the builder's loop, which adds their ops itself.
template <>
bool Loader::read_op<tile::ForOp>(const toml::table& t, const std::string& where, tile::Op& op) {
  load_for(t, where, op);
  return false;
}

template <>
bool Loader::read_op<tile::EndOp>(const toml::table& t, const std::string&, tile::Op&) {
  b_.end_for(at(t.source()));
  return false;
}

template <>
bool Loader::read_op<tile::MbarrierInitOp>(const toml::table& t, const std::string& where,
                                           tile::Op& op) {
  return set_body(op, load_mbarrier_op(t, "mbarrier_init", where));
}

template <>
bool Loader::read_op<tile::CopyArriveOp>(const toml::table& t, const std::string& where,
                                         tile::Op& op) {
  return set_body(op, load_mbarrier_op(t, "copy_arrive", where));
}

template <>
bool Loader::read_op<tile::MbarrierArriveOp>(const toml::table& t, const std::string& where,
                                             tile::Op& op) {
  return set_body(op, load_mbarrier_op(t, "mbarrier_arrive", where));
}

template <>
bool Loader::read_op<tile::MbarrierWaitOp>(const toml::table& t, const std::string& where,
                                           tile::Op& op) {
  return set_body(op, load_mbarrier_op(t, "mbarrier_wait", where));
}

/// The `n` of wait_group and bulk_wait: how many of the thread's `groups` may stay pending;
/// nullopt after an error (reported).
std::optional<std::int64_t> Loader::pending_groups(const toml::table& t,
                                                   const std::string& where_kind,
                                                   const std::string& groups) {
  const toml::node* v = t.get("n");
  if (!v) {
    missing(t, "n", where_kind, "the number of " + groups + " that may stay pending, e.g. n = 0");
    return std::nullopt;
  }
  auto i = get_int(*v, "n", where_kind, "an integer (" + groups + " left pending)");
  if (!i || !b_.wait_group(*i, at(v->source())))
    return std::nullopt;
  return i;
}

/// mbarrier_init / copy_arrive / mbarrier_arrive / mbarrier_wait: a `barrier` view of a
/// shared tensor and the op's own key (count, noinc, pred, parity).
std::optional<tile::OpBody> Loader::load_mbarrier_op(const toml::table& t, std::string_view kind,
                                                     const std::string& where_kind) {
  auto barrier = view_field(t, "barrier", where_kind);
  bool ok = barrier.has_value();
  if (barrier && !b_.barrier(barrier->value, at(t.get("barrier")->source())))
    ok = false;
  // The op with its barrier, once every key of it loaded.
  auto finish = [&](auto m) -> std::optional<tile::OpBody> {
    if (!ok)
      return std::nullopt;
    m.barrier = std::move(*barrier);
    return m;
  };
  if (kind == "mbarrier_init") {
    tile::MbarrierInitOp m;
    if (const toml::node* v = t.get("count")) {
      if (auto i = get_int(*v, "count", where_kind, "an integer (arrivals per phase)"))
        m.count = {*i, std::to_string(*i), pos_of(v->source().begin)};
      else
        ok = false;
    } else {
      missing(t, "count", where_kind, "the arrivals per phase, e.g. count = 128");
      ok = false;
    }
    return finish(std::move(m));
  }
  if (kind == "copy_arrive") {
    tile::CopyArriveOp m;
    if (const toml::node* v = t.get("noinc")) {
      if (auto b = get_bool(*v, "noinc", where_kind))
        m.noinc = *b;
      else
        ok = false;
    }
    return finish(std::move(m));
  }
  const std::map<std::string, std::size_t, std::less<>> no_axes;
  if (kind == "mbarrier_arrive") {
    tile::MbarrierArriveOp m;
    ok = read_field(t, where_kind, "pred", m.pred) && ok;
    return finish(std::move(m));
  }
  tile::MbarrierWaitOp m;
  if (const toml::node* v = t.get("parity")) {
    auto e = expr_field(*v, "parity", where_kind, true, no_axes);
    if (e)
      m.parity = std::move(*e);
    else
      ok = false;
  } else {
    missing(t, "parity", where_kind, "the phase parity waited for, e.g. parity = \"k % 2\"");
    ok = false;
  }
  ok = read_field(t, where_kind, "pred", m.pred) && ok;
  return finish(std::move(m));
}

/// start, stop or step of a `for`: an integer or an expression string over
/// constants, parameters, bid, nbid, ntid and enclosing loop variables.
std::optional<tile::Located<tile::ExprPtr>>
Loader::loop_bound(const toml::node& v, std::string_view key, const std::string& where) {
  if (const auto* i = v.as_integer())
    return tile::Located<tile::ExprPtr>{tile::make_constant(i->get()), std::to_string(i->get()),
                                        pos_of(v.source().begin)};
  const auto* s = v.as_string();
  if (!s) {
    wrong_type(v, key, where, "an integer or an expression string such as \"k_tiles\"");
    return std::nullopt;
  }
  const build::Text text = text_of(v, s->get());
  auto r = b_.expr(text);
  if (!r || !b_.loop_bound(key, *r->value, text))
    return std::nullopt;
  return r;
}

/// Loads each field with loop_bound(); false when one is missing or bad (each reported).
/// An optional `unroll` key (body copies per back edge, 1..kMaxUnroll) into `out`
/// (left as it is when absent); false after an error.
bool Loader::load_unroll(const toml::table& t, const std::string& where, std::int64_t& out) {
  const toml::node* v = t.get("unroll");
  if (v == nullptr)
    return true;
  auto u = get_int(*v, "unroll", where, "an integer (body copies per back edge)");
  if (u)
    u = b_.unroll(*u, at(v->source()));
  if (u)
    out = *u;
  return u.has_value();
}

bool Loader::load_loop_bounds(const toml::table& t, const std::string& where,
                              std::span<const BoundField> fields) {
  bool ok = true;
  for (const BoundField& f : fields) {
    const toml::node* v = t.get(f.key);
    if (!v) {
      missing(t, f.key, where, f.example);
      ok = false;
      continue;
    }
    auto b = loop_bound(*v, f.key, where);
    ok = ok && b.has_value();
    if (b)
      *f.slot = std::move(*b);
  }
  return ok;
}

/// The loop variable's name: an identifier that is not reserved, a parameter,
/// a tensor or the variable of an enclosing loop.
std::optional<tile::Located<std::string>> Loader::loop_var(const toml::table& t,
                                                           const std::string& where) {
  const toml::node* v = nullptr;
  auto name = required_string(t, "var", where, "the loop variable's name, e.g. var = \"k\"",
                              "a string (the loop variable's name)", v);
  if (!name)
    return std::nullopt;
  const build::Text text = text_of(*v, *name);
  if (!b_.loop_var(text))
    return std::nullopt;
  return tile::Located<std::string>{*name, *name, text.pos};
}

void Loader::load_for(const toml::table& t, const std::string& where, tile::Op& op) {
  tile::ForOp f;
  auto var = loop_var(t, where);
  bool ok = var.has_value();
  const bool has_step = t.get("step") != nullptr;
  if (!has_step)
    f.step = {tile::make_constant(1), "1", op.pos};
  const BoundField fields[] = {{"start", &f.start, "the first value, e.g. start = 0"},
                               {"stop", &f.stop, "the bound (exclusive), e.g. stop = \"k_tiles\""},
                               {"step", &f.step, ""}};
  ok = load_loop_bounds(t, where, std::span(fields, has_step ? 3 : 2)) && ok;
  ok = load_unroll(t, where, f.unroll) && ok;
  const std::string name = var ? var->value : std::string();
  if (ok)
    f.var = std::move(*var);
  b_.begin_for(name, ok ? std::optional<tile::ForOp>(std::move(f)) : std::nullopt, op.pos);
}

/// op = "pipeline": a tile loop with S shared stages, its loads ([[op.load]],
/// cp.async applies) and its consumer ([[op.body]], copy and fill), expanded
/// by tile::expand_pipeline into plain ops (see emitter/tile/pipeline.hpp).
void Loader::load_pipeline(const toml::table& t, const std::string& where, const SourcePos& pos) {
  tile::Pipeline p;
  p.pos = pos;
  auto var = loop_var(t, where);
  bool ok = var.has_value();
  if (var)
    p.var = *var;
  const BoundField fields[] = {
      {"start", &p.start, "the first tile, e.g. start = 0"},
      {"stop", &p.stop, "the end of the tiles (exclusive), e.g. stop = \"k_tiles\""}};
  ok = load_loop_bounds(t, where, fields) && ok;
  ok = pipeline_scalars(t, where, p) && ok;
  auto stage = pipeline_stage_var(t, where, var ? var->value : std::string());
  ok = ok && stage.has_value();
  if (stage)
    p.stage_var = *stage;
  const std::string_view kind = first_load_kind(t);
  const bool ring = kind == "bulk_load" || kind == "tensor_load";
  std::optional<tile::Located<tile::ExprPtr>> offset;
  if (const toml::node* v = t.get("ring_offset"); v && ring) {
    offset = loop_bound(*v, "ring_offset", where);
    ok = offset.has_value() && ok;
  }
  // The loads and the consumer see the tile variable and the stage variable.
  const std::size_t open =
      b_.open_pipeline_vars(var ? var->value : std::string(), p.stage_var, pos);
  ok = pipeline_ring(t, where, ring, p) && ok;
  if (p.ring)
    p.ring->offset = std::move(offset);
  ok = pipeline_loads(t, where, p) && ok;
  ok = pipeline_body(t, where, p) && ok;
  ok = ok && pipeline_roles(t, where, p);
  b_.close_pipeline_vars(open);
  if (ok)
    b_.pipeline(std::move(p), at(t.source()));
}

bool Loader::pipeline_roles(const toml::table& t, const std::string& where, tile::Pipeline& p) {
  build::Builder::RoleKeys keys;
  const std::pair<std::string_view, std::optional<tile::Located<std::int64_t>>*> fields[] = {
      {"producer_warps", &keys.producer_warps},
      {"producer_regs", &keys.producer_regs},
      {"consumer_regs", &keys.consumer_regs},
      {"consumer_barrier", &keys.consumer_barrier}};
  bool ok = true;
  for (const auto& [key, out] : fields) {
    if (!t.get(key))
      continue;
    tile::Located<std::int64_t> v;
    if (read_field(t, where, key, v))
      *out = std::move(v);
    else
      ok = false;
  }
  // multicast = true: the cluster form; false is as if left out.
  if (const toml::node* v = t.get("multicast")) {
    bool on = false;
    if (!read_field(t, where, "multicast", on))
      ok = false;
    else if (on)
      keys.multicast = tile::Located<bool>{true, "true", pos_of(v->source().begin)};
  }
  return ok && b_.pipeline_roles(p, keys);
}

/// stages (required), step (1 if given) and unroll of a pipeline.
bool Loader::pipeline_scalars(const toml::table& t, const std::string& where, tile::Pipeline& p) {
  bool ok = true;
  if (const toml::node* v = t.get("stages")) {
    auto s = get_int(*v, "stages", where, "an integer, the shared buffers of the ring");
    if (s)
      s = b_.stages(*s, at(v->source()));
    ok = s.has_value();
    if (s)
      p.stages = *s;
  } else {
    missing(t, "stages", where, "the shared buffers of the ring, e.g. stages = 3");
    ok = false;
  }
  if (const toml::node* v = t.get("step")) {
    const auto* i = v->as_integer();
    ok = b_.pipeline_step(i ? std::optional(i->get()) : std::nullopt, at(v->source())) && ok;
  }
  ok = load_unroll(t, where, p.unroll) && ok;
  return ok;
}

/// The stage variable's name: `stage_var`, by default "stage"; a loop variable's rules.
std::optional<std::string>
Loader::pipeline_stage_var(const toml::table& t, const std::string& where, const std::string& var) {
  const toml::node* v = t.get("stage_var");
  std::string name(tile::kDefaultStageVar);
  if (v) {
    auto s = get_string(*v, "stage_var", where, "a string (the stage variable's name)");
    if (!s)
      return std::nullopt;
    name = *s;
  }
  const build::Text text = v ? text_of(*v, name) : build::Text{name, {}, false, 1};
  if (b_.stage_var(text, var, v != nullptr, at(t.get("op")->source())))
    return name;
  return std::nullopt;
}

/// The array of tables `key` of a pipeline (load or body), non-empty; else nullptr
/// after an error.
const toml::array* Loader::pipeline_tables(const toml::table& t, std::string_view key,
                                           const std::string& where, std::string_view expected) {
  const toml::node* n = t.get(key);
  const toml::array* a = n ? n->as_array() : nullptr;
  if (!n || (a && a->empty())) {
    missing(t, key, where, expected);
    return nullptr;
  }
  if (!a)
    wrong_type(*n, key, where, expected);
  return a;
}

std::string_view Loader::first_load_kind(const toml::table& t) {
  const toml::node* n = t.get("load");
  const toml::array* a = n ? n->as_array() : nullptr;
  const toml::table* first = a && !a->empty() ? a->get(0)->as_table() : nullptr;
  if (!first)
    return {};
  const toml::node* k = first->get("op");
  if (!k)
    return "apply";
  const auto* s = k->as_string();
  return s ? std::string_view(s->get()) : std::string_view();
}

bool Loader::pipeline_ring(const toml::table& t, const std::string& where, bool ring,
                           tile::Pipeline& p) {
  bool ok = true;
  std::optional<tile::Located<tile::View>> views[2];
  const std::string_view keys[] = {"full", "empty", "ring_offset"};
  for (std::size_t i = 0; i < 3; ++i) {
    const toml::node* v = t.get(keys[i]);
    const toml::node* place = v ? v : t.get("op");
    if (!b_.pipeline_ring_key(ring, keys[i], v != nullptr, at(place->source()))) {
      ok = false;
      continue;
    }
    if (i == 2 || !v)
      continue;
    views[i] = barrier_field_at(t, keys[i], where);
    ok = views[i] && b_.pipeline_ring_barrier(p, *views[i], keys[i], at(v->source())) && ok;
  }
  if (ok && ring)
    p.ring = tile::PipelineRing{std::move(*views[0]), std::move(*views[1]), std::nullopt, 1};
  return ok;
}

/// The [[op.load]] tables: cp.async applies or bulk / tensor loads whose dst depends on the
/// stage, all of one kind.
bool Loader::pipeline_loads(const toml::table& t, const std::string& where, tile::Pipeline& p) {
  const toml::array* loads = pipeline_tables(
      t, "load", where,
      "one or more [[op.load]] tables, the cp.async applies (or bulk_load / tensor_load ops) "
      "of one tile, e.g. dst = 'sA.sub[stage, tid, :]' and src = 'A.sub[k, tid, :]'");
  if (!loads)
    return false;
  bool ok = true;
  std::size_t index = 0;
  const std::string_view first = first_load_kind(t);
  for (const toml::node& e : *loads) {
    const std::string w = where + " [[op.load]] " + std::to_string(++index);
    const toml::table* lt = e.as_table();
    if (!lt) {
      type_error(e, w + " must be a table; got " + type_phrase(e.type()));
      ok = false;
      continue;
    }
    std::string kind = "apply";
    if (const toml::node* k = lt->get("op")) {
      auto s =
          get_string(*k, "op", w, "\"apply\" (or no op key), \"bulk_load\" or \"tensor_load\"");
      if (!s || !b_.pipeline_load_kind(*s, index == 1 ? "" : first, at(k->source()))) {
        ok = false;
        continue;
      }
      kind = *s;
    } else if (!b_.pipeline_load_kind(kind, index == 1 ? "" : first, at(lt->source()))) {
      ok = false;
      continue;
    }
    ok = pipeline_load(*lt, kind, w, p) && ok;
  }
  return ok;
}

bool Loader::pipeline_load(const toml::table& lt, std::string_view kind, const std::string& w,
                           tile::Pipeline& p) {
  const toml::node* dst = lt.get("dst");
  if (kind == "apply") {
    check_keys(lt, tile::op_keys(tile::op_index<tile::ApplyOp>), w);
    tile::ApplyOp a;
    if (!load_apply(lt, w, a) || !b_.pipeline_load_stage(p, a.dst.value, at(dst->source())))
      return false;
    p.loads.push_back(tile::Op{std::move(a), pos_of(lt.source().begin)});
    return true;
  }
  if (!p.ring)
    return false; // its keys were refused
  ring_full_ = &p.ring->full;
  check_keys(lt, tile::op_keys(tile::find_op(kind)), w);
  tile::Op op{{}, pos_of(lt.source().begin), {}};
  const bool ok = kind == "bulk_load" ? read_op<tile::BulkLoadOp>(lt, w, op)
                                      : read_op<tile::TensorLoadOp>(lt, w, op);
  ring_full_ = nullptr;
  if (!ok)
    return false;
  const tile::View& v = kind == "bulk_load" ? std::get<tile::BulkLoadOp>(op.body).dst.value
                                            : std::get<tile::TensorLoadOp>(op.body).dst.value;
  if (!b_.pipeline_load_stage(p, v, at(dst->source())))
    return false;
  p.loads.push_back(std::move(op));
  return true;
}

/// The [[op.body]] tables: the consumer of one tile, copy and fill ops.
bool Loader::pipeline_body(const toml::table& t, const std::string& where, tile::Pipeline& p) {
  const toml::array* body = pipeline_tables(
      t, "body", where,
      "one or more [[op.body]] tables, the consumer of one tile, e.g. op = \"copy\", "
      "dst = 'B.sub[k, tid, :]', src = 'sA.sub[stage, tid, :]'");
  if (!body)
    return false;
  bool ok = true;
  std::size_t index = 0;
  for (const toml::node& e : *body) {
    const std::string w = where + " [[op.body]] " + std::to_string(++index);
    const toml::table* bt = e.as_table();
    const toml::node* kind = bt ? bt->get("op") : nullptr;
    const auto* name = kind ? kind->as_string() : nullptr;
    if (name && !b_.pipeline_body_kind(name->get(), at(kind->source()))) {
      ok = false;
      continue;
    }
    if (!bt) {
      type_error(e, w + " must be a table; got " + type_phrase(e.type()));
      ok = false;
      continue;
    }
    const std::size_t before = p.body.size();
    load_op(*bt, w, &p.body);
    ok = p.body.size() != before && ok;
  }
  return ok;
}

std::optional<tile::Located<tile::View>>
Loader::view_field(const toml::table& t, std::string_view key, const std::string& where) {
  constexpr std::string_view expected = "a view string such as \"shared.sub[tid, :]\"";
  const toml::node* v = nullptr;
  auto s = required_string(t, key, where, expected, expected, v);
  if (!s)
    return std::nullopt;
  return b_.view(text_of(*v, *s));
}

/// src_size (integer or expression), ignore_src / pred (boolean or expression);
/// `axes` are the repeat-axis names the expression may use.
std::optional<tile::Located<tile::ExprPtr>>
Loader::expr_field(const toml::node& v, std::string_view key, const std::string& where,
                   bool is_size, const std::map<std::string, std::size_t, std::less<>>& axes) {
  if (is_size) {
    if (const auto* i = v.as_integer()) {
      std::string text = std::to_string(i->get());
      return tile::Located<tile::ExprPtr>{tile::make_constant(i->get()), text,
                                          pos_of(v.source().begin)};
    }
  } else if (const auto* b = v.as_boolean()) {
    return tile::Located<tile::ExprPtr>{tile::make_constant(b->get() ? 1 : 0),
                                        b->get() ? "true" : "false", pos_of(v.source().begin)};
  }
  const auto* s = v.as_string();
  if (!s) {
    wrong_type(v, key, where,
               is_size ? "an integer or an expression string such as "
                         "\"tid < valid_rows ? 16 : 0\""
                       : "a boolean or an expression string such as \"tid < valid_rows\"");
    return std::nullopt;
  }
  return b_.expr(text_of(v, s->get()), &axes);
}

bool Loader::load_apply(const toml::table& t, const std::string& where, tile::ApplyOp& a) {
  bool ok = true;

  if (const toml::node* v = t.get("opcode")) {
    if (auto s = get_string(*v, "opcode", where,
                            "an opcode string such as \"cp.async.cg.shared.global\"")) {
      const StringLoc loc = locate_string(*v);
      auto r = ptx::parse_opcode(*s);
      if (r) {
        a.opcode = {*r, *s, loc.pos};
      } else {
        // A qualifier missing from the opcode ("missing cache operator") is reported by the
        // parser just past the end; the whole opcode lacks it, so underline the whole opcode.
        Diagnostics ds;
        for (Diagnostic d : r.diagnostics.items()) {
          if (d.line == 1 && d.column > s->size() && !s->empty()) {
            d.column = 1;
            d.length = static_cast<std::uint32_t>(s->size());
          }
          ds.add(std::move(d));
        }
        add_inner(ds, loc);
        ok = false;
      }
    } else {
      ok = false;
    }
  } else {
    missing(t, "opcode", where, "a cp.async opcode string such as \"cp.async.cg.shared.global\"");
    ok = false;
  }

  auto dst = view_field(t, "dst", where);
  auto src = view_field(t, "src", where);
  if (dst)
    a.dst = std::move(*dst);
  if (src)
    a.src = std::move(*src);
  ok = ok && dst && src;

  if (const toml::node* v = t.get("chunk_bytes")) {
    if (const auto* i = v->as_integer()) {
      a.chunk_bytes = {i->get(), std::to_string(i->get()), pos_of(v->source().begin)};
    } else {
      type_error(*v, "chunk_bytes must be an integer literal (4, 8 or 16), not " +
                         std::string(type_phrase(v->type())) +
                         "; it is a constant of the instruction");
      ok = false;
    }
  } else {
    missing(t, "chunk_bytes", where,
            "an integer literal 4, 8 or 16; no width is inferred from the layout");
    ok = false;
  }

  if (const toml::node* v = t.get("scope")) {
    auto s = get_string(*v, "scope", where, "\"thread\" or \"cta\"");
    auto scope = s ? b_.scope(*s, at(v->source())) : std::nullopt;
    if (scope)
      a.scope = *scope;
    else
      ok = false;
  }

  const auto axes = tile::repeat_axis_names(a);
  for (std::string_view key :
       {std::string_view("src_size"), std::string_view("ignore_src"), std::string_view("pred")}) {
    const toml::node* v = t.get(key);
    if (!v)
      continue;
    auto e = expr_field(*v, key, where, key == "src_size", axes);
    if (!e) {
      ok = false;
      continue;
    }
    if (key == "src_size")
      a.src_size = std::move(e);
    else if (key == "ignore_src")
      a.ignore_src = std::move(e);
    else
      a.pred = std::move(e);
  }
  const toml::key* size_key = key_of(t, "src_size");
  const toml::key* ignore_key = key_of(t, "ignore_src");
  if (size_key && ignore_key) {
    const build::At size_at = at(size_key->source());
    const build::At ignore_at = at(ignore_key->source());
    ok = b_.operand_forms(&size_at, &ignore_at) && ok;
  }

  if (const toml::node* v = t.get("cache_policy")) {
    if (auto p = cache_policy_field(*v, where))
      a.cache_policy = std::move(p);
    else
      ok = false;
  }
  return ok;
}

} // namespace ptxgen::driver::toml_reader
