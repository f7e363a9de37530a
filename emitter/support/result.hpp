#pragma once
// How the libraries report failure: one convention, two carriers.
//
// - Result<T> (a value or Diagnostics) for anything about the user's input: a spec, a
//   view, an expression, PTX. Each diagnostic has a DiagId and, where there is one, a
//   position, so the command line can print it with a caret and tests can match the ID.
// - Fallible<T> (a value or one message) for system failures that have no position in
//   the user's input: a file that cannot be read or written, a tool that cannot be found
//   or run, an environment variable that does not parse. Status is Fallible<void>, for
//   an operation that returns nothing. Build a failure with Failure{message}.
//
// Both test true when they hold a value and are read with * and ->. A function returns
// one of them; it does not take an error out-parameter.
//
// Exceptions are for two places only: a process boundary (driver/cli/main.cpp catches
// what escapes, CUDA wrappers throw CudaError inside driver/cuda and it is caught where
// a run reports its result) and a parser's own recursion, which throws ParseError
// (parse_error.hpp) and catches it in its public entry point. No other exception leaves
// a library function.

#include "emitter/support/diagnostic.hpp"

#include <optional>
#include <string>
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

/// Why a Fallible holds no value: one message for the user, printed as it is.
struct Failure {
  std::string message;
};

/// A value, or the message of the system failure that prevented it.
template <class T>
class [[nodiscard]] Fallible {
public:
  Fallible(T v) : value_(std::move(v)) {}
  Fallible(Failure f) : error_(std::move(f.message)) {}

  explicit operator bool() const { return value_.has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  /// The failure's message; empty when there is a value.
  const std::string& error() const { return error_; }

private:
  std::optional<T> value_;
  std::string error_;
};

/// Success, or the message of the system failure.
template <>
class [[nodiscard]] Fallible<void> {
public:
  Fallible() = default;
  Fallible(Failure f) : failed_(true), error_(std::move(f.message)) {}

  explicit operator bool() const { return !failed_; }
  /// The failure's message; empty on success.
  const std::string& error() const { return error_; }

private:
  bool failed_ = false;
  std::string error_;
};

using Status = Fallible<void>;

} // namespace ptxgen
