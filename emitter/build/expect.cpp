// The builder's expectation rules: each side a view of a global tensor by .sub with
// constant entries, two views of the same shape and element size.
#include "emitter/build/builder.hpp"
#include "emitter/support/unreachable.hpp"
#include "emitter/tile/name_chars.hpp"

namespace ptxgen::build {

namespace {

/// The first leaf of `e` that is not a constant (tid, bid, a parameter...), else nullptr.
const tile::Expr* nonconstant_leaf(const tile::Expr& e) {
  switch (e.kind) {
  case tile::ExprKind::constant:
    return nullptr;
  case tile::ExprKind::tid:
  case tile::ExprKind::warp:
  case tile::ExprKind::lane:
  case tile::ExprKind::bid:
  case tile::ExprKind::param:
  case tile::ExprKind::axis:
  case tile::ExprKind::loop:
  case tile::ExprKind::special:
    return &e;
  case tile::ExprKind::unary:
  case tile::ExprKind::binary:
  case tile::ExprKind::select:
    for (const tile::ExprPtr& a : e.args)
      if (const tile::Expr* leaf = nonconstant_leaf(*a))
        return leaf;
    return nullptr;
  }
  unreachable("nonconstant_leaf(): not an ExprKind");
}

std::int64_t view_bytes(const tile::View& v) {
  std::int64_t n = tile::size_bytes(v.dtype);
  for (std::int64_t s : v.shape())
    n *= s;
  return n;
}

std::string shape_text(const tile::View& v) {
  std::string s = "[";
  const auto shape = v.shape();
  for (std::size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
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
        const tile::Expr* leaf = e.is_slice ? nullptr : nonconstant_leaf(*e.index);
        if (!leaf)
          continue;
        const bool inside = leaf->length > 0 && leaf->offset + leaf->length <= text.size();
        error_in(DiagId::spec_expect_index_not_constant, at, inside ? leaf->offset : e.offset,
                 inside ? leaf->length : e.length,
                 "an expectation's indices are constants: it is about the whole launch's "
                 "result, not one thread's, CTA's or iteration's");
        return false;
      }
      continue;
    }
    const std::string_view method = std::holds_alternative<tile::RearrangeStep>(step)
                                        ? std::string_view(".rearrange")
                                        : std::string_view(".view");
    const std::size_t where = text.find(method);
    error_in(DiagId::spec_expect_view_step, at, where == std::string_view::npos ? 0 : where,
             where == std::string_view::npos ? name_length(text) : method.size(),
             "expectations take .sub[...] views only (the checker replays them element by "
             "element on its own); write the region with .sub[...]");
    return false;
  }
  return true;
}

bool Builder::expect_same_shape(const tile::View& l, const tile::View& r, const Text& lhs_at,
                                const Text& rhs_at) {
  // Two whole tensors need the same byte size (compared byte for byte); views the
  // same shape and element size (compared element by element).
  const bool whole = l.steps.empty() && r.steps.empty();
  const bool fits =
      whole ? view_bytes(l) == view_bytes(r)
            : l.shape() == r.shape() && tile::size_bytes(l.dtype) == tile::size_bytes(r.dtype);
  if (fits)
    return true;
  error_in(DiagId::spec_expect_shape_mismatch, rhs_at, 0, rhs_at.text.size(),
           rhs_at.text + " is " + shape_text(r) + " but " + lhs_at.text + " is " + shape_text(l) +
               (whole ? "; two whole tensors need the same byte size"
                      : "; both sides need the same shape and element size"));
  return false;
}

void Builder::expectation(tile::Expectation x) {
  kernel_->expectations.push_back(std::move(x));
}

} // namespace ptxgen::build
