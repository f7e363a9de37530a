// Hostile index arithmetic in the contract checker: found by the sanitizer build
// (UBSan: signed overflow in thread_part), kept as a regression test.
#include "driver/spec/loader.hpp"
#include "emitter/lower/lower.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

using namespace ptxgen;

namespace {

std::string seed_spec() {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/specs/seed/copy_async.toml");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The seed spec with the copy-out's `B.sub[tid, :]` index replaced.
Result<ptx::Module> lower_with_index(const std::string& index) {
  std::string text = seed_spec();
  const std::string from = "B.sub[tid, :]";
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), "B.sub[" + index + ", :]");
  auto k = driver::load_spec_text(text, "overflow.toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k.value.has_value());
  return lower::lower(**k, lower::LowerOptions{});
}

bool mentions(const Diagnostics& ds, std::string_view what) {
  for (const Diagnostic& d : ds.items())
    if (d.message.find(what) != std::string::npos)
      return true;
  return false;
}

} // namespace

TEST_CASE("an index times its stride beyond int64 is an overflow error, not UB") {
  // Row stride of B is 64 bytes: INT64_MAX * 64 overflowed in thread_part.
  auto r = lower_with_index("tid * 9223372036854775807 + 9223372036854775807");
  REQUIRE_FALSE(r.value.has_value());
  INFO(r.diagnostics.format_all());
  // Rejected either by the 32-bit index rule (checked first) or by the overflow guard.
  CHECK((mentions(r.diagnostics, "overflows at thread") ||
         mentions(r.diagnostics, "must stay in 0..4294967295")));
}

TEST_CASE("an index whose byte offset fits int64 but is far outside the tensor is out of bounds") {
  // 2^56 rows * 64 bytes = 2^62: at the guard, rejected as an overflow, not wrapped.
  auto r = lower_with_index("tid + 72057594037927936");
  REQUIRE_FALSE(r.value.has_value());
  CHECK((mentions(r.diagnostics, "overflows at thread") ||
         mentions(r.diagnostics, "must stay in 0..4294967295")));
  // 2^30 rows * 64 bytes = 2^36: a plain out-of-bounds error, no overflow.
  auto s = lower_with_index("tid + 1073741824");
  REQUIRE_FALSE(s.value.has_value());
  CHECK_FALSE(mentions(s.diagnostics, "overflows at thread"));
}

TEST_CASE("the seed's own index still lowers") {
  auto r = lower_with_index("tid");
  INFO(r.diagnostics.format_all());
  CHECK(r.value.has_value());
}
