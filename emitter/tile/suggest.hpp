#pragma once
// "Did you mean ...?" for misspelt keys and names in spec files.

#include <cstddef>
#include <span>
#include <string_view>

namespace ptxgen::driver {

/// Optimal-string-alignment distance: insertions, deletions, substitutions and
/// transpositions of two adjacent characters each cost 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` when it is close enough to be a likely typo
/// (distance 1 for words of up to 3 characters, at most 2 otherwise, and less
/// than the candidate's length); the first such candidate wins a tie. Empty when
/// none is close enough or `word` is itself a candidate.
std::string_view closest_match(std::string_view word, std::span<const std::string_view> candidates);

} // namespace ptxgen::driver
