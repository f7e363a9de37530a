// The spec model: names, printing as TOML, and the shrinker's hooks (units,
// simplifications, complexity). The families that fill a model are in gen_families.cpp.

#include "driver/fuzz/generator.hpp"

#include "driver/fuzz/gen_build.hpp"
#include "emitter/builder/builder.hpp"
#include "emitter/support/enum_names.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <utility>
#include <variant>

namespace ptxgen::driver::fuzz {

std::string_view name(Family f) {
  static constexpr auto names =
      enum_names<Family::cluster>("tile", "loop", "pipeline", "mbarrier", "bulk", "cluster");
  return name_of(names, f);
}

std::string_view name(Feature f) {
  switch (f) {
#define PTXGEN_FUZZ_FEATURE_NAME(n)                                                                \
  case Feature::n:                                                                                 \
    return #n;
    PTXGEN_FUZZ_FEATURES(PTXGEN_FUZZ_FEATURE_NAME)
#undef PTXGEN_FUZZ_FEATURE_NAME
  }
  return "?";
}

std::int64_t ModelTensor::bytes() const {
  std::int64_t n = dtype.bytes;
  for (auto d : shape)
    n *= d;
  return n;
}

bool SpecModel::has(Feature f) const {
  return std::find(features.begin(), features.end(), f) != features.end();
}

ModelParts parts_of(SpecModel& m) {
  ModelParts e;
  for (auto& op : m.ops) {
    if (auto* a = std::get_if<ModelApply>(&op.body))
      e.applies.push_back(a);
    else if (auto* f = std::get_if<ModelFor>(&op.body))
      e.loops.push_back(f);
    else if (auto* c = std::get_if<ModelCopyArrive>(&op.body))
      e.arrives.push_back(c);
    else if (auto* w = std::get_if<ModelWaitGroup>(&op.body))
      e.wait_groups.push_back(w);
    else if (auto* i = std::get_if<ModelMbarrierInit>(&op.body))
      e.mbarrier_inits.push_back(i);
    else if (auto* p = std::get_if<ModelPipeline>(&op.body)) {
      e.pipelines.push_back(p);
      e.loops.push_back(&p->loop);
      for (auto& l : p->loads)
        e.applies.push_back(&l);
    }
  }
  return e;
}

// ---------------------------------------------------------------------------------------
// Printing

namespace {

std::string int_list(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string launch_value(const std::vector<std::int64_t>& v, bool as_array) {
  if (v.size() == 1 && !as_array)
    return std::to_string(v[0]);
  return int_list(v);
}

constexpr char hex_digits[] = "0123456789ABCDEF";

std::string hex64(std::uint64_t v) {
  std::string s = "0x";
  for (int shift = 60; shift >= 0; shift -= 4)
    s += hex_digits[(v >> shift) & 0xF];
  return s;
}

/// A TOML basic string (generated text holds no double quote or backslash).
std::string quote(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

/// The TOML keys of one op, in the order the generator has always written them.
class KeyPrinter {
public:
  explicit KeyPrinter(std::ostringstream& os) : os_(os) {}

  void kind(std::string_view k) { os_ << "op = " << quote(k) << "\n"; }
  void key(std::string_view k, const std::string& toml) { os_ << k << " = " << toml << "\n"; }
  void key(std::string_view k, std::int64_t v) { key(k, std::to_string(v)); }
  /// Views are TOML literal strings: they hold double quotes.
  void key(std::string_view k, const ViewText& v) { key(k, "'" + v.text + "'"); }
  void key(std::string_view k, const ExprText& e) { key(k, quote(e.text)); }
  void key(std::string_view k, const IntOrExpr& v) {
    if (const auto* i = std::get_if<std::int64_t>(&v))
      key(k, *i);
    else
      key(k, std::get<ExprText>(v));
  }
  void key(std::string_view k, const BoolOrExpr& v) {
    if (const auto* b = std::get_if<bool>(&v))
      key(k, std::string(*b ? "true" : "false"));
    else
      key(k, std::get<ExprText>(v));
  }

  void operator()(const ModelApply& a) {
    // A pipeline's [[op.load]] has no `op` key: print() of the pipeline writes those.
    kind("apply");
    apply_keys(a);
  }
  void apply_keys(const ModelApply& a) {
    key("opcode", quote(ptx::print(a.opcode)));
    key("dst", a.dst);
    key("src", a.src);
    key("chunk_bytes", a.chunk_bytes);
    if (a.scope)
      key("scope", quote(scope_spelling(*a.scope)));
    if (a.src_size)
      key("src_size", *a.src_size);
    if (a.ignore_src)
      key("ignore_src", *a.ignore_src);
    if (a.pred)
      key("pred", *a.pred);
    if (a.cache_policy)
      key("cache_policy", std::visit(*this, *a.cache_policy));
    for (const auto& u : a.unknown)
      key(u.key, u.value);
  }
  std::string operator()(const PolicyParam& p) {
    switch (p.spelling) {
    case PolicyParam::Spelling::bare:
      return quote(p.name);
    case PolicyParam::Spelling::prefixed:
      return quote("param:" + p.name);
    case PolicyParam::Spelling::table:
      return "{ param = " + quote(p.name) + " }";
    }
    return quote(p.name);
  }
  std::string operator()(const PolicyCreate& c) {
    if (c.table) {
      std::string s = "{ primary = " + quote(c.primary);
      if (c.secondary)
        s += ", secondary = " + quote(*c.secondary);
      if (c.fraction)
        s += ", fraction = " + std::string(*c.fraction);
      return s + " }";
    }
    return quote(spelling(c));
  }
  void operator()(const ModelCommitGroup&) { kind("commit_group"); }
  void operator()(const ModelWaitGroup& w) {
    kind("wait_group");
    key("n", w.n);
  }
  void operator()(const ModelWaitAll&) { kind("wait_all"); }
  void operator()(const ModelCtaSync&) { kind("cta_sync"); }
  void operator()(const ModelFill& f) {
    kind("fill");
    key("dst", f.dst);
    key("pattern", pattern(f.pattern));
  }
  void operator()(const ModelCopy& c) {
    kind("copy");
    key("dst", c.dst);
    key("src", c.src);
  }
  void operator()(const ModelFor& f) {
    kind("for");
    loop_keys(f);
  }
  void loop_keys(const ModelFor& f) {
    key("var", quote(f.var));
    key("start", f.start);
    key("stop", f.stop);
    if (f.step)
      key("step", *f.step);
    if (f.unroll)
      key("unroll", *f.unroll);
  }
  void operator()(const ModelEnd&) { kind("end"); }
  void operator()(const ModelPipeline& p) {
    kind("pipeline");
    loop_keys(p.loop);
    key("stages", p.stages);
    if (p.stage_var)
      key("stage_var", quote(*p.stage_var));
    if (p.ring) {
      key("full", p.ring->full);
      key("empty", p.ring->empty);
      if (p.ring->offset)
        key("ring_offset", *p.ring->offset);
    }
    for (const auto& l : p.loads) {
      os_ << "[[op.load]]\n";
      apply_keys(l);
    }
    for (const auto& l : p.ring_loads) {
      os_ << "[[op.load]]\n";
      // No barrier (the ring's full) and no pred (the expansion's issuing thread).
      if (const auto* bl = std::get_if<ModelBulkLoad>(&l))
        load_keys(*bl);
      else
        load_keys(std::get<ModelTensorLoad>(l));
    }
    for (const auto& b : p.body) {
      os_ << "[[op.body]]\n";
      std::visit(*this, b);
    }
  }
  /// The mbarrier ops: their kind and barrier, then their own key.
  void barrier_op(std::string_view k, const ViewText& barrier) {
    kind(k);
    key("barrier", barrier);
  }
  void operator()(const ModelMbarrierInit& m) {
    barrier_op("mbarrier_init", m.barrier);
    key("count", m.count);
  }
  void operator()(const ModelCopyArrive& m) {
    barrier_op("copy_arrive", m.barrier);
    if (m.noinc)
      key("noinc", std::string("true"));
  }
  void operator()(const ModelMbarrierArrive& m) {
    barrier_op("mbarrier_arrive", m.barrier);
    pred(m.pred);
  }
  void operator()(const ModelMbarrierWait& m) {
    barrier_op("mbarrier_wait", m.barrier);
    key("parity", m.parity);
    pred(m.pred);
  }
  void pred(const std::optional<ExprText>& p) {
    if (p)
      key("pred", *p);
  }
  void coords(const std::vector<ExprText>& c) {
    std::string s = "[";
    for (std::size_t i = 0; i < c.size(); ++i)
      s += (i ? ", " : "") + quote(c[i].text);
    key("coords", s + "]");
  }
  void operator()(const ModelExpectTx& e) {
    barrier_op("expect_tx", e.barrier);
    key("bytes", e.bytes);
    pred(e.pred);
  }
  /// A load's kind and what it copies; the op adds its barrier and pred (a ring's load has
  /// neither).
  void load_keys(const ModelBulkLoad& l) {
    kind("bulk_load");
    key("dst", l.dst);
    key("src", l.src);
  }
  void load_keys(const ModelTensorLoad& l) {
    kind("tensor_load");
    key("tensor", quote(l.tensor));
    coords(l.coords);
    key("dst", l.dst);
  }
  /// A load op: what it copies, then its barrier and pred.
  template <class Load>
  void issued_load(const Load& l) {
    load_keys(l);
    key("barrier", l.barrier);
    pred(l.pred);
    if (l.multicast)
      key("multicast", *l.multicast);
  }
  void operator()(const ModelBulkLoad& l) { issued_load(l); }
  void operator()(const ModelBulkStore& st) {
    kind("bulk_store");
    key("dst", st.dst);
    key("src", st.src);
    pred(st.pred);
  }
  void operator()(const ModelBulkCommit&) { kind("bulk_commit"); }
  void operator()(const ModelBulkWait& w) {
    kind("bulk_wait");
    key("n", w.n);
    if (w.read)
      key("read", std::string("true"));
  }
  void operator()(const ModelProxyFence& f) {
    kind("proxy_fence");
    if (f.space != tile::FenceSpace::shared_cta)
      key("space", quote(name_of(tile::fence_space_names, f.space)));
  }
  void operator()(const ModelTensorLoad& l) { issued_load(l); }
  void operator()(const ModelTensorStore& st) {
    kind("tensor_store");
    key("tensor", quote(st.tensor));
    coords(st.coords);
    key("src", st.src);
    pred(st.pred);
  }
  void operator()(const ModelClusterSync& c) {
    kind("cluster_sync");
    if (c.relaxed)
      key("relaxed", std::string("true"));
  }
  void operator()(const ModelMbarrierInitFence&) { kind("mbarrier_init_fence"); }
  void operator()(const ModelBulkCopyPeer& c) {
    kind("bulk_copy_peer");
    key("dst", c.dst);
    key("src", c.src);
    key("barrier", c.barrier);
    pred(c.pred);
  }

private:
  static std::string pattern(const ModelPattern& p) {
    switch (p.form) {
    case ModelPattern::Form::byte:
      return std::to_string(p.bytes.at(0));
    case ModelPattern::Form::list: {
      std::string s = "[";
      for (std::size_t i = 0; i < p.bytes.size(); ++i)
        s += (i ? ", " : "") + std::to_string(p.bytes[i]);
      return s + "]";
    }
    case ModelPattern::Form::hex:
      return quote(hex_spelling(p));
    }
    return "0";
  }

  std::ostringstream& os_;
};

} // namespace

std::string spelling(const PolicyCreate& c) {
  std::string s = "createpolicy(" + std::string(c.primary);
  if (c.secondary)
    s += ", " + std::string(*c.secondary);
  if (c.fraction)
    s += ", " + std::string(*c.fraction);
  return s + ")";
}

std::string hex_spelling(const ModelPattern& p) {
  std::string s = "0x";
  for (auto b : p.bytes) {
    s += hex_digits[b >> 4];
    s += hex_digits[b & 0xF];
  }
  return s;
}

std::string header_comment(const SpecModel& m) {
  return "# Generated by ptxgen's spec generator (driver/fuzz/generator.cpp, version " +
         std::to_string(generator_version) + ") from seed " + std::to_string(m.seed) + ", family " +
         std::string(name(m.family)) + ".\n";
}

std::string to_toml(const SpecModel& m) {
  std::ostringstream os;
  os << header_comment(m);
  os << "[kernel]\nname = \"" << m.name << "\"\n";
  os << "grid = " << launch_value(m.grid, m.grid_as_array) << "\n";
  os << "block = " << launch_value(m.block, m.block_as_array) << "\n";
  if (!m.cluster.empty())
    os << "cluster = " << int_list(m.cluster) << "\n";
  if (!m.abi.empty()) {
    os << "abi = [";
    for (std::size_t i = 0; i < m.abi.size(); ++i)
      os << (i ? ", " : "") << '"' << m.abi[i] << '"';
    os << "]\n";
  }
  for (const auto& p : m.params) {
    os << "\n[param." << p.name << "]\ndtype = \"" << (p.u64 ? "u64" : "u32") << "\"\n";
    if (p.u64)
      os << "value = \"" << hex64(p.value) << "\"\n";
    else
      os << "value = " << p.value << "\n";
    if (p.range)
      os << "range = [" << (*p.range)[0] << ", " << (*p.range)[1] << "]\n";
  }
  for (const auto& t : m.tensors) {
    os << "\n[tensor." << t.name << "]\nspace = \"" << (t.shared ? "shared" : "global")
       << "\"\nshape = " << int_list(t.shape) << "\ndtype = \"" << t.dtype.spelling << "\"\n";
    if (t.align)
      os << "align = " << t.align << "\n";
    if (t.init)
      os << "init = \"" << build::init_spelling(*t.init) << "\"\n";
    if (t.output)
      os << "output = true\n";
    if (t.swizzle != tile::TensorMapSwizzle::none)
      os << "swizzle = \"" << tile::name(t.swizzle) << "\"\n";
    if (t.map) {
      os << "\n[tensor." << t.name << ".map]\nbox = " << int_list(t.map->box) << "\n";
      if (!t.map->element_strides.empty())
        os << "element_strides = " << int_list(t.map->element_strides) << "\n";
      if (t.map->swizzle != tile::TensorMapSwizzle::none)
        os << "swizzle = \"" << tile::name(t.map->swizzle) << "\"\n";
      if (t.map->oob_fill != tile::TensorMapOobFill::zero)
        os << "oob_fill = \"" << tile::name(t.map->oob_fill) << "\"\n";
    }
  }
  KeyPrinter keys(os);
  for (const auto& op : m.ops) {
    os << "\n[[op]]\n";
    std::visit(keys, op.body);
  }
  for (const auto& e : m.expects)
    // A literal string where a view's rearrange pattern holds double quotes.
    os << "\n[[expect]]\nthat = " << (e.find('"') == std::string::npos ? quote(e) : "'" + e + "'")
       << "\n";
  return os.str();
}

// ---------------------------------------------------------------------------------------
// Units

std::size_t unit_count(const SpecModel& m) {
  return m.units.size() + m.expects.size();
}

SpecModel keep_units(const SpecModel& m, const std::vector<bool>& keep) {
  SpecModel out = m;
  auto kept = [&](std::size_t i) { return i >= keep.size() || keep[i]; };
  std::set<std::string> needed, dropped;
  for (std::size_t u = 0; u < m.units.size(); ++u)
    for (const auto& n : m.units[u].names)
      (kept(u) ? needed : dropped).insert(n);
  out.ops.clear();
  for (const auto& op : m.ops)
    if (kept(op.unit))
      out.ops.push_back(op);
  out.expects.clear();
  for (std::size_t e = 0; e < m.expects.size(); ++e)
    if (kept(m.units.size() + e))
      out.expects.push_back(m.expects[e]);
  // A name goes when some dropped unit named it and no kept one does.
  auto gone = [&](const std::string& n) { return dropped.count(n) && !needed.count(n); };
  std::erase_if(out.tensors, [&](const ModelTensor& t) { return gone(t.name); });
  std::erase_if(out.params, [&](const ModelParam& p) { return gone(p.name); });
  std::erase_if(out.abi, [&](const std::string& n) { return gone(n); });
  for (std::size_t u = 0; u < out.units.size(); ++u)
    if (!kept(u))
      out.units[u].names.clear();
  return out;
}

// ---------------------------------------------------------------------------------------
// Simplifications and complexity

namespace {

std::int64_t product(const std::vector<std::int64_t>& v) {
  std::int64_t p = 1;
  for (auto x : v)
    p *= x;
  return p;
}

/// A key's weight in complexity(): an expression weighs more than a constant.
template <class Constant>
std::size_t weight(const std::optional<std::variant<Constant, ExprText>>& v) {
  return !v ? 0 : std::holds_alternative<ExprText>(*v) ? 3 : 2;
}

std::size_t apply_complexity(const ModelApply& a) {
  std::size_t c = 4 + 4 * 2;
  c += a.scope ? 2 : 0;
  c += weight(a.src_size) + weight(a.ignore_src) + weight(a.pred);
  c += a.cache_policy ? 3 : 0;
  c += 2 * a.unknown.size();
  // The qualifiers a simplification may drop.
  c += (a.opcode.dst_space == ptx::SharedSpace::shared_cta ? 2 : 0) +
       (a.opcode.cache_hint ? 2 : 0) + (a.opcode.prefetch != ptx::L2Prefetch::none ? 2 : 0);
  return c;
}

std::size_t loop_complexity(const ModelFor& f) {
  return 4 + 3 * 2 + (f.step ? 2 : 0) +
         static_cast<std::size_t>(std::max<std::int64_t>(0, f.unroll.value_or(1) - 1));
}

struct OpComplexity {
  std::size_t operator()(const ModelApply& a) const { return apply_complexity(a); }
  std::size_t operator()(const ModelCommitGroup&) const { return 4; }
  std::size_t operator()(const ModelWaitGroup&) const { return 6; }
  std::size_t operator()(const ModelWaitAll&) const { return 4; }
  std::size_t operator()(const ModelCtaSync&) const { return 4; }
  std::size_t operator()(const ModelFill&) const { return 8; }
  std::size_t operator()(const ModelCopy&) const { return 8; }
  std::size_t operator()(const ModelFor& f) const { return loop_complexity(f); }
  std::size_t operator()(const ModelEnd&) const { return 4; }
  std::size_t operator()(const ModelPipeline& p) const {
    std::size_t c = loop_complexity(p.loop) + 2 + (p.stage_var ? 2 : 0) +
                    (p.ring ? 4 + 10 * p.ring_loads.size() : 0);
    for (const auto& l : p.loads)
      c += apply_complexity(l);
    for (const auto& b : p.body)
      c += std::visit(*this, b);
    return c;
  }
  std::size_t operator()(const ModelMbarrierInit&) const { return 8; }
  std::size_t operator()(const ModelCopyArrive& m) const { return 6 + (m.noinc ? 2 : 0); }
  std::size_t operator()(const ModelMbarrierArrive& m) const { return 6 + (m.pred ? 3 : 0); }
  std::size_t operator()(const ModelMbarrierWait& m) const { return 8 + (m.pred ? 3 : 0); }
  std::size_t operator()(const ModelExpectTx& e) const { return 8 + (e.pred ? 3 : 0); }
  std::size_t operator()(const ModelBulkLoad& l) const {
    return 10 + (l.pred ? 3 : 0) + (l.multicast ? 3 : 0);
  }
  std::size_t operator()(const ModelBulkStore& st) const { return 8 + (st.pred ? 3 : 0); }
  std::size_t operator()(const ModelBulkCommit&) const { return 4; }
  std::size_t operator()(const ModelBulkWait& w) const { return 6 + (w.read ? 1 : 0); }
  std::size_t operator()(const ModelProxyFence&) const { return 4; }
  std::size_t operator()(const ModelTensorLoad& l) const {
    return 10 + 2 * l.coords.size() + (l.pred ? 3 : 0) + (l.multicast ? 3 : 0);
  }
  std::size_t operator()(const ModelTensorStore& st) const {
    return 8 + 2 * st.coords.size() + (st.pred ? 3 : 0);
  }
  std::size_t operator()(const ModelClusterSync& c) const { return 4 + (c.relaxed ? 1 : 0); }
  std::size_t operator()(const ModelMbarrierInitFence&) const { return 4; }
  std::size_t operator()(const ModelBulkCopyPeer& c) const { return 10 + (c.pred ? 3 : 0); }
};

/// For each part of one kind (by index), the model with `f` applied to it where `f`
/// changes it.
template <class Items, class F>
void each_edit(const SpecModel& m, Items ModelParts::*items, std::vector<SpecModel>& out, F&& f) {
  SpecModel probe = m;
  const std::size_t n = (parts_of(probe).*items).size();
  for (std::size_t i = 0; i < n; ++i) {
    SpecModel s = m;
    if (f(*(parts_of(s).*items)[i]))
      out.push_back(std::move(s));
  }
}

template <class T>
bool drop(std::optional<T>& v) {
  const bool had = v.has_value();
  v.reset();
  return had;
}

void launch_simplifications(const SpecModel& m, std::vector<SpecModel>& out) {
  if (product(m.grid) > 1) {
    SpecModel s = m;
    s.grid = {1};
    s.grid_as_array = false;
    out.push_back(std::move(s));
    s = m;
    for (auto& g : s.grid)
      g = (g + 1) / 2;
    if (product(s.grid) < product(m.grid))
      out.push_back(std::move(s));
  }
  if (product(m.block) > 1) {
    SpecModel s = m;
    s.block = {32};
    s.block_as_array = false;
    if (product(s.block) < product(m.block))
      out.push_back(s);
    s = m;
    for (auto& b : s.block)
      b = (b + 1) / 2;
    if (product(s.block) < product(m.block))
      out.push_back(std::move(s));
  }
}

void op_simplifications(const SpecModel& m, std::vector<SpecModel>& out) {
  each_edit(m, &ModelParts::applies, out, [](ModelApply& a) { return drop(a.src_size); });
  each_edit(m, &ModelParts::applies, out, [](ModelApply& a) { return drop(a.ignore_src); });
  each_edit(m, &ModelParts::applies, out, [](ModelApply& a) { return drop(a.pred); });
  each_edit(m, &ModelParts::applies, out, [](ModelApply& a) {
    // A policy goes with its qualifier.
    a.opcode.cache_hint = false;
    return drop(a.cache_policy);
  });
  each_edit(m, &ModelParts::applies, out, [](ModelApply& a) { return drop(a.scope); });
  each_edit(m, &ModelParts::applies, out, [](ModelApply& a) {
    const bool had = a.opcode.prefetch != ptx::L2Prefetch::none;
    a.opcode.prefetch = ptx::L2Prefetch::none;
    return had;
  });
  each_edit(m, &ModelParts::applies, out, [](ModelApply& a) {
    const bool had = a.opcode.dst_space != ptx::SharedSpace::shared;
    a.opcode.dst_space = ptx::SharedSpace::shared;
    return had;
  });
  each_edit(m, &ModelParts::arrives, out,
            [](ModelCopyArrive& c) { return std::exchange(c.noinc, false); });
  each_edit(m, &ModelParts::loops, out, [](ModelFor& f) { return drop(f.unroll); });
}

void tensor_simplifications(const SpecModel& m, std::vector<SpecModel>& out) {
  if (!m.abi.empty()) {
    SpecModel s = m;
    s.abi.clear();
    out.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < m.tensors.size(); ++i) {
    if (m.tensors[i].init) {
      SpecModel s = m;
      s.tensors[i].init.reset();
      out.push_back(std::move(s));
    }
    if (m.tensors[i].align) {
      SpecModel s = m;
      s.tensors[i].align = 0;
      out.push_back(std::move(s));
    }
  }
  for (std::size_t i = 0; i < m.params.size(); ++i)
    if (m.params[i].range) {
      SpecModel s = m;
      s.params[i].range.reset();
      out.push_back(std::move(s));
    }
}

} // namespace

std::vector<SpecModel> simplifications(const SpecModel& m) {
  std::vector<SpecModel> out;
  launch_simplifications(m, out);
  op_simplifications(m, out);
  tensor_simplifications(m, out);
  return out;
}

std::size_t complexity(const SpecModel& m) {
  std::size_t c = static_cast<std::size_t>(product(m.grid) + product(m.block));
  for (const auto& op : m.ops)
    c += std::visit(OpComplexity{}, op.body);
  for (const auto& t : m.tensors)
    c += 4 + (t.init ? 1 : 0) + (t.align ? 1 : 0) + (t.map ? 2 + t.map->box.size() : 0);
  for (const auto& p : m.params)
    c += 4 + (p.range ? 1 : 0);
  c += 4 * m.expects.size();
  c += m.abi.empty() ? 0 : 1;
  return c;
}

} // namespace ptxgen::driver::fuzz
