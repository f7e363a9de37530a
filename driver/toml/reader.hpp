#pragma once
// The TOML spec reader's class (driver/toml/reader_spec.hpp is its entry point): it reads a
// spec file's tables and strings, checks their syntax (types, keys, the spelling of
// enums) and turns them into build::Builder calls with the file positions of every
// value; the builder holds every rule. Split by table: reader_spec.cpp ([kernel],
// [param.*], [tensor.*]), reader_ops.cpp ([[op]] and its operands), reader_values.cpp
// (cache policies, fill patterns, [[expect]]).

#include "driver/reference/expect.hpp"
#include "emitter/builder/builder.hpp"
#include "emitter/lower/abi.hpp"
#include "emitter/ptx/feature.hpp"
#include "emitter/ptx/instruction.hpp"
#include "emitter/ptx/opcode_parser.hpp"
#include "emitter/ptx/validator.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/contract.hpp"
#include "emitter/tile/limits.hpp"
#include "emitter/tile/op_table.hpp"
#include "emitter/tile/pipeline.hpp"
#include "emitter/tile/suggest.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <sstream>
#include <system_error>
#include <utility>
#include <vector>

#include <toml++/toml.h>

namespace ptxgen::driver::toml_reader {

using tile::SourcePos;

using tile::kMaxPatternBytes;

constexpr std::array<std::string_view, 5> kTopKeys = {"kernel", "tensor", "param", "op", "expect"};
constexpr std::array<std::string_view, 9> kKernelKeys = {
    "name",   "grid",           "block",
    "abi",    "dynamic_shared", "ctas_per_sm",
    "expect", "cluster",        "cluster_non_portable"};
constexpr std::array<std::string_view, 9> kTensorKeys = {
    "space", "shape", "dtype", "init", "output", "align", "layout", "swizzle", "map"};
constexpr std::array<std::string_view, 10> kTensorMapKeys = {
    "box",  "element_strides", "swizzle",      "oob_fill", "l2_promotion",
    "mode", "lower_corner",    "upper_corner", "channels", "pixels"};
constexpr std::array<std::string_view, 3> kParamKeys = {"dtype", "value", "range"};
/// What `op = ...` may say: every op of emitter/tile/ops.def, and `pipeline`, which the
/// reader expands into ops (tile::expand_pipeline). Each op's keys are tile::op_keys's.
inline constexpr auto kOpKinds = [] {
  std::array<std::string_view, tile::op_rows.size() + 1> out{};
  for (std::size_t i = 0; i < tile::op_rows.size(); ++i)
    out[i] = tile::op_rows[i].spelling;
  out.back() = "pipeline";
  return out;
}();
constexpr std::array<std::string_view, 18> kPipelineKeys = {"op",
                                                            "var",
                                                            "start",
                                                            "stop",
                                                            "step",
                                                            "stages",
                                                            "unroll",
                                                            "stage_var",
                                                            "load",
                                                            "body",
                                                            "full",
                                                            "empty",
                                                            "ring_offset",
                                                            "producer_warps",
                                                            "producer_regs",
                                                            "consumer_regs",
                                                            "consumer_barrier",
                                                            "multicast"};

inline const char* type_phrase(toml::node_type t) {
  switch (t) {
  case toml::node_type::none:
    return "nothing";
  case toml::node_type::table:
    return "a table";
  case toml::node_type::array:
    return "an array";
  case toml::node_type::string:
    return "a string";
  case toml::node_type::integer:
    return "an integer";
  case toml::node_type::floating_point:
    return "a floating-point number";
  case toml::node_type::boolean:
    return "a boolean";
  case toml::node_type::date:
    return "a date";
  case toml::node_type::time:
    return "a time";
  case toml::node_type::date_time:
    return "a date-time";
  }
  return "a value";
}

inline bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}

inline bool is_identifier(std::string_view s) {
  if (s.empty() || !is_ident_start(s[0]))
    return false;
  return std::all_of(s.begin(), s.end(), is_ident_char);
}

