#pragma once
// "Did you mean ...?" for misspelt keys, names and spellings (spec keys, ops, tensors,
// parameters, dtypes, view methods, expression names).

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace ptxgen::tile {

/// Optimal-string-alignment distance: insertions, deletions, substitutions and
/// transpositions of two adjacent characters each cost 1.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word` when it is close enough to be a likely typo
/// (distance 1 for words of up to 3 characters, at most 2 otherwise, and less
/// than the candidate's length); the first such candidate wins a tie. Empty when
/// none is close enough or `word` is itself a candidate.
std::string_view closest_match(std::string_view word, std::span<const std::string_view> candidates);

/// "; did you mean 'x'?" for closest_match(word, candidates), or "" when none is close.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

/// `suggestion` (a did_you_mean() result) when it is not empty, else `choices`.
std::string or_choices(std::string suggestion, std::string choices);

} // namespace ptxgen::tile
