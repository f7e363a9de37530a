#include "emitter/ptx/qualifier.hpp"

#include <iterator>

namespace ptxgen::ptx {

// The rounding rows come first, in Rounding's order after `none` (parse_rounding counts on it).
static_assert(static_cast<unsigned>(Qualifier::rn) + 1 == static_cast<unsigned>(Rounding::rn) &&
              static_cast<unsigned>(Qualifier::rpi) + 1 == static_cast<unsigned>(Rounding::rpi));

std::optional<Qualifier> parse_qualifier(std::string_view word) {
  for (std::size_t k = 0; k < std::size(detail::qualifier_rows); ++k)
    if (detail::qualifier_rows[k].spelling == word)
      return static_cast<Qualifier>(k);
  return std::nullopt;
}

std::optional<Rounding> parse_rounding(std::string_view word) {
  const std::optional<Qualifier> q = parse_qualifier(word);
  if (!q || group(*q) != QualifierGroup::rounding)
    return std::nullopt;
  return static_cast<Rounding>(static_cast<unsigned>(*q) + 1);
}

} // namespace ptxgen::ptx
