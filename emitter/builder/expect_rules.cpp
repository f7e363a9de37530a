// The builder's expectation rules: each side a view of a global tensor (any chain of
// .sub, .rearrange and dtype views) whose .sub entries name constants and scalar parameters
// only (expect_bounds.cpp proves them inside their axes over the declared ranges), two views
// of the same shape and element size.
#include "emitter/builder/builder.hpp"
#include "emitter/builder/expect_levels.hpp"
#include "emitter/tile/expr_walk.hpp"
#include "emitter/tile/name_chars.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace ptxgen::build {

namespace {

/// The first leaf of `e` that is neither a constant nor a parameter (tid, bid, a loop
/// variable...), else nullptr: after the kernel only the parameters have a value.
const tile::Expr* per_run_leaf(const tile::Expr& e) {
  return tile::find_node(e, [](const tile::Expr& x) {
    return x.args.empty() && x.kind != tile::ExprKind::constant && x.kind != tile::ExprKind::param;
  });
}

/// The first leaf of an entry's index or slice bounds that per_run_leaf finds, else nullptr.
const tile::Expr* per_run_leaf(const tile::SubEntry& e) {
  for (const tile::ExprPtr& x : {e.is_slice ? nullptr : e.index, e.begin_expr, e.end_expr})
    if (x)
      if (const tile::Expr* leaf = per_run_leaf(*x))
        return leaf;
  return nullptr;
}

std::int64_t view_bytes(const tile::View& v) {
  std::int64_t n = tile::size_bytes(v.dtype);
  for (std::int64_t s : v.shape())
    n *= s;
  return n;
}

/// "[64, 16] of uint8"; an axis that moves with the parameters is "?".
std::string shape_text(const tile::View& v) {
  std::string s = "[";
  const auto shape = v.shape();
  const std::vector<bool> moves = expect_levels(v).moves;
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + (i < moves.size() && moves[i] ? "?" : std::to_string(shape[i]));
  return s + "] of " + std::string(tile::name(v.dtype));
}

/// The length of the tensor name a view string starts with.
std::size_t name_length(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && tile::name_char(s[n]))
    ++n;
  return n;
}

} // namespace

bool Builder::expect_side(const tile::View& v, const Text& at) {
  const std::string_view text = at.text;
  if (v.tensor->space != tile::Space::global) {
    error_in(DiagId::spec_expect_not_global, at, 0, name_length(text),
             "'" + v.tensor->name +
                 "' is a shared tensor; expectations are about global tensors, whose bytes "
                 "outlive the kernel");
    return false;
  }
  for (const tile::ViewStep& step : v.steps) {
    if (const auto* sub = std::get_if<tile::SubStep>(&step)) {
      for (const tile::SubEntry& e : sub->entries) {
        const tile::Expr* leaf = per_run_leaf(e);
        if (!leaf)
          continue;
        const bool inside = leaf->length > 0 && leaf->offset + leaf->length <= text.size();
        const std::string name(inside ? text.substr(leaf->offset, leaf->length) : text);
        error_in(DiagId::spec_expect_index_not_constant, at, inside ? leaf->offset : e.offset,
                 inside ? leaf->length : e.length,
                 "an expectation's indices and slice bounds name constants and the spec's "
                 "parameters only: '" +
                     name +
                     "' has no value after the kernel (an expectation is about the whole "
                     "launch's result, not one thread's, CTA's or iteration's)");
        return false;
      }
    }
  }
  const ExpectLevels levels = expect_levels(v);
  if (levels.reshapes_moving < v.steps.size())
    return expect_reshape(v, levels, at);
  return expect_bounds(v, levels, at);
}

bool Builder::expect_reshape(const tile::View& v, const ExpectLevels& levels, const Text& at) {
  // The step in the text: the n-th of its kind, n counted over the steps before it.
  const tile::ViewStep& step = v.steps[levels.reshapes_moving];
  const bool rearrange = std::holds_alternative<tile::RearrangeStep>(step);
  const std::string_view method = rearrange ? ".rearrange" : ".view";
  std::size_t where = std::string_view::npos;
  for (std::size_t i = 0; i <= levels.reshapes_moving; ++i)
    if (v.steps[i].index() == step.index())
      where =
          std::string_view(at.text).find(method, where == std::string_view::npos ? 0 : where + 1);
  const bool found = where != std::string_view::npos;
  error_in(DiagId::spec_expect_view_step, at, found ? where : 0,
           found ? method.size() : name_length(at.text),
           std::string(rearrange ? "this rearrange splits or merges"
                                 : "this dtype view changes the element size over") +
               " axis " + std::to_string(levels.moving_axis) +
               ", whose size moves with the parameters (a slice bound before it names one); an "
               "expectation reshapes such an axis only by moving it whole: slice after the "
               "step instead");
  return false;
}

bool Builder::expect_same_shape(const tile::View& l, const tile::View& r, const Text& lhs_at,
                                const Text& rhs_at) {
  // Two whole tensors need the same byte size (compared byte for byte); views the
  // same shape and element size (compared element by element).
  // An axis that moves with the parameters is compared at each run's values.
  const bool whole = l.steps.empty() && r.steps.empty();
  const std::vector<bool> lm = expect_levels(l).moves, rm = expect_levels(r).moves;
  bool fits = whole
                  ? view_bytes(l) == view_bytes(r)
                  : l.rank() == r.rank() && tile::size_bytes(l.dtype) == tile::size_bytes(r.dtype);
  for (std::size_t a = 0; fits && !whole && a < l.rank(); ++a)
    fits = (a < lm.size() && lm[a]) || (a < rm.size() && rm[a]) || l.shape()[a] == r.shape()[a];
  if (fits)
    return true;
  error_in(DiagId::spec_expect_shape_mismatch, rhs_at, 0, rhs_at.text.size(),
           rhs_at.text + " is " + shape_text(r) + " but " + lhs_at.text + " is " + shape_text(l) +
               (whole ? "; two whole tensors need the same byte size"
                      : "; both sides need the same shape and element size"));
  return false;
}

tile::ExprNames Builder::expect_names() const {
  tile::ExprNames n;
  n.is_param = [this](std::string_view x) { return is_param(x); };
  n.is_loop = [this](std::string_view x) {
    return std::any_of(kernel_->ops.begin(), kernel_->ops.end(), [&](const tile::Op& op) {
      const auto* f = std::get_if<tile::ForOp>(&op.body);
      return f && f->var.value == x;
    });
  };
  return n;
}

void Builder::expectation(tile::Expectation x) {
  kernel_->expectations.push_back(std::move(x));
}

} // namespace ptxgen::build
