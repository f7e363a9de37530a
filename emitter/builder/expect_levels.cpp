#include "emitter/builder/expect_levels.hpp"

#include "emitter/tile/rearrange_pattern.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <variant>

namespace ptxgen::build {

namespace {

/// The walk's state at one level: the affine view of the level (apply_step's, whose
/// constant sizes are the axes' that do not move) and each axis's size expression.
struct LevelWalk {
  tile::View level;
  ExpectLevels out;

  /// Whether axis `a` moves.
  bool moving(std::size_t a) const { return a < out.moves.size() && out.moves[a]; }

  void sub(const tile::SubStep& step);
  /// False when the rearrange splits or merges a moving axis (`axis` names it).
  bool rearrange(const tile::RearrangeStep& step, const tile::View& next, std::size_t& axis);
  /// False when the dtype view changes the element size over a moving last axis.
  bool reinterpret(const tile::View& next);
};

void LevelWalk::sub(const tile::SubStep& step) {
  std::vector<tile::ExprPtr> next;
  std::vector<bool> moves;
  const std::vector<tile::ExprPtr>& sizes = out.sizes;
  for (std::size_t a = 0; a < sizes.size(); ++a) {
    if (a >= step.entries.size()) {
      next.push_back(sizes[a]);
      moves.push_back(moving(a));
      continue;
    }
    const tile::SubEntry& e = step.entries[a];
    ExpectEntry p{&e, a, sizes[a], nullptr, nullptr, nullptr};
    if (e.is_slice) {
      p.begin = e.begin_expr ? e.begin_expr : tile::make_constant(e.begin);
      p.end = e.end_expr ? e.end_expr : e.open_end ? sizes[a] : tile::make_constant(e.end);
      next.push_back(tile::make_binary(tile::ExprOp::sub, p.end, p.begin));
      moves.push_back(e.symbolic() || (e.open_end && moving(a)));
    } else {
      p.index = e.index;
    }
    const bool settled = tile::is_constant(*p.size) &&
                         (p.index ? tile::is_constant(*p.index)
                                  : tile::is_constant(*p.begin) && tile::is_constant(*p.end));
    if (!settled)
      out.entries.push_back(std::move(p));
  }
  out.sizes = std::move(next);
  out.moves = std::move(moves);
}

bool LevelWalk::rearrange(const tile::RearrangeStep& step, const tile::View& next,
                          std::size_t& axis) {
  const auto parsed = tile::parse_rearrange_pattern(step.pattern, 0, step.pattern.size());
  if (!parsed) // apply_step parsed it before: not reached
    return true;
  // Each name's input axis, and whether it is that axis's only name.
  std::map<std::string, std::pair<std::size_t, bool>, std::less<>> input_of;
  for (std::size_t a = 0; a < parsed->inputs.size(); ++a)
    for (const tile::PatternName& n : parsed->inputs[a].names)
      input_of[n.name] = {a, parsed->inputs[a].names.size() == 1};
  std::vector<tile::ExprPtr> sizes;
  std::vector<bool> moves;
  std::vector<bool> moved_whole(out.sizes.size(), false);
  for (std::size_t j = 0; j < parsed->outputs.size(); ++j) {
    const tile::PatternGroup& g = parsed->outputs[j];
    const auto in = g.names.size() == 1 ? input_of.find(g.names[0].name) : input_of.end();
    if (in != input_of.end() && in->second.second) {
      const std::size_t a = in->second.first;
      sizes.push_back(out.sizes.at(a));
      moves.push_back(moving(a));
      moved_whole[a] = true;
    } else { // split or merged: its size is the affine level's, a constant
      sizes.push_back(tile::make_constant(next.axes.at(j).size));
      moves.push_back(false);
    }
  }
  for (std::size_t a = 0; a < moved_whole.size(); ++a)
    if (moving(a) && !moved_whole[a]) {
      axis = a;
      return false;
    }
  out.sizes = std::move(sizes);
  out.moves = std::move(moves);
  return true;
}

bool LevelWalk::reinterpret(const tile::View& next) {
  if (out.sizes.empty())
    return true;
  const std::size_t last = out.sizes.size() - 1;
  if (!moving(last)) {
    out.sizes[last] = tile::make_constant(next.axes.at(last).size);
    return true;
  }
  return tile::size_bytes(next.dtype) == tile::size_bytes(level.dtype);
}

} // namespace

ExpectLevels expect_levels(const tile::View& v) {
  LevelWalk w{tile::whole(*v.tensor), {}};
  for (std::int64_t n : v.tensor->shape) {
    w.out.sizes.push_back(tile::make_constant(n));
    w.out.moves.push_back(false);
  }
  w.out.reshapes_moving = v.steps.size();
  for (std::size_t i = 0; i < v.steps.size(); ++i) {
    auto next = tile::apply_step(w.level, v.steps[i]);
    if (!next) // the view was built by these very steps: not reached
      break;
    bool kept = true;
    std::size_t axis = w.out.sizes.empty() ? 0 : w.out.sizes.size() - 1;
    if (const auto* sub = std::get_if<tile::SubStep>(&v.steps[i]))
      w.sub(*sub);
    else if (const auto* r = std::get_if<tile::RearrangeStep>(&v.steps[i]))
      kept = w.rearrange(*r, *next, axis);
    else
      kept = w.reinterpret(*next);
    if (!kept) {
      w.out.reshapes_moving = i;
      w.out.moving_axis = axis;
      break;
    }
    w.level = std::move(*next);
  }
  return std::move(w.out);
}

} // namespace ptxgen::build
