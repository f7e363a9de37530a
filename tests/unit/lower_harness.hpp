#pragma once
// Shared by the lowering's unit tests (tests/unit/lower_*.cpp): a small spec
// text is loaded, lowered, and its instructions printed one per line, so that
// a test states the exact instruction sequence a lowering rule implies.

#include "driver/ptxas/ptxas.hpp"
#include "emitter/lower/lower.hpp"
#include "emitter/ptx/printer.hpp"
#include "spec_text.hpp"

#include <string>
#include <string_view>

#include <doctest/doctest.h>

namespace ptxgen::lower_test {

/// One warp (block 32), a global A and a shared S of 32 rows of 64 bytes:
/// row `tid` is one thread's, so `A.sub[tid, a:b]` needs one mad per side.
inline constexpr std::string_view kWarp = R"TOML([kernel]
name = "k"
block = 32

[tensor.A]
space = "global"
shape = [32, 64]
dtype = "uint8"

[tensor.S]
space = "shared"
shape = [32, 64]
dtype = "uint8"
)TOML";

/// `[[op]]` tables that wait for every pending copy.
inline constexpr std::string_view kCommitWait = R"TOML(
[[op]]
op = "commit_group"

[[op]]
op = "wait_group"
n = 0
)TOML";

/// An apply op (thread scope unless `extra` says otherwise), `extra` being
/// further `key = value` lines.
inline std::string apply(std::string_view opcode, std::string_view dst, std::string_view src,
                         int chunk_bytes, std::string_view extra = {}) {
  std::string s = "\n[[op]]\nop = \"apply\"\nopcode = \"" + std::string(opcode) + "\"\n";
  s += "dst = '" + std::string(dst) + "'\nsrc = '" + std::string(src) + "'\n";
  s += "chunk_bytes = " + std::to_string(chunk_bytes) + "\n";
  s += std::string(extra);
  return s;
}

/// Lowers spec text; the whole Result, for tests about diagnostics.
inline Result<ptx::Module> lower_text(const std::string& spec,
                                      const lower::LowerOptions& options = {}) {
  return lower::lower(*spec_text::load(spec, "lower_test.toml"), options);
}

/// Options that lower for the target the kernel's ops need (sm_90 for a cluster's, sm_90a
/// for a setmaxnreg) instead of refusing them under the default sm_80.
inline lower::LowerOptions own_target() {
  lower::LowerOptions o;
  o.raise_target = true;
  return o;
}

/// Options that lower for sm_90 without the contract (the lowering's tests of one rule).
inline lower::LowerOptions unchecked_sm90() {
  lower::LowerOptions o;
  o.target = {90, false};
  o.unchecked = true;
  return o;
}

/// The module's one kernel's instructions, printed one per line (ptx::print of each).
inline std::string instructions(const ptx::Module& m) {
  REQUIRE(m.entries.size() == 1);
  std::string out;
  for (const auto& i : m.entries.front().body)
    out += ptx::print(i) + "\n";
  return out;
}

/// The lowered module, which must come with no diagnostic at all (the unchecked lowering
/// turns validator errors into warnings, which would hide a broken instruction).
inline ptx::Module lowered(const std::string& spec, const lower::LowerOptions& options) {
  auto m = lower_text(spec, options);
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  CHECK(m.diagnostics.items().empty());
  return *m.value;
}

/// The lowered kernel's instructions, printed one per line (ptx::print of each).
inline std::string body(const std::string& spec, const lower::LowerOptions& options = {}) {
  auto m = lower_text(spec, options);
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  return instructions(*m.value);
}

/// ptxas assembles the module for its target (the cases that call it are in the "ptxas" test
/// suite: CTest skips them where there is no ptxas).
inline void assembles(const ptx::Module& m) {
  auto ptxas = driver::locate_ptxas("");
  REQUIRE_MESSAGE(ptxas, "no ptxas: " << ptxas.error());
  driver::AssembleOptions a;
  a.target = m.target;
  a.verbose = false;
  a.keep_cubin = false;
  const std::string text = ptx::print(m);
  auto r = driver::assemble(ptxas->path, text, a);
  INFO(text << r.describe());
  CHECK(r.ok());
}

} // namespace ptxgen::lower_test
