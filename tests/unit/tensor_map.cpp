// Tensor maps (emitter/tile/tensor_map): the validity rules, one DiagId each, and the
// addressing of a tile copy, checked on cases worked out by hand in the comments.

#include "emitter/tile/tensor_map.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tensor_map {

using namespace ptxgen;
using namespace ptxgen::tile;
using Coords = std::vector<std::int64_t>;

namespace {

// A valid 2-D map: 64 rows of 64 float16 (128-byte rows), 8 x 64 boxes, 128B swizzle.
TensorMapDesc valid_map() {
  TensorMapDesc m;
  m.tensor = "A";
  m.dtype = DType::float16;
  m.global_dims = {64, 64};
  m.global_strides = {128};
  m.box_dims = {8, 64};
  m.element_strides = {1, 1};
  m.swizzle = TensorMapSwizzle::b128;
  return m;
}

// The only diagnostic of `m`, which must have exactly one.
Diagnostic only_problem(const TensorMapDesc& m) {
  const Diagnostics d = check_tensor_map(m);
  REQUIRE(d.items().size() == 1);
  return d.items().front();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("a valid map has no problems, and each enum has its canonical names") {
  CHECK(check_tensor_map(valid_map()).empty());
  CHECK(name(TensorMapSwizzle::none) == "none");
  CHECK(name(TensorMapSwizzle::b32) == "32B");
  CHECK(name(TensorMapSwizzle::b128) == "128B");
  CHECK(name(TensorMapOobFill::nan) == "nan");
  CHECK(name(TensorMapL2Promotion::b256) == "256B");
  CHECK(name(TensorMapInterleave::none) == "none");
  CHECK(parse_name(l2_promotion_names, "64B") == TensorMapL2Promotion::b64);
  CHECK(parse_name(swizzle_rows, &SwizzleRow::name, "64B") == TensorMapSwizzle::b64);
}

TEST_CASE("tensor_map_of: a dense row-major tensor's strides, outermost first") {
  // 4 x 6 x 8 float32: a row of 8 is 32 bytes, a 6 x 8 plane 192.
  const Tensor t{"T", Space::global, {4, 6, 8}, DType::float32, 256};
  const TensorMapDesc m = tensor_map_of(t, {1, 2, 8});
  CHECK(m.global_dims == Coords{4, 6, 8});
  CHECK(m.global_strides == Coords{192, 32});
  CHECK(m.element_strides == Coords{1, 1, 1});
  CHECK(m.global_align == 256);
  CHECK(m.tensor == "T");
  CHECK(check_tensor_map(m).empty());
}

TEST_CASE("rank: 1..5, and one box dim and element stride per dimension") {
  TensorMapDesc m = valid_map();
  m.global_dims = {2, 2, 2, 2, 2, 64};
  m.global_strides = {16, 16, 16, 16, 128};
  m.box_dims = {1, 1, 1, 1, 1, 64};
  m.element_strides = {1, 1, 1, 1, 1, 1};
  Diagnostic d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_rank);
  CHECK(contains(d.message, "rank 6 is outside 1..5"));
  m = valid_map();
  m.box_dims = {64};
  d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_rank);
  CHECK(contains(d.message, "box_dims has 1 entries; rank 2 needs 2"));
}

TEST_CASE("box dims 1..256; inner box bytes a multiple of 16 and within the swizzle span") {
  TensorMapDesc m = valid_map();
  m.box_dims = {257, 64};
  Diagnostic d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_box_dim);
  CHECK(contains(d.message, "box_dims[0] = 257 is outside 1..256"));
  m.box_dims = {0, 64};
  CHECK(only_problem(m).id == DiagId::contract_tmap_box_dim);
  m.box_dims = {256, 64}; // the bound itself is allowed
  CHECK(check_tensor_map(m).empty());

  m = valid_map();
  m.swizzle = TensorMapSwizzle::none;
  m.box_dims = {8, 12}; // 24 bytes
  d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_box_inner_bytes);
  CHECK(contains(d.message, "24 bytes"));
  CHECK(contains(d.message, "multiple of 16"));

  m = valid_map();
  m.swizzle = TensorMapSwizzle::b64; // 128-byte rows in a 64-byte span
  d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_swizzle_span);
  CHECK(contains(d.message, "128 bytes, more than the 64B swizzle span of 64 bytes"));
  m.box_dims = {8, 32}; // 64 bytes: fits
  CHECK(check_tensor_map(m).empty());
  m.swizzle = TensorMapSwizzle::b32;
  CHECK(only_problem(m).id == DiagId::contract_tmap_swizzle_span);
  m.box_dims = {8, 16};
  CHECK(check_tensor_map(m).empty());
}

TEST_CASE("element strides 1..8, the innermost 1") {
  TensorMapDesc m = valid_map();
  m.element_strides = {9, 1};
  Diagnostic d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_element_stride);
  CHECK(contains(d.message, "element_strides[0] = 9 is outside 1..8"));
  m.element_strides = {8, 1};
  CHECK(check_tensor_map(m).empty());
  m.element_strides = {0, 1};
  CHECK(only_problem(m).id == DiagId::contract_tmap_element_stride);
  m.element_strides = {1, 2};
  d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_element_stride);
  CHECK(contains(d.message, "element_strides[1] = 2"));
}

