// `ptxgen show`'s SVG: its structure, and which thread each cell names, for tiny specs
// whose thread-to-element maps are worked out by hand here (never read from the code).

#include "driver/show/picture.hpp"
#include "driver/toml/toml_spec.hpp"

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
  std::string repeat;
};

std::vector<DrawnCell> cells(const std::string& svg) {
  static const std::regex cell(
      R"re(<rect class="cell"[^>]*fill="([^"]+)"><title>(\w+)\[(\d+), (\d+)\]: )re"
      R"re((?:thread (\d+) \(warp \d+, lane \d+\), repeat (\([0-9,]*\))|no thread of CTA 0))re");
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
  // The apply's chunks are labelled by repeat r; the copy's elements by (r, v).
  CHECK(svg.find(">(1)</text>") != std::string::npos);
  CHECK(svg.find(">(1,3)</text>") != std::string::npos);
  CHECK(svg.find("op 5 (line") != std::string::npos);
  // S is shared: warp 0 (4 lanes) makes 2 accesses for the apply and 8 for the copy.
  CHECK(count(svg, "wavefronts (ideal") == 2 + 8);
  CHECK(count(svg, "class=\"bank conflict\"") == 0); // lanes 16 bytes apart: distinct banks
}

TEST_CASE("a row per thread of a 32-float row-major shared tensor: 32 lanes in one bank") {
  // Thread t reads S[t, x] at byte 128 t + 4 x: every lane in bank x, 32 distinct words.
  const std::string spec = R"(
[kernel]
name = "rows"
block = 32
[tensor.B]
space = "global"
shape = [32, 32]
dtype = "float32"
output = true
[tensor.S]
space = "shared"
shape = [32, 32]
dtype = "float32"
[[op]]
op = "fill"
dst = "S.sub[tid, :]"
pattern = 1
[[op]]
op = "cta_sync"
[[op]]
op = "copy"
dst = "B.sub[tid, :]"
src = "S.sub[tid, :]"
)";
  const std::string svg = picture(spec);
  std::string why;
  CHECK_MESSAGE(tags_balance(svg, why), why);
  // fill (S) and copy src (S): 32 accesses each, 16 drawn, each with one 32-way bank.
  CHECK(count(svg, "32 wavefronts (ideal 1)") == 2 * driver::show::max_bank_rows);
  CHECK(count(svg, "class=\"bank conflict\"") == 2 * driver::show::max_bank_rows);
  CHECK(count(svg, "32 words in its busiest phase") == 2 * driver::show::max_bank_rows);
  CHECK(svg.find("32 in all, the first 16 drawn") != std::string::npos);
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
  CHECK(count(svg, "showing rows 0..63 of 128 and columns 0..63 of 100") == 2);
}

TEST_CASE("a pipeline's panels name the tables the user wrote, not the expansion's op numbers") {
  // One [[op]] pipeline of 2 stages over 2 tiles: its expansion is a cta_sync, a prologue
  // load and commit, then the steady-state loop; none of them is an op the user numbered.
  const std::string spec = R"(
[kernel]
name = "pipe"
grid = 1
block = 4

[tensor.A]
space = "global"
shape = [2, 4, 8]
dtype = "uint8"

[tensor.B]
space = "global"
shape = [2, 4, 8]
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
stop = 2
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
}

} // namespace unit_show_svg
