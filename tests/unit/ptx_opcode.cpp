// cp.async opcode parser and printer: round trips over every valid form,
// qualifier permutations, and every rejection with its position.

#include "emitter/ptx/opcode.hpp"
#include "emitter/ptx/opcode_parser.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_ptx_opcode {

using namespace ptxgen::ptx;
using ptxgen::DiagId;

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
  DiagId id;
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
        CHECK(parsed.diagnostics.items().front().id == DiagId::ptx_opcode_space_order);
      }
    } while (std::next_permutation(qs.begin(), qs.end()));
  }
  // 4 forms of 3 qualifiers (3 of 6 orders valid), 16 of 4 (12 of 24), 12 of 5 (60 of 120).
  CHECK(checked == 4 * 3 + 16 * 12 + 12 * 60);
}

TEST_CASE("rejected opcodes point at the offending qualifier") {
  const std::vector<Rejection> cases = {
      {"cp.async.cg.shared::cluster.global", 12, 16, DiagId::ptx_opcode_space},
      {"cp.async.cs.shared.global", 9, 3, DiagId::ptx_opcode_cache_op},
      {"cp.async.lu.shared.global", 9, 3, DiagId::ptx_opcode_cache_op},
      {"cp.async.cv.shared.global", 9, 3, DiagId::ptx_opcode_cache_op},
      {"cp.async.L1::no_allocate.shared.global", 9, 16, DiagId::ptx_opcode_cache_op},
      {"cp.async.ca.cg.shared.global", 12, 3, DiagId::ptx_opcode_duplicate_qualifier},
      {"cp.async.ca.global.shared", 12, 7, DiagId::ptx_opcode_space_order},
      {"cp.async.ca.shared.global.L2::64B.L2::128B", 34, 9, DiagId::ptx_opcode_duplicate_qualifier},
      {"cp.async.ca.shared.global.L2::cache_hint.L2::cache_hint", 41, 15,
       DiagId::ptx_opcode_duplicate_qualifier},
      {"cp.async.ca.shared.global.L2::32B", 26, 8, DiagId::ptx_opcode_prefetch},
      {"cp.async.ca.local.global", 12, 6, DiagId::ptx_opcode_space},
      {"cp.async.ca.shared.shared.global", 19, 7, DiagId::ptx_opcode_duplicate_qualifier},
      {"cp.async.ca.shared.global.global", 26, 7, DiagId::ptx_opcode_duplicate_qualifier},
      {"cp.async.ca.shared.global.foo", 26, 4, DiagId::ptx_opcode_unknown_qualifier},
      {"cp.async.ca..shared.global", 12, 1, DiagId::ptx_opcode_empty_qualifier},
      {"cp.async.ca.shared.global.", 26, 1, DiagId::ptx_opcode_empty_qualifier},
      {"cp.async.shared.global", 23, 1, DiagId::ptx_opcode_missing_qualifier},
      {"cp.async.ca.global", 19, 1, DiagId::ptx_opcode_missing_qualifier},
      {"cp.async.ca.shared", 19, 1, DiagId::ptx_opcode_missing_qualifier},
      // A wrong root: the caret is on the part that is wrong, not on the whole opcode.
      {"ld.global.u32", 1, 2, DiagId::ptx_opcode_root},
      {"cp.asyncx.ca.shared.global", 4, 6, DiagId::ptx_opcode_root},
      {"cp.asnyc.cg.shared.global", 4, 5, DiagId::ptx_opcode_root},
      {"cq.async.cg.shared.global", 1, 2, DiagId::ptx_opcode_root},
      {"cp", 3, 1, DiagId::ptx_opcode_root},
      {"cp.", 4, 1, DiagId::ptx_opcode_root},
      {"", 1, 1, DiagId::ptx_opcode_root},
      {"cp.async.commit_group", 9, 13, DiagId::ptx_opcode_not_a_copy},
      {"cp.async.CA.shared.global", 9, 3, DiagId::ptx_opcode_unknown_qualifier},
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
    CHECK_MESSAGE(d.id == c.id, d.message);
    // No message repeats its prefix ("invalid PTX: invalid PTX:").
    if (const auto colon = d.message.find(':'); colon != std::string::npos) {
      const std::string head = d.message.substr(0, colon + 1);
      CHECK_MESSAGE(d.message.find(head, head.size()) == std::string::npos, d.message);
    }
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

TEST_CASE("the layout says where each qualifier group was written") {
  OpcodeLayout layout;
  const std::string text = "cp.async.shared::cta.global.L2::128B.cg.L2::cache_hint";
  REQUIRE(parse_opcode(text, &layout));
  auto at = [&](OpcodePart p) {
    const auto& span = layout.at(p);
    return text.substr(span.offset, span.length);
  };
  CHECK(at(OpcodePart::cache_op) == ".cg");
  CHECK(at(OpcodePart::dst_space) == ".shared::cta");
  CHECK(at(OpcodePart::src_space) == ".global");
  CHECK(at(OpcodePart::cache_hint) == ".L2::cache_hint");
  CHECK(at(OpcodePart::prefetch) == ".L2::128B");
  CHECK(layout.at(OpcodePart::none).length == 0);
  REQUIRE(parse_opcode("cp.async.ca.shared.global", &layout));
  CHECK(layout.at(OpcodePart::cache_hint).length == 0);
  CHECK(layout.at(OpcodePart::prefetch).length == 0);
}

} // namespace unit_ptx_opcode
