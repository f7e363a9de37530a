// The reference's sm_90 bulk family on bytes and its hazards: 1-D and tensor loads landing
// on an mbarrier's transaction count, stores through bulk groups, swizzled shared tensors
// seen in order through their views, out-of-bounds fill and skip, and each hazard accepted
// and refused. Every expected byte is worked out here from the spec's init and the copy's
// meaning, never taken from the code under test.
#include "driver/reference/reference.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_reference_bulk {

namespace {

using ptxgen::DiagId;
namespace tile = ptxgen::tile;
using ptxgen::driver::ReferenceOutput;

std::unique_ptr<tile::Kernel> load(const std::string& text) {
  auto k = ptxgen::driver::load_spec_text(text, "bulk.toml");
  INFO(k.diagnostics.format_all());
  REQUIRE(k);
  return std::move(*k);
}

/// The reference over the spec's own initial bytes, at `values` (empty: the test values).
ReferenceOutput reference(const tile::Kernel& k, std::vector<std::uint64_t> values = {}) {
  ptxgen::driver::ReferenceInput in;
  in.kernel = &k;
  for (const auto& d : k.tensors)
    if (d->tensor.space == tile::Space::global)
      in.global[d->tensor.name] = ptxgen::driver::initial_bytes(*d);
  in.param_values = std::move(values);
  return ptxgen::driver::evaluate_reference(in);
}

ReferenceOutput run(const std::string& text) {
  return reference(*load(text));
}

bool found(const ReferenceOutput& out, DiagId id) {
  return std::any_of(out.findings.begin(), out.findings.end(),
                     [id](const auto& f) { return f.id == id; });
}

std::string message(const ReferenceOutput& out, DiagId id) {
  for (const auto& f : out.findings)
    if (f.id == id)
      return f.message;
  return {};
}

std::string problems(const ReferenceOutput& out) {
  std::string s;
  for (const auto& p : out.problems)
    s += p + "\n";
  return s;
}

std::string kernel(int block) {
  return "[kernel]\nname = \"k\"\ngrid = 1\nblock = " + std::to_string(block) + "\n\n";
}

std::string tensor(const std::string& name, const std::string& space, const std::string& shape,
                   const std::string& dtype, const std::string& extra = "") {
  return "[tensor." + name + "]\nspace = \"" + space + "\"\nshape = " + shape + "\ndtype = \"" +
         dtype + "\"\n" + extra + "\n";
}

const std::string barrier = R"([tensor.bar]
space = "shared"
shape = [1]
dtype = "uint64"

[[op]]
op = "mbarrier_init"
barrier = 'bar.sub[0]'
count = 1

[[op]]
op = "cta_sync"

)";

/// expect_tx of `bytes` by thread 0 (arriving), then `load` (an op table's keys).
std::string tx_and_load(int bytes, const std::string& load) {
  return "[[op]]\nop = \"expect_tx\"\nbarrier = 'bar.sub[0]'\nbytes = " + std::to_string(bytes) +
         "\npred = \"tid == 0\"\n\n[[op]]\n" + load +
         "barrier = 'bar.sub[0]'\npred = \"tid == 0\"\n\n";
}

const std::string wait0 =
    "[[op]]\nop = \"mbarrier_wait\"\nbarrier = 'bar.sub[0]'\nparity = \"0\"\n\n";

std::string copy(const std::string& dst, const std::string& src) {
  return "[[op]]\nop = \"copy\"\ndst = '" + dst + "'\nsrc = '" + src + "'\n\n";
}

std::string op(const std::string& body) {
  return "[[op]]\n" + body + "\n";
}

/// Byte i of a uint8 tensor with init "arange % 251".
std::uint8_t arange(std::int64_t i) {
  return static_cast<std::uint8_t>(i % 251);
}

// ------------------------------------------------------------------------------ loads

