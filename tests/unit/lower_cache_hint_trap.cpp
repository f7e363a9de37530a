// The lowering's defences against the ptxas 13.0 cache-hint miscompile
// (ldgsts_unwritten_uniform, driver/sass/traps.hpp), found by `ptxgen fuzz` on
// the H200 (docs/fuzzing.md): ptxas folds a CTA-uniform addend of a cache-hint
// cp.async's shared address into the LDGSTS's [R+UR] operand and never writes
// the uniform registers. So (1) such an address ends in a mad with a per-thread
// factor, the uniform part (base, rotating stage offset) summed first; (2) a
// one-thread CTA with a cache-hint copy gets no `.reqntid`, which would tell
// ptxas that %tid is 0 and make every term uniform. Also (3): the static shared
// layout is chosen by a bound on ptxas's own layout, which found by the fuzzer
// is not the declaration order.

#include "emitter/tile/kernel.hpp"
#include "lower_harness.hpp"

#include <regex>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_lower_cache_hint_trap {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

/// One warp, a 2-stage ring filled in a loop of 4 tiles; `extra` goes into the apply.
std::string ring_spec(std::string_view opcode, std::string_view extra, int block = 32) {
  std::string s = R"TOML([kernel]
name = "k"
block = )TOML" + std::to_string(block) +
                  R"TOML(

[tensor.A]
space = "global"
shape = [4, 32, 16]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [2, 32, 16]
dtype = "uint8"

[[op]]
op = "for"
var = "k"
start = 0
stop = 4
)TOML";
  s += apply(opcode, "S.sub[k % 2, tid, :]", "A.sub[k, tid, :]", 16, extra);
  s += std::string(kCommitWait);
  s += "\n[[op]]\nop = \"end\"\n";
  return s;
}

/// The instruction that defines the shared address register of the body's first
/// cp.async inside the loop (after the loop's label).
std::string address_definition(const std::string& body) {
  std::smatch m;
  const std::string loop = body.substr(body.find("$L_k_0:"));
  REQUIRE(std::regex_search(loop, m, std::regex(R"(cp\.async\.\S+ \[(%r\d+)[\]+])")));
  const std::string reg = m[1];
  std::string def;
  std::size_t line_start = 0;
  for (std::size_t end; (end = body.find('\n', line_start)) != std::string::npos;
       line_start = end + 1) {
    const std::string line = body.substr(line_start, end - line_start);
    if (line.find(' ' + reg + ',') != std::string::npos &&
        line.find(' ' + reg + ',') == line.find(' '))
      def = line;
    if (line.rfind("cp.async.", 0) == 0 && line.find('[' + reg) != std::string::npos &&
        line_start > body.find("$L_k_0:"))
      break;
  }
  return def;
}

} // namespace

TEST_CASE("a cache-hint copy's shared address ends in a mad with a per-thread factor") {
  const std::string hint = body(ring_spec("cp.async.cg.shared.global.L2::cache_hint",
                                          "cache_policy = \"createpolicy(evict_last)\"\n"));
  // The last definition multiplies tid (the register %tid.x is moved into) by the row.
  std::smatch tid;
  REQUIRE(std::regex_search(hint, tid, std::regex(R"(mov\.u32 (%r\d+), %tid\.x;)")));
  CHECK(address_definition(hint).rfind("mad.lo.u32 ", 0) == 0);
  CHECK(address_definition(hint).find(", " + tid[1].str() + ", 16, ") != std::string::npos);
  // Without the hint the per-thread part is hoisted and the stage offset added at the
  // copy: the form the hint must avoid (so this test tells the two rules apart).
  const std::string plain = body(ring_spec("cp.async.cg.shared.global", ""));
  CHECK(address_definition(plain).rfind("add.u32 ", 0) == 0);
}

TEST_CASE("a one-thread CTA with a cache-hint copy has no .reqntid; others keep it") {
  auto printed = [](const std::string& spec) {
    auto m = lower_text(spec);
    REQUIRE(m.value.has_value());
    return ptx::print(*m.value);
  };
  const std::string hint_one = printed(ring_spec("cp.async.cg.shared.global.L2::cache_hint",
                                                 "cache_policy = \"createpolicy(evict_last)\"\n"
                                                 "pred = \"tid == 0\"\n",
                                                 1));
  CHECK(hint_one.find(".reqntid") == std::string::npos);
  const std::string plain_one = printed(ring_spec("cp.async.cg.shared.global", "", 1));
  CHECK(plain_one.find(".reqntid 1") != std::string::npos);
  const std::string hint_warp = printed(ring_spec("cp.async.cg.shared.global.L2::cache_hint",
                                                  "cache_policy = \"createpolicy(evict_last)\"\n"));
  CHECK(hint_warp.find(".reqntid 32") != std::string::npos);
}

TEST_CASE("static shared memory only when ptxas's layout, in any order, fits 48 KiB") {
  // Found by ptxgen fuzz (seed 37461): 45536 bytes in declaration order, but ptxas
  // placed them in 49186 bytes and refused the kernel. Bound: sum of size + align - 1.
  auto k = driver::load_spec_text(R"TOML([kernel]
name = "k"
block = 32

[tensor.pad]
space = "shared"
shape = [44578]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [2, 2]
dtype = "b64"

[tensor.S1]
space = "shared"
shape = [2, 60]
dtype = "int32"
align = 4096
)TOML",
                                  "layout.toml");
  REQUIRE(k.value.has_value());
  const tile::SharedLayout l = tile::shared_layout(**k);
  CHECK(l.total == 45536);
  CHECK(l.static_bound == 44578 + 127 + 32 + 127 + 480 + 4095);
  CHECK(l.dynamic);
}

} // namespace unit_lower_cache_hint_trap
