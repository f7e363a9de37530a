// cp.async opcode parser and printer: round trips over every valid form,
// qualifier permutations, and every rejection with its position.

#include "emitter/ptx/opcode.hpp"
#include "emitter/ptx/opcode_parser.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>

using namespace ptxgen::ptx;

namespace {

struct Form {
  CpAsyncOpcode op;
  std::vector<std::string> qualifiers; ///< in the manual's order, without dots
};

// Every valid opcode, with its qualifiers spelled out by hand (not by name()).
std::vector<Form> all_forms() {
  std::vector<Form> out;
  const char* caches[] = {"ca", "cg"};
  const char* spaces[] = {"shared", "shared::cta"};
  const char* prefetches[] = {"", "L2::64B", "L2::128B", "L2::256B"};
  for (int c = 0; c < 2; ++c)
    for (int s = 0; s < 2; ++s)
      for (int h = 0; h < 2; ++h)
        for (int p = 0; p < 4; ++p) {
          Form f;
          f.op.cache_op = c ? CacheOp::cg : CacheOp::ca;
          f.op.dst_space = s ? SharedSpace::shared_cta : SharedSpace::shared;
          f.op.cache_hint = h == 1;
          f.op.prefetch = static_cast<L2Prefetch>(p);
          f.qualifiers = {caches[c], spaces[s], "global"};
          if (h)
            f.qualifiers.push_back("L2::cache_hint");
          if (p)
            f.qualifiers.push_back(prefetches[p]);
          out.push_back(f);
        }
  return out;
}

std::string join(const std::vector<std::string>& qs) {
  std::string s = "cp.async";
  for (const auto& q : qs)
    s += "." + q;
  return s;
}

struct Rejection {
  std::string text;
  std::uint32_t column;
  std::uint32_t length;
  std::string fragment; ///< must appear in the message
};

} // namespace

TEST_CASE("every valid opcode parses, prints canonically and round-trips") {
  auto forms = all_forms();
  CHECK(forms.size() == 32);
  for (const auto& f : forms) {
    const std::string canonical = join(f.qualifiers);
    CAPTURE(canonical);
    auto parsed = parse_opcode(canonical);
    REQUIRE(parsed);
    CHECK(*parsed == f.op);
    CHECK(print(f.op) == canonical);
    auto again = parse_opcode(print(*parsed));
    REQUIRE(again);
    CHECK(*again == *parsed);
  }
}

TEST_CASE("every qualifier order with the dst space before .global parses to the same opcode") {
  std::size_t checked = 0;
  for (const auto& f : all_forms()) {
    auto qs = f.qualifiers;
    std::sort(qs.begin(), qs.end());
    do {
      auto dst = std::find_if(qs.begin(), qs.end(),
                              [](const std::string& q) { return q.rfind("shared", 0) == 0; });
      auto src = std::find(qs.begin(), qs.end(), "global");
      const std::string text = join(qs);
      CAPTURE(text);
      auto parsed = parse_opcode(text);
      if (dst < src) {
        REQUIRE(parsed);
        CHECK(*parsed == f.op);
        CHECK(print(*parsed) == join(f.qualifiers));
        ++checked;
      } else {
        REQUIRE_FALSE(parsed);
        CHECK(parsed.diagnostics.items().front().message.find(
                  "cp.async copies global to shared only") != std::string::npos);
      }
    } while (std::next_permutation(qs.begin(), qs.end()));
  }
  // 4 forms of 3 qualifiers (3 of 6 orders valid), 16 of 4 (12 of 24), 12 of 5 (60 of 120).
  CHECK(checked == 4 * 3 + 16 * 12 + 12 * 60);
}

TEST_CASE("rejected opcodes point at the offending qualifier") {
  const std::vector<Rejection> cases = {
      {"cp.async.cg.shared::cluster.global", 12, 16, "ptxas rejects .shared::cluster"},
      {"cp.async.cs.shared.global", 9, 3, "not a cp.async cache operator"},
      {"cp.async.lu.shared.global", 9, 3, "`.ca`"},
      {"cp.async.cv.shared.global", 9, 3, "`.cg`"},
      {"cp.async.L1::no_allocate.shared.global", 9, 16, "not a cp.async cache operator"},
      {"cp.async.ca.cg.shared.global", 12, 3, "exactly one"},
      {"cp.async.ca.global.shared", 12, 7, "cp.async copies global to shared only"},
      {"cp.async.ca.shared.global.L2::64B.L2::128B", 34, 9, "at most one"},
      {"cp.async.ca.shared.global.L2::cache_hint.L2::cache_hint", 41, 15, "at most once"},
      {"cp.async.ca.shared.global.L2::32B", 26, 8, "`.L2::64B`, `.L2::128B` or `.L2::256B`"},
      {"cp.async.ca.local.global", 12, 6, "global to shared only"},
      {"cp.async.ca.shared.shared.global", 19, 7, "second destination"},
      {"cp.async.ca.shared.global.global", 26, 7, "second `.global`"},
      {"cp.async.ca.shared.global.foo", 26, 4, "unknown cp.async qualifier"},
      {"cp.async.ca..shared.global", 12, 1, "empty qualifier"},
      {"cp.async.ca.shared.global.", 26, 1, "empty qualifier"},
      {"cp.async.shared.global", 23, 1, "missing cache operator"},
      {"cp.async.ca.global", 19, 1, "missing destination space"},
      {"cp.async.ca.shared", 19, 1, "missing source space"},
      {"ld.global.u32", 1, 13, "expected a `cp.async` opcode"},
      {"cp.asyncx.ca.shared.global", 1, 26, "expected a `cp.async` opcode"},
      {"cp.async.commit_group", 9, 13, "separate instruction"},
      {"cp.async.CA.shared.global", 9, 3, "unknown cp.async qualifier"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    auto r = parse_opcode(c.text);
    REQUIRE_FALSE(r);
    REQUIRE(r.diagnostics.items().size() == 1);
    const auto& d = r.diagnostics.items().front();
    CHECK(d.line == 1);
    CHECK(d.column == c.column);
    CHECK(d.length == c.length);
    CHECK(d.source_line == c.text);
    CHECK_MESSAGE(d.message.find(c.fragment) != std::string::npos, d.message);
  }
}

TEST_CASE("qualifier names are the manual's spellings") {
  CHECK(name(CacheOp::ca) == "ca");
  CHECK(name(CacheOp::cg) == "cg");
  CHECK(name(SharedSpace::shared) == "shared");
  CHECK(name(SharedSpace::shared_cta) == "shared::cta");
  CHECK(name(L2Prefetch::none).empty());
  CHECK(name(L2Prefetch::b64) == "L2::64B");
  CHECK(name(L2Prefetch::b128) == "L2::128B");
  CHECK(name(L2Prefetch::b256) == "L2::256B");
}
