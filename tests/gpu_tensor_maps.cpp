// ptxgen_gpu_tensor_maps: the bulk family's lowering and its tensor map arguments on a real
// sm_90 GPU. Each kernel of tests/data/bulk is lowered for sm_90 (unchecked: the contract of
// the bulk family is not on this branch yet), launched through the in-process Runner with its
// maps encoded over the device buffers, and the bytes it wrote compared with what the spec's
// [[expect]] states (written out here: the reference does not run bulk ops yet).
//
// Exits 77 (CTest's skip) without a device of compute capability 9.0 or later, 0 when every
// kernel passes, 1 otherwise.

#include "driver/cuda/runner.hpp"
#include "driver/run/binding.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/lower/lower.hpp"
#include "emitter/ptx/printer.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace ptxgen;

/// B's bytes [rows) x [cols) of every row equal A's; rows of `row_bytes` bytes.
struct Region {
  std::size_t row_bytes, row_begin, row_end, col_begin, col_end;
};

struct Case {
  const char* file;
  Region same;
};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool run_case(driver::cuda::Runner& runner, const Case& c) {
  const std::string path = std::string(PTXGEN_SOURCE_DIR) + "/tests/data/bulk/" + c.file;
  auto k = driver::load_spec_text(read(path), path);
  if (!k.value) {
    std::printf("FAIL %s: %s\n", c.file, k.diagnostics.format_all().c_str());
    return false;
  }
  lower::LowerOptions o;
  o.target = {90, false};
  o.unchecked = true;
  auto m = lower::lower(**k, o);
  if (!m.value) {
    std::printf("FAIL %s: %s\n", c.file, m.diagnostics.format_all().c_str());
    return false;
  }
  std::vector<driver::cuda::HostBuffer> buffers;
  for (const auto& t : (*k)->tensors)
    if (t->tensor.space == tile::Space::global)
      buffers.push_back({t->tensor.name, driver::initial_bytes(*t)});
  const std::vector<std::uint8_t> a = buffers.front().bytes;
  auto req = driver::launch_request(**k, driver::own_binding(**k), std::move(buffers));
  req.case_name = c.file;
  req.ptx = ptx::print(*m.value);
  const auto out = runner.launch(std::move(req));
  if (!out.succeeded()) {
    std::printf("FAIL %s: %s %s: %s\n", c.file,
                std::string(driver::cuda::status_name(out.status)).c_str(), out.error_name.c_str(),
                out.message.c_str());
    return false;
  }
  const std::vector<std::uint8_t>& b = out.buffers.at(1).bytes;
  std::size_t wrong = 0;
  for (std::size_t r = c.same.row_begin; r < c.same.row_end; ++r)
    for (std::size_t x = c.same.col_begin; x < c.same.col_end; ++x)
      wrong += b.at(r * c.same.row_bytes + x) != a.at(r * c.same.row_bytes + x);
  std::printf("%s %s: %zu byte(s) differ (launch %.3f ms)\n", wrong == 0 ? "PASS" : "FAIL", c.file,
              wrong, out.launch_ms);
  return wrong == 0;
}

} // namespace

int main(int argc, char** argv) {
  const int ordinal = argc > 1 ? std::atoi(argv[1]) : 0;
  driver::cuda::Runner runner(ordinal);
  if (!runner.available() || runner.device().cc_major < 9) {
    std::printf("SKIP: no sm_90 device %d: %s\n", ordinal,
                runner.available() ? runner.device().arch().c_str()
                                   : runner.unavailable_reason().c_str());
    return 77;
  }
  // A and B are the first two global tensors of each spec, in that order.
  const Case cases[] = {
      {"bulk_round_trip.toml", {64, 0, 64, 0, 64}},
      {"tensor_2d.toml", {512, 32, 64, 128, 256}},
      {"swizzle_128b_copy.toml", {128, 0, 64, 0, 128}},
      {"tensor_loop.toml", {64, 0, 64, 0, 64}},
  };
  int failures = 0;
  for (const Case& c : cases)
    failures += run_case(runner, c) ? 0 : 1;
  std::printf("%s: %d kernel(s) failed\n", failures == 0 ? "PASSED" : "FAILED", failures);
  return failures == 0 ? 0 : 1;
}