TEST_CASE("reference.bulk: a 1-D bulk load lands the global bytes at the wait") {
  const auto out =
      run(kernel(32) + tensor("A", "global", "[32, 16]", "uint8", "init = \"arange % 251\"") +
          tensor("B", "global", "[32, 16]", "uint8", "output = true") +
          tensor("s", "shared", "[32, 16]", "uint8") + barrier +
          tx_and_load(512, "op = \"bulk_load\"\ndst = 's'\nsrc = 'A'\n") + wait0 +
          copy("B.sub[tid, :]", "s.sub[tid, :]"));
  CHECK_MESSAGE(out.problems.empty(), problems(out));
  const auto& b = out.global.at("B");
  for (std::size_t i = 0; i < b.size(); ++i)
    REQUIRE(b[i] == arange(static_cast<std::int64_t>(i)));
}

TEST_CASE("reference.bulk: transaction bytes: the phase completes only when they are all in") {
  auto spec = [](int bytes, bool arrive) {
    std::string s = kernel(32) +
                    tensor("A", "global", "[32, 16]", "uint8", "init = \"arange % 251\"") +
                    tensor("B", "global", "[32, 16]", "uint8", "output = true") +
                    tensor("s", "shared", "[32, 16]", "uint8") + barrier;
    s += "[[op]]\nop = \"expect_tx\"\nbarrier = 'bar.sub[0]'\nbytes = " + std::to_string(bytes) +
         "\narrive = " + (arrive ? "true" : "false") + "\npred = \"tid == 0\"\n\n";
    if (!arrive)
      s += op("op = \"mbarrier_arrive\"\nbarrier = 'bar.sub[0]'\npred = \"tid == 0\"\n");
    s += op(
        "op = \"bulk_load\"\ndst = 's'\nsrc = 'A'\nbarrier = 'bar.sub[0]'\npred = \"tid == 0\"\n");
    return s + wait0 + copy("B.sub[tid, :]", "s.sub[tid, :]");
  };
  CHECK(run(spec(512, true)).problems.empty());
  CHECK(run(spec(512, false)).problems.empty());
  const auto half = run(spec(256, true));
  REQUIRE(found(half, DiagId::check_mbarrier_hang));
  CHECK(message(half, DiagId::check_mbarrier_hang)
            .find("announced 256 bytes, its loads delivered 512") != std::string::npos);
  CHECK(found(run(spec(1024, false)), DiagId::check_mbarrier_hang));
}

/// A 16 x 256 uint8 tensor A (arange) with a map of 8 x `inner` boxes and `swizzle`, loaded
/// at (8, 128) into shared s (its own `s_swizzle`), each of 8 threads copying its row of s out.
std::string tile_load(const std::string& swizzle, const std::string& s_swizzle, int inner = 128) {
  const std::string row = std::to_string(inner);
  return kernel(8) + tensor("A", "global", "[16, 256]", "uint8", "init = \"arange % 251\"") +
         "[tensor.A.map]\nbox = [8, " + row + "]\nswizzle = \"" + swizzle + "\"\n\n" +
         tensor("B", "global", "[8, " + row + "]", "uint8", "output = true") +
         tensor("s", "shared", "[8, " + row + "]", "uint8",
                "align = 1024\nswizzle = \"" + s_swizzle + "\"\n") +
         barrier +
         tx_and_load(8 * inner,
                     "op = \"tensor_load\"\ntensor = \"A\"\ncoords = [8, 128]\ndst = 's'\n") +
         wait0 + copy("B.sub[tid, :]", "s.sub[tid, :]");
}

TEST_CASE(
    "reference.bulk: a 128B-swizzled tensor load read through the swizzled tensor is in order") {
  const auto out = run(tile_load("128B", "128B"));
  CHECK_MESSAGE(out.problems.empty(), problems(out));
  const auto& b = out.global.at("B");
  for (std::int64_t r = 0; r < 8; ++r)
    for (std::int64_t c = 0; c < 128; ++c)
      REQUIRE(b[static_cast<std::size_t>(r * 128 + c)] == arange((8 + r) * 256 + 128 + c));
}

