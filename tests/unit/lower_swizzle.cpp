// Ordinary accesses into a swizzled shared tensor (emitter/lower/select_swizzle.cpp): the
// lowered kernel writes S through its views (copy, fill, apply's cp.async), then one bulk
// store copies S's physical bytes to B unchanged; on the simulator, B's byte at
// tile::swizzle_offset(o) must be the byte the kernel wrote at S's row-major offset o, for
// every o, in each mode and each address form (a per-thread register a whole number of
// periods, of 128-byte rows, or of 16-byte chunks from the base). The address instructions
// themselves are checked for their count: the row form costs shr, and, xor per row and one
// xor per further chunk.

#include "driver/sim/simulator.hpp"
#include "emitter/tile/tensor_map.hpp"
#include "lower_harness.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace unit_lower_swizzle {

using namespace ptxgen;
using namespace ptxgen::lower_test;

namespace {

constexpr std::uint64_t a_base = 0x100000;
constexpr std::uint64_t b_base = 0x200000;

struct Mode {
  const char* name;
  tile::TensorMapSwizzle swizzle;
  int align;
};
constexpr Mode kModes[] = {{"32B", tile::TensorMapSwizzle::b32, 256},
                           {"64B", tile::TensorMapSwizzle::b64, 512},
                           {"128B", tile::TensorMapSwizzle::b128, 1024}};

/// A kernel of `block` threads: global A and B of `rows` x `cols` uint8 and a swizzled
/// shared S of the same shape; `write` is the ops that fill S; then every writing thread
/// fences, the CTA syncs and thread 0 stores S to B in one bulk copy.
std::string kernel(const Mode& m, int block, int rows, int cols, const std::string& write) {
  const std::string shape = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  return "[kernel]\nname = \"k\"\nblock = " + std::to_string(block) + "\n" +
         "\n[tensor.A]\nspace = \"global\"\nshape = " + shape + "\ndtype = \"uint8\"\n" +
         "\n[tensor.B]\nspace = \"global\"\nshape = " + shape + "\ndtype = \"uint8\"\n" +
         "\n[tensor.S]\nspace = \"shared\"\nshape = " + shape +
         "\ndtype = \"uint8\"\nalign = " + std::to_string(m.align) + "\nswizzle = \"" + m.name +
         "\"\n" + write + "\n[[op]]\nop = \"proxy_fence\"\n\n[[op]]\nop = \"cta_sync\"\n" +
         "\n[[op]]\nop = \"bulk_store\"\ndst = 'B'\nsrc = 'S'\npred = \"tid == 0\"\n" +
         "\n[[op]]\nop = \"bulk_commit\"\n\n[[op]]\nop = \"bulk_wait\"\nn = 0\n";
}

std::string copy(const std::string& dst, const std::string& src) {
  return "\n[[op]]\nop = \"copy\"\ndst = '" + dst + "'\nsrc = '" + src + "'\n";
}

/// Runs the kernel on the simulator with A = bytes 0, 1, 2, ... (mod 251); B afterwards.
std::vector<std::uint8_t> run(const ptx::Module& m, int block, std::size_t bytes) {
  std::vector<std::uint8_t> a(bytes), b(bytes, 0xEE);
  for (std::size_t i = 0; i < bytes; ++i)
    a[i] = static_cast<std::uint8_t>(i % 251);
  std::vector<sim::GlobalBuffer> buffers = {{a_base, &a, "A"}, {b_base, &b, "B"}};
  sim::Launch l;
  l.block_dim = {static_cast<std::uint32_t>(block), 1, 1};
  l.params = {a_base, b_base};
  l.max_instructions = 50'000'000;
  const std::string text = ptx::print(m);
  auto r = sim::run(text, "k", l, buffers);
  INFO(text);
  REQUIRE_MESSAGE(!r.fault, (r.fault ? r.fault->message : std::string()));
  return b;
}

/// B holds S's physical bytes: the byte written at row-major offset o is at swizzle(o).
void check_layout(const Mode& m, const std::vector<std::uint8_t>& b,
                  const std::vector<std::uint8_t>& written) {
  REQUIRE(b.size() == written.size());
  for (std::size_t o = 0; o < b.size(); ++o) {
    const auto at = static_cast<std::size_t>(tile::swizzle_offset(m.swizzle, std::int64_t(o)));
    CAPTURE(o);
    REQUIRE(at < b.size());
    CHECK(b[at] == written[o]);
  }
}

std::vector<std::uint8_t> arange(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<std::uint8_t>(i % 251);
  return v;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

} // namespace

TEST_CASE("a row per thread (128-byte rows): each row's mask once, a chunk one xor") {
  for (const Mode& m : kModes) {
    CAPTURE(m.name);
    const ptx::Module mod =
        lowered(kernel(m, 64, 64, 128, copy("S.sub[tid, :]", "A.sub[tid, :]")), unchecked_sm90());
    const std::string body = instructions(mod);
    INFO(body);
    // 8 chunks of 16 bytes: the row's shr/and/xor, then one xor for chunks 1..7.
    CHECK(count(body, "shr.b32") == 1);
    CHECK(count(body, "and.b32") == 1);
    CHECK(count(body, "xor.b32") == 8);
    CHECK(count(body, "st.shared.v4.b32") == 8);
    check_layout(m, run(mod, 64, 64 * 128), arange(64 * 128));
  }
}

TEST_CASE("a 16-byte chunk per thread: shr, and, xor per chunk; 8-byte halves stay inside it") {
  for (const Mode& m : kModes) {
    CAPTURE(m.name);
    // Thread t copies its 16 bytes as two 8-byte halves, the second at +8 of the same chunk.
    const std::string ops =
        copy("S.sub[tid, 0:8]", "A.sub[tid, 0:8]") + copy("S.sub[tid, 8:16]", "A.sub[tid, 8:16]");
    const ptx::Module mod = lowered(kernel(m, 128, 128, 16, ops), unchecked_sm90());
    const std::string body = instructions(mod);
    INFO(body);
    CHECK(count(body, "shr.b32") == 1);
    CHECK(body.find("st.shared.v2.b32 [%r") != std::string::npos);
    CHECK(body.find("+8], {") != std::string::npos);
    check_layout(m, run(mod, 128, 128 * 16), arange(128 * 16));
  }
}

TEST_CASE("a share starting inside a chunk: each 8-byte piece at its own swizzled address") {
  // Thread t's 24 bytes start at byte 24t: its register is 8-byte aligned, so for odd t the
  // share starts at byte 8 of a chunk and its piece at +8 lies in the next chunk (which the
  // swizzle moves elsewhere), its piece at +16 in the chunk after. Three periods of each mode.
  for (const Mode& m : kModes) {
    CAPTURE(m.name);
    const int rows = 3 * m.align / 128;
    const int threads = rows * 128 / 24;
    const std::string share = ".rearrange(\"r c -> (r c)\").rearrange(\"(t e) -> t e\", e=24)"
                              ".sub[tid, :]";
    const ptx::Module mod =
        lowered(kernel(m, threads, rows, 128, copy("S" + share, "A" + share)), unchecked_sm90());
    check_layout(m, run(mod, threads, std::size_t(rows) * 128), arange(std::size_t(rows) * 128));

    const std::string fill =
        "\n[[op]]\nop = \"fill\"\ndst = 'S" + share + "'\npattern = [1, 2, 3, 4, 5, 6, 7]\n";
    std::vector<std::uint8_t> pattern(std::size_t(rows) * 128);
    for (std::size_t o = 0; o < pattern.size(); ++o)
      pattern[o] = static_cast<std::uint8_t>(1 + (o % 24) % 7);
    check_layout(m,
                 run(lowered(kernel(m, threads, rows, 128, fill), unchecked_sm90()), threads,
                     pattern.size()),
                 pattern);
  }
}

TEST_CASE("one thread, whole periods from the base: the swizzle folds into the immediates") {
  for (const Mode& m : kModes) {
    CAPTURE(m.name);
    const ptx::Module mod = lowered(kernel(m, 1, 16, 128, copy("S", "A")), unchecked_sm90());
    const std::string body = instructions(mod);
    INFO(body);
    CHECK(count(body, "xor.b32") == 0);
    // Byte offset 128 (row 1, chunk 0) lives at chunk 1: [%r+144].
    CHECK(body.find("st.shared.v4.b32 [%r1+144]") != std::string::npos);
    check_layout(m, run(mod, 1, 16 * 128), arange(16 * 128));
  }
}

TEST_CASE("fill and apply's cp.async write the swizzled layout too") {
  for (const Mode& m : kModes) {
    CAPTURE(m.name);
    // fill: thread t's row of 128 bytes with the 7-byte pattern 1..7 (byte k: 1 + k % 7).
    const std::string fill =
        "\n[[op]]\nop = \"fill\"\ndst = 'S.sub[tid, :]'\npattern = [1, 2, 3, 4, 5, 6, 7]\n";
    std::vector<std::uint8_t> pattern(32 * 128);
    for (std::size_t o = 0; o < pattern.size(); ++o)
      pattern[o] = static_cast<std::uint8_t>(1 + (o % 128) % 7);
    check_layout(m, run(lowered(kernel(m, 32, 32, 128, fill), unchecked_sm90()), 32, 32 * 128),
                 pattern);

    // Eight 16-byte chunks per thread (the repeat axis r, then the chunk's bytes).
    const std::string chunks = ".rearrange(\"(r v) -> r v\", v=16)";
    const std::string cp =
        apply("cp.async.cg.shared.global", "S.sub[tid, :]" + chunks, "A.sub[tid, :]" + chunks, 16) +
        std::string(kCommitWait);
    check_layout(m, run(lowered(kernel(m, 32, 32, 128, cp), unchecked_sm90()), 32, 32 * 128),
                 arange(32 * 128));
  }
}

TEST_CASE("reading a swizzled tensor: a copy out of S sees the elements in order") {
  // Thread t writes row t and, after the sync, reads row (t + 3) % 8 (another thread's)
  // back out to B: B == A when the loads swizzle as the stores did.
  for (const Mode& m : kModes) {
    CAPTURE(m.name);
    std::string spec = kernel(m, 8, 8, 128, copy("S.sub[tid, :]", "A.sub[tid, :]"));
    spec = spec.substr(0, spec.find("\n[[op]]\nop = \"proxy_fence\"")) +
           "\n[[op]]\nop = \"cta_sync\"\n" +
           copy("B.sub[(tid + 3) % 8, :]", "S.sub[(tid + 3) % 8, :]");
    const ptx::Module mod = lowered(spec, unchecked_sm90());
    CHECK(run(mod, 8, 8 * 128) == arange(8 * 128));
  }
}

} // namespace unit_lower_swizzle
