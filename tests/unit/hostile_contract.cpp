// Hostile index arithmetic in the contract checker: found by the sanitizer build
// (UBSan: signed overflow in thread_part), kept as a regression test.
#include "driver/toml/reader_spec.hpp"
#include "emitter/lower/lower.hpp"
#include "emitter/tile/contract.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_hostile_contract {

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

namespace {

/// The contract's diagnostics for the seed spec with each `from` replaced by its `to`.
Diagnostics seed_contract_with(const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = seed_spec();
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  auto k = driver::load_spec_text(text, "scope.toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k.value.has_value());
  return tile::check_contract(**k);
}

const std::pair<std::string, std::string> kNoScope = {"scope = \"cta\"\n", ""};

} // namespace

TEST_CASE("CTA-shaped views at the default thread scope: the scope is named as the cause") {
  const Diagnostics ds = seed_contract_with({kNoScope});
  INFO(ds.format_all());
  REQUIRE(ds.items().size() == 1);
  CHECK(ds.items()[0].id == DiagId::contract_thread_scope_same_dst);
  CHECK(ds.items()[0].message.find("scope = \"cta\"") != std::string::npos);
  CHECK(ds.items()[0].message.find("CTA-shaped") != std::string::npos);
}

TEST_CASE("a thread-scope dst that ignores the thread is one write target for the whole CTA") {
  const Diagnostics ds =
      seed_contract_with({kNoScope,
                          {"dst = 'shared.rearrange(\"(w t) (r v) -> w t r v\", w=4, t=32, v=8)'",
                           "dst = 'shared.sub[0, 0:8]'"},
                          {"src = 'A.rearrange(\"(w t) (r v) -> w t r v\", w=4, t=32, v=8)'",
                           "src = 'A.sub[0, 0:8]'"}});
  INFO(ds.format_all());
  REQUIRE(ds.items().size() == 1);
  CHECK(ds.items()[0].id == DiagId::contract_thread_scope_same_dst);
  CHECK(ds.items()[0].message.find("CTA-shaped") == std::string::npos);
}

TEST_CASE("a thread-scope dst is fine when it depends on the thread or a pred picks threads") {
  const std::pair<std::string, std::string> dst = {
      "dst = 'shared.rearrange(\"(w t) (r v) -> w t r v\", w=4, t=32, v=8)'",
      "dst = 'shared.sub[0, 0:8]'"};
  const std::pair<std::string, std::string> src = {
      "src = 'A.rearrange(\"(w t) (r v) -> w t r v\", w=4, t=32, v=8)'", "src = 'A.sub[0, 0:8]'"};
  const auto with_pred = seed_contract_with(
      {kNoScope, dst, src, {"chunk_bytes = 16\n", "chunk_bytes = 16\npred = \"tid == 0\"\n"}});
  INFO(with_pred.format_all());
  CHECK_FALSE(with_pred.has(DiagId::contract_thread_scope_same_dst));
  CHECK_FALSE(with_pred.has_errors());
  const auto per_thread = seed_contract_with({kNoScope,
                                              {dst.first, "dst = 'shared.sub[tid, 0:8]'"},
                                              {src.first, "src = 'A.sub[tid, 0:8]'"}});
  INFO(per_thread.format_all());
  CHECK_FALSE(per_thread.has_errors());
}

TEST_CASE("a kernel built in C++ with a misspelt cache-policy parameter gets the nearest one") {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/specs/cache_hint/u64_param.toml");
  std::ostringstream text;
  text << in.rdbuf();
  auto k = driver::load_spec_text(text.str(), "u64_param.toml");
  REQUIRE(k.value.has_value());
  CHECK_FALSE(tile::check_contract(**k).has_errors());
  // The loader would have refused the name; the contract must too, on its own.
  auto& apply = std::get<tile::ApplyOp>((*k)->ops.front().body);
  REQUIRE(apply.cache_policy.has_value());
  std::get<tile::CachePolicyFromParam>(apply.cache_policy->value).param = "polcy";
  const Diagnostics ds = tile::check_contract(**k);
  INFO(ds.format_all());
  REQUIRE(ds.items().size() == 1);
  CHECK(ds.items()[0].id == DiagId::contract_policy_param_unknown);
  CHECK(ds.items()[0].message.find("did you mean 'policy'?") != std::string::npos);
}

} // namespace unit_hostile_contract
