// A parameter's test value has one rule at every door: tile::set_param_value, which
// the C++ builder, Python's `run(n=...)` and `ptxgen run --param` call. Inside the declared
// range, or the type's without one; refused (run_param_value) naming the range otherwise,
// the value then unchanged.

#include "emitter/api/api.hpp"
#include "emitter/tile/well_formed.hpp"

#include <cstdint>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_param_value_rule {

using namespace ptxgen;

namespace {

bool says(const std::optional<Diagnostic>& d, const std::string& part) {
  return d && d->id == DiagId::run_param_value && d->message.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("a parameter's test value lies in its declared range, or in its type's") {
  api::KernelBuilder k("k");
  k.param_u32("n", 3, tile::Interval{1, 64});
  k.param_u32("m", 5);
  k.param_u64("policy", 0);
  CHECK_FALSE(k.set_param_value("n", 64).has_value());
  CHECK(k.kernel().find_param("n")->value == 64);
  CHECK(says(k.set_param_value("n", 65), "declared range 1..64"));
  CHECK(says(k.set_param_value("n", 0), "declared range 1..64"));
  CHECK(k.kernel().find_param("n")->value == 64);
  CHECK_FALSE(k.set_param_value("m", 0xFFFFFFFFu).has_value());
  CHECK(says(k.set_param_value("m", 0x100000000u), "u32"));
  CHECK_FALSE(k.set_param_value("policy", UINT64_MAX).has_value());
  CHECK(says(k.set_param_value("q", 1), "no parameter 'q'"));
}

TEST_CASE("a kernel held without its builder keeps the same rule and words") {
  api::KernelBuilder k("k");
  k.param_u32("n", 3, tile::Interval{1, 64});
  tile::Kernel loaded;
  loaded.params = k.kernel().params;
  const auto by_builder = k.set_param_value("n", 65);
  const auto by_kernel = tile::set_param_value(loaded, "n", 65);
  REQUIRE(by_builder.has_value());
  REQUIRE(by_kernel.has_value());
  CHECK(by_builder->message == by_kernel->message);
  CHECK_FALSE(tile::set_param_value(loaded, "n", 7).has_value());
  CHECK(loaded.params[0].value == 7);
}

} // namespace unit_param_value_rule
