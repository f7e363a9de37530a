// The simulator's tensor copies (cp.async.bulk.tensor ... .tile): hand-written one-thread
// kernels (the map a `.param .align 128 .b8 [128]` taken by `mov.b64` + `cvta.param`, or a
// pointer to handle bytes in global memory) and maps stated through Launch::tensor_maps. The
// expected bytes are worked out here from the ISA's description, element by element: a box
// element's tensor coordinate, its dense place in shared memory, the 128-byte swizzle as
// "chunk j of line L moves to chunk j ^ (L % 8)", zero or NaN for elements outside the tensor,
// and a store that writes past the inner extent up to the row's next 16-byte boundary.
// Checks key on FaultKind / RaceKind, never on message text.

#include "driver/sim/simulator.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sim_tensor {

using namespace ptxgen::sim;
namespace tile = ptxgen::tile;

namespace {

constexpr std::uint64_t tensor_base = 0x10000;
constexpr std::uint64_t out_base = 0x80000;
constexpr std::uint64_t map_base = 0x90000;

/// What the generated kernel does.
struct Kernel {
  int rank = 2;
  std::uint32_t bytes = 0;         ///< the box's bytes (expect_tx; copied out or in)
  bool store = false;              ///< load the box and copy shared to `out`, or the reverse
  bool map_in_global = false;      ///< the map's address is a u64 parameter (handle bytes)
  std::uint32_t shared_offset = 0; ///< added to the 1024-aligned shared tile's address
  std::uint32_t expect = 0;        ///< the load's expect_tx (0: `bytes`)
  bool fence = true;               ///< the store's fence.proxy.async
  bool wait = true;                ///< the store's wait_group
  std::string before_load;         ///< PTX lines before a load's mbarrier.init
  std::string after_commit;        ///< PTX lines between a store's commit and its wait
  std::string reduce;              ///< a store's cp.reduce.async.bulk.tensor `.op` (empty: none)
};

/// One thread, the map in parameter 0, `out` in 1, coordinates c0 (innermost) .. c2 in 2 .. 4.
std::string kernel_text(const Kernel& k) {
  std::string coords = "%r1";
  for (int c = 1; c < k.rank; ++c)
    coords += ", %r" + std::to_string(c + 1);
  const std::string n = std::to_string(k.bytes);
  std::string s = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(\n";
  s += k.map_in_global ? "\t.param .u64 k_map,\n" : "\t.param .align 128 .b8 k_map[128],\n";
  s += "\t.param .u64 k_out,\n\t.param .u32 k_c0,\n\t.param .u32 k_c1,\n\t.param .u32 k_c2\n)\n{\n"
       "\t.reg .pred %p<4>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<16>;\n"
       "\t.shared .align 1024 .b8 tile[8192];\n\t.shared .align 8 .b8 bar[8];\n";
  s += k.map_in_global ? "\tld.param.u64 %rd2, [k_map];\n"
                       : "\tmov.b64 %rd1, k_map;\n\tcvta.param.u64 %rd2, %rd1;\n";
  s += "\tld.param.u64 %rd3, [k_out];\n\tld.param.u32 %r1, [k_c0];\n"
       "\tld.param.u32 %r2, [k_c1];\n\tld.param.u32 %r3, [k_c2];\n"
       "\tmov.u32 %r10, tile;\n\tadd.u32 %r10, %r10, " +
       std::to_string(k.shared_offset) + ";\n\tmov.u32 %r11, bar;\n\tmov.u32 %r20, 0;\n";
  // the loop that copies the box between shared memory and `out`, four bytes at a time
  const std::string copy =
      std::string("$L_copy:\n\tadd.u32 %r21, %r10, %r20;\n"
                  "\tcvt.u64.u32 %rd4, %r20;\n\tadd.s64 %rd5, %rd3, %rd4;\n") +
      (k.store ? "\tld.global.u32 %r22, [%rd5];\n\tst.shared.u32 [%r21], %r22;\n"
               : "\tld.shared.u32 %r22, [%r21];\n\tst.global.u32 [%rd5], %r22;\n") +
      "\tadd.u32 %r20, %r20, 4;\n\tsetp.lt.u32 %p2, %r20, " + n + ";\n\t@%p2 bra $L_copy;\n";
  const std::string dim = std::to_string(k.rank) + "d";
  if (k.store) {
    s += copy;
    if (k.fence)
      s += "\tfence.proxy.async.shared::cta;\n";
    s += (k.reduce.empty() ? "\tcp.async.bulk.tensor." + dim + ".global.shared::cta.tile.bulk_group"
                           : "\tcp.reduce.async.bulk.tensor." + dim + ".global.shared::cta." +
                                 k.reduce + ".tile.bulk_group") +
         " [%rd2, {" + coords + "}], [%r10];\n\tcp.async.bulk.commit_group;\n" + k.after_commit;
    if (k.wait)
      s += "\tcp.async.bulk.wait_group 0;\n";
  } else {
    s += k.before_load;
    s += "\tmbarrier.init.shared::cta.b64 [%r11], 1;\n"
         "\tmbarrier.arrive.expect_tx.shared::cta.b64 _, [%r11], " +
         std::to_string(k.expect != 0 ? k.expect : k.bytes) + ";\n";
    s += "\tcp.async.bulk.tensor." + dim +
         ".shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r10], [%rd2, {" + coords +
         "}], [%r11];\n";
    s += "$L_wait:\n\tmbarrier.try_wait.parity.shared::cta.b64 %p1, [%r11], 0;\n"
         "\t@!%p1 bra $L_wait;\n" +
         copy;
  }
  return s + "\tret;\n}\n";
}

/// A tensor of 32-bit words, each its own index times 7 plus 1 (never 0, never a NaN pattern).
std::vector<std::uint8_t> words(std::size_t count) {
  std::vector<std::uint8_t> v(count * 4);
  for (std::size_t i = 0; i < count; ++i) {
    const auto w = static_cast<std::uint32_t>(i * 7 + 1);
    std::memcpy(v.data() + 4 * i, &w, 4);
  }
  return v;
}

std::uint32_t word_at(const std::vector<std::uint8_t>& v, std::size_t byte) {
  std::uint32_t w = 0;
  std::memcpy(&w, v.data() + byte, 4);
  return w;
}

tile::TensorMapDesc map_of(tile::DType dtype, std::vector<std::int64_t> dims,
                           std::vector<std::int64_t> strides, std::vector<std::int64_t> box) {
  tile::TensorMapDesc m;
  m.tensor = "A";
  m.dtype = dtype;
  m.global_dims = std::move(dims);
  m.global_strides = std::move(strides);
  m.element_strides.assign(box.size(), 1);
  m.box_dims = std::move(box);
  return m;
}

struct Run {
  std::vector<std::uint8_t> tensor, out, map_bytes;
  std::vector<GlobalBuffer> mem;
  SimResult result;
};

/// Runs `k` with the map `m` over `tensor` (at tensor_base), `out` (at out_base) and
/// coordinates c (innermost first, as PTX lists them).
void launch(Run& r, const Kernel& k, const tile::TensorMapDesc& m, std::array<std::int32_t, 3> c,
            std::uint32_t ctas = 1, Observer* observer = nullptr) {
  r.mem = {{tensor_base, &r.tensor, "A"}, {out_base, &r.out, "out"}};
  Launch l;
  l.grid_dim = {ctas, 1, 1};
  l.observer = observer;
  l.params = {0, out_base, static_cast<std::uint32_t>(c[0]), static_cast<std::uint32_t>(c[1]),
              static_cast<std::uint32_t>(c[2])};
  TensorMapArg arg;
  arg.desc = m;
  arg.global_address = tensor_base;
  if (k.map_in_global) {
    l.params[0] = map_base;
    r.mem.push_back({map_base, &r.map_bytes, "map"});
  } else {
    arg.param = 0;
  }
  l.tensor_maps = {arg};
  l.max_instructions = 1'000'000;
  r.result = run(kernel_text(k), "k", l, r.mem);
}

void require_ok(const Run& r) {
  INFO((r.result.fault ? r.result.fault->message : std::string()));
  REQUIRE_FALSE(r.result.fault.has_value());
}

void require_fault(const Run& r, FaultKind kind) {
  REQUIRE(r.result.fault.has_value());
  INFO(r.result.fault->message);
  CHECK(r.result.fault->kind == kind);
}

} // namespace

TEST_CASE("2-D tensor load with 128-byte swizzle: chunk j of line L lands at chunk j ^ (L % 8)") {
  // A 40 x 64 tensor of u32 (256-byte rows); an 8 x 32 box (128-byte lines) at row 4, column 16.
  tile::TensorMapDesc m = map_of(tile::DType::uint32, {40, 64}, {256}, {8, 32});
  m.swizzle = tile::TensorMapSwizzle::b128;
  const Kernel k{.rank = 2, .bytes = 8 * 128};
  Run r;
  r.tensor = words(40 * 64);
  r.out.assign(k.bytes, 0);
  launch(r, k, m, {16, 4, 0});
  require_ok(r);
  for (std::size_t i = 0; i < 8; ++i) {
    for (std::size_t j = 0; j < 32; ++j) {
      const std::size_t chunk = (j / 4) ^ (i % 8);
      const std::size_t at = i * 128 + chunk * 16 + (j % 4) * 4;
      INFO("box element " << i << ", " << j);
      REQUIRE(word_at(r.out, at) == word_at(r.tensor, ((4 + i) * 64 + 16 + j) * 4));
    }
  }
  SUBCASE("off the 1024-byte repeat the swizzle follows the address: line L at chunk j ^ "
          "((L + offset / 128) % 8)") {
    // Probe 8 on the H100 (2026-12-05): a 128B-swizzled box at 1024k + 128 .. 896 runs, and
    // its chunks land where the shared address's bits 7..9 put them, as a wgmma descriptor
    // without a base offset reads them (CUTLASS's example 48 puts its stages at offset 384).
    for (const std::uint32_t offset : {128u, 384u, 512u, 896u}) {
      Run off;
      off.tensor = words(40 * 64);
      off.out.assign(k.bytes, 0);
      launch(off, Kernel{.rank = 2, .bytes = 8 * 128, .shared_offset = offset}, m, {16, 4, 0});
      require_ok(off);
      for (std::size_t i = 0; i < 8; ++i) {
        for (std::size_t j = 0; j < 32; ++j) {
          const std::size_t chunk = (j / 4) ^ ((i + offset / 128) % 8);
          const std::size_t at = i * 128 + chunk * 16 + (j % 4) * 4;
          INFO("offset " << offset << ", box element " << i << ", " << j);
          REQUIRE(word_at(off.out, at) == word_at(off.tensor, ((4 + i) * 64 + 16 + j) * 4));
        }
      }
    }
  }
  SUBCASE("the shared tile must be aligned to 128 bytes") {
    Run bad;
    bad.tensor = words(40 * 64);
    bad.out.assign(k.bytes, 0);
    launch(bad, Kernel{.rank = 2, .bytes = 8 * 128, .shared_offset = 64}, m, {16, 4, 0});
    require_fault(bad, FaultKind::misaligned_address);
  }
  SUBCASE("a .3d copy through this 2-D map is undefined") {
    Run bad;
    bad.tensor = words(40 * 64);
    bad.out.assign(k.bytes, 0);
    launch(bad, Kernel{.rank = 3, .bytes = 8 * 128}, m, {16, 4, 0});
    require_fault(bad, FaultKind::undefined_behavior);
  }
}

TEST_CASE("a 128B-swizzled box of 64-byte rows is padded: row r at 128 r, chunk j at j ^ (r % 8)") {
  // Measured on the H200: each row of a box narrower than its swizzle span takes the whole
  // span; the transaction count stays the box's bytes (1024 completes the phase, 2048 never).
  // A 32 x 32 tensor of u32; a 16 x 16 box (64-byte rows) at row 8, column 4.
  tile::TensorMapDesc m = map_of(tile::DType::uint32, {32, 32}, {128}, {16, 16});
  m.swizzle = tile::TensorMapSwizzle::b128;
  Run r;
  r.tensor = words(32 * 32);
  r.out.assign(16 * 128, 0);
  launch(r, Kernel{.rank = 2, .bytes = 16 * 128, .expect = 16 * 64}, m, {4, 8, 0});
  require_ok(r);
  for (std::size_t row = 0; row < 16; ++row) {
    for (std::size_t x = 0; x < 16; ++x) {
      const std::size_t at = row * 128 + ((x / 4) ^ (row % 8)) * 16 + (x % 4) * 4;
      INFO("box element " << row << ", " << x);
      REQUIRE(word_at(r.out, at) == word_at(r.tensor, ((8 + row) * 32 + 4 + x) * 4));
    }
  }
  SUBCASE("an expect_tx of the padded bytes never completes the phase") {
    Run bad;
    bad.tensor = words(32 * 32);
    bad.out.assign(16 * 128, 0);
    launch(bad, Kernel{.rank = 2, .bytes = 16 * 128}, m, {4, 8, 0});
    require_fault(bad, FaultKind::deadlock);
  }
  SUBCASE("the store reads the padded layout back: the round trip is exact") {
    Run st;
    st.tensor.assign(32 * 32 * 4, 0);
    st.out = r.out; // the padded tile the load wrote
    launch(st, Kernel{.rank = 2, .bytes = 16 * 128, .store = true}, m, {4, 8, 0});
    require_ok(st);
    for (std::size_t row = 0; row < 32; ++row)
      for (std::size_t x = 0; x < 32; ++x) {
        const bool in = row >= 8 && row < 24 && x >= 4 && x < 20;
        INFO("tensor element " << row << ", " << x);
        REQUIRE(word_at(st.tensor, (row * 32 + x) * 4) ==
                (in ? word_at(r.tensor, (row * 32 + x) * 4) : 0u));
      }
  }
}

TEST_CASE("the innermost coordinate's bytes are a multiple of 16: others fault as on the H200") {
  // Measured on the H200: inner byte offsets 4, 8, 3 and -8 raise an illegal-instruction
  // fault; -16, 16 and 144 run. A uint8 tensor, so the coordinate is the byte offset.
  const tile::TensorMapDesc m = map_of(tile::DType::uint8, {8, 256}, {256}, {4, 16});
  for (const std::int32_t x : {4, 8, 3, -8, -16, 16, 144}) {
    for (const bool store : {false, true}) {
      if (store && x < 0)
        continue; // a store's box starts inside the tensor
      CAPTURE(x);
      CAPTURE(store);
      Run r;
      r.tensor = std::vector<std::uint8_t>(8 * 256, 7);
      r.out.assign(64, 1);
      launch(r, Kernel{.rank = 2, .bytes = 64, .store = store}, m, {x, 2, 0});
      if (x % 16 == 0)
        require_ok(r);
      else
        require_fault(r, FaultKind::undefined_behavior);
    }
  }
}

TEST_CASE("3-D tensor load with out-of-bounds fill: zero or NaN, counted in complete_tx") {
  // A 3 x 5 x 8 tensor of f32 (32-byte rows, 160-byte planes); a 2 x 4 x 8 box at plane 2,
  // row 3, column -4: plane 3, rows 5..6 and columns -4..-1 lie outside.
  const tile::TensorMapDesc zero = map_of(tile::DType::float32, {3, 5, 8}, {160, 32}, {2, 4, 8});
  tile::TensorMapDesc nan = zero;
  nan.oob_fill = tile::TensorMapOobFill::nan;
  constexpr std::uint32_t box = 2 * 4 * 8 * 4;
  for (const tile::TensorMapDesc* m : {&zero, static_cast<const tile::TensorMapDesc*>(&nan)}) {
    CAPTURE(static_cast<int>(m->oob_fill));
    Run r;
    r.tensor = words(3 * 5 * 8);
    r.out.assign(box, 0xEE);
    launch(r, Kernel{.rank = 3, .bytes = box}, *m, {-4, 3, 2});
    require_ok(r);
    const std::uint32_t fill = m == &nan ? 0x7FF77FF7u : 0u;
    std::size_t inside = 0;
    for (std::int64_t i = 0; i < 2; ++i) {
      for (std::int64_t j = 0; j < 4; ++j) {
        for (std::int64_t x = 0; x < 8; ++x) {
          const std::int64_t p = 2 + i, row = 3 + j, col = -4 + x;
          const bool in = p < 3 && row < 5 && col >= 0;
          inside += in ? 1 : 0;
          const auto at = static_cast<std::size_t>(((i * 4 + j) * 8 + x) * 4);
          const std::uint32_t want =
              in ? word_at(r.tensor, static_cast<std::size_t>(((p * 5 + row) * 8 + col) * 4))
                 : fill;
          INFO("box element " << i << ", " << j << ", " << x);
          REQUIRE(word_at(r.out, at) == want);
        }
      }
    }
    CHECK(inside == 2 * 4); // the box does overlap the tensor, and does leave it
  }
  SUBCASE("an expect_tx of the elements inside only never completes the phase") {
    Run r;
    r.tensor = words(3 * 5 * 8);
    r.out.assign(box, 0);
    launch(r, Kernel{.rank = 3, .bytes = box, .expect = 8 * 4}, zero, {-4, 3, 2});
    require_fault(r, FaultKind::deadlock);
  }
}

TEST_CASE("2-D tensor store: past the inner extent up to the next 16-byte boundary, rows outside "
          "skipped") {
  // A 4 x 6 tensor of u32 in 32-byte rows (24 bytes used); a 2 x 8 box. Columns 6 and 7 of a
  // row inside are bytes 24..31 of its row: before the row's next 16-byte boundary, written.
  const tile::TensorMapDesc m = map_of(tile::DType::uint32, {4, 6}, {32}, {2, 8});
  constexpr std::uint32_t box = 2 * 8 * 4;
  const auto expect_rows = [&](const Run& r, std::int64_t first) {
    for (std::size_t b = 0; b < r.tensor.size(); b += 4) {
      const auto row = static_cast<std::int64_t>(b / 32);
      const std::size_t col = b % 32 / 4;
      const bool written = row >= first && row < first + 2 && row < 4;
      INFO("tensor byte " << b);
      CHECK(word_at(r.tensor, b) ==
            (written ? word_at(r.out, static_cast<std::size_t>(row - first) * 32 + col * 4)
                     : 0xEEEEEEEEu));
    }
  };
  SUBCASE("rows 1 and 2") {
    Run r;
    r.tensor.assign(4 * 32, 0xEE);
    r.out = words(box / 4);
    launch(r, Kernel{.rank = 2, .bytes = box, .store = true}, m, {0, 1, 0});
    require_ok(r);
    expect_rows(r, 1);
  }
  SUBCASE("rows 3 and 4: row 4 lies outside and is not written (it would be past the buffer)") {
    Run r;
    r.tensor.assign(4 * 32, 0xEE);
    r.out = words(box / 4);
    launch(r, Kernel{.rank = 2, .bytes = box, .store = true}, m, {0, 3, 0});
    require_ok(r);
    expect_rows(r, 3);
  }
  SUBCASE("the store reads bytes the thread wrote with st.shared: fence.proxy.async first") {
    Run r;
    r.tensor.assign(4 * 32, 0xEE);
    r.out = words(box / 4);
    launch(r, Kernel{.rank = 2, .bytes = box, .store = true, .fence = false}, m, {0, 1, 0});
    require_fault(r, FaultKind::race);
    REQUIRE(r.result.fault->race);
    CHECK(r.result.fault->race->kind == RaceKind::missing_proxy_fence);
  }
  SUBCASE("a store never waited: its read may outlive the CTA") {
    Run r;
    r.tensor.assign(4 * 32, 0xEE);
    r.out = words(box / 4);
    launch(r, Kernel{.rank = 2, .bytes = box, .store = true, .wait = false}, m, {0, 1, 0});
    require_fault(r, FaultKind::undefined_behavior);
  }
}

TEST_CASE("2-D tensor reduction: each element inside the tensor combines in the map's dtype, "
          "rows outside skipped") {
  // The store's test with cp.reduce.async.bulk.tensor: rows 3 and 4 of a 4 x 8 u32 tensor,
  // row 4 outside it. Each element of row 3 becomes the ISA's result of tensor and box words.
  const tile::TensorMapDesc m = map_of(tile::DType::uint32, {4, 8}, {32}, {2, 8});
  constexpr std::uint32_t box = 2 * 8 * 4;
  const auto run_op = [&](const std::string& op, Run& r) {
    r.tensor = words(4 * 8);
    r.out.assign(box, 0);
    for (std::size_t b = 0; b < box; b += 4) { // box words 0, 3, 6, ...: some below, some above
      const auto w = static_cast<std::uint32_t>(b / 4 * 3);
      std::memcpy(r.out.data() + b, &w, 4);
    }
    launch(r, Kernel{.rank = 2, .bytes = box, .store = true, .reduce = op}, m, {0, 3, 0});
  };
  const auto expect = [&](const Run& r, auto combine) {
    const std::vector<std::uint8_t> before = words(4 * 8);
    for (std::size_t b = 0; b < r.tensor.size(); b += 4) {
      INFO("tensor byte " << b);
      const bool inside_box = b >= 3 * 32; // row 3: box row 0
      CHECK(
          word_at(r.tensor, b) ==
          (inside_box ? combine(word_at(before, b), word_at(r.out, b - 96)) : word_at(before, b)));
    }
  };
  SUBCASE("add") {
    Run r;
    run_op("add", r);
    require_ok(r);
    expect(r, [](std::uint32_t a, std::uint32_t v) { return a + v; });
  }
  SUBCASE("inc: old >= v ? 0 : old + 1") {
    Run r;
    run_op("inc", r);
    require_ok(r);
    expect(r, [](std::uint32_t a, std::uint32_t v) { return a >= v ? 0u : a + 1; });
  }
  SUBCASE("xor") {
    Run r;
    run_op("xor", r);
    require_ok(r);
    expect(r, [](std::uint32_t a, std::uint32_t v) { return a ^ v; });
  }
  SUBCASE("inc of a float32 map: no such form of the tensor reduction, undefined") {
    Run r;
    r.tensor = words(4 * 8);
    r.out.assign(box, 0);
    launch(r, Kernel{.rank = 2, .bytes = box, .store = true, .reduce = "inc"},
           map_of(tile::DType::float32, {4, 8}, {32}, {2, 8}), {0, 3, 0});
    require_fault(r, FaultKind::undefined_behavior);
  }
}

TEST_CASE("prefetch.tensormap: a hint whose address must hold a map of the launch") {
  const tile::TensorMapDesc m = map_of(tile::DType::uint32, {4, 8}, {32}, {2, 8});
  const std::uint32_t box = 2 * 8 * 4;
  Run r;
  r.tensor = words(4 * 8);
  r.out.assign(box, 0);
  SUBCASE("the map's generic address: nothing changes") {
    launch(r, Kernel{.rank = 2, .bytes = box, .before_load = "\tprefetch.tensormap [%rd2];\n"}, m,
           {0, 2, 0});
    require_ok(r);
    for (std::size_t b = 0; b < box; b += 4)
      CHECK(word_at(r.out, b) == word_at(r.tensor, 2 * 32 + b));
  }
  SUBCASE("another buffer's address (out): no map there") {
    r.out.assign(256, 0); // 128 readable bytes that are no handle
    launch(r, Kernel{.rank = 2, .bytes = box, .before_load = "\tprefetch.tensormap [%rd3];\n"}, m,
           {0, 2, 0});
    require_fault(r, FaultKind::unsupported);
  }
}

TEST_CASE("tensor maps: handle bytes in global memory, and bytes that are no handle") {
  const tile::TensorMapDesc m = map_of(tile::DType::uint32, {4, 8}, {32}, {2, 8});
  const Kernel k{.rank = 2, .bytes = 2 * 8 * 4, .map_in_global = true};
  Run r;
  r.tensor = words(4 * 8);
  r.out.assign(k.bytes, 0);
  const auto handle = tensor_map_handle(0);
  r.map_bytes.assign(handle.begin(), handle.end());
  SUBCASE("the handle of map 0") {
    launch(r, k, m, {0, 2, 0});
    require_ok(r);
    for (std::size_t b = 0; b < k.bytes; b += 4)
      CHECK(word_at(r.out, b) == word_at(r.tensor, 2 * 32 + b));
  }
  SUBCASE("one byte changed past the edit record: the simulator cannot decode it") {
    r.map_bytes[tensor_map_edits_end + 4] = 1;
    launch(r, k, m, {0, 2, 0});
    require_fault(r, FaultKind::unsupported);
  }
  SUBCASE("the edit record's global address (tensormap.replace's) moves the tensor") {
    const std::uint64_t moved = tensor_base + 32; // one 32-byte row on
    for (std::size_t i = 0; i < 8; ++i)
      r.map_bytes[tensor_map_edit_address + i] = static_cast<std::uint8_t>(moved >> (8 * i));
    launch(r, k, m, {0, 1, 0}); // row 1 from the moved base: row 2 of the tensor
    require_ok(r);
    for (std::size_t b = 0; b < k.bytes; b += 4)
      CHECK(word_at(r.out, b) == word_at(r.tensor, 2 * 32 + b));
  }
  SUBCASE("the edit record's global dim cuts the box: the rows past it are filled") {
    r.map_bytes[tensor_map_edit_dims + 8] = 3; // ordinal 1 (the outer dim): 3 rows
    launch(r, k, m, {0, 2, 0});
    require_ok(r);
    for (std::size_t b = 0; b < k.bytes; b += 4)
      CHECK(word_at(r.out, b) == (b < 32 ? word_at(r.tensor, 2 * 32 + b) : 0u));
  }
  SUBCASE("the handle of a map the launch does not pass") {
    const auto other = tensor_map_handle(1);
    r.map_bytes.assign(other.begin(), other.end());
    launch(r, k, m, {0, 2, 0});
    require_fault(r, FaultKind::unsupported);
  }
  CHECK(tensor_map_index(handle) == 0u);
}

TEST_CASE("a 128-byte map parameter needs its map; an invalid map is refused at launch") {
  const tile::TensorMapDesc m = map_of(tile::DType::uint32, {4, 8}, {32}, {2, 8});
  Run r;
  r.tensor = words(4 * 8);
  r.out.assign(64, 0);
  r.mem = {{tensor_base, &r.tensor, "A"}, {out_base, &r.out, "out"}};
  Launch l;
  l.params = {0, out_base, 0, 0, 0};
  const std::string text = kernel_text(Kernel{.rank = 2, .bytes = 64});
  SUBCASE("no map for the array parameter") {
    r.result = run(text, "k", l, r.mem);
    require_fault(r, FaultKind::unsupported);
  }
  SUBCASE("a box dim over 256") {
    TensorMapArg arg{0, m, tensor_base};
    arg.desc.box_dims = {2, 512};
    l.tensor_maps = {arg};
    r.result = run(text, "k", l, r.mem);
    require_fault(r, FaultKind::invalid_launch);
  }
  SUBCASE("a map naming a scalar parameter") {
    l.tensor_maps = {TensorMapArg{1, m, tensor_base}};
    r.result = run(text, "k", l, r.mem);
    require_fault(r, FaultKind::invalid_launch);
  }
}

/// nvcc's PTX tests/foreign/ptx/NAME.ptx ("tma_tile.sm90.O3").
std::string foreign_ptx(const std::string& name) {
  const std::string rel = "tests/foreign/ptx/" + name + ".ptx";
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/" + rel);
  REQUIRE_MESSAGE(in.good(), "cannot open " << rel);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs tma_tile's PTX: A 30 x 64 u32 (256-byte rows) through its map (16 x 32 boxes, 128-byte
/// swizzle), B 32 x 64 u32 (0xEE before).
SimResult run_tma_tile(const std::string& ptx, std::vector<std::uint8_t>& a,
                       std::vector<std::uint8_t>& b) {
  tile::TensorMapDesc m = map_of(tile::DType::uint32, {30, 64}, {256}, {16, 32});
  m.swizzle = tile::TensorMapSwizzle::b128;
  a = words(30 * 64);
  b.assign(32 * 64 * 4, 0xEE);
  std::vector<GlobalBuffer> mem = {{tensor_base, &a, "A"}, {out_base, &b, "B"}};
  Launch l;
  l.block_dim = {128, 1, 1};
  l.params = {0, out_base};
  l.tensor_maps = {TensorMapArg{0, m, tensor_base}};
  return run(ptx, "_Z8tma_tile14CUtensorMap_stPj", l, mem);
}

TEST_CASE("nvcc's 2-D TMA kernel (tests/foreign/src/tma_tile.cu): a __grid_constant__ map, "
          "128-byte swizzle read back by the threads, rows past the tensor zero-filled") {
  for (const char* build : {"O3", "G"}) {
    CAPTURE(build);
    std::vector<std::uint8_t> a, b;
    const SimResult r = run_tma_tile(foreign_ptx(std::string("tma_tile.sm90.") + build), a, b);
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
    for (std::size_t e = 0; e < 32 * 64; ++e) {
      INFO("B word " << e);
      REQUIRE(word_at(b, 4 * e) == (e < 30 * 64 ? word_at(a, 4 * e) : 0u));
    }
  }
}

/// Runs tma_roundtrip's PTX (tests/foreign/src/tma_roundtrip.cu): A 32 x 64 u32 and B 30 x 64
/// u32 (0xEE before), both in 256-byte rows through maps of 16 x 32 boxes, 128-byte swizzle.
SimResult run_tma_roundtrip(const std::string& ptx, std::vector<std::uint8_t>& a,
                            std::vector<std::uint8_t>& b) {
  tile::TensorMapDesc ma = map_of(tile::DType::uint32, {32, 64}, {256}, {16, 32});
  ma.swizzle = tile::TensorMapSwizzle::b128;
  tile::TensorMapDesc mb = ma;
  mb.tensor = "B";
  mb.global_dims = {30, 64};
  a = words(32 * 64);
  b.assign(30 * 64 * 4, 0xEE);
  std::vector<GlobalBuffer> mem = {{tensor_base, &a, "A"}, {out_base, &b, "B"}};
  Launch l;
  l.block_dim = {128, 1, 1};
  l.params = {0, 0};
  l.tensor_maps = {TensorMapArg{0, ma, tensor_base}, TensorMapArg{1, mb, out_base}};
  return run(ptx, "_Z13tma_roundtrip14CUtensorMap_stS_", l, mem);
}

TEST_CASE("nvcc's 2-D TMA round trip (tests/foreign/src/tma_roundtrip.cu): tensor stores through "
          "a second map, rows past B skipped") {
  for (const char* build : {"O3", "G"}) {
    CAPTURE(build);
    std::vector<std::uint8_t> a, b;
    const SimResult r =
        run_tma_roundtrip(foreign_ptx(std::string("tma_roundtrip.sm90.") + build), a, b);
    INFO((r.fault ? r.fault->message : std::string()));
    REQUIRE_FALSE(r.fault.has_value());
    // B row r is A row r with lines 8 apart swapped within each 16-row box
    for (std::size_t row = 0; row < 30; ++row) {
      const std::size_t from = row / 16 * 16 + ((row % 16) ^ 8);
      for (std::size_t col = 0; col < 64; ++col) {
        INFO("B row " << row << ", column " << col);
        REQUIRE(word_at(b, (row * 64 + col) * 4) == word_at(a, (from * 64 + col) * 4));
      }
    }
  }
}

} // namespace unit_sim_tensor

namespace unit_sim_tensor {

namespace {

/// The 1-based line of the first line of `k`'s text holding `text`.
std::uint32_t line_in(const Kernel& k, const std::string& text) {
  const std::string ptx = kernel_text(k);
  const auto at = ptx.find(text);
  REQUIRE(at != std::string::npos);
  return 1 + static_cast<std::uint32_t>(std::count(ptx.begin(), ptx.begin() + at, '\n'));
}

} // namespace

TEST_CASE("tensor copies against generic global accesses (the global proxy, pending stores)") {
  // A 4 x 8 tensor of u32 (32-byte rows); a 2 x 8 box at row 1: its first element is A word 8.
  const tile::TensorMapDesc m = map_of(tile::DType::uint32, {4, 8}, {32}, {2, 8});
  constexpr std::uint32_t box = 2 * 8 * 4;
  const std::string gst = "\tmov.u64 %rd9, " + std::to_string(tensor_base + 32) +
                          ";\n\tmov.u32 %r30, 12345;\n\tst.global.u32 [%rd9], %r30;\n";
  SUBCASE("a load of a word the thread stored: fence.proxy.async.global (or no space) first") {
    for (const char* fence : {"\tfence.proxy.async.global;\n", "\tfence.proxy.async;\n"}) {
      INFO(fence);
      Run r;
      r.tensor = words(4 * 8);
      r.out.assign(box, 0);
      launch(r, Kernel{.rank = 2, .bytes = box, .before_load = gst + fence}, m, {0, 1, 0});
      require_ok(r);
      CHECK(word_at(r.out, 0) == 12345);
      CHECK(word_at(r.out, 4) == word_at(r.tensor, 9 * 4));
    }
  }
  SUBCASE("no fence, or one of shared memory only: a race naming both lines") {
    for (const char* fence : {"", "\tfence.proxy.async.shared::cta;\n"}) {
      INFO(fence);
      const Kernel k{.rank = 2, .bytes = box, .before_load = gst + fence};
      Run r;
      r.tensor = words(4 * 8);
      r.out.assign(box, 0);
      launch(r, k, m, {0, 1, 0});
      require_fault(r, FaultKind::race);
      REQUIRE(r.result.fault->race);
      CHECK(r.result.fault->race->kind == RaceKind::missing_global_proxy_fence);
      CHECK(r.result.fault->race->symbol == "A");
      CHECK(r.result.fault->race->offset == 32);
      CHECK(r.result.fault->race->access.ptx_line == line_in(k, "cp.async.bulk.tensor"));
      CHECK(r.result.fault->race->other.ptx_line == line_in(k, "st.global.u32 [%rd9]"));
    }
  }
  SUBCASE("a generic store into the bytes of a tensor store no wait_group has completed") {
    const Kernel k{.rank = 2, .bytes = box, .store = true, .after_commit = gst};
    Run r;
    r.tensor.assign(4 * 32, 0xEE);
    r.out = words(box / 4);
    launch(r, k, m, {0, 1, 0});
    require_fault(r, FaultKind::race);
    REQUIRE(r.result.fault->race);
    CHECK(r.result.fault->race->kind == RaceKind::write_before_bulk_write);
    CHECK(r.result.fault->race->offset == 32);
    CHECK(r.result.fault->race->access.ptx_line == line_in(k, "st.global.u32 [%rd9]"));
    CHECK(r.result.fault->race->other.ptx_line == line_in(k, "cp.async.bulk.tensor"));
    Run waited; // after the wait: the generic store lands last
    waited.tensor.assign(4 * 32, 0xEE);
    waited.out = words(box / 4);
    launch(waited,
           Kernel{.rank = 2,
                  .bytes = box,
                  .store = true,
                  .after_commit = "\tcp.async.bulk.wait_group 0;\n" + gst},
           m, {0, 1, 0});
    require_ok(waited);
    CHECK(word_at(waited.tensor, 32) == 12345);
    CHECK(word_at(waited.tensor, 36) == word_at(waited.out, 4));
  }
  SUBCASE("two CTAs storing the same box with the same values: a note, for an observer only") {
    const Kernel k{.rank = 2, .bytes = box, .store = true};
    Run r;
    r.tensor.assign(4 * 32, 0xEE);
    r.out = words(box / 4);
    launch(r, k, m, {0, 1, 0}, 2);
    require_ok(r);
    Observer o;
    Run seen;
    seen.tensor.assign(4 * 32, 0xEE);
    seen.out = words(box / 4);
    launch(seen, k, m, {0, 1, 0}, 2, &o);
    require_ok(seen);
    REQUIRE(o.races.size() == 1);
    CHECK(o.races[0].race->kind == RaceKind::cross_cta_same_value);
    CHECK(o.races[0].bid == 1);
    CHECK(o.races[0].race->access.ptx_line == line_in(k, "cp.async.bulk.tensor"));
    CHECK(o.races[0].race->other.bid == 0);
  }
}

} // namespace unit_sim_tensor
