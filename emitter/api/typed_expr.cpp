#include "emitter/api/typed_expr.hpp"

namespace ptxgen::api {

Expr::Expr(std::int64_t value) : e_(tile::make_constant(value)) {}
Expr::Expr(tile::ExprPtr e) : e_(std::move(e)) {}

std::string Expr::str() const {
  return tile::print(*e_);
}

Expr tid() {
  return Expr(tile::make_leaf(tile::ExprKind::tid));
}
Expr warp() {
  return Expr(tile::make_leaf(tile::ExprKind::warp));
}
Expr lane() {
  return Expr(tile::make_leaf(tile::ExprKind::lane));
}
Expr bid() {
  return Expr(tile::make_leaf(tile::ExprKind::bid));
}
Expr special(tile::Special s) {
  return Expr(tile::make_special(s));
}
Expr axis(std::string name) {
  return Expr(tile::make_leaf(tile::ExprKind::axis, std::move(name)));
}

namespace {
Expr binary(tile::ExprOp op, const Expr& a, const Expr& b) {
  return Expr(tile::make_binary(op, a.ptr(), b.ptr()));
}
} // namespace

// clang-format off
Expr operator+(const Expr& a, const Expr& b) { return binary(tile::ExprOp::add, a, b); }
Expr operator-(const Expr& a, const Expr& b) { return binary(tile::ExprOp::sub, a, b); }
Expr operator*(const Expr& a, const Expr& b) { return binary(tile::ExprOp::mul, a, b); }
Expr operator/(const Expr& a, const Expr& b) { return binary(tile::ExprOp::div, a, b); }
Expr operator%(const Expr& a, const Expr& b) { return binary(tile::ExprOp::rem, a, b); }
Expr operator<<(const Expr& a, const Expr& b) { return binary(tile::ExprOp::shl, a, b); }
Expr operator>>(const Expr& a, const Expr& b) { return binary(tile::ExprOp::shr, a, b); }
Expr operator&(const Expr& a, const Expr& b) { return binary(tile::ExprOp::bit_and, a, b); }
Expr operator|(const Expr& a, const Expr& b) { return binary(tile::ExprOp::bit_or, a, b); }
Expr operator^(const Expr& a, const Expr& b) { return binary(tile::ExprOp::bit_xor, a, b); }
Expr operator<(const Expr& a, const Expr& b) { return binary(tile::ExprOp::lt, a, b); }
Expr operator<=(const Expr& a, const Expr& b) { return binary(tile::ExprOp::le, a, b); }
Expr operator>(const Expr& a, const Expr& b) { return binary(tile::ExprOp::gt, a, b); }
Expr operator>=(const Expr& a, const Expr& b) { return binary(tile::ExprOp::ge, a, b); }
Expr operator==(const Expr& a, const Expr& b) { return binary(tile::ExprOp::eq, a, b); }
Expr operator!=(const Expr& a, const Expr& b) { return binary(tile::ExprOp::ne, a, b); }
Expr operator&&(const Expr& a, const Expr& b) { return binary(tile::ExprOp::logical_and, a, b); }
Expr operator||(const Expr& a, const Expr& b) { return binary(tile::ExprOp::logical_or, a, b); }
Expr min(const Expr& a, const Expr& b) { return binary(tile::ExprOp::min, a, b); }
Expr max(const Expr& a, const Expr& b) { return binary(tile::ExprOp::max, a, b); }
// clang-format on

Expr operator!(const Expr& a) {
  return Expr(tile::make_unary(tile::ExprOp::logical_not, a.ptr()));
}
Expr operator-(const Expr& a) {
  return Expr(tile::make_unary(tile::ExprOp::neg, a.ptr()));
}
Expr clamp(const Expr& x, const Expr& lo, const Expr& hi) {
  return min(max(x, lo), hi);
}
Expr select(const Expr& c, const Expr& a, const Expr& b) {
  return Expr(tile::make_select(c.ptr(), a.ptr(), b.ptr()));
}

} // namespace ptxgen::api
