#pragma once
// The variant helpers: the usual visitor, std::visit(overloaded{[](A){...}, [](B){...}}, v),
// and the variant an X-macro table spells (VariantOfRest).

#include <variant>

namespace ptxgen {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

/// std::variant of all but the first type: lets an X-macro table write `, Kind` for each of
/// its rows after a leading `void` (VariantOfRest<void, A, B>::type is std::variant<A, B>).
template <class Ignored, class... Kinds>
struct VariantOfRest {
  using type = std::variant<Kinds...>;
};

} // namespace ptxgen
