// `ptxgen show`'s SVG: its structure, and which thread each cell names, for tiny specs
// whose thread-to-element maps are worked out by hand here (never read from the code).

#include "driver/show/picture.hpp"
#include "driver/sim/profile.hpp"
#include "driver/toml/reader_spec.hpp"

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_show_svg {

using namespace ptxgen;

namespace {

std::string picture(const std::string& spec) {
  auto k = driver::load_spec_text(spec, "tiny.toml");
  REQUIRE_MESSAGE(k, k.diagnostics.format_all());
  return driver::show::render_svg(driver::show::build_picture(**k));
}

/// Whether every element opened is closed in order (a small XML well-formedness check:
/// tags, self-closing tags, the declaration; and no raw '<' or '&' in text).
bool tags_balance(const std::string& s, std::string& why) {
  std::vector<std::string> open;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '&') {
      const auto semi = s.find(';', i);
      const std::string entity = s.substr(i, semi == std::string::npos ? 0 : semi - i + 1);
      if (entity != "&amp;" && entity != "&lt;" && entity != "&gt;" && entity != "&quot;") {
        why = "a raw '&' at " + std::to_string(i);
        return false;
      }
      continue;
    }
    if (s[i] != '<')
      continue;
    const auto end = s.find('>', i);
    if (end == std::string::npos) {
      why = "an unclosed '<'";
      return false;
    }
    std::string tag = s.substr(i + 1, end - i - 1);
    i = end;
    if (tag.starts_with("?"))
      continue;
    if (tag.starts_with("/")) {
      if (open.empty() || open.back() != tag.substr(1)) {
        why = "</" + tag.substr(1) + "> closes " + (open.empty() ? "nothing" : open.back());
        return false;
      }
      open.pop_back();
      continue;
    }
    if (tag.ends_with("/"))
      continue;
    open.push_back(tag.substr(0, tag.find_first_of(" \n")));
  }
  why = open.empty() ? "" : "<" + open.back() + "> never closed";
  return open.empty();
}

struct DrawnCell {
  std::string tensor;
  int row = 0, col = 0, thread = -1;
  std::string fill;
  std::string iterations;
};

std::vector<DrawnCell> cells(const std::string& svg) {
  static const std::regex cell(
      R"re(<rect class="cell"[^>]*fill="([^"]+)"><title>(\w+)\[(\d+), (\d+)\]: )re"
      R"re((?:thread (\d+) \(warp \d+, lane \d+\)(?:, ([^;<]*))?|no thread of CTA 0))re");
  std::vector<DrawnCell> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell); it != std::sregex_iterator();
       ++it) {
    const auto& m = *it;
    out.push_back(
        {m[2], std::stoi(m[3]), std::stoi(m[4]), m[5].matched ? std::stoi(m[5]) : -1, m[1], m[6]});
  }
  return out;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
    ++n;
  return n;
}

// Thread t copies A[r, 4t..4t+3] for r = 0, 1 (16-byte chunks, repeat coordinate r),
// then copies the same elements of S to B one float at a time (repeat (r, v)).
const std::string tiny = R"(
[kernel]
name = "tiny"
block = 4
[tensor.A]
space = "global"
shape = [2, 16]
dtype = "float32"
[tensor.B]
space = "global"
shape = [2, 16]
dtype = "float32"
output = true
[tensor.S]
space = "shared"
shape = [2, 16]
dtype = "float32"
[[op]]
op = "apply"
opcode = "cp.async.cg.shared.global"
dst = 'S.rearrange("r (t v) -> t r v", t=4, v=4).sub[tid, :, :]'
src = 'A.rearrange("r (t v) -> t r v", t=4, v=4).sub[tid, :, :]'
chunk_bytes = 16
[[op]]
op = "commit_group"
[[op]]
op = "wait_group"
n = 0
[[op]]
op = "cta_sync"
[[op]]
op = "copy"
dst = 'B.rearrange("r (t v) -> t r v", t=4, v=4).sub[tid, :, :]'
src = 'S.rearrange("r (t v) -> t r v", t=4, v=4).sub[tid, :, :]'
)";

} // namespace