template <std::size_t N>
inline bool contains(const std::array<std::string_view, N>& xs, std::string_view x) {
  return std::find(xs.begin(), xs.end(), x) != xs.end();
}

inline std::string join(std::span<const std::string_view> xs) {
  std::string out;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    if (i != 0)
      out += ", ";
    out += xs[i];
  }
  return out;
}

inline std::string squote(std::string_view s) {
  return "'" + std::string(s) + "'";
}

using tile::did_you_mean;

using tile::or_choices;

inline bool before(const toml::source_position& a, const toml::source_position& b) {
  return a.line != b.line ? a.line < b.line : a.column < b.column;
}

/// Where a string value's characters sit in the file.
struct StringLoc {
  SourcePos pos;      ///< the first character (exact) or the opening quote (not exact)
  bool exact = false; ///< character i of the value is at pos.column + i
};

/// Keys in the order they appear in the file (toml::table iterates by name).
inline std::vector<std::pair<const toml::key*, const toml::node*>>
in_file_order(const toml::table& t) {
  std::vector<std::pair<const toml::key*, const toml::node*>> out;
  for (auto&& [k, v] : t)
    out.emplace_back(&k, &v);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return before(a.first->source().begin, b.first->source().begin);
  });
  return out;
}

class Loader {
public:
  Loader(std::string_view text, std::string file) : text_(text), file_(std::move(file)), b_(file_) {
    std::size_t start = 0;
    while (start <= text_.size()) {
      std::size_t nl = text_.find('\n', start);
      std::string_view line =
          text_.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
      if (!line.empty() && line.back() == '\r')
        line.remove_suffix(1);
      lines_.push_back(line);
      if (nl == std::string_view::npos)
        break;
      start = nl + 1;
    }
  }

  /// The 1-based column (in characters, as toml++ counts) of the first
  /// non-blank character of 1-based `line`.
  toml::source_index first_non_blank_column(toml::source_index line) const;

  /// True when 1-based `line` is well-formed TOML on its own and the text is well-formed
  /// without it: the line then clashes with the rest (a key or table defined twice), and
  /// the error belongs to its key, where toml++ reports it at the value.
  bool conflicts_with_rest(toml::source_index line) const;

  /// toml++ recurses once per dotted key part and overflows the stack on keys
  /// such as `a.a.a...` with ~50,000 parts (less under AddressSanitizer). No
  /// spec needs deep keys, so a line with more than kMaxKeyDots dots outside
  /// quotes and comments is refused before toml++ sees the text.
  bool refuse_deep_keys();

  Result<std::unique_ptr<tile::Kernel>> run();

private:
  // ---------------------------------------------------------------- diagnostics

  std::string line_text(std::uint32_t line) const {
    if (line == 0 || line > lines_.size())
      return {};
    return std::string(lines_[line - 1]);
  }

  /// toml++ counts columns in code points; diagnostics count bytes.
  std::uint32_t byte_column(const toml::source_position& p) const;

  SourcePos pos_of(const toml::source_position& p) const {
    return SourcePos{file_, p.line, byte_column(p), line_text(p.line)};
  }

  Diagnostic make_diag(Severity s, DiagId id, const toml::source_position& p, std::uint32_t length,
                       std::string message) const;

  void add(Diagnostic d) { b_.report(std::move(d)); }

  void add_error(DiagId id, const toml::source_position& p, std::uint32_t length,
                 std::string message) {
    add(make_diag(Severity::error, id, p, length, std::move(message)));
  }

  /// `r` for the builder: its first character, underlined to its end when on one line.
  build::At at(const toml::source_region& r) const {
    std::uint32_t length = 1;
    if (r.begin.line == r.end.line && r.end.column > r.begin.column)
      length = byte_column(r.end) - byte_column(r.begin);
    return build::At{pos_of(r.begin), length};
  }

