#pragma once
// The columns of ops.def as data: one OpRow per op (indexed as OpBody's alternatives), one
// FieldRow per field a spec names, each op's TOML keys, and a typed walk over an op's
// fields. What is the same for every op is read here instead of written once per op.

#include "emitter/tile/kernel.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>

namespace ptxgen::tile {

/// Which part of the copy family an op belongs to.
enum class OpFamily : std::uint8_t {
  sync,     ///< CTA-wide barriers
  data,     ///< synchronous element writes (fill, copy)
  loop,     ///< for / end
  cp_async, ///< cp.async and its groups (sm_80)
  mbarrier, ///< mbarrier objects (sm_80)
  bulk,     ///< the sm_90 bulk-copy family: copies, groups, fences, transaction counts
  tensor,   ///< the sm_90 tensor (TMA) copies
};

/// Which proxy an op's tensor bytes go through.
enum class Proxy : std::uint8_t {
  none,    ///< no tensor bytes (groups, barriers, fences, loops)
  generic, ///< ld/st and cp.async
  async,   ///< the bulk and tensor copies
};

/// The flags column of ops.def (bits).
namespace op_flags {
enum : std::uint8_t {
  none = 0,
  mbarrier = 1,      ///< names an mbarrier: the phase walk (mbarrier_contract.hpp) runs
  async = 2,         ///< completes after the issuing thread goes on
  arch_specific = 4, ///< its PTX needs the `a` target of min_sm (setmaxnreg: sm_90a)
};
} // namespace op_flags

/// What a field's value is to a reader (the TOML reader's and Python's conversions).
enum class FieldKind : std::uint8_t {
  opcode,       ///< a cp.async opcode string
  view,         ///< a view of any tensor
  shared_view,  ///< a view of a shared tensor
  global_view,  ///< a view of a global tensor
  barrier,      ///< an 8-byte view of a shared tensor: an mbarrier
  expr,         ///< an expression (optional where the member is)
  integer,      ///< an integer literal
  flag,         ///< true / false
  word,         ///< one of an enum's spellings
  cache_policy, ///< a cache policy: a u64 parameter or a createpolicy table
  pattern,      ///< fill bytes
  name,         ///< an identifier (a loop variable, a mapped tensor)
  coords,       ///< a tensor copy's coordinates, outermost first
};

struct OpRow {
  std::string_view spelling; ///< `op = "..."`, the Python method
  OpFamily family;
  int min_sm;         ///< the oldest target whose PTX has the op
  std::uint8_t flags; ///< op_flags bits
  Proxy proxy;
  std::string_view doc; ///< what it does, in a line
  constexpr bool uses_mbarrier() const { return (flags & op_flags::mbarrier) != 0; }
  constexpr bool is_async() const { return (flags & op_flags::async) != 0; }
  constexpr bool arch_specific() const { return (flags & op_flags::arch_specific) != 0; }
};

struct FieldRow {
  std::size_t op;          ///< OpBody's index of the op
  std::string_view member; ///< the C++ member
  std::string_view key;    ///< the TOML key
  std::string_view py;     ///< the Python keyword
  FieldKind kind;
  std::string_view fallback; ///< the default as a spec spells it; empty: required
  constexpr bool required() const { return fallback.empty(); }
};

namespace detail {
template <class S, class V>
struct OpIndex;
template <class S, class... Ops>
struct OpIndex<S, std::variant<Ops...>> {
  static constexpr std::size_t value = [] {
    constexpr std::array<bool, sizeof...(Ops)> same{std::is_same_v<S, Ops>...};
    std::size_t i = 0;
    while (i < same.size() && !same[i])
      ++i;
    return i;
  }();
};
} // namespace detail

/// OpBody's index of the op `S`.
template <class S>
inline constexpr std::size_t op_index = detail::OpIndex<S, OpBody>::value;

/// One row per op, in OpBody's order.
inline constexpr std::array op_rows = {
#define PTXGEN_TILE_OP(Struct, spelling, family, min_sm, flags, proxy, doc)                        \
  OpRow{spelling,                                                                                  \
        OpFamily::family,                                                                          \
        min_sm,                                                                                    \
        [] {                                                                                       \
          using namespace op_flags;                                                                \
          return static_cast<std::uint8_t>(flags);                                                 \
        }(),                                                                                       \
        Proxy::proxy,                                                                              \
        doc},
#define PTXGEN_TILE_FIELD(...)
#include "emitter/tile/ops.def"
#undef PTXGEN_TILE_FIELD
#undef PTXGEN_TILE_OP
};
static_assert(op_rows.size() == std::variant_size_v<OpBody>, "ops.def lists every OpBody op");

/// Every field row, grouped by op in OpBody's order.
inline constexpr std::array op_field_rows = {
#define PTXGEN_TILE_OP(...)
#define PTXGEN_TILE_FIELD(Struct, member, key, py, kind, fallback)                                 \
  FieldRow{op_index<Struct>, #member, key, py, FieldKind::kind, fallback},
#include "emitter/tile/ops.def"
#undef PTXGEN_TILE_FIELD
#undef PTXGEN_TILE_OP
};

/// Every op's spec keys, "op" first, then its fields' keys in order: op i's are
/// op_key_list[i + (fields of the ops before i)], 1 + its field count of them.
inline constexpr std::array op_key_list = {
#define PTXGEN_TILE_OP(...) std::string_view("op"),
#define PTXGEN_TILE_FIELD(Struct, member, key, ...) std::string_view(key),
#include "emitter/tile/ops.def"
#undef PTXGEN_TILE_FIELD
#undef PTXGEN_TILE_OP
};

inline const OpRow& op_row(const OpBody& body) {
  return op_rows[body.index()];
}

/// The field rows of op `op` (an OpBody index), in order.
constexpr std::span<const FieldRow> op_fields(std::size_t op) {
  std::size_t first = 0;
  while (first < op_field_rows.size() && op_field_rows[first].op < op)
    ++first;
  std::size_t end = first;
  while (end < op_field_rows.size() && op_field_rows[end].op == op)
    ++end;
  return std::span<const FieldRow>(op_field_rows).subspan(first, end - first);
}

/// The keys a spec's [[op]] table of op `op` may have: "op" and its fields'.
constexpr std::span<const std::string_view> op_keys(std::size_t op) {
  const std::size_t before = static_cast<std::size_t>(op_fields(op).data() - op_field_rows.data());
  return std::span<const std::string_view>(op_key_list)
      .subspan(op + before, 1 + op_fields(op).size());
}

/// True for an op whose fields are all flags and words (none, or `proxy_fence`'s space):
/// nothing in it has a rule of its own, so every door builds it from the table alone. Not
/// `for` and `end`, which the builder opens and closes.
constexpr bool plain_op(std::size_t op) {
  if (op_rows[op].family == OpFamily::loop)
    return false;
  for (const FieldRow& f : op_fields(op))
    if (f.kind != FieldKind::flag && f.kind != FieldKind::word)
      return false;
  return true;
}

/// An op of ops.def whose fields are only flags and words (plain_op): it has no view, no
/// expression and no count, so a walk over an op's views and expressions has nothing to do
/// for it, and such a walk can say so once for all of them.
template <class Op>
concept PlainOp = (op_index<Op> < op_rows.size()) && plain_op(op_index<Op>);

/// The op spelt `spelling`: its OpBody index, or op_rows.size() for none.
constexpr std::size_t find_op(std::string_view spelling) {
  std::size_t i = 0;
  while (i < op_rows.size() && op_rows[i].spelling != spelling)
    ++i;
  return i;
}

namespace detail {
template <class S, class T, class M>
constexpr auto member_if(M T::*member) {
  if constexpr (std::is_same_v<S, T>)
    return std::tuple<M T::*>(member);
  else
    return std::tuple<>();
}
} // namespace detail

/// The members of op S that its field rows name, in order: a tuple of member pointers.
template <class S>
constexpr auto field_members() {
  return std::tuple_cat(
#define PTXGEN_TILE_OP(...)
#define PTXGEN_TILE_FIELD(Struct, member, ...) detail::member_if<S>(&Struct::member),
#include "emitter/tile/ops.def"
#undef PTXGEN_TILE_FIELD
#undef PTXGEN_TILE_OP
      std::tuple<>());
}

namespace detail {
template <class S, class F, std::size_t... I>
void for_each_field([[maybe_unused]] S& op, [[maybe_unused]] F& f, std::index_sequence<I...>) {
  using Op = std::remove_const_t<S>;
  [[maybe_unused]] constexpr auto members = field_members<Op>();
  static_assert(std::tuple_size_v<std::remove_const_t<decltype(members)>> == sizeof...(I));
  (f(op_fields(op_index<Op>)[I], op.*std::get<I>(members)), ...);
}
} // namespace detail

/// Calls f(row, op.member) for each field row of op S, in order (f is called with the
/// member's own type, so it overloads on what the member is).
template <class S, class F>
void for_each_field(S& op, F&& f) {
  constexpr std::size_t n = op_fields(op_index<std::remove_const_t<S>>).size();
  detail::for_each_field(op, f, std::make_index_sequence<n>{});
}

} // namespace ptxgen::tile