TEST_CASE("reference.bulk: the map's swizzle moves the box's 16-byte chunks in shared memory") {
  // Read through an unswizzled tensor, raw byte o of the box holds the box's byte
  // o ^ ((o / 128 % R) * 16), R = 8, 4, 2 for 128B, 64B, 32B (a box row is the mode's span).
  for (const auto& [mode_name, lines] :
       {std::pair<std::string, int>{"128B", 8}, {"64B", 4}, {"32B", 2}}) {
    const std::string mode = mode_name; // a structured binding cannot be captured (clang 14)
    CAPTURE(mode);
    const int inner = lines * 16;
    const auto out = run(tile_load(mode, "none", inner));
    const auto& b = out.global.at("B");
    REQUIRE(b.size() == static_cast<std::size_t>(8 * inner));
    for (std::int64_t o = 0; o < 8 * inner; ++o) {
      const std::int64_t logical = o ^ ((o / 128 % lines) * 16);
      REQUIRE(b[static_cast<std::size_t>(o)] ==
              arange((8 + logical / inner) * 256 + 128 + logical % inner));
    }
  }
}

/// cp.async writes A (8 x 128, arange) through a view of the 128B-swizzled shared s, then
/// thread 0 stores s with a tensor copy through B's map of `swizzle`.
std::string swizzled_round_trip(const std::string& swizzle) {
  return kernel(8) + tensor("A", "global", "[8, 128]", "uint8", "init = \"arange % 251\"") +
         tensor("B", "global", "[8, 128]", "uint8", "output = true") +
         "[tensor.B.map]\nbox = [8, 128]\nswizzle = \"" + swizzle + "\"\n\n" +
         tensor("s", "shared", "[8, 128]", "uint8", "align = 1024\nswizzle = \"128B\"\n") +
         op("op = \"apply\"\nopcode = \"cp.async.cg.shared.global\"\n"
            "dst = 's.rearrange(\"r (c v) -> r c v\", v=16).sub[tid]'\n"
            "src = 'A.rearrange(\"r (c v) -> r c v\", v=16).sub[tid]'\nchunk_bytes = 16\n") +
         op("op = \"wait_all\"\n") + op("op = \"proxy_fence\"\n") + op("op = \"cta_sync\"\n") +
         op("op = \"tensor_store\"\ntensor = \"B\"\ncoords = [0, 0]\nsrc = 's'\npred = \"tid == "
            "0\"\n") +
         op("op = \"bulk_commit\"\n") + op("op = \"bulk_wait\"\nn = 0\n");
}

TEST_CASE("reference.bulk: views write a swizzled tensor as a swizzled tensor store reads it") {
  const auto out = run(swizzled_round_trip("128B"));
  CHECK_MESSAGE(out.problems.empty(), problems(out));
  const auto& b = out.global.at("B");
  for (std::int64_t i = 0; i < 1024; ++i)
    REQUIRE(b[static_cast<std::size_t>(i)] == arange(i));
  // An unswizzled map stores the raw bytes: logical byte L sits at L ^ ((L / 128 % 8) * 16).
  const auto raw = run(swizzled_round_trip("none"));
  const auto& r = raw.global.at("B");
  for (std::int64_t l = 0; l < 1024; ++l)
    REQUIRE(r[static_cast<std::size_t>(l ^ ((l / 128 % 8) * 16))] == arange(l));
}

/// An 8 x 64 float16 box at (4, 0) of an 8 x 64 tensor: rows 4..7 of it lie outside.
std::string fill_load(const std::string& fill) {
  return kernel(8) + tensor("A", "global", "[8, 64]", "float16", "init = \"arange % 251\"") +
         "[tensor.A.map]\nbox = [8, 64]\noob_fill = \"" + fill + "\"\n\n" +
         tensor("B", "global", "[8, 64]", "float16", "output = true") +
         tensor("s", "shared", "[8, 64]", "float16") + barrier +
         tx_and_load(1024, "op = \"tensor_load\"\ntensor = \"A\"\ncoords = [4, 0]\ndst = 's'\n") +
         wait0 + copy("B.sub[tid, :]", "s.sub[tid, :]");
}

