// "Did you mean" suggestions for spec keys: the edit distance and the closeness rule.

#include "emitter/tile/suggest.hpp"

#include <array>
#include <string>
#include <string_view>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_spec_suggest {

using ptxgen::tile::closest_match;
using ptxgen::tile::edit_distance;

TEST_CASE("edit distance counts insertions, deletions, substitutions and transpositions") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("chunk_byte", "chunk_bytes") == 1); // one insertion
  CHECK(edit_distance("kitten", "sitting") == 3);         // k->s, e->i, +g
  CHECK(edit_distance("sapce", "space") == 1);            // one transposition
  CHECK(edit_distance("ab", "ba") == 1);
  CHECK(edit_distance("abc", "abc") == 0);
  CHECK(edit_distance("abc", "xyz") == 3);
}

TEST_CASE("closest_match suggests only likely typos") {
  constexpr std::array<std::string_view, 4> keys = {"chunk_bytes", "src_size", "scope", "src"};
  CHECK(closest_match("chunk_byte", keys) == "chunk_bytes");
  CHECK(closest_match("sopce", keys) == "scope");
  CHECK(closest_match("src_sise", keys) == "src_size");
  CHECK(closest_match("srd", keys) == "src");
  CHECK(closest_match("whatever", keys).empty());
  CHECK(closest_match("src", keys).empty()); // an exact key is no typo
  // Short words: one edit at most.
  constexpr std::array<std::string_view, 1> op = {"op"};
  CHECK(closest_match("n", op).empty());
  CHECK(closest_match("ip", op) == "op");
  // Two letters short or long is still within two edits; three is not.
  CHECK(closest_match("chunk_byt", keys) == "chunk_bytes");
  CHECK(closest_match("src_size_x", keys) == "src_size");
  CHECK(closest_match("chunk_by", keys).empty());
  CHECK(closest_match(std::string(1 << 20, 'x'), keys).empty());
}

} // namespace unit_spec_suggest