  /// A string value for the builder, with where its characters are (see locate_string()).
  build::Text text_of(const toml::node& n, const std::string& value) const {
    const StringLoc loc = locate_string(n);
    return build::Text{value, loc.pos, loc.exact, 1};
  }

  /// An error underlining `r` when it lies on one line, else its first character.
  void error_at(DiagId id, const toml::source_region& r, std::string message) {
    const build::At a = at(r);
    add(tile::diagnostic_at(id, a.pos, std::move(message), a.length));
  }

  /// Diagnostics from a parser of a string value (line 1, columns within the string).
  void add_inner(const Diagnostics& inner, const StringLoc& loc);

  /// An error at `offset` (0-based) within a string value.
  void inner_error(DiagId id, const StringLoc& loc, std::string_view text, std::size_t offset,
                   std::size_t length, std::string message) {
    Diagnostics ds;
    ds.add(ptxgen::error_at(id, text, offset, length, std::move(message)));
    add_inner(ds, loc);
  }

  Result<std::unique_ptr<tile::Kernel>> finish();

  // ---------------------------------------------------------------- generic field access

  StringLoc locate_string(const toml::node& n) const;

  /// Reports every key of `t` not in `allowed`.
  void check_keys(const toml::table& t, std::span<const std::string_view> allowed,
                  const std::string& where);

  const toml::key* key_of(const toml::table& t, std::string_view key) const {
    auto it = t.find(key);
    return it == t.end() ? nullptr : &it->first;
  }

  void missing(const toml::table& t, std::string_view key, const std::string& where,
               std::string_view expected) {
    b_.missing(at(t.source()),
               where + " is missing " + squote(key) + " (" + std::string(expected) + ")");
  }

  /// A value of the wrong TOML type (`message` says what was expected and what came).
  void type_error(const toml::node& n, std::string message) {
    error_at(DiagId::spec_wrong_type, n.source(), std::move(message));
  }

  void wrong_type(const toml::node& n, std::string_view key, const std::string& where,
                  std::string_view expected) {
    type_error(n, squote(key) + " in " + where + " must be " + std::string(expected) + "; got " +
                      type_phrase(n.type()));
  }

  /// The value of `n` as a T (std::int64_t, std::string or bool); nullopt after reporting
  /// that `key` in `where` must be `expected`.
  template <class T>
  std::optional<T> get_as(const toml::node& n, std::string_view key, const std::string& where,
                          std::string_view expected) {
    if (const auto* v = n.as<T>())
      return v->get();
    wrong_type(n, key, where, expected);
    return std::nullopt;
  }

  std::optional<std::int64_t> get_int(const toml::node& n, std::string_view key,
                                      const std::string& where, std::string_view expected) {
    return get_as<std::int64_t>(n, key, where, expected);
  }

  std::optional<std::string> get_string(const toml::node& n, std::string_view key,
                                        const std::string& where, std::string_view expected) {
    return get_as<std::string>(n, key, where, expected);
  }

  /// The string under `key` (its node in `node`, null when missing); nullopt after reporting
  /// it missing (`missing_hint` says what belongs there) or not a string (`expected`).
  std::optional<std::string> required_string(const toml::table& t, std::string_view key,
                                             const std::string& where,
                                             std::string_view missing_hint,
                                             std::string_view expected, const toml::node*& node) {
    node = t.get(key);
    if (!node) {
      missing(t, key, where, missing_hint);
      return std::nullopt;
    }
    return get_string(*node, key, where, expected);
  }

  std::optional<bool> get_bool(const toml::node& n, std::string_view key,
                               const std::string& where) {
    return get_as<bool>(n, key, where, "true or false");
  }

