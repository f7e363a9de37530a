#pragma once
// The usual visitor helper: std::visit(overloaded{[](A){...}, [](B){...}}, v).

namespace ptxgen {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

} // namespace ptxgen
