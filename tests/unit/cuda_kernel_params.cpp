// Packing kernel arguments for cuLaunchKernel (driver/cuda/kernel_params.hpp).

#include "driver/cuda/kernel_params.hpp"

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_cuda_kernel_params {

using namespace ptxgen::driver::cuda;
using Kind = KernelParam::Kind;

namespace {

std::uint64_t read_u64(const void* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::uint32_t read_u32(const void* p) {
  std::uint32_t v = 0;
  std::memcpy(&v, p, sizeof v);
  return v;
}

} // namespace

TEST_CASE("parameters are packed in declaration order, each at its own address") {
  const std::vector<std::uint64_t> addresses{0x7f0000001100, 0x7f0000002200};
  const std::vector<KernelParam> params{
      {Kind::buffer, 1, 0}, {Kind::u32, 0, 100},        {Kind::u64, 0, 0x1122334455667788},
      {Kind::buffer, 0, 0}, {Kind::u32, 0, 0xFFFFFFFF},
  };
  auto packed = pack_kernel_params(params, addresses);
  REQUIRE(packed);
  CHECK(packed.error().empty());
  REQUIRE(packed->size() == 5);
  CHECK(packed->width(0) == 8);
  CHECK(packed->width(1) == 4);
  CHECK(packed->width(2) == 8);
  CHECK(packed->width(3) == 8);
  CHECK(packed->width(4) == 4);
  const std::vector<void*> p = packed->pointers();
  REQUIRE(p.size() == 5);
  CHECK(read_u64(p[0]) == 0x7f0000002200);
  CHECK(read_u32(p[1]) == 100);
  CHECK(read_u64(p[2]) == 0x1122334455667788);
  CHECK(read_u64(p[3]) == 0x7f0000001100);
  CHECK(read_u32(p[4]) == 0xFFFFFFFF);
  for (std::size_t i = 0; i < p.size(); ++i) {
    CHECK(reinterpret_cast<std::uintptr_t>(p[i]) % 8 == 0); // .u64 params need 8-byte alignment
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      CHECK(p[i] != p[j]);
    }
  }
}

TEST_CASE("pointers stay valid when the packed parameters are moved") {
  auto packed = pack_kernel_params({{Kind::u64, 0, 42}, {Kind::u32, 0, 7}}, {});
  REQUIRE(packed);
  const std::vector<void*> before = packed->pointers();
  PackedParams moved = std::move(*packed);
  const std::vector<void*> after = moved.pointers();
  CHECK(before == after);
  CHECK(read_u64(after[0]) == 42);
  CHECK(read_u32(after[1]) == 7);
}

TEST_CASE("no parameters pack to nothing") {
  auto packed = pack_kernel_params({}, {0x1000});
  REQUIRE(packed);
  CHECK(packed->size() == 0);
  CHECK(packed->pointers().empty());
}

TEST_CASE("a u32 value that does not fit is rejected") {
  auto packed = pack_kernel_params({{Kind::u32, 0, 0x100000000}}, {});
  CHECK_FALSE(packed);
  CHECK(packed.error() == "parameter 0 is u32 but its value 4294967296 does not fit in 32 bits");
}

TEST_CASE("a buffer parameter must name an existing buffer") {
  auto packed = pack_kernel_params({{Kind::u32, 0, 1}, {Kind::buffer, 2, 0}}, {0x1000, 0x2000});
  CHECK_FALSE(packed);
  CHECK(packed.error() == "parameter 1 refers to buffer 2, but the case has 2 buffers");

  auto none = pack_kernel_params({{Kind::buffer, 0, 0}}, {});
  CHECK_FALSE(none);
  CHECK(none.error() == "parameter 0 refers to buffer 0, but the case has 0 buffers");
}

} // namespace unit_cuda_kernel_params
