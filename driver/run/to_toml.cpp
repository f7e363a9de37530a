#include "driver/run/to_toml.hpp"

#include "emitter/api/typed_view.hpp"
#include "emitter/builder/builder.hpp"
#include "emitter/ptx/instruction.hpp"
#include "emitter/ptx/opcode.hpp"
#include "emitter/tile/op_table.hpp"

#include <sstream>
#include <variant>

namespace ptxgen::api {

namespace {

/// A TOML string of `s`: a literal string (views hold double quotes) unless `s`
/// holds a single quote (a pattern a spec quoted so), then a basic string.
std::string lit(const std::string& s) {
  if (s.find('\'') == std::string::npos)
    return "'" + s + "'";
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string dims(const tile::Dim3& d) {
  return "[" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + "]";
}

/// The spec spelling of an eviction priority: name() without its `L2::` prefix.
std::string priority(ptx::EvictionPriority p) {
  std::string n(ptx::name(p));
  const std::string prefix = "L2::";
  return n.rfind(prefix, 0) == 0 ? n.substr(prefix.size()) : n;
}

/// Where a value was written, its text and the line it is on: what diagnostics about it
/// quote. One line of content_key's positions section (nothing when `out` is null).
void write_pos(std::ostringstream* out, const tile::SourcePos& p, std::string_view text = {}) {
  if (out)
    *out << p.file << ':' << p.line << ':' << p.column << '\t' << lit(std::string(text)) << '\t'
         << lit(p.source_line) << '\n';
}

/// One [[op]] table's keys after `op = ...`; with `positions`, each value's position too.
struct OpWriter {
  std::ostringstream& out;
  std::ostringstream* positions = nullptr;

  template <class T>
  const T& at(const tile::Located<T>& l) {
    write_pos(positions, l.pos, l.text);
    return l.value;
  }
  std::string expr(const tile::Located<tile::ExprPtr>& e) { return lit(tile::print(*at(e))); }

  /// Every op: `op = "..."`, then its fields (ops.def) in order, an optional one when set.
  template <class Op>
  requires(tile::op_index<Op> < tile::op_rows.size()) void operator()(const Op& op) {
    out << "op = \"" << tile::op_rows[tile::op_index<Op>].spelling << "\"\n";
    tile::for_each_field(op, [&](const tile::FieldRow& r, const auto& v) { field(r.key, v); });
  }

  // One overload per member type of ops.def's fields: a field of a new type does not compile
  // until it is written here.
  template <class T>
  void field(std::string_view key, const std::optional<T>& v) {
    if (v)
      field(key, *v);
  }
  void field(std::string_view key, const tile::Located<tile::View>& v) {
    out << key << " = " << lit(spelling(at(v))) << "\n";
  }
  void field(std::string_view key, const tile::Located<tile::ExprPtr>& e) {
    out << key << " = " << expr(e) << "\n";
  }
  void field(std::string_view key, const std::vector<tile::Located<tile::ExprPtr>>& cs) {
    out << key << " = [";
    for (std::size_t i = 0; i < cs.size(); ++i)
      out << (i ? ", " : "") << expr(cs[i]);
    out << "]\n";
  }
  void field(std::string_view key, const tile::Located<ptx::CpAsyncOpcode>& o) {
    out << key << " = \"" << ptx::print(at(o)) << "\"\n";
  }
  void field(std::string_view key, const tile::Located<std::int64_t>& v) {
    out << key << " = " << at(v) << "\n";
  }
  void field(std::string_view key, const tile::Located<std::string>& v) {
    out << key << " = \"" << at(v) << "\"\n";
  }
  void field(std::string_view key, std::int64_t v) { out << key << " = " << v << "\n"; }
  void field(std::string_view key, bool v) {
    out << key << " = " << (v ? "true" : "false") << "\n";
  }
  void field(std::string_view key, tile::Scope s) {
    out << key << " = \"" << (s == tile::Scope::cta ? "cta" : "thread") << "\"\n";
  }
  void field(std::string_view key, tile::FenceSpace s) {
    out << key << " = \"" << name_of(tile::fence_space_names, s) << "\"\n";
  }
  void field(std::string_view key, tile::ReduceKind k) {
    out << key << " = \"" << name_of(tile::reduce_kind_names, k) << "\"\n";
  }
  void field(std::string_view key, tile::TensormapField f) {
    out << key << " = \"" << name_of(tile::tensormap_field_names, f) << "\"\n";
  }
  void field(std::string_view key, tile::TensormapSem m) {
    out << key << " = \"" << name_of(tile::tensormap_sem_names, m) << "\"\n";
  }
  void field(std::string_view key, tile::RegAction a) {
    out << key << " = \"" << name_of(tile::reg_action_names, a) << "\"\n";
  }
  void field(std::string_view key, const std::vector<std::uint8_t>& pattern) {
    out << key << " = [";
    for (std::size_t i = 0; i < pattern.size(); ++i)
      out << (i ? ", " : "") << static_cast<unsigned>(pattern[i]);
    out << "]\n";
  }
  void field(std::string_view key, const tile::Located<tile::CachePolicy>& p) {
    std::visit([&](const auto& policy) { cache_policy(key, policy); }, at(p));
  }
  void cache_policy(std::string_view key, const tile::CachePolicyFromParam& p) {
    out << key << " = \"param:" << p.param << "\"\n";
  }
  void cache_policy(std::string_view key, const tile::CachePolicyCreate& p) {
    out << key << " = { primary = \"" << priority(p.primary) << "\"";
    if (p.secondary)
      out << ", secondary = \"" << priority(*p.secondary) << "\"";
    out << ", fraction = " << p.fraction << " }\n";
  }
};

/// `[tensor.NAME.map]` of a global tensor with a map.
void write_map(std::ostringstream& out, const tile::TensorDecl& d) {
  const tile::TensorMapDesc& m = *d.map;
  auto list = [&](const char* key, const std::vector<std::int64_t>& xs) {
    out << key << " = [";
    for (std::size_t i = 0; i < xs.size(); ++i)
      out << (i ? ", " : "") << xs[i];
    out << "]\n";
  };
  out << "\n[tensor." << d.tensor.name << ".map]\n";
  if (m.is_im2col()) {
    out << "mode = \"im2col\"\n";
    list("lower_corner", m.im2col.lower_corner);
    list("upper_corner", m.im2col.upper_corner);
    out << "channels = " << m.im2col.channels << "\npixels = " << m.im2col.pixels << "\n";
  } else {
    list("box", m.box_dims);
  }
  list("element_strides", m.element_strides);
  out << "swizzle = \"" << tile::name(m.swizzle) << "\"\noob_fill = \"" << tile::name(m.oob_fill)
      << "\"\nl2_promotion = \"" << tile::name(m.l2_promotion) << "\"\n";
}

void write_kernel(std::ostringstream& out, const tile::Kernel& k) {
  out << "[kernel]\nname = \"" << k.name << "\"\ngrid = " << dims(k.grid_dim.or_x(k.grid))
      << "\nblock = " << dims(k.block_dim.or_x(k.block)) << "\n";
  if (k.dynamic_shared)
    out << "dynamic_shared = " << *k.dynamic_shared << "\n";
  if (k.residency)
    out << "ctas_per_sm = " << k.residency->ctas_per_sm << "\n";
  if (k.cluster) {
    out << "cluster = " << dims(k.cluster->dims) << "\n";
    if (k.cluster->non_portable)
      out << "cluster_non_portable = true\n";
  }
  if (!k.abi.empty()) {
    out << "abi = [";
    for (std::size_t i = 0; i < k.abi.size(); ++i)
      out << (i ? ", " : "") << "\"" << k.abi[i] << "\"";
    out << "]\n";
  }
  for (const tile::ScalarParam& p : k.params) {
    // As a string: a u64 may exceed TOML's integers.
    out << "\n[param." << p.name << "]\ndtype = \"" << (p.is_u64 ? "u64" : "u32") << "\"\nvalue = "
        << (p.is_u64 ? "\"" + std::to_string(p.value) + "\"" : std::to_string(p.value)) << "\n";
    if (p.range)
      out << "range = [" << p.range->lo << ", " << p.range->hi << "]\n";
  }
  for (const auto& d : k.tensors) {
    const tile::Tensor& t = d->tensor;
    const bool shared = t.space == tile::Space::shared;
    out << "\n[tensor." << t.name << "]\nspace = \"" << (shared ? "shared" : "global")
        << "\"\nshape = [";
    for (std::size_t i = 0; i < t.shape.size(); ++i)
      out << (i ? ", " : "") << t.shape[i];
    out << "]\ndtype = \"" << tile::name(t.dtype) << "\"\nalign = " << t.align << "\n";
    if (t.swizzle != tile::TensorMapSwizzle::none)
      out << "swizzle = \"" << tile::name(t.swizzle) << "\"\n";
    if (!shared)
      out << "init = \"" << build::init_spelling(d->init)
          << "\"\noutput = " << (d->output ? "true" : "false") << "\n";
    if (d->map)
      write_map(out, *d);
  }
}

/// The spec text, and with `positions` where each part was written.
std::string write_spec(const tile::Kernel& k, std::ostringstream* positions) {
  std::ostringstream out;
  out << "# Written by ptxgen::api::to_spec_toml.\n";
  write_kernel(out, k);
  for (const tile::Op& op : k.ops) {
    out << "\n[[op]]\n";
    write_pos(positions, op.pos);
    if (positions)
      *positions << "origin " << static_cast<int>(op.origin.role) << ' ' << op.origin.step << ' '
                 << op.origin.opens << '\n';
    std::visit(OpWriter{out, positions}, op.body);
  }
  for (const tile::Expectation& x : k.expectations) {
    out << "\n[[expect]]\nthat = " << lit(x.that.value) << "\n";
    write_pos(positions, x.that.pos, x.that.text);
    write_pos(positions, x.lhs.pos, x.lhs.text);
    if (const auto* v = std::get_if<tile::Located<tile::View>>(&x.rhs))
      write_pos(positions, v->pos, v->text);
  }
  return out.str();
}

/// content_key's positions of the declarations: what write_spec's ops leave out.
void write_declaration_positions(const tile::Kernel& k, std::ostringstream& positions) {
  positions << "file " << lit(k.file) << "\nbuilt_in_code " << k.built_in_code << '\n';
  if (k.must_fault) {
    positions << "must_fault ";
    write_pos(&positions, *k.must_fault);
  }
  for (const tile::ScalarParam& p : k.params)
    write_pos(&positions, p.pos, p.name);
  for (const auto& d : k.tensors) {
    write_pos(&positions, d->pos, d->tensor.name);
    for (const tile::SourcePos* p :
         {&d->map_pos.table, &d->map_pos.box, &d->map_pos.element_strides, &d->map_pos.swizzle,
          &d->map_pos.oob_fill, &d->map_pos.l2_promotion})
      write_pos(&positions, *p);
    // What the TOML derives from the tensor, kept in case a builder set it otherwise.
    if (const auto& m = d->map) {
      positions << "map " << m->global_align << ' ' << static_cast<int>(m->interleave);
      for (const std::vector<std::int64_t>* xs : {&m->global_dims, &m->global_strides})
        for (std::int64_t x : *xs)
          positions << ' ' << x;
      positions << '\n';
    }
  }
}

} // namespace

std::string to_spec_toml(const tile::Kernel& k) {
  return write_spec(k, nullptr);
}

std::string content_key(const tile::Kernel& k) {
  std::ostringstream positions;
  std::string key = write_spec(k, &positions);
  write_declaration_positions(k, positions);
  key += "\n# positions\n";
  key += positions.str();
  return key;
}

} // namespace ptxgen::api