TEST_CASE("reference.bulk: a tensor load fills the elements outside the tensor (zero, NaN)") {
  const auto k = load(fill_load("zero"));
  const auto a = ptxgen::driver::initial_bytes(*k->tensors.front());
  for (const auto& [fill_name, lo, hi] :
       {std::tuple<std::string, int, int>{"zero", 0x00, 0x00}, {"nan", 0xF7, 0x7F}}) {
    const std::string fill = fill_name; // a structured binding cannot be captured (clang 14)
    CAPTURE(fill);
    const auto out = run(fill_load(fill));
    CHECK_MESSAGE(out.problems.empty(), problems(out));
    const auto& b = out.global.at("B");
    for (std::size_t i = 0; i < 4 * 64 * 2; ++i)
      REQUIRE(b[i] == a[4 * 64 * 2 + i]); // rows 4..7 of A
    for (std::size_t i = 4 * 64 * 2; i < b.size(); i += 2) {
      REQUIRE(b[i] == lo); // the H200's fill 0x7FF7 per 16 bits, little-endian
      REQUIRE(b[i + 1] == hi);
    }
  }
}

// ----------------------------------------------------------------------------- stores

TEST_CASE("reference.bulk: a tensor store writes the box's elements inside the tensor only") {
  const auto out =
      run(kernel(8) +
          tensor("B", "global", "[12, 64]", "uint8", "init = \"constant(7)\"\noutput = true") +
          "[tensor.B.map]\nbox = [8, 64]\n\n" + tensor("s", "shared", "[8, 64]", "uint8") +
          op("op = \"fill\"\ndst = 's.sub[tid, :]'\npattern = \"0x11\"\n") +
          op("op = \"proxy_fence\"\n") + op("op = \"cta_sync\"\n") +
          op("op = \"tensor_store\"\ntensor = \"B\"\ncoords = [8, 0]\nsrc = 's'\npred = \"tid == "
             "0\"\n") +
          op("op = \"bulk_commit\"\n") + op("op = \"bulk_wait\"\nn = 0\n"));
  CHECK_MESSAGE(out.problems.empty(), problems(out));
  const auto& b = out.global.at("B");
  for (std::size_t i = 0; i < b.size(); ++i)
    REQUIRE(b[i] == (i < 8 * 64 ? 7 : 0x11));
}

TEST_CASE("reference.bulk: a tensor load then a tensor store of the tile needs no proxy fence") {
  // Bytes a load landed are the async proxy's: the store reads them without a fence.
  const auto out = run(
      kernel(8) + tensor("A", "global", "[16, 64]", "uint8", "init = \"arange % 251\"") +
      "[tensor.A.map]\nbox = [8, 64]\n\n" +
      tensor("B", "global", "[16, 64]", "uint8", "output = true") +
      "[tensor.B.map]\nbox = [8, 64]\n\n" + tensor("s", "shared", "[8, 64]", "uint8") + barrier +
      tx_and_load(512, "op = \"tensor_load\"\ntensor = \"A\"\ncoords = [8, 0]\ndst = 's'\n") +
      wait0 +
      op("op = \"tensor_store\"\ntensor = \"B\"\ncoords = [0, 0]\nsrc = 's'\npred = \"tid == "
         "0\"\n") +
      op("op = \"bulk_commit\"\n") + op("op = \"bulk_wait\"\nn = 0\n"));
  CHECK_MESSAGE(out.problems.empty(), problems(out));
  const auto& b = out.global.at("B");
  for (std::size_t i = 0; i < 8 * 64; ++i)
    REQUIRE(b[i] == arange(8 * 64 + static_cast<std::int64_t>(i)));
}

// ---------------------------------------------------------------------------- hazards

const std::string store_tensors =
    tensor("A", "global", "[2, 32, 16]", "uint8", "init = \"arange % 251\"") +
    tensor("B", "global", "[2, 32, 16]", "uint8", "output = true") +
    tensor("s", "shared", "[2, 32, 16]", "uint8");

/// Thread 0 stores slot 0 of s to B[0] in one bulk group.
const std::string store0 =
    op("op = \"bulk_store\"\ndst = 'B.sub[0]'\nsrc = 's.sub[0]'\npred = \"tid == 0\"\n") +
    op("op = \"bulk_commit\"\n");
const std::string wait_all = op("op = \"bulk_wait\"\nn = 0\n");
const std::string fill_rows = op("op = \"fill\"\ndst = 's.sub[0, tid, :]'\npattern = \"0x33\"\n");
const std::string fence = op("op = \"proxy_fence\"\n");
const std::string sync = op("op = \"cta_sync\"\n");