  /// Calls `each(table, where)` for every table of the array of tables `n`, `where` being
  /// "`name` i"; reports `n` not being an array (`must_be` says how to write it) and each
  /// element that is not a table.
  template <class Each>
  void each_table(const toml::node& n, std::string_view must_be, std::string_view name, Each each) {
    const toml::array* list = n.as_array();
    if (!list) {
      type_error(n, std::string(must_be) + " (two brackets); got " +
                        std::string(type_phrase(n.type())));
      return;
    }
    std::size_t index = 0;
    for (const toml::node& e : *list) {
      const std::string where = std::string(name) + " " + std::to_string(++index);
      const toml::table* t = e.as_table();
      if (!t) {
        type_error(e, where + " must be a table; got " + type_phrase(e.type()));
        continue;
      }
      each(*t, where);
    }
  }

  // ---------------------------------------------------------------- [kernel]

  void load_kernel(const toml::table& root);

  /// [kernel]'s `abi = [...]` (the PTX parameter order: every global tensor and
  /// scalar parameter once) and `dynamic_shared = N` (a foreign kernel's dynamic
  /// shared bytes); after the tensors and parameters are loaded.
  void load_binding(const toml::table& root);

  /// `grid` or `block`: an integer N (x = N) or an array [x], [x, y] or [x, y, z].
  std::optional<tile::Dim3> get_dims(const toml::node& v, build::LaunchPart part);
  /// [kernel]'s `cluster = [x, y, z]` (or N) and `cluster_non_portable = true`.
  void load_cluster(const toml::table& kernel);

  /// The [SECTION.NAME] tables of `n` (a table of `what`), in file order, each to `load`.
  void load_section(const toml::node& n, std::string_view section, std::string_view what,
                    void (Loader::*load)(const toml::key&, const toml::node&));

  // ---------------------------------------------------------------- [param.NAME]

  /// A parameter's dtype: u64 or not; nullopt after an error.
  std::optional<bool> param_is_u64(const toml::table& t, const std::string& where);

  void load_param(const toml::key& k, const toml::node& n);

  // ---------------------------------------------------------------- [tensor.NAME]

  /// The tensor's dtype; nullopt (after an error) when it is missing or unknown.
  std::optional<tile::DType> tensor_dtype(const toml::table& t, const std::string& where);

  /// The tensor's shape as written (its integer dimensions); `complete` false when a
  /// dimension is not an integer (reported).
  std::optional<std::vector<build::Dim>> tensor_shape(const toml::table& t,
                                                      const std::string& where, bool& complete);

  /// The tensor's space; nullopt (after an error) when it is missing or unknown.
  std::optional<tile::Space> tensor_space(const toml::table& t, const std::string& where);

  void load_tensor(const toml::key& k, const toml::node& n);

  // ---------------------------------------------------------------- [[op]]

  void load_ops(const toml::node& n);

  /// One [[op]] table; its op goes to `into` when given (a pipeline's consumer), else
  /// to the kernel.
  void load_op(const toml::table& t, const std::string& where,
               std::vector<tile::Op>* into = nullptr);

  /// Op `index` of ops.def: checks the table's keys against tile::op_keys and reads it
  /// into op.body with read_op; true when op is to be added (read_op's answer).
  bool read_any(std::size_t index, const toml::table& t, const std::string& where, tile::Op& op);

  /// Reads op `Op` into op.body (`where` names the table and its op); true when it is to be
  /// added: false after an error (reported), and for `for` and `end`, which open and close
  /// the builder's loops. The template reads each field of ops.def by its member's type with
  /// read_field; an op with rules of its own specialises it (declared after the class).
  template <class Op>
  bool read_op(const toml::table& t, const std::string& where, tile::Op& op);

