// The loop body of a persistent bulk ring (emitter/lower: select_addresses.cpp,
// select_inductions.cpp, strength.cpp): what the ring lowering keeps in registers across
// iterations and what it computes per iteration. The kernel is tests/data/rings/
// ring4_ahead2.toml, the 4-stage ring loading 2 tiles ahead of specs/bulk/ring_ahead2.toml,
// lowered for sm_90 with its contract checked.

#include "lower_harness.hpp"
#include "sim_test_data.hpp"

#include <regex>
#include <set>
#include <string>

namespace unit_lower_rings {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

lower::LowerOptions sm90() {
  lower::LowerOptions o;
  o.target = {90, false};
  return o;
}

/// The lines from the loop's label `head` (`$L_t_0`) to its back branch, both included.
std::string loop_body(const std::string& spec, const std::string& head_label = "$L_t_0") {
  auto m = lower_text(spec, sm90());
  INFO(m.diagnostics.format_all());
  REQUIRE(m.value.has_value());
  std::string all;
  for (const auto& i : m.value->entries.front().body)
    all += ptx::print(i) + "\n";
  INFO(all);
  const auto head = all.find(head_label + ":");
  REQUIRE(head != std::string::npos);
  const auto back = all.find("bra.uni " + head_label + ";", head);
  REQUIRE(back != std::string::npos);
  return all.substr(head, all.find('\n', back) + 1 - head);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

/// The registers an instruction line writes: its first operand when that is a register
/// (stores, copies and branches write none; `{...}` vector loads do not occur in the blocks
/// checked here).
std::set<std::string> written(const std::string& line) {
  static const std::regex dst(R"(^\s*(?:@!?%p\d+\s+)?[a-z][\w.:]*\s+(%[a-z]+\d+)\s*,)");
  std::smatch m;
  if (std::regex_search(line, m, dst))
    return {m[1].str()};
  return {};
}

/// For every branch over a guarded tensor load in `body` (`bra LABEL` ... `LABEL:`): the
/// registers the skipped block writes that a line after its label reads. They exist only
/// where the block ran; an empty result is the sound lowering.
std::set<std::string> reused_after_skip(const std::string& body) {
  static const std::regex branch(R"(bra (\$L_tl_\d+);)");
  std::set<std::string> out;
  for (std::sregex_iterator it(body.begin(), body.end(), branch), end; it != end; ++it) {
    const std::string label = (*it)[1].str() + ":";
    const auto from = static_cast<std::size_t>(it->position() + it->length());
    const auto to = body.find(label, from);
    REQUIRE(to != std::string::npos);
    std::set<std::string> defined;
    std::size_t at = from;
    while (at < to) {
      const auto eol = body.find('\n', at);
      for (const auto& r : written(body.substr(at, eol - at)))
        defined.insert(r);
      at = eol + 1;
    }
    const std::string after = body.substr(to + label.size());
    for (const auto& r : defined) {
      const std::regex use(r + "(?![0-9])"); // %r5, not %r50
      if (std::regex_search(after, use))
        out.insert(r);
    }
  }
  return out;
}

} // namespace

TEST_CASE("a ring's CTA-uniform global addresses: mul.wide.u32 and add.s64, no mad.wide") {
  const std::string body = loop_body(test::read_test_data("rings", "ring4_ahead2.toml"));
  INFO(body);
  // The tile load's source and the tile store's destination, each from the counter.
  CHECK(count(body, "mul.wide.u32 %rd") == 2);
  CHECK(count(body, "add.s64 %rd") == 2);
  CHECK(count(body, "mad.wide") == 0);
}

TEST_CASE("a guarded tensor load in a loop: a branch over it and its operands, forgotten after") {
  const std::string body =
      loop_body(test::read_test_data("rings", "tma_load_store_loop.toml"), "$L_k_0");
  INFO(body);
  const auto branch = body.find("@!%p1 bra $L_tl_0;");
  const auto load = body.find("cp.async.bulk.tensor.2d.shared::cluster.global");
  const auto label = body.find("$L_tl_0:");
  REQUIRE(branch != std::string::npos);
  REQUIRE(load != std::string::npos);
  REQUIRE(label != std::string::npos);
  CHECK(branch < load);
  CHECK(load < label);
  // The load itself is not predicated; its coordinate `k * 16` is computed after the branch.
  CHECK(body.rfind('\n', load) + 1 == load);
  const auto first = body.find("mul.lo.u32");
  CHECK(branch < first);
  CHECK(first < load);
  // The store's `k * 16` is computed again after the label: the threads that skipped the
  // branch never computed the first register.
  const auto second = body.find("mul.lo.u32", label);
  REQUIRE(second != std::string::npos);
  CHECK(second < body.find("cp.async.bulk.tensor.2d.global.shared::cta"));
  // The store stays predicated (a branch over it gains nothing).
  CHECK(body.find("@%p1 cp.async.bulk.tensor.2d.global.shared::cta") != std::string::npos);
}

TEST_CASE("after a branch over a tensor load: no register of the skipped block is read, "
          "what was hoisted out of it is reused") {
  const std::string spec = test::read_test_data("rings", "tma_load_store_loop.toml");
  const std::string body = loop_body(spec, "$L_k_0");
  INFO(body);
  // The store after the label needs `k * 16` again, which the block computed in place.
  CHECK(reused_after_skip(body).empty());
  // S's address is hoisted out of the block (it does not depend on k): the load and the
  // store take the one register, defined before the loop.
  auto m = lower_text(spec, sm90());
  REQUIRE(m.value.has_value());
  std::string all;
  for (const auto& i : m.value->entries.front().body)
    all += ptx::print(i) + "\n";
  INFO(all);
  CHECK(count(all, ", smem_S;") == 1);
  CHECK(count(body, ", smem_S;") == 0);
}

TEST_CASE("the skipped-block check finds a register of the block read after its label") {
  // The checker itself, on a hand-made body: %r5 is written in the block and read after.
  const std::string bad = "@!%p1 bra $L_tl_0;\n\tmul.lo.u32 %r5, %r3, 16;\n"
                          "\tcp.async.bulk.tensor.2d [%r4], [%rd2, {0, %r5}], [%r1];\n"
                          "$L_tl_0:\n\tadd.u32 %r6, %r5, 1;\n\tadd.u32 %r7, %r50, 1;\n";
  CHECK(reused_after_skip(bad) == std::set<std::string>{"%r5"});
  const std::string good = "@!%p1 bra $L_tl_0;\n\tmul.lo.u32 %r5, %r3, 16;\n"
                           "$L_tl_0:\n\tadd.u32 %r7, %r50, 1;\n";
  CHECK(reused_after_skip(good).empty());
}

TEST_CASE("a bulk load's clamp that its pred keeps inactive is not computed") {
  // ring4_ahead2: `A.sub[min(t + 2 * nbid, 13), :]` under `tid == 0 && t + 2 * nbid < 14`:
  // where the pred holds, t + 2 * nbid is at most 13 and the min is t + 2 * nbid.
  const std::string spec = test::read_test_data("rings", "ring4_ahead2.toml");
  const std::string body = loop_body(spec);
  INFO(body);
  CHECK(count(body, "min.u32") == 0);
  // The unclamped index is one 32-bit value, widened once (no 64-bit immediate offset).
  CHECK(count(body, "mul.wide.u32 %rd") == 2);
  // A clamp the pred does not make inactive stays: at 12, t + 2 * nbid = 13 is clamped.
  const std::string clamp = "min(t + 2 * nbid, 13)";
  const auto at = spec.find(clamp);
  REQUIRE(at != std::string::npos);
  std::string tighter = spec;
  tighter.replace(at, clamp.size(), "min(t + 2 * nbid, 12)");
  const std::string kept = loop_body(tighter);
  INFO(kept);
  CHECK(count(kept, "min.u32") == 1);
}

} // namespace unit_lower_rings