TEST_CASE("the SVG is well formed and every cell names the thread that copies it") {
  const std::string svg = picture(tiny);
  std::string why;
  CHECK_MESSAGE(tags_balance(svg, why), why);
  CHECK(svg.starts_with("<?xml"));
  CHECK(count(svg, "<svg ") == 1);
  const auto drawn = cells(svg);
  CHECK(drawn.size() == 4 * 2 * 16); // four views (apply dst, src; copy dst, src) of 2 x 16
  CHECK(count(svg, "<rect class=\"cell\"") == drawn.size());
  std::map<int, std::set<std::string>> fills;
  for (const auto& c : drawn) {
    CHECK_MESSAGE(c.thread == c.col / 4, c.tensor << "[" << c.row << ", " << c.col << "]");
    fills[c.thread].insert(c.fill);
  }
  REQUIRE(fills.size() == 4);
  std::set<std::string> all;
  for (const auto& entry : fills) { // no structured binding: clang 14 cannot capture one
    const auto& f = entry.second;
    CHECK_MESSAGE(f.size() == 1, "thread " << entry.first << " has " << f.size() << " colours");
    all.insert(*f.begin());
  }
  CHECK(all.size() == 4); // one colour per thread, none shared
  for (int t = 0; t < 4; ++t)
    CHECK(svg.find(">T" + std::to_string(t) + "</text>") != std::string::npos);
  CHECK(svg.find("()") == std::string::npos); // no label with an empty coordinate
  CHECK(svg.find("op 5 (line") != std::string::npos);
  // No loop: one panel. No profile was given: the banks say why there are none.
  CHECK(count(svg, ">outside loops</text>") == 1);
  CHECK(count(svg, "<rect class=\"bank") == 0);
  CHECK(svg.find("no bank figures: ") != std::string::npos);
}

TEST_CASE("the banks are the profile's: its costliest request drawn bank by bank, every lane") {
  // A hand-made profile row: 32 lanes 128 bytes apart, 4 bytes each: all in bank 0, 32
  // distinct words in one phase (32-way); the picture draws what the profile says.
  auto k = driver::load_spec_text(tiny, "tiny.toml");
  REQUIRE(k);
  driver::show::Picture p = driver::show::build_picture(**k);
  sim::ProfileRow row;
  row.ptx_line = 40;
  row.instruction = "ld.shared.b32 %r1, [%r2];";
  row.kind = sim::AccessKind::shared_load;
  row.requests = 2;
  row.units = 64;
  row.ideal = 2;
  row.worst = 32;
  for (std::uint32_t lane = 0; lane < 32; ++lane)
    row.worst_lanes.push_back({lane, 128u * lane, 4});
  p.profile = sim::ProfileReport{{row}};
  p.profile_note = "hand-made";
  const std::string svg = driver::show::render_svg(p);
  std::string why;
  CHECK_MESSAGE(tags_balance(svg, why), why);
  CHECK(count(svg, "<rect class=\"bank") == 32);
  CHECK(count(svg, "class=\"bank conflict\"") == 1);
  CHECK(count(svg, "32 words in its busiest phase") == 1);
  CHECK(svg.find("shared: 2 requests, 64 wavefronts (ideal 2, 62 from bank conflicts)") !=
        std::string::npos);
  CHECK(svg.find("its costliest request, 32-way (a bank conflict)") != std::string::npos);
  std::string all;
  for (int lane = 0; lane < 32; ++lane)
    all += (lane ? " " : "") + std::to_string(lane);
  CHECK(svg.find("bank 0: lanes " + all + ";") != std::string::npos);
  // Every lane is written in the cell, three to a line: none cut off.
  CHECK(svg.find(">30 31</text>") != std::string::npos);
  CHECK(svg.find(">0 1 2</text>") != std::string::npos);
}

