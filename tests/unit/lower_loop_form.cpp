// The loop form selection produces (emitter/lower/loop_form.hpp), as
// LowerOptions::dump_loop_form writes it after the passes: for a loop whose
// shared stage is `k % 2` and whose global tile is `k`, what is hoisted, what
// rotates and what the plan is, worked out from the lowering's rules.

#include "lower_harness.hpp"

#include <sstream>

namespace ptxgen::unit_lower_loop_form {
namespace {

/// k over 0..n (n in 1..8): tile k of G into stage k % 2 of S, row tid.
constexpr std::string_view kStagedLoop = R"TOML([kernel]
name = "k"
block = 32

[param.n]
dtype = "u32"
value = 4
range = [1, 8]

[tensor.G]
space = "global"
shape = [8, 32, 16]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [2, 32, 16]
dtype = "uint8"

[[op]]
op = "for"
var = "k"
start = 0
stop = "n"

[[op]]
op = "apply"
opcode = "cp.async.ca.shared.global"
dst = 'S.sub[k % 2, tid, :]'
src = 'G.sub[k, tid, :]'
chunk_bytes = 16

[[op]]
op = "commit_group"

[[op]]
op = "end"
)TOML";

std::string loop_form_of(std::string_view spec) {
  std::ostringstream dumped;
  lower::LowerOptions o;
  o.dump_loop_form = &dumped;
  auto m = lower_test::lower_text(std::string(spec), o);
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  return dumped.str();
}

TEST_CASE("loop form: invariants in the preheader, k % 2 rotating, no skip of a loop that runs") {
  const std::string d = loop_form_of(kStagedLoop);
  INFO(d);
  const auto at = [&](std::string_view s) { return d.find(s); };
  // n is read where the loop's bound is first needed: before the loop.
  REQUIRE(at("[arg_n]") != std::string::npos);
  CHECK(at("[arg_n]") < at("loop k:"));
  // Not unrolled; starts at 0 with step 1.
  CHECK(at("from 0 step 1, not unrolled") != std::string::npos);
  // The stage offset 16*32 * (k % 2): a masked rotating register (1024 is a
  // power of two), no induction register (the global address is one
  // mad.wide from the counter onto the hoisted base + tid*16).
  CHECK(at("rotating") != std::string::npos);
  CHECK(at("% 2), masked") != std::string::npos);
  CHECK(at("induction") == std::string::npos);
  // G's base, read and converted once, in the preheader, not in the body.
  REQUIRE(at("preheader:") != std::string::npos);
  REQUIRE(at("body:") != std::string::npos);
  CHECK(at("preheader:") < at("[arg_G]"));
  CHECK(at("[arg_G]") < at("body:"));
  CHECK(at("cvta.to.global.u64") < at("body:"));
  // The advance: the rotating register by 512, masked with 1023.
  CHECK(d.find("and.b32", at("body:")) != std::string::npos);
  CHECK(d.find(", 1023;", at("body:")) != std::string::npos);
  // k starts at 0 and n >= 1: the loop runs, so no skip before it.
  CHECK(at("setp.ge.u32") == std::string::npos);
  CHECK(at("end loop k") != std::string::npos);
}

} // namespace
} // namespace ptxgen::unit_lower_loop_form