  /// One field `key` of a generic op: false after an error (reported); a field left out
  /// keeps the member's default (a required one is reported missing).
  bool read_field(const toml::table& t, const std::string& where, std::string_view key, bool& out);
  bool read_field(const toml::table& t, const std::string& where, std::string_view key,
                  tile::Located<tile::View>& out);
  bool read_field(const toml::table& t, const std::string& where, std::string_view key,
                  tile::FenceSpace& out);
  /// An integer field (a named_barrier's id and count, setmaxnreg's regs): required.
  bool read_field(const toml::table& t, const std::string& where, std::string_view key,
                  tile::Located<std::int64_t>& out);
  /// A pred: a boolean or an expression over the thread, parameters and loop variables.
  bool read_field(const toml::table& t, const std::string& where, std::string_view key,
                  std::optional<tile::Located<tile::ExprPtr>>& out);
  /// setmaxnreg's `action`, inc or dec (required).
  bool read_field(const toml::table& t, const std::string& where, std::string_view key,
                  tile::RegAction& out);

  /// `body` into op.body when it holds an op; whether it did.
  static bool set_body(tile::Op& op, std::optional<tile::OpBody> body) {
    if (!body)
      return false;
    op.body = std::move(*body);
    return true;
  }

  // ---------------------------------------------------------------- mbarriers

  /// mbarrier_init / copy_arrive / mbarrier_arrive / mbarrier_wait: a `barrier` view of a
  /// shared tensor and the op's own key (count, noinc, pred, parity).
  std::optional<tile::OpBody> load_mbarrier_op(const toml::table& t, std::string_view kind,
                                               const std::string& where);

  /// The `n` of wait_group and bulk_wait (`groups`: "groups" or "bulk groups").
  std::optional<std::int64_t> pending_groups(const toml::table& t, const std::string& where_kind,
                                             const std::string& groups);

  // ---------------------------------------------------------------- bulk copies
  // (reader_bulk.cpp)

  /// `[tensor.NAME.map]` as written (the builder checks it with the tensor).
  build::TensorMapDecl load_tensor_map(const toml::node& n, const std::string& tensor);
  void load_im2col_keys(const toml::table& t, const std::string& where, build::TensorMapDecl& m);
  /// A word of an enum whose spellings are `choices` (value k spelled choices[k]).
  template <class E>
  std::optional<E> enum_word(const toml::node& v, std::string_view key, const std::string& where,
                             std::span<const std::string_view> choices,
                             DiagId id = DiagId::spec_tensor_map_value);
  std::optional<tile::TensorMapSwizzle> swizzle_word(const toml::node& v, const std::string& where);
  std::optional<std::vector<build::Dim>> dim_list(const toml::node& v, std::string_view key,
                                                  const std::string& where);
  std::optional<std::vector<tile::Located<tile::ExprPtr>>>
  expr_list(const toml::node& v, std::string_view key, const std::string& where);
  std::optional<std::vector<tile::Located<tile::ExprPtr>>> coords_field(const toml::table& t,
                                                                        const std::string& where);
  template <class Op>
  bool load_issue_keys(const toml::table& t, const std::string& where, Op& op);
  /// A tensor store's or reduction's common keys: `tensor` (a tile map's tensor), `coords`,
  /// `src` (a shared view) and load_issue_keys'.
  template <typename Op>
  bool tensor_store_keys(const toml::table& t, const std::string& where, Op& op);
  std::optional<tile::Located<tile::View>> bulk_view(const toml::table& t, std::string_view key,
                                                     tile::Space space, const std::string& where);
  std::optional<tile::Located<tile::View>> barrier_field(const toml::table& t,
                                                         const std::string& where);
  /// A view of a shared tensor under `key`, as an mbarrier op's barrier.
  std::optional<tile::Located<tile::View>>
  barrier_field_at(const toml::table& t, std::string_view key, const std::string& where);
  const tile::TensorDecl* tensor_operand(const toml::table& t, const std::string& where,
                                         tile::Located<std::string>& name,
                                         std::vector<tile::Located<tile::ExprPtr>>& coords);
  /// An optional view key naming a map slot (a tensor copy's `map`, tensormap_copy's `src`).
  bool map_slot_field(const toml::table& t, const std::string& where,
                      std::optional<tile::Located<tile::View>>& out, std::string_view key = "map");
  /// A tensormap op's `tensor`: a global tensor with a map.
  bool mapped_name(const toml::table& t, const std::string& where, tile::Located<std::string>& out);
  bool reduce_key(const toml::table& t, const std::string& where, tile::ReduceKind& out,
                  tile::SourcePos& pos);

