// The TOML reader's part of the sm_90 bulk-copy family: a global tensor's
// [tensor.NAME.map] table, a shared tensor's `swizzle`, and the ops bulk_load,
// bulk_store, bulk_commit, bulk_wait, proxy_fence, expect_tx, tensor_load and
// tensor_store. Syntax only: every rule is the builder's (emitter/builder/bulk_rules.cpp).

#include "driver/toml/reader.hpp"

namespace ptxgen::driver::toml_reader {

namespace {

/// The spellings of an enum's values, for messages and suggestions.
template <class Table, class Name>
std::vector<std::string_view> spellings(const Table& table, Name name) {
  std::vector<std::string_view> out;
  for (const auto& row : table.values)
    out.push_back(name(row));
  return out;
}

std::vector<std::string_view> swizzle_spellings() {
  return spellings(tile::swizzle_rows, [](const tile::SwizzleRow& r) { return r.name; });
}

template <class E, std::size_t N>
std::vector<std::string_view> name_spellings(const EnumNames<E, N>& table) {
  return spellings(table, [](std::string_view s) { return s; });
}

} // namespace

template <class E>
std::optional<E> Loader::enum_word(const toml::node& v, std::string_view key,
                                   const std::string& where,
                                   std::span<const std::string_view> choices, DiagId id) {
  auto s = get_string(v, key, where, "one of: " + join(choices));
  if (!s)
    return std::nullopt;
  for (std::size_t k = 0; k < choices.size(); ++k)
    if (choices[k] == *s)
      return static_cast<E>(k);
  error_at(id, v.source(),
           squote(key) + " must be one of: " + join(choices) + "; got " + squote(*s) +
               did_you_mean(*s, choices));
  return std::nullopt;
}

std::optional<tile::TensorMapSwizzle> Loader::swizzle_word(const toml::node& v,
                                                           const std::string& where) {
  const auto choices = swizzle_spellings();
  return enum_word<tile::TensorMapSwizzle>(v, "swizzle", where, choices);
}

/// A list of integers, one per dimension (`box`, `element_strides`).
std::optional<std::vector<build::Dim>> Loader::dim_list(const toml::node& v, std::string_view key,
                                                        const std::string& where) {
  const toml::array* a = v.as_array();
  if (!a) {
    wrong_type(v, key, where, "an array of integers, one per dimension, outermost first");
    return std::nullopt;
  }
  std::vector<build::Dim> out;
  bool ok = true;
  for (const toml::node& e : *a) {
    if (const auto* i = e.as_integer())
      out.push_back(build::Dim{i->get(), at(e.source())});
    else {
      type_error(e, squote(key) + " in " + where + " holds integers; got " +
                        std::string(type_phrase(e.type())));
      ok = false;
    }
  }
  if (!ok)
    return std::nullopt;
  return out;
}

build::TensorMapDecl Loader::load_tensor_map(const toml::node& n, const std::string& tensor) {
  const std::string where = "[tensor." + tensor + ".map]";
  build::TensorMapDecl m;
  m.at = at(n.source());
  const toml::table* t = n.as_table();
  if (!t) {
    type_error(n, "'map' of a tensor must be a table ([tensor." + tensor + ".map]); got " +
                      type_phrase(n.type()));
    m.syntax_ok = false;
    return m;
  }
  check_keys(*t, kTensorMapKeys, where);
  if (const toml::node* v = t->get("box")) {
    m.box_at = at(v->source());
    m.box = dim_list(*v, "box", where);
    m.syntax_ok = m.box.has_value() && m.syntax_ok;
  }
  if (const toml::node* v = t->get("element_strides")) {
    m.element_strides_at = at(v->source());
    m.element_strides = dim_list(*v, "element_strides", where);
    m.syntax_ok = m.element_strides.has_value() && m.syntax_ok;
  }
  if (const toml::node* v = t->get("swizzle")) {
    m.swizzle_at = at(v->source());
    m.swizzle = swizzle_word(*v, where);
    m.syntax_ok = m.swizzle.has_value() && m.syntax_ok;
  }
  if (const toml::node* v = t->get("oob_fill")) {
    m.oob_fill_at = at(v->source());
    const auto choices = name_spellings(tile::oob_fill_names);
    m.oob_fill = enum_word<tile::TensorMapOobFill>(*v, "oob_fill", where, choices);
    m.syntax_ok = m.oob_fill.has_value() && m.syntax_ok;
  }
  if (const toml::node* v = t->get("l2_promotion")) {
    m.l2_promotion_at = at(v->source());
    const auto choices = name_spellings(tile::l2_promotion_names);
    m.l2_promotion = enum_word<tile::TensorMapL2Promotion>(*v, "l2_promotion", where, choices);
    m.syntax_ok = m.l2_promotion.has_value() && m.syntax_ok;
  }
  load_im2col_keys(*t, where, m);
  return m;
}

/// An im2col map's keys: `mode`, the corners, `channels` and `pixels` (their rules are the
/// builder's).
void Loader::load_im2col_keys(const toml::table& t, const std::string& where,
                              build::TensorMapDecl& m) {
  if (const toml::node* v = t.get("mode")) {
    m.mode_at = at(v->source());
    const auto choices = name_spellings(tile::tensor_map_mode_names);
    m.mode = enum_word<tile::TensorMapMode>(*v, "mode", where, choices);
    m.syntax_ok = m.mode.has_value() && m.syntax_ok;
  }
  const auto corner = [&](std::string_view key, std::optional<std::vector<build::Dim>>& out,
                          build::At& out_at) {
    if (const toml::node* v = t.get(key)) {
      out_at = at(v->source());
      out = dim_list(*v, key, where);
      m.syntax_ok = out.has_value() && m.syntax_ok;
    }
  };
  corner("lower_corner", m.lower_corner, m.lower_corner_at);
  corner("upper_corner", m.upper_corner, m.upper_corner_at);
  const auto count = [&](std::string_view key, std::optional<std::int64_t>& out, build::At& out_at,
                         const std::string& what) {
    if (const toml::node* v = t.get(key)) {
      out_at = at(v->source());
      out = get_int(*v, key, where, what);
      m.syntax_ok = out.has_value() && m.syntax_ok;
    }
  };
  count("channels", m.channels, m.channels_at, "an integer (channels per pixel, 1..256)");
  count("pixels", m.pixels, m.pixels_at, "an integer (pixels per copy, 1..1024)");
}

/// A tensor op's `coords`: one expression (or integer) per dimension, outermost first.
std::optional<std::vector<tile::Located<tile::ExprPtr>>>
Loader::coords_field(const toml::table& t, const std::string& where) {
  const toml::node* v = t.get("coords");
  if (!v) {
    missing(t, "coords", where,
            "the box's first element, one coordinate per dimension, e.g. coords = [\"k * 64\", 0]");
    return std::nullopt;
  }
  return expr_list(*v, "coords", where);
}

/// A list of expressions (or integers): `coords`, an im2col load's `offsets`.
std::optional<std::vector<tile::Located<tile::ExprPtr>>>
Loader::expr_list(const toml::node& v, std::string_view key, const std::string& where) {
  const toml::array* a = v.as_array();
  if (!a) {
    wrong_type(v, key, where, "an array of integers or expression strings");
    return std::nullopt;
  }
  const std::map<std::string, std::size_t, std::less<>> no_axes;
  std::vector<tile::Located<tile::ExprPtr>> out;
  bool ok = true;
  for (const toml::node& e : *a) {
    auto c = expr_field(e, key, where, true, no_axes);
    ok = c.has_value() && ok;
    if (c)
      out.push_back(std::move(*c));
  }
  if (!ok)
    return std::nullopt;
  return out;
}

/// `pred` and `cache_policy`, which every bulk and tensor copy may have, and a load's
/// `multicast` (its CTA mask, an integer or expression).
template <class Op>
bool Loader::load_issue_keys(const toml::table& t, const std::string& where, Op& op) {
  bool ok = read_field(t, where, "pred", op.pred);
  const std::map<std::string, std::size_t, std::less<>> no_axes;
  if constexpr (requires { op.multicast; }) {
    if (const toml::node* v = t.get("multicast")) {
      op.multicast = expr_field(*v, "multicast", where, true, no_axes);
      ok = op.multicast.has_value() && ok;
    }
  }
  if (const toml::node* v = t.get("cache_policy")) {
    op.cache_policy = cache_policy_field(*v, where);
    ok = op.cache_policy.has_value() && ok;
  }
  return ok;
}

/// A view key of a bulk or tensor op, in the space the op needs.
std::optional<tile::Located<tile::View>> Loader::bulk_view(const toml::table& t,
                                                           std::string_view key, tile::Space space,
                                                           const std::string& where) {
  auto v = view_field(t, key, where);
  if (v && !b_.bulk_space(v->value, space, key, at(t.get(key)->source())))
    return std::nullopt;
  return v;
}

/// A `barrier` key: a view of a shared tensor.
std::optional<tile::Located<tile::View>> Loader::barrier_field(const toml::table& t,
                                                               const std::string& where) {
  if (ring_full_) {
    // A ring pipeline's load completes on the pipeline's full barrier of its stage.
    if (const toml::node* v = t.get("barrier")) {
      b_.pipeline_load_barrier(at(v->source()));
      return std::nullopt;
    }
    return *ring_full_;
  }
  return barrier_field_at(t, "barrier", where);
}

std::optional<tile::Located<tile::View>>
Loader::barrier_field_at(const toml::table& t, std::string_view key, const std::string& where) {
  auto v = view_field(t, key, where);
  if (v && !b_.barrier(v->value, at(t.get(key)->source())))
    return std::nullopt;
  return v;
}

/// `tensor` and `coords` of a tensor op; nullptr after an error (reported).
const tile::TensorDecl* Loader::tensor_operand(const toml::table& t, const std::string& where,
                                               tile::Located<std::string>& name,
                                               std::vector<tile::Located<tile::ExprPtr>>& coords) {
  const toml::node* v = nullptr;
  auto s = required_string(t, "tensor", where, "the global tensor whose map the copy uses",
                           "a tensor's name", v);
  auto c = coords_field(t, where);
  if (!s)
    return nullptr;
  const build::Text text = text_of(*v, *s);
  const tile::TensorDecl* d = b_.mapped_tensor(text);
  if (!d || !c || !b_.tensor_coords(*d, c->size(), at(t.get("coords")->source())))
    return nullptr;
  name = {*s, *s, text.pos};
  coords = std::move(*c);
  return d;
}

template <>
bool Loader::read_op<tile::BulkLoadOp>(const toml::table& t, const std::string& where,
                                       tile::Op& op) {
  tile::BulkLoadOp b;
  auto dst = bulk_view(t, "dst", tile::Space::shared, where);
  auto src = bulk_view(t, "src", tile::Space::global, where);
  auto bar = barrier_field(t, where);
  const bool keys = load_issue_keys(t, where, b);
  if (!dst || !src || !bar || !keys)
    return false;
  b.dst = std::move(*dst);
  b.src = std::move(*src);
  b.barrier = std::move(*bar);
  op.body = std::move(b);
  return true;
}

/// bulk_copy_peer: shared dst (a peer's, S@rank) and src (the CTA's own), the peer's barrier
/// and `pred`; which views are a peer's is the builder's rule (spec_peer_copy_rank).
template <>
bool Loader::read_op<tile::BulkCopyPeerOp>(const toml::table& t, const std::string& where,
                                           tile::Op& op) {
  tile::BulkCopyPeerOp b;
  auto dst = bulk_view(t, "dst", tile::Space::shared, where);
  auto src = bulk_view(t, "src", tile::Space::shared, where);
  auto bar = barrier_field_at(t, "barrier", where);
  const bool ok = read_field(t, where, "pred", b.pred);
  if (!dst || !src || !bar || !ok)
    return false;
  b.dst = std::move(*dst);
  b.src = std::move(*src);
  b.barrier = std::move(*bar);
  op.body = std::move(b);
  return true;
}

template <>
bool Loader::read_op<tile::BulkStoreOp>(const toml::table& t, const std::string& where,
                                        tile::Op& op) {
  tile::BulkStoreOp b;
  auto dst = bulk_view(t, "dst", tile::Space::global, where);
  auto src = bulk_view(t, "src", tile::Space::shared, where);
  const bool keys = load_issue_keys(t, where, b);
  if (!dst || !src || !keys)
    return false;
  b.dst = std::move(*dst);
  b.src = std::move(*src);
  op.body = std::move(b);
  return true;
}

/// A reduction's `reduce` (required; a wrong word is spec_reduce_kind, at the string, whose
/// position the contract's type rule shows too).
bool Loader::reduce_key(const toml::table& t, const std::string& where, tile::ReduceKind& out,
                        tile::SourcePos& pos) {
  const toml::node* v = t.get("reduce");
  if (!v) {
    missing(t, "reduce", where, "one of: " + join(name_spellings(tile::reduce_kind_names)));
    return false;
  }
  const auto choices = name_spellings(tile::reduce_kind_names);
  const auto k =
      enum_word<tile::ReduceKind>(*v, "reduce", where, choices, DiagId::spec_reduce_kind);
  out = k.value_or(out);
  pos = pos_of(v->source().begin);
  return k.has_value();
}

/// bulk_reduce: bulk_store's keys and its `reduce` (required; a wrong word is
/// spec_reduce_kind, at the string, whose position the contract's type rule shows too).
template <>
bool Loader::read_op<tile::BulkReduceOp>(const toml::table& t, const std::string& where,
                                         tile::Op& op) {
  tile::BulkReduceOp b;
  auto dst = bulk_view(t, "dst", tile::Space::global, where);
  auto src = bulk_view(t, "src", tile::Space::shared, where);
  bool ok = load_issue_keys(t, where, b);
  ok = reduce_key(t, where, b.reduce, b.reduce_pos) && ok;
  if (!dst || !src || !ok)
    return false;
  b.dst = std::move(*dst);
  b.src = std::move(*src);
  op.body = std::move(b);
  return true;
}

/// proxy_fence's `space` (a wrong word is spec_proxy_fence_space, at the string).
bool Loader::read_field(const toml::table& t, const std::string& where, std::string_view key,
                        tile::FenceSpace& out) {
  const toml::node* v = t.get(key);
  if (!v)
    return true; // the member's default
  const auto choices = name_spellings(tile::fence_space_names);
  const auto s =
      enum_word<tile::FenceSpace>(*v, key, where, choices, DiagId::spec_proxy_fence_space);
  out = s.value_or(out);
  return s.has_value();
}

/// setmaxnreg's `action` (a wrong word is spec_setmaxnreg_action, at the string).
bool Loader::read_field(const toml::table& t, const std::string& where, std::string_view key,
                        tile::RegAction& out) {
  const toml::node* v = t.get(key);
  if (!v) {
    missing(t, key, where, "\"inc\" or \"dec\"");
    return false;
  }
  const auto choices = name_spellings(tile::reg_action_names);
  const auto a =
      enum_word<tile::RegAction>(*v, key, where, choices, DiagId::spec_setmaxnreg_action);
  out = a.value_or(out);
  return a.has_value();
}

template <>
bool Loader::read_op<tile::BulkWaitOp>(const toml::table& t, const std::string& where,
                                       tile::Op& op) {
  tile::BulkWaitOp w;
  const auto n = pending_groups(t, where, "bulk groups");
  bool ok = n.has_value();
  w.n = n.value_or(0);
  ok = read_field(t, where, "read", w.read) && ok;
  op.body = w;
  return ok;
}

template <>
bool Loader::read_op<tile::ExpectTxOp>(const toml::table& t, const std::string& where,
                                       tile::Op& op) {
  tile::ExpectTxOp e;
  auto bar = barrier_field(t, where);
  bool ok = bar.has_value();
  const std::map<std::string, std::size_t, std::less<>> no_axes;
  if (const toml::node* v = t.get("bytes")) {
    auto b = expr_field(*v, "bytes", where, true, no_axes);
    ok = b.has_value() && ok;
    if (b)
      e.bytes = std::move(*b);
  } else {
    missing(t, "bytes", where, "the transaction bytes the phase waits for, e.g. bytes = 4096");
    ok = false;
  }
  ok = read_field(t, where, "arrive", e.arrive) && ok;
  ok = read_field(t, where, "pred", e.pred) && ok;
  if (!ok)
    return false;
  e.barrier = std::move(*bar);
  op.body = std::move(e);
  return true;
}

template <>
bool Loader::read_op<tile::TensorLoadOp>(const toml::table& t, const std::string& where,
                                         tile::Op& op) {
  tile::TensorLoadOp l;
  const tile::TensorDecl* d = tensor_operand(t, where, l.tensor, l.coords);
  bool offsets = true;
  if (const toml::node* v = t.get("offsets")) {
    l.offsets = expr_list(*v, "offsets", where);
    offsets = l.offsets.has_value();
  }
  if (d && offsets) {
    const toml::node* v = t.get("offsets");
    offsets = b_.im2col_offsets(*d, l.offsets ? std::optional(l.offsets->size()) : std::nullopt,
                                at((v ? *v : static_cast<const toml::node&>(t)).source()));
  }
  auto dst = bulk_view(t, "dst", tile::Space::shared, where);
  auto bar = barrier_field(t, where);
  const bool keys = load_issue_keys(t, where, l);
  const bool map = map_slot_field(t, where, l.map);
  if (!d || !offsets || !dst || !bar || !keys || !map)
    return false;
  l.dst = std::move(*dst);
  l.barrier = std::move(*bar);
  op.body = std::move(l);
  return true;
}

template <typename Op>
bool Loader::tensor_store_keys(const toml::table& t, const std::string& where, Op& op) {
  const tile::TensorDecl* d = tensor_operand(t, where, op.tensor, op.coords);
  // a store or a reduction goes through a tile map (`.im2col_no_offs` is not declared)
  const bool target = d && b_.im2col_offsets(*d, std::nullopt, at(t.get("tensor")->source()), true);
  auto src = bulk_view(t, "src", tile::Space::shared, where);
  const bool keys = load_issue_keys(t, where, op);
  if (!target || !src || !keys)
    return false;
  op.src = std::move(*src);
  return true;
}

template <>
bool Loader::read_op<tile::TensorStoreOp>(const toml::table& t, const std::string& where,
                                          tile::Op& op) {
  tile::TensorStoreOp st;
  const bool keys = tensor_store_keys(t, where, st);
  const bool map = map_slot_field(t, where, st.map);
  if (!keys || !map)
    return false;
  op.body = std::move(st);
  return true;
}

/// tensor_reduce: tensor_store's keys and its `reduce` (as bulk_reduce's).
template <>
bool Loader::read_op<tile::TensorReduceOp>(const toml::table& t, const std::string& where,
                                           tile::Op& op) {
  tile::TensorReduceOp r;
  const bool keys = tensor_store_keys(t, where, r);
  const bool reduce = reduce_key(t, where, r.reduce, r.reduce_pos);
  if (!keys || !reduce)
    return false;
  op.body = std::move(r);
  return true;
}

// --- tensor maps in memory: tensormap_copy, tensormap_replace, tensormap_fence, and the
// `map` key of tensor_load / tensor_store

/// An optional view key naming a map slot (`map`, tensormap_copy's `src`).
bool Loader::map_slot_field(const toml::table& t, const std::string& where,
                            std::optional<tile::Located<tile::View>>& out, std::string_view key) {
  if (t.get(key) == nullptr)
    return true;
  auto v = view_field(t, key, where);
  if (v)
    out = std::move(*v);
  return v.has_value();
}

/// `tensor`: the global tensor with a map whose map the op's slot holds.
bool Loader::mapped_name(const toml::table& t, const std::string& where,
                         tile::Located<std::string>& out) {
  const toml::node* v = nullptr;
  auto s = required_string(t, "tensor", where, "the global tensor whose map the slot holds",
                           "a tensor's name", v);
  if (!s)
    return false;
  const build::Text text = text_of(*v, *s);
  if (b_.mapped_tensor(text) == nullptr)
    return false;
  out = {*s, *s, text.pos};
  return true;
}

template <>
bool Loader::read_op<tile::TensormapCopyOp>(const toml::table& t, const std::string& where,
                                            tile::Op& op) {
  tile::TensormapCopyOp c;
  bool ok = mapped_name(t, where, c.tensor);
  auto dst = view_field(t, "dst", where);
  ok = map_slot_field(t, where, c.src, "src") && ok;
  ok = read_field(t, where, "pred", c.pred) && ok;
  if (!dst || !ok)
    return false;
  c.dst = std::move(*dst);
  op.body = std::move(c);
  return true;
}

/// tensormap_replace: `field` (a wrong or unmodelled word is spec_tensormap_field, at the
/// string), `dim` and `value` for global_dim / global_stride, `address` for global_address.
template <>
bool Loader::read_op<tile::TensormapReplaceOp>(const toml::table& t, const std::string& where,
                                               tile::Op& op) {
  tile::TensormapReplaceOp r;
  bool ok = mapped_name(t, where, r.tensor);
  auto map = view_field(t, "map", where);
  const std::map<std::string, std::size_t, std::less<>> no_axes;
  if (const toml::node* v = t.get("field")) {
    const auto s = get_string(*v, "field", where, "global_address, global_dim or global_stride");
    r.field_pos = pos_of(v->source().begin);
    const auto f = s ? b_.tensormap_field_word(*s, at(v->source())) : std::nullopt;
    ok = f.has_value() && ok;
    r.field = f.value_or(r.field);
  } else {
    missing(t, "field", where, "global_address, global_dim or global_stride");
    ok = false;
  }
  r.dim_pos = r.field_pos;
  if (const toml::node* v = t.get("dim")) {
    const auto d = get_int(*v, "dim", where, "an integer (a dimension, outermost 0)");
    ok = d.has_value() && ok;
    r.dim = d.value_or(0);
    r.dim_pos = pos_of(v->source().begin);
  }
  if (const toml::node* v = t.get("value")) {
    r.value = expr_field(*v, "value", where, true, no_axes);
    ok = r.value.has_value() && ok;
  }
  if (const toml::node* v = t.get("address")) {
    const auto a = get_string(*v, "address", where, "a global tensor's name");
    ok = a.has_value() && ok;
    if (a)
      r.address = tile::Located<std::string>{*a, *a, text_of(*v, *a).pos};
  }
  ok = read_field(t, where, "pred", r.pred) && ok;
  if (!map || !ok)
    return false;
  if (!b_.tensormap_operands(r, at(t.source())))
    return false;
  r.map = std::move(*map);
  op.body = std::move(r);
  return true;
}

template <>
bool Loader::read_op<tile::TensormapFenceOp>(const toml::table& t, const std::string& where,
                                             tile::Op& op) {
  tile::TensormapFenceOp f;
  auto map = view_field(t, "map", where);
  bool ok = true;
  if (const toml::node* v = t.get("sem")) {
    const auto choices = name_spellings(tile::tensormap_sem_names);
    const auto s =
        enum_word<tile::TensormapSem>(*v, "sem", where, choices, DiagId::spec_tensormap_sem);
    ok = s.has_value();
    f.sem = s.value_or(f.sem);
    f.sem_pos = pos_of(v->source().begin);
  } else {
    missing(t, "sem", where, "release or acquire");
    ok = false;
  }
  ok = read_field(t, where, "pred", f.pred) && ok;
  if (!map || !ok)
    return false;
  f.map = std::move(*map);
  op.body = std::move(f);
  return true;
}

/// prefetch_tensormap: `tensor` (a global tensor with a map) and an optional `pred`.
template <>
bool Loader::read_op<tile::PrefetchTensormapOp>(const toml::table& t, const std::string& where,
                                                tile::Op& op) {
  tile::PrefetchTensormapOp p;
  const toml::node* v = nullptr;
  auto s = required_string(t, "tensor", where, "the global tensor whose map is prefetched",
                           "a tensor's name", v);
  bool ok = s.has_value();
  if (s) {
    const build::Text text = text_of(*v, *s);
    ok = b_.mapped_tensor(text) != nullptr;
    p.tensor = {*s, *s, text.pos};
  }
  ok = read_field(t, where, "pred", p.pred) && ok;
  if (!ok)
    return false;
  op.body = std::move(p);
  return true;
}

} // namespace ptxgen::driver::toml_reader
