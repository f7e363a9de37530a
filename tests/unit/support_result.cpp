// Fallible and Status: the carriers of system failures (emitter/support/result.hpp).

#include "emitter/support/result.hpp"

#include <memory>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_support_result {

using ptxgen::Failure;
using ptxgen::Fallible;
using ptxgen::Status;

namespace {

Fallible<int> half(int n) {
  if (n % 2 != 0)
    return Failure{std::to_string(n) + " is odd"};
  return n / 2;
}

Status even(int n) {
  if (n % 2 != 0)
    return Failure{"odd"};
  return {};
}

} // namespace

TEST_CASE("Fallible: a value, or a message and no value") {
  auto ok = half(8);
  REQUIRE(ok);
  CHECK(*ok == 4);
  CHECK(ok.error().empty());
  auto bad = half(7);
  CHECK_FALSE(bad);
  CHECK(bad.error() == "7 is odd");
}

TEST_CASE("Fallible: holds a move-only value and reaches it through ->") {
  Fallible<std::unique_ptr<std::string>> p = std::make_unique<std::string>("abc");
  REQUIRE(p);
  CHECK((*p)->size() == 3);
  Fallible<std::string> s = std::string("xyz");
  CHECK(s->size() == 3);
}

TEST_CASE("Status: success by default, a failure with its message") {
  CHECK(even(2));
  CHECK(even(2).error().empty());
  CHECK_FALSE(even(3));
  CHECK(even(3).error() == "odd");
  // A failure without a message is still a failure.
  CHECK_FALSE(Status(Failure{}));
}

} // namespace unit_support_result