  // ---------------------------------------------------------------- loops

  /// start, stop or step of a `for`: an integer or an expression string over
  /// constants, parameters, bid, nbid, ntid and enclosing loop variables.
  std::optional<tile::Located<tile::ExprPtr>> loop_bound(const toml::node& v, std::string_view key,
                                                         const std::string& where);

  /// A loop bound to load: its key, where it goes, and the example a missing one names.
  struct BoundField {
    const char* key;
    tile::Located<tile::ExprPtr>* slot;
    const char* example;
  };

  /// Loads each field with loop_bound(); false when one is missing or bad (each reported).
  /// An optional `unroll` key (body copies per back edge, 1..kMaxUnroll) into `out`
  /// (left as it is when absent); false after an error.
  bool load_unroll(const toml::table& t, const std::string& where, std::int64_t& out);

  bool load_loop_bounds(const toml::table& t, const std::string& where,
                        std::span<const BoundField> fields);

  /// The loop variable's name: an identifier that is not reserved, a parameter,
  /// a tensor or the variable of an enclosing loop.
  std::optional<tile::Located<std::string>> loop_var(const toml::table& t,
                                                     const std::string& where);

  void load_for(const toml::table& t, const std::string& where, tile::Op& op);

  // ---------------------------------------------------------------- pipeline

  /// op = "pipeline": a tile loop with S shared stages, its loads ([[op.load]],
  /// cp.async applies) and its consumer ([[op.body]], copy and fill), expanded
  /// by tile::expand_pipeline into plain ops (see emitter/tile/pipeline.hpp).
  void load_pipeline(const toml::table& t, const std::string& where, const SourcePos& pos);

  /// stages (required), step (1 if given) and unroll of a pipeline.
  bool pipeline_scalars(const toml::table& t, const std::string& where, tile::Pipeline& p);

  /// The stage variable's name: `stage_var`, by default "stage"; a loop variable's rules.
  std::optional<std::string> pipeline_stage_var(const toml::table& t, const std::string& where,
                                                const std::string& var);

  /// The array of tables `key` of a pipeline (load or body), non-empty; else nullptr
  /// after an error.
  const toml::array* pipeline_tables(const toml::table& t, std::string_view key,
                                     const std::string& where, std::string_view expected);

  /// The [[op.load]] tables: cp.async applies, or bulk_load / tensor_load ops (then
  /// p.ring is set and their barrier is its full), whose dst depends on the stage.
  bool pipeline_loads(const toml::table& t, const std::string& where, tile::Pipeline& p);

  /// One [[op.load]] table of kind `kind` into p.loads.
  bool pipeline_load(const toml::table& lt, std::string_view kind, const std::string& where,
                     tile::Pipeline& p);

  /// The mbarrier ring's keys (full, empty, ring_offset): required for bulk / tensor loads
  /// (`ring`), refused otherwise. Sets p.ring when `ring` and they load.
  bool pipeline_ring(const toml::table& t, const std::string& where, bool ring, tile::Pipeline& p);

  /// The kind of a pipeline's first [[op.load]] ("apply" without an op key; empty when
  /// there is none or it is not a table with a string op).
  static std::string_view first_load_kind(const toml::table& t);

  /// A warp-specialized ring's keys (producer_warps, producer_regs, consumer_regs,
  /// consumer_barrier, multicast) into p.ring->roles, through Builder::pipeline_roles.
  bool pipeline_roles(const toml::table& t, const std::string& where, tile::Pipeline& p);

  /// The [[op.body]] tables: the consumer of one tile, copy and fill ops.
  bool pipeline_body(const toml::table& t, const std::string& where, tile::Pipeline& p);

