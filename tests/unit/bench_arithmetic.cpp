// issue 13, bench: the arithmetic of `ptxgen bench` (driver/cuda/bench.hpp), without a GPU:
// the median and minimum of the repetitions, decimal GB/s, the percentage of cuMemcpyDtoD,
// and the global bytes a spec's launch moves (each global tensor read counted once, each
// written counted once, whole). Expected values are worked out by hand from the specs'
// shapes, written in the comments.

#include "driver/cuda/bench.hpp"
#include "driver/run/spec_files.hpp"

#include <filesystem>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_bench_arithmetic {

namespace {

namespace cuda = ptxgen::driver::cuda;
const std::filesystem::path root(PTXGEN_SOURCE_DIR);

std::uint64_t bytes_of(const char* spec) {
  auto e = ptxgen::driver::emit_spec(root / spec, ptxgen::lower::LowerOptions{});
  REQUIRE_MESSAGE(e.kernel, e.diagnostics.format_all());
  return cuda::spec_bytes_moved(*e.kernel);
}

} // namespace

TEST_CASE("bench: median and minimum of the repetitions") {
  const auto odd = cuda::summarize({3.0, 1.0, 2.0, 9.0, 4.0});
  CHECK(odd.median_ms == 3.0);
  CHECK(odd.min_ms == 1.0);
  CHECK(odd.ms == std::vector<double>{3.0, 1.0, 2.0, 9.0, 4.0}); // in the order timed
  const auto even = cuda::summarize({4.0, 1.0, 2.0, 8.0});
  CHECK(even.median_ms == 3.0); // (2 + 4) / 2
  CHECK(even.min_ms == 1.0);
  CHECK(cuda::summarize({}).median_ms == 0);
}

TEST_CASE("bench: decimal GB/s and the percentage of cuMemcpyDtoD") {
  CHECK(cuda::gb_per_s(2'000'000'000, 1000.0) == doctest::Approx(2.0));
  CHECK(cuda::gb_per_s(4'000'000, 1.0) == doctest::Approx(4.0));
  CHECK(cuda::gb_per_s(1, 0) == 0);
  cuda::BenchOutcome o;
  o.bytes = 2'000'000;        // the kernel: 2 MB read + written in 1 ms: 2 GB/s
  o.memcpy_bytes = 1'000'000; // cuMemcpyDtoD of 1 MB moves 2 MB; in 0.5 ms: 4 GB/s
  o.kernel = cuda::summarize({1.0});
  o.memcpy = cuda::summarize({0.5});
  CHECK(o.kernel_gb_per_s() == doctest::Approx(2.0));
  CHECK(o.memcpy_gb_per_s() == doctest::Approx(4.0));
  CHECK(o.percent_of_memcpy() == doctest::Approx(50.0));
}

TEST_CASE("bench: the bytes a spec moves, from its global tensors") {
  // copy_async: A [128, 32] float16 read (the cp.async source), B [128, 32] float16
  // written (the copy out), the shared tile not counted: 8192 + 8192.
  CHECK(bytes_of("specs/seed/copy_async.toml") == 2 * 128 * 32 * 2);
  // grid_stride_copy: A [32, 64, 16] uint8 read, B of the same shape written.
  CHECK(bytes_of("specs/loops/grid_stride_copy.toml") == 2 * 32 * 64 * 16);
}

} // namespace unit_bench_arithmetic
