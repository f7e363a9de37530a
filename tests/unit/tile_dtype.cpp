// dtype names, aliases and sizes; Tensor element counts and byte sizes.
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/tensor.hpp"

#include <doctest/doctest.h>

using namespace ptxgen::tile;

TEST_CASE("every dtype name parses back to itself") {
  const DType all[] = {DType::uint8,   DType::int8,     DType::uint16, DType::int16,
                       DType::float16, DType::bfloat16, DType::uint32, DType::int32,
                       DType::float32, DType::uint64,   DType::int64,  DType::float64,
                       DType::b8,      DType::b16,      DType::b32,    DType::b64};
  for (DType t : all) {
    auto p = parse_dtype(name(t));
    REQUIRE(p.has_value());
    CHECK(*p == t);
  }
}

TEST_CASE("dtype spellings and sizes") {
  CHECK(name(DType::float16) == "float16");
  CHECK(name(DType::b32) == "b32");
  CHECK(parse_dtype("f16") == DType::float16);
  CHECK(parse_dtype("half") == DType::float16);
  CHECK(parse_dtype("bf16") == DType::bfloat16);
  CHECK(parse_dtype("float") == DType::float32);
  CHECK(parse_dtype("double") == DType::float64);
  CHECK(parse_dtype("u32") == DType::uint32);
  CHECK(parse_dtype("s8") == DType::int8);
  CHECK(parse_dtype("i64") == DType::int64);
  CHECK(parse_dtype("u8") == DType::uint8);
  CHECK_FALSE(parse_dtype("uint33").has_value());
  CHECK_FALSE(parse_dtype("").has_value());
  CHECK_FALSE(parse_dtype("Float16").has_value());
  CHECK(size_bytes(DType::uint8) == 1);
  CHECK(size_bytes(DType::b8) == 1);
  CHECK(size_bytes(DType::float16) == 2);
  CHECK(size_bytes(DType::bfloat16) == 2);
  CHECK(size_bytes(DType::int32) == 4);
  CHECK(size_bytes(DType::b32) == 4);
  CHECK(size_bytes(DType::float64) == 8);
  CHECK(size_bytes(DType::b64) == 8);
}

TEST_CASE("tensor element count and size in bytes") {
  Tensor a{"A", Space::global, {128, 32}, DType::float16};
  CHECK(a.element_count() == 4096);
  CHECK(a.size_bytes() == 8192);
  Tensor s{"s", Space::shared, {}, DType::uint64};
  CHECK(s.element_count() == 1);
  CHECK(s.size_bytes() == 8);
  Tensor z{"z", Space::global, {4, 0, 3}, DType::float32};
  CHECK(z.element_count() == 0);
  CHECK(z.size_bytes() == 0);
  Tensor huge{"h", Space::global, {1LL << 40, 1LL << 40}, DType::uint8};
  CHECK(huge.element_count() == -1);
}
