#pragma once
// How the kernel builder's files hand a C++ operand to build::Builder: every position
// is the call site's (internal to emitter/api/).

#include "emitter/api/typed_expr.hpp"
#include "emitter/api/typed_view.hpp"
#include "emitter/builder/builder.hpp"

#include <string>
#include <variant>

namespace ptxgen::api::operands {

inline build::At at_of(const Pos& at) {
  return build::At{at.source_pos(), 1};
}

/// A C++ operand's text for the builder: its diagnostics go to the call site.
inline build::Text text_of(std::string text, const Pos& at) {
  return build::Text{std::move(text), at.source_pos(), false, 1};
}

inline tile::Located<tile::View> located(const View& v, const Pos& at) {
  return tile::Located<tile::View>{v.tile(), v.text(), at.source_pos()};
}

inline tile::Located<tile::ExprPtr> located(const Expr& e, const Pos& at) {
  return tile::Located<tile::ExprPtr>{e.ptr(), e.str(), at.source_pos()};
}

/// A pipeline load's dst (an apply, a bulk_load or a tensor_load; the builder refused any
/// other kind before this is asked).
inline const tile::View& load_dst(const tile::OpBody& body) {
  if (const auto* b = std::get_if<tile::BulkLoadOp>(&body))
    return b->dst.value;
  if (const auto* t = std::get_if<tile::TensorLoadOp>(&body))
    return t->dst.value;
  return std::get<tile::ApplyOp>(body).dst.value;
}

} // namespace ptxgen::api::operands