TEST_CASE("global side: base alignment 16, strides multiples of 16 below 2^40, dims 1..2^32") {
  TensorMapDesc m = valid_map();
  m.global_align = 8;
  Diagnostic d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_global_align);
  CHECK(contains(d.message, "aligned to 8 bytes"));

  m = valid_map();
  m.global_strides = {144};
  CHECK(check_tensor_map(m).empty()); // padded rows are fine
  m.global_strides = {120};
  d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_global_stride);
  CHECK(contains(d.message, "global_strides[0] = 120 bytes"));
  m.global_strides = {std::int64_t{1} << 40};
  CHECK(only_problem(m).id == DiagId::contract_tmap_global_stride);
  m.global_strides = {(std::int64_t{1} << 40) - 16};
  CHECK(check_tensor_map(m).empty());

  m = valid_map();
  m.global_dims = {(std::int64_t{1} << 32) + 1, 64};
  d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_global_dim);
  CHECK(contains(d.message, "global_dims[0] = 4294967297 is outside 1..2^32"));
  m.global_dims = {std::int64_t{1} << 32, 64};
  CHECK(check_tensor_map(m).empty());
  m.global_dims = {64, 0};
  CHECK(only_problem(m).id == DiagId::contract_tmap_global_dim);
}

TEST_CASE("NaN fill only for float dtypes") {
  TensorMapDesc m = valid_map();
  m.oob_fill = TensorMapOobFill::nan;
  CHECK(check_tensor_map(m).empty());
  m.dtype = DType::bfloat16;
  CHECK(check_tensor_map(m).empty());
  m.dtype = DType::int16;
  const Diagnostic d = only_problem(m);
  CHECK(d.id == DiagId::contract_tmap_nan_fill);
  CHECK(contains(d.message, "int16"));
  m.dtype = DType::b16;
  CHECK(only_problem(m).id == DiagId::contract_tmap_nan_fill);
}

TEST_CASE("shared alignment: 128 bytes, or the swizzle's repeat") {
  TensorMapDesc m = valid_map(); // 128B swizzle: 1024
  CHECK(check_tensor_map_shared(m, 1024).empty());
  CHECK(check_tensor_map_shared(m, 4096).empty());
  const Diagnostics d = check_tensor_map_shared(m, 512);
  REQUIRE(d.items().size() == 1);
  CHECK(d.items().front().id == DiagId::contract_tmap_shared_align);
  CHECK(contains(d.items().front().message, "aligned to 512 bytes; swizzle 128B needs 1024"));
  m.swizzle = TensorMapSwizzle::b64;
  CHECK(check_tensor_map_shared(m, 512).empty());
  CHECK(check_tensor_map_shared(m, 256).has(DiagId::contract_tmap_shared_align));
  m.swizzle = TensorMapSwizzle::b32;
  CHECK(check_tensor_map_shared(m, 256).empty());
  CHECK(check_tensor_map_shared(m, 128).has(DiagId::contract_tmap_shared_align));
  m.swizzle = TensorMapSwizzle::none;
  CHECK(check_tensor_map_shared(m, 128).empty());
  CHECK(check_tensor_map_shared(m, 64).has(DiagId::contract_tmap_shared_align));
}

TEST_CASE("128B swizzle, an 8 x 64 float16 box: chunk j of row r lands at chunk j ^ (r % 8)") {
  const TensorMapDesc m = valid_map();
  const Coords at{8, 0};
  const std::vector<BoxElement> box = box_elements(m, at, TensorAccess::load);
  REQUIRE(box.size() == 8 * 64);
  for (std::int64_t r = 0; r < 8; ++r)
    for (std::int64_t c = 0; c < 64; ++c) {
      const std::int64_t j = c / 8; // 8 halves per 16-byte chunk
      const BoxElement& e = box[static_cast<std::size_t>(r * 64 + c)];
      CHECK(e.shared_offset == r * 128 + (j ^ (r % 8)) * 16 + (c % 8) * 2);
      CHECK(e.global_offset == (8 + r) * 128 + c * 2);
      CHECK(e.place == BoxPlace::inside);
    }
  // Two by hand: row 3 chunk 1 -> chunk 2 (byte 384 + 32); row 7 chunk 7 -> chunk 0.
  CHECK(box[3 * 64 + 8].shared_offset == 416);
  CHECK(box[7 * 64 + 63].shared_offset == 7 * 128 + 14);
}

