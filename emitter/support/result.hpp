#pragma once
// A value or the diagnostics that explain why there is none.

#include "emitter/support/diagnostic.hpp"

#include <optional>
#include <utility>

namespace ptxgen {

template <class T>
struct Result {
  std::optional<T> value;  ///< present exactly when diagnostics has no error
  Diagnostics diagnostics; ///< errors, or warnings that came with a value

  static Result success(T v) { return Result{std::move(v), {}}; }
  static Result failure(Diagnostic d) {
    Result r;
    r.diagnostics.add(std::move(d));
    return r;
  }
  static Result failure(Diagnostics ds) { return Result{std::nullopt, std::move(ds)}; }

  explicit operator bool() const { return value.has_value(); }
  T& operator*() { return *value; }
  const T& operator*() const { return *value; }
  T* operator->() { return &*value; }
  const T* operator->() const { return &*value; }
};

} // namespace ptxgen
