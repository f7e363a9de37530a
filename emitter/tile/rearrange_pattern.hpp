#pragma once
// The parsed form of an einops rearrange pattern: "(w t) (r v) -> w t r v".
//
// Parsed once into an immutable structure with positions, then checked side
// against side (einops-style, but every error has a position). Sizes and the
// view the pattern applies to are checked later, by apply_step.

#include "emitter/support/result.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::tile {

/// One axis name in the pattern.
struct PatternName {
  std::string name;
  std::size_t offset = 0; ///< in the text given to parse_rearrange_pattern
};

/// One group: a bare name `w`, or a parenthesised list `(w t)`.
struct PatternGroup {
  std::vector<PatternName> names; ///< outer to inner; never empty
  bool parenthesised = false;
  std::size_t offset = 0; ///< the group's span in the text
  std::size_t length = 0;
  /// The group as canonical text: `w` or `(w t)`.
  std::string str() const;
};

struct RearrangePattern {
  std::vector<PatternGroup> inputs;  ///< left of `->`: one group per axis of the view
  std::vector<PatternGroup> outputs; ///< right of `->`: one group per output axis
  std::size_t inputs_offset = 0;     ///< span of the left side (for the group-count error)
  std::size_t inputs_length = 0;
};

/// Parses text[begin, end) (the pattern's characters); positions are offsets
/// into `text`. Checks the syntax, that no name repeats on a side, and that
/// both sides name the same axes.
Result<RearrangePattern> parse_rearrange_pattern(std::string_view text, std::size_t begin,
                                                 std::size_t end);

} // namespace ptxgen::tile