TEST_CASE(
    "reference.bulk: a bulk store of other threads' writes needs their fence, then a cta_sync") {
  const auto ok = run(kernel(32) + store_tensors + fill_rows + fence + sync + store0 + wait_all);
  CHECK_MESSAGE(ok.problems.empty(), problems(ok));
  const auto& b = ok.global.at("B");
  for (std::size_t i = 0; i < 512; ++i)
    REQUIRE(b[i] == 0x33);
  const auto none = run(kernel(32) + store_tensors + fill_rows + sync + store0 + wait_all);
  REQUIRE(found(none, DiagId::check_proxy_fence_missing));
  CHECK_FALSE(found(none, DiagId::check_read_without_sync));
  const auto late = run(kernel(32) + store_tensors + fill_rows + sync + fence + store0 + wait_all);
  REQUIRE(found(late, DiagId::check_proxy_fence_missing));
  CHECK(message(late, DiagId::check_proxy_fence_missing).find("thread 1 wrote") !=
        std::string::npos);
}

TEST_CASE("reference.bulk: a thread storing its own writes needs only its fence") {
  const std::string own =
      op("op = \"bulk_store\"\ndst = 'B.sub[0, tid, :]'\nsrc = 's.sub[0, tid, :]'\n") +
      op("op = \"bulk_commit\"\n");
  const auto ok = run(kernel(32) + store_tensors + fill_rows + fence + own + wait_all);
  CHECK_MESSAGE(ok.problems.empty(), problems(ok));
  CHECK(found(run(kernel(32) + store_tensors + fill_rows + own + wait_all),
              DiagId::check_proxy_fence_missing));
  // The fence before the write orders nothing.
  CHECK(found(run(kernel(32) + store_tensors + fence + fill_rows + own + wait_all),
              DiagId::check_proxy_fence_missing));
}

/// A two-slot ring of `tiles` bulk stores; before refilling a slot, bulk_wait n = `n`.
std::string ring(int n, bool read, const std::string& tiles = "6") {
  return kernel(32) + "[param.n_tiles]\ndtype = \"u32\"\nvalue = " + tiles +
         "\nrange = [1, 6]\n\n" +
         tensor("A", "global", "[6, 32, 16]", "uint8", "init = \"arange % 251\"") +
         tensor("B", "global", "[6, 32, 16]", "uint8", "output = true") +
         tensor("s", "shared", "[2, 32, 16]", "uint8") +
         op("op = \"for\"\nvar = \"k\"\nstart = 0\nstop = \"n_tiles\"\n") +
         op("op = \"bulk_wait\"\nn = " + std::to_string(n) +
            "\nread = " + (read ? "true" : "false") + "\n") +
         sync + copy("s.sub[k % 2, tid, :]", "A.sub[k, tid, :]") + fence + sync +
         op("op = \"bulk_store\"\ndst = 'B.sub[k]'\nsrc = 's.sub[k % 2]'\npred = \"tid == 0\"\n") +
         op("op = \"bulk_commit\"\n") + op("op = \"end\"\n") + wait_all;
}

TEST_CASE("reference.bulk: a refill needs the bulk_wait that covers the store still reading") {
  for (bool read : {true, false}) {
    CAPTURE(read);
    const auto ok = run(ring(1, read));
    CHECK_MESSAGE(ok.problems.empty(), problems(ok));
    const auto& b = ok.global.at("B");
    for (std::size_t i = 0; i < b.size(); ++i)
      REQUIRE(b[i] == arange(static_cast<std::int64_t>(i)));
    const auto loose = run(ring(2, read));
    REQUIRE(found(loose, DiagId::check_bulk_refill));
    CHECK(message(loose, DiagId::check_bulk_refill).find("(k=2)") != std::string::npos);
  }
}

TEST_CASE("reference.bulk: a hazard found only away from the test value, at every value alike") {
  const auto k = load(ring(2, true, "2"));
  CHECK(reference(*k).problems.empty());
  CHECK(reference(*k, {2}).problems.empty());
  for (int i = 0; i < 2; ++i) {
    const auto at3 = reference(*k, {3});
    REQUIRE(found(at3, DiagId::check_bulk_refill));
    CHECK(at3.problems == reference(*k, {3}).problems);
  }
}