TEST_CASE("32B and 64B swizzles permute within 256- and 512-byte repeats") {
  // 32B: 32-byte rows of 16 float16; four rows per 128-byte line; lines alternate.
  CHECK(swizzle_offset(TensorMapSwizzle::b32, 0) == 0);
  CHECK(swizzle_offset(TensorMapSwizzle::b32, 16) == 16);   // line 0: unchanged
  CHECK(swizzle_offset(TensorMapSwizzle::b32, 128) == 144); // line 1, chunk 0 -> 1
  CHECK(swizzle_offset(TensorMapSwizzle::b32, 144) == 128); // line 1, chunk 1 -> 0
  CHECK(swizzle_offset(TensorMapSwizzle::b32, 176) == 160); // line 1, chunk 3 -> 2
  CHECK(swizzle_offset(TensorMapSwizzle::b32, 256) == 256); // line 2: the pattern repeats
  // 64B: line L's chunk j -> j ^ (L % 4).
  CHECK(swizzle_offset(TensorMapSwizzle::b64, 128 + 2) == 144 + 2);    // line 1, chunk 0 -> 1
  CHECK(swizzle_offset(TensorMapSwizzle::b64, 384) == 432);            // line 3, chunk 0 -> 3
  CHECK(swizzle_offset(TensorMapSwizzle::b64, 384 + 112) == 384 + 64); // chunk 7 -> 4
  CHECK(swizzle_offset(TensorMapSwizzle::b64, 512) == 512);            // line 4: repeats
  // 128B: line 9 is line 1 of the second 1024-byte repeat.
  CHECK(swizzle_offset(TensorMapSwizzle::b128, 1024 + 128) == 1024 + 128 + 16);
  CHECK(swizzle_offset(TensorMapSwizzle::none, 1234) == 1234);
}

TEST_CASE("out of bounds: a load fills, a store clips, and writes on to the 16-byte boundary") {
  // 100 rows of 36 uint16 (72 bytes) padded to 80-byte rows; 32 x 16 boxes at (96, 32):
  // rows 96..99 are inside, 100..127 outside; columns 32..35 inside, 36..39 lie in the
  // bytes 72..79 of the row (the 16-byte unit the row ends in), 40..47 beyond.
  TensorMapDesc m;
  m.tensor = "B";
  m.dtype = DType::uint16;
  m.global_dims = {100, 36};
  m.global_strides = {80};
  m.box_dims = {32, 16};
  m.element_strides = {1, 1};
  REQUIRE(check_tensor_map(m).empty());
  const Coords at{96, 32};
  const auto count = [](const std::vector<BoxElement>& box, BoxPlace p) {
    std::int64_t n = 0;
    for (const BoxElement& e : box)
      n += e.place == p ? 1 : 0;
    return n;
  };
  const std::vector<BoxElement> load = box_elements(m, at, TensorAccess::load);
  REQUIRE(load.size() == 512);
  CHECK(count(load, BoxPlace::inside) == 16);
  CHECK(count(load, BoxPlace::spill) == 0);
  CHECK(count(load, BoxPlace::outside) == 496);
  const std::vector<BoxElement> store = box_elements(m, at, TensorAccess::store);
  CHECK(count(store, BoxPlace::inside) == 16);
  CHECK(count(store, BoxPlace::spill) == 16);
  CHECK(count(store, BoxPlace::outside) == 480);
  // Box (1, 1) is tensor (97, 33): inside, at 97 * 80 + 33 * 2; box (1, 5) is (97, 37): spill.
  CHECK(store[16 + 1].place == BoxPlace::inside);
  CHECK(store[16 + 1].global_offset == 7826);
  CHECK(store[16 + 5].place == BoxPlace::spill);
  CHECK(store[16 + 8].place == BoxPlace::outside);     // (97, 40)
  CHECK(store[4 * 16 + 1].place == BoxPlace::outside); // (100, 33): past the last row
  // A negative coordinate is outside for both (and never spills).
  const Coords before{-1, 0};
  const std::vector<BoxElement> low = box_elements(m, before, TensorAccess::store);
  CHECK(low[0].place == BoxPlace::outside);
  CHECK(low[16].place == BoxPlace::inside); // (0, 0)
}

TEST_CASE("element strides: every k-th coordinate, ceil(box / k) of them, packed in shared") {
  // 16 x 8 float32, box 5 x 8 with stride 2 on rows: rows c, c+2, c+4 (ceil(5 / 2) = 3).
  TensorMapDesc m;
  m.tensor = "C";
  m.dtype = DType::float32;
  m.global_dims = {16, 8};
  m.global_strides = {32};
  m.box_dims = {5, 8};
  m.element_strides = {2, 1};
  REQUIRE(check_tensor_map(m).empty());
  CHECK(box_extent(m) == Coords{3, 8});
  CHECK(box_bytes(m) == 96);
  const Coords at{1, 0};
  const std::vector<BoxElement> box = box_elements(m, at, TensorAccess::load);
  REQUIRE(box.size() == 24);
  CHECK(box[8].global_offset == 3 * 32); // box row 1 is tensor row 1 + 2
  CHECK(box[8].shared_offset == 32);     // packed: the second 32-byte row
  CHECK(box[23].global_offset == 5 * 32 + 7 * 4);
}

} // namespace unit_tensor_map