TEST_CASE("loop values as the picture writes them") {
  using driver::show::values_text;
  CHECK(values_text({3}) == "3");
  CHECK(values_text({0, 1, 2, 3, 4, 5, 6}) == "0..6");
  CHECK(values_text({0, 2}) == "0, 2");
  CHECK(values_text({1, 3, 5, 7, 9, 11}) == "1, 3, .., 11");
  CHECK(values_text({0, 1, 5}) == "0, 1, 5");
}

TEST_CASE("a large tensor is capped at 64 x 64 cells and the picture says so") {
  const std::string spec = R"(
[kernel]
name = "big"
block = 128
[tensor.A]
space = "global"
shape = [128, 100]
dtype = "float32"
[tensor.B]
space = "global"
shape = [128, 100]
dtype = "float32"
output = true
[[op]]
op = "copy"
dst = "B.sub[tid, :]"
src = "A.sub[tid, :]"
)";
  const std::string svg = picture(spec);
  const auto drawn = cells(svg);
  CHECK(drawn.size() == 2 * 64 * 64);
  for (const auto& c : drawn)
    CHECK(c.thread == c.row); // thread t copies row t
  CHECK(count(svg, "rows 0..63 of 128, columns 0..63 of 100 drawn") == 2);
}

TEST_CASE("a pipeline's panels: the tables the user wrote, every stage, iterations grouped") {
  // One [[op]] pipeline of 2 stages over 4 tiles: its expansion is a cta_sync, a prologue
  // load and commit, then the steady-state loop; none of them is an op the user numbered.
  // Iteration k refills stage (k + 1) % 2 with tile k + 1 and consumes stage k % 2; k = 3's
  // refill is predicated off. So k = 0..2 are alike (up to which tile and stage) and k = 3
  // is a pattern of its own; stage 1 is written at k = 0 and 2, stage 0 read at k = 0 and 2.
  const std::string spec = R"(
[kernel]
name = "pipe"
grid = 1
block = 4

[tensor.A]
space = "global"
shape = [4, 4, 8]
dtype = "uint8"

[tensor.B]
space = "global"
shape = [4, 4, 8]
dtype = "uint8"
output = true

[tensor.ring]
space = "shared"
shape = [2, 4, 8]
dtype = "uint8"

[[op]]
op = "pipeline"
var = "k"
start = 0
stop = 4
stages = 2

[[op.load]]
opcode = "cp.async.ca.shared.global"
dst = 'ring.sub[stage, tid, :]'
src = 'A.sub[k, tid, :]'
chunk_bytes = 8

[[op.body]]
op = "copy"
dst = 'B.sub[k, tid, :]'
src = 'ring.sub[stage, tid, :]'
)";
  const std::string svg = picture(spec);
  CHECK(svg.find("the pipeline's prologue load of stage 0 ([[op.load]] at line 30): apply") !=
        std::string::npos);
  CHECK(svg.find("the pipeline's consumer copy ([[op.body]] at line 36): copy") !=
        std::string::npos);
  // The user wrote one op: no panel is titled with a number beyond it.
  CHECK(svg.find("op 2") == std::string::npos);
  CHECK(svg.find(": k = 0..2 (3 iterations, pattern 1 of 2)") != std::string::npos);
  CHECK(svg.find(": k = 3 (1 iteration, pattern 2 of 2)") != std::string::npos);
  CHECK(svg.find("<title>ring[1, 0, 0]: thread 0 (warp 0, lane 0), k = 0, 2</title>") !=
        std::string::npos);
  CHECK(svg.find("<title>ring[0, 0, 0]: thread 0 (warp 0, lane 0), k = 0, 2</title>") !=
        std::string::npos);
  // Both stages are blocks of their own, side by side.
  CHECK(svg.find(">block 0 [0]</text>") != std::string::npos);
  CHECK(svg.find(">block 1 [1]</text>") != std::string::npos);
  // k = 3's refill is predicated off: its views touch nothing.
  CHECK(svg.find("no element touched") != std::string::npos);
}

} // namespace unit_show_svg