TEST_CASE("reference.bulk: every bulk group waited before the kernel ends") {
  const std::string filled = fill_rows + fence + sync;
  CHECK(run(kernel(32) + store_tensors + filled + store0 + wait_all).problems.empty());
  const auto never = run(kernel(32) + store_tensors + filled + store0);
  REQUIRE(found(never, DiagId::check_bulk_never_waited));
  CHECK(message(never, DiagId::check_bulk_never_waited).find("no later bulk_wait") !=
        std::string::npos);
  // The stores still complete: B holds the tile.
  CHECK(never.global.at("B")[0] == 0x33);
  const std::string uncommitted =
      op("op = \"bulk_store\"\ndst = 'B.sub[0]'\nsrc = 's.sub[0]'\npred = \"tid == 0\"\n");
  const auto open = run(kernel(32) + store_tensors + filled + uncommitted + wait_all);
  REQUIRE(found(open, DiagId::check_bulk_never_waited));
  CHECK(message(open, DiagId::check_bulk_never_waited).find("no bulk_commit") != std::string::npos);
}

TEST_CASE("reference.bulk: a read of global bytes a pending bulk store writes") {
  const std::string filled = fill_rows + fence + sync;
  const std::string read_back = copy("s.sub[1, tid, :]", "B.sub[0, tid, :]");
  // Thread 0's wait completes the store for thread 0 only: the other threads' read-back
  // needs a cta_sync after it.
  CHECK(run(kernel(32) + store_tensors + filled + store0 + wait_all + sync + read_back)
            .problems.empty());
  CHECK(found(run(kernel(32) + store_tensors + filled + store0 + wait_all + read_back),
              DiagId::check_bulk_wait_scope));
  CHECK(found(run(kernel(32) + store_tensors + filled + store0 + read_back + wait_all),
              DiagId::check_bulk_global_race));
  // wait_group.read: the store has read shared memory, its global writes may be pending.
  CHECK(found(run(kernel(32) + store_tensors + filled + store0 +
                  op("op = \"bulk_wait\"\nn = 0\nread = true\n") + read_back + wait_all),
              DiagId::check_bulk_global_race));
}

TEST_CASE("reference.bulk: shared bytes a tensor load writes are read after the wait") {
  auto spec = [](bool before) {
    const std::string out = copy("B.sub[tid, :]", "s.sub[tid, :]");
    return kernel(16) + tensor("A", "global", "[64, 64]", "uint8", "init = \"arange % 251\"") +
           "[tensor.A.map]\nbox = [16, 64]\n\n" +
           tensor("B", "global", "[16, 64]", "uint8", "output = true") +
           tensor("s", "shared", "[16, 64]", "uint8") + barrier +
           tx_and_load(1024,
                       "op = \"tensor_load\"\ntensor = \"A\"\ncoords = [16, 0]\ndst = 's'\n") +
           (before ? out + wait0 : wait0 + out);
  };
  const auto ok = run(spec(false));
  CHECK_MESSAGE(ok.problems.empty(), problems(ok));
  const auto early = run(spec(true));
  REQUIRE(found(early, DiagId::check_mbarrier_unwaited_read));
  CHECK(message(early, DiagId::check_mbarrier_unwaited_read).find("load of op 4") !=
        std::string::npos);
}

TEST_CASE("reference.bulk: a load into shared bytes a pending bulk store still reads") {
  const std::string load_slot =
      tx_and_load(512, "op = \"bulk_load\"\ndst = 's.sub[0]'\nsrc = 'A.sub[1]'\n") + wait0;
  const std::string base = kernel(32) + store_tensors + barrier + fill_rows + fence + sync + store0;
  CHECK(run(base + op("op = \"bulk_wait\"\nn = 0\nread = true\n") + load_slot + wait_all)
            .problems.empty());
  CHECK(found(run(base + load_slot + wait_all), DiagId::check_bulk_refill));
}

} // namespace

} // namespace unit_reference_bulk
