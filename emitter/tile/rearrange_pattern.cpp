#include "emitter/tile/rearrange_pattern.hpp"

#include "emitter/tile/name_chars.hpp"

#include <algorithm>
#include <cctype>

namespace ptxgen::tile {

namespace {

bool space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

std::string describe(std::string_view text, std::size_t i, std::size_t end) {
  if (i >= end)
    return "the end of the pattern";
  return "'" + std::string(1, text[i]) + "'";
}

// Parses the groups of one side in text[i, end).
Result<std::vector<PatternGroup>> parse_side(std::string_view text, std::size_t i, std::size_t end,
                                             bool left) {
  using R = Result<std::vector<PatternGroup>>;
  std::vector<PatternGroup> groups;
  auto read_name = [&](std::size_t& j) {
    std::size_t b = j;
    while (j < end && name_char(text[j]))
      ++j;
    return PatternName{std::string(text.substr(b, j - b)), b};
  };
  while (true) {
    while (i < end && space(text[i]))
      ++i;
    if (i >= end)
      break;
    char c = text[i];
    PatternGroup g;
    g.offset = i;
    if (name_start(c)) {
      g.names.push_back(read_name(i));
    } else if (c == '(') {
      g.parenthesised = true;
      ++i;
      while (true) {
        while (i < end && space(text[i]))
          ++i;
        if (i < end && text[i] == ')')
          break;
        if (i < end && name_start(text[i])) {
          g.names.push_back(read_name(i));
          continue;
        }
        if (i < end && text[i] == '(')
          return R::failure(error_at(DiagId::view_pattern_syntax, text, i, 1,
                                     "nested parentheses are not allowed in a pattern"));
        if (i >= end)
          return R::failure(error_at(DiagId::view_pattern_syntax, text, g.offset, 1,
                                     "unclosed '(' in the pattern"));
        return R::failure(
            error_at(DiagId::view_pattern_syntax, text, i, 1,
                     "expected an axis name or ')'; found " + describe(text, i, end)));
      }
      ++i; // )
      if (g.names.empty())
        return R::failure(error_at(DiagId::view_pattern_syntax, text, g.offset, i - g.offset,
                                   "empty group '()'; a group needs at least one axis name"));
    } else if (c == ')') {
      return R::failure(
          error_at(DiagId::view_pattern_syntax, text, i, 1, "unmatched ')' in the pattern"));
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      return R::failure(error_at(DiagId::view_pattern_syntax, text, i, 1,
                                 "axis names start with a letter or '_'; numbers (like einops' "
                                 "`1`) are not supported"));
    } else {
      return R::failure(error_at(DiagId::view_pattern_syntax, text, i, 1,
                                 std::string("expected an axis name or '(' ") +
                                     (left ? "before '->'" : "after '->'") + "; found " +
                                     describe(text, i, end)));
    }
    g.length = i - g.offset;
    groups.push_back(std::move(g));
  }
  return R::success(std::move(groups));
}

const PatternName* find_name(const std::vector<PatternGroup>& side, std::string_view n) {
  for (const auto& g : side)
    for (const auto& pn : g.names)
      if (pn.name == n)
        return &pn;
  return nullptr;
}

/// The first name of `side` that `other` lacks, else nullptr.
const PatternName* first_unmatched(const std::vector<PatternGroup>& side,
                                   const std::vector<PatternGroup>& other) {
  for (const auto& g : side)
    for (const auto& n : g.names)
      if (!find_name(other, n.name))
        return &n;
  return nullptr;
}

} // namespace

std::string PatternGroup::str() const {
  if (!parenthesised && names.size() == 1)
    return names[0].name;
  std::string s = "(";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i)
      s += ' ';
    s += names[i].name;
  }
  return s + ")";
}

Result<RearrangePattern> parse_rearrange_pattern(std::string_view text, std::size_t begin,
                                                 std::size_t end) {
  using R = Result<RearrangePattern>;
  end = std::min(end, text.size());
  std::string_view body = text.substr(begin, end - begin);
  std::size_t arrow = body.find("->");
  if (arrow == std::string_view::npos)
    return R::failure(error_at(DiagId::view_pattern_syntax, text, begin,
                               std::max<std::size_t>(end - begin, 1),
                               "expected '->' between the input and output axes "
                               "(e.g. \"(w t) v -> w t v\")"));
  arrow += begin;
  if (std::size_t second = body.find("->", arrow - begin + 2); second != std::string_view::npos)
    return R::failure(error_at(DiagId::view_pattern_syntax, text, begin + second, 2,
                               "a pattern has exactly one '->'"));

  RearrangePattern p;
  auto lhs = parse_side(text, begin, arrow, true);
  if (!lhs)
    return R::failure(lhs.diagnostics);
  auto rhs = parse_side(text, arrow + 2, end, false);
  if (!rhs)
    return R::failure(rhs.diagnostics);
  p.inputs = std::move(*lhs);
  p.outputs = std::move(*rhs);
  p.inputs_offset = begin;
  p.inputs_length = arrow - begin;
  // Trim the left side's span to its groups for a tidy caret.
  if (!p.inputs.empty()) {
    p.inputs_offset = p.inputs.front().offset;
    p.inputs_length = p.inputs.back().offset + p.inputs.back().length - p.inputs_offset;
  }

  // A name at most once per side.
  for (const auto* side : {&p.inputs, &p.outputs}) {
    std::vector<const PatternName*> seen;
    for (const auto& g : *side)
      for (const auto& n : g.names) {
        for (const auto* s : seen)
          if (s->name == n.name)
            return R::failure(
                error_at(DiagId::view_pattern_repeated_axis, text, n.offset, n.name.size(),
                         "axis '" + n.name + "' is repeated on the " +
                             (side == &p.inputs ? "left" : "right") + " side of the pattern"));
        seen.push_back(&n);
      }
  }
  // Both sides name the same axes.
  if (const PatternName* n = first_unmatched(p.outputs, p.inputs))
    return R::failure(error_at(DiagId::view_pattern_unknown_axis, text, n->offset, n->name.size(),
                               "unknown axis '" + n->name +
                                   "' on the right side: it is not on the left side of "
                                   "the pattern"));
  if (const PatternName* n = first_unmatched(p.inputs, p.outputs))
    return R::failure(error_at(DiagId::view_pattern_dropped_axis, text, n->offset, n->name.size(),
                               "axis '" + n->name +
                                   "' is on the left side only; every input axis must "
                                   "appear on the right (use .sub to select from an axis)"));
  return R::success(std::move(p));
}

} // namespace ptxgen::tile
