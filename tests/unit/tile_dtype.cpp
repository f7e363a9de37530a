// dtype names, aliases and sizes; Tensor element counts and byte sizes.
#include "emitter/tile/dtype.hpp"
#include "emitter/tile/tensor.hpp"

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_tile_dtype {

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

// docs/spec-format.md documents the aliases in a table whose rows read
// "| `a1` `a2` ... | `dtype1` `dtype2` ... |"; an alias parse_dtype() accepts
// but the table does not list (or the other way round) fails here.
TEST_CASE("the dtype aliases parse_dtype accepts are exactly those docs/spec-format.md lists") {
  std::ifstream in(std::string(PTXGEN_SOURCE_DIR) + "/docs/spec-format.md");
  REQUIRE(in);
  auto ticked = [](const std::string& cell) {
    std::vector<std::string> out;
    for (std::size_t b = cell.find('`'); b != std::string::npos; b = cell.find('`', b + 1)) {
      std::size_t e = cell.find('`', b + 1);
      if (e == std::string::npos)
        break;
      out.push_back(cell.substr(b + 1, e - b - 1));
      b = e;
    }
    return out;
  };
  std::set<std::string> documented;
  bool in_table = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line == "| alias | dtype |") {
      in_table = true;
      continue;
    }
    if (!in_table || line.rfind("| ---", 0) == 0)
      continue;
    if (line.rfind("| `", 0) != 0)
      break; // the end of the table
    const std::size_t bar = line.find(" | ", 2);
    REQUIRE(bar != std::string::npos);
    const auto aliases = ticked(line.substr(0, bar));
    const auto types = ticked(line.substr(bar));
    INFO(line);
    // Either one dtype per alias, or one dtype for all the row's aliases.
    REQUIRE((types.size() == aliases.size() || types.size() == 1));
    for (std::size_t i = 0; i < aliases.size(); ++i) {
      const std::string& type = types.size() == 1 ? types[0] : types[i];
      INFO(aliases[i] << " -> " << type);
      CHECK(parse_dtype(aliases[i]) == parse_dtype(type));
      CHECK(parse_dtype(type).has_value());
      documented.insert(aliases[i]);
    }
  }
  std::set<std::string> accepted;
  for (std::string_view a : dtype_aliases())
    accepted.insert(std::string(a));
  CHECK(documented == accepted);
  CHECK(accepted.size() == 20);
}

TEST_CASE("dtype_spellings lists the names, then the aliases, each parsing") {
  const auto all = dtype_spellings();
  CHECK(all.size() == 16 + dtype_aliases().size());
  CHECK(all.front() == "uint8");
  for (std::string_view s : all)
    CHECK(parse_dtype(s).has_value());
}

TEST_CASE("storage dtypes: every dtype spelling, then tf32, f8 and e4m3 by their bytes") {
  for (std::string_view s : dtype_spellings())
    CHECK(parse_storage_dtype(s) == parse_dtype(s));
  // PTX's .tf32 is held in 32 bits, .e4m3 (an 8-bit float) in 8.
  CHECK(parse_storage_dtype("tf32") == DType::b32);
  CHECK(parse_storage_dtype("f8") == DType::b8);
  CHECK(parse_storage_dtype("e4m3") == DType::b8);
  CHECK_FALSE(parse_dtype("tf32").has_value()); // no arithmetic of its own in specs
  CHECK_FALSE(parse_storage_dtype("tf33").has_value());
  CHECK_FALSE(parse_storage_dtype("").has_value());
  const std::string choices = storage_dtype_choices();
  CHECK(choices.starts_with(dtype_choices()));
  CHECK(choices.ends_with(", or a storage type: tf32, f8, e4m3"));
}

} // namespace unit_tile_dtype
