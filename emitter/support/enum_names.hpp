#pragma once
// What belongs to each value of an enum (its printed name, or a row of properties) as one
// table in the enum's order, instead of a switch per property and a loop that parses names
// back: row_of() and name_of() read the table, parse_name() searches it. For enums whose values
// run 0, 1, ... without gaps; row_with() finds a row by a key member in any other table.

#include "emitter/support/unreachable.hpp"

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace ptxgen {

/// values[k] belongs to the enum value k.
template <typename E, typename T, std::size_t N>
struct EnumTable {
  std::array<T, N> values;
};

template <typename E, std::size_t N>
using EnumNames = EnumTable<E, std::string_view, N>;

/// The rows of the values 0 .. Last of Last's enum, in the enum's order. A table that does not
/// have one row per value does not compile (a value added to the enum needs its row here too).
template <auto Last, typename T, std::size_t N>
constexpr EnumTable<decltype(Last), T, N> enum_table(const std::array<T, N>& rows) {
  static_assert(N == static_cast<std::size_t>(Last) + 1,
                "enum_table: one row per value of the enum, in its order");
  return {rows};
}

/// enum_table() of names.
template <auto Last, typename... Names>
constexpr EnumNames<decltype(Last), sizeof...(Names)> enum_names(Names... names) {
  return enum_table<Last>(std::array<std::string_view, sizeof...(Names)>{names...});
}

template <typename E, typename T, std::size_t N>
constexpr const T& row_of(const EnumTable<E, T, N>& table, E e) {
  const auto k = static_cast<std::size_t>(e);
  if (k >= N)
    unreachable("row_of(): not a value of the enum");
  return table.values[k];
}

template <typename E, std::size_t N>
constexpr std::string_view name_of(const EnumNames<E, N>& table, E e) {
  return row_of(table, e);
}

/// The value whose name is `text`; nullopt for a text that names none.
template <typename E, std::size_t N>
constexpr std::optional<E> parse_name(const EnumNames<E, N>& table, std::string_view text) {
  for (std::size_t k = 0; k < N; ++k)
    if (table.values[k] == text)
      return static_cast<E>(k);
  return std::nullopt;
}

/// The value whose row has `text` as its `name` member; nullopt for a text that names none.
template <typename E, typename T, std::size_t N>
constexpr std::optional<E> parse_name(const EnumTable<E, T, N>& table, std::string_view T::*name,
                                      std::string_view text) {
  for (std::size_t k = 0; k < N; ++k)
    if (table.values[k].*name == text)
      return static_cast<E>(k);
  return std::nullopt;
}

/// The row of `rows` whose `key` member is `k`, for a table whose rows are not in the enum's
/// order (or not one per value); a key with no row is an internal error (`missing`).
template <typename Row, std::size_t N, typename K>
constexpr const Row& row_with(const std::array<Row, N>& rows, K Row::*key, K k,
                              const char* missing) {
  for (const Row& r : rows)
    if (r.*key == k)
      return r;
  unreachable(missing);
}

} // namespace ptxgen