  std::optional<tile::Located<tile::View>> view_field(const toml::table& t, std::string_view key,
                                                      const std::string& where);

  /// src_size (integer or expression), ignore_src / pred (boolean or expression);
  /// `axes` are the repeat-axis names the expression may use.
  std::optional<tile::Located<tile::ExprPtr>>
  expr_field(const toml::node& v, std::string_view key, const std::string& where, bool is_size,
             const std::map<std::string, std::size_t, std::less<>>& axes);

  bool load_apply(const toml::table& t, const std::string& where, tile::ApplyOp& a);

  // ---------------------------------------------------------------- cache_policy

  /// A value for the builder as a whole: its diagnostics underline the value.
  build::Text region_text(const toml::node& n, std::string value) const;

  std::optional<tile::Located<tile::CachePolicy>> cache_policy_field(const toml::node& v,
                                                                     const std::string& where);

  std::optional<tile::Located<tile::CachePolicy>>
  cache_policy_table(const toml::table& t, const std::string& where, const SourcePos& pos);

  // ---------------------------------------------------------------- fill pattern

  std::optional<std::vector<std::uint8_t>> parse_pattern(const toml::node& v);

  // ================================================================ [[expect]]
  // Expectations (tile::Expectation): `that = "LEFT == RIGHT"`, loaded after the ops.
  // LEFT is a view of a global tensor through `.sub[...]` steps with constant entries;
  // RIGHT is another such view of the same shape and element size, an integer the
  // left side's element type holds exactly, or `sentinel`. Positions inside the
  // string are exact for a one-line string (see locate_string()).

  static constexpr std::array<std::string_view, 1> kExpectKeys = {"that"};
  static constexpr std::string_view kExpectExample = "a string such as \"B == A\"";

  void load_expectations(const toml::node& n);

  // ================================================================ end of [[expect]]

  std::string_view text_;
  std::string file_;
  std::vector<std::string_view> lines_;
  build::Builder b_; // every rule, the kernel and the diagnostics
  /// While a ring pipeline's loads are read: its full barrier, their `barrier`.
  const tile::Located<tile::View>* ring_full_ = nullptr;
};

// The ops whose reading has rules of their own (reader_ops.cpp, reader_bulk.cpp); every
// other op of ops.def is read field by field.
#define PTXGEN_READ_OP(Struct)                                                                     \
  template <>                                                                                      \
  bool Loader::read_op<tile::Struct>(const toml::table&, const std::string&, tile::Op&);
PTXGEN_READ_OP(ApplyOp)
PTXGEN_READ_OP(WaitGroupOp)
PTXGEN_READ_OP(FillOp)
PTXGEN_READ_OP(ForOp)
PTXGEN_READ_OP(EndOp)
PTXGEN_READ_OP(MbarrierInitOp)
PTXGEN_READ_OP(CopyArriveOp)
PTXGEN_READ_OP(MbarrierArriveOp)
PTXGEN_READ_OP(MbarrierWaitOp)
PTXGEN_READ_OP(BulkLoadOp)
PTXGEN_READ_OP(BulkStoreOp)
PTXGEN_READ_OP(BulkReduceOp)
PTXGEN_READ_OP(BulkWaitOp)
PTXGEN_READ_OP(ExpectTxOp)
PTXGEN_READ_OP(TensorLoadOp)
PTXGEN_READ_OP(TensorStoreOp)
PTXGEN_READ_OP(TensormapCopyOp)
PTXGEN_READ_OP(TensormapReplaceOp)
PTXGEN_READ_OP(TensormapFenceOp)
PTXGEN_READ_OP(TensorReduceOp)
PTXGEN_READ_OP(PrefetchTensormapOp)
PTXGEN_READ_OP(BulkCopyPeerOp)
#undef PTXGEN_READ_OP

} // namespace ptxgen::driver::toml_reader
