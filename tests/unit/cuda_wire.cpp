// The encoding that carries outcomes and probe answers from an IsolatedRunner's
// child back to the parent (driver/cuda/wire.hpp), and the isolated runner
// itself where no driver exists.

#include "driver/cuda/device.hpp"
#include "driver/cuda/isolated_runner.hpp"
#include "driver/cuda/wire.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_cuda_wire {

using namespace ptxgen::driver::cuda;

namespace {

LaunchOutcome sample_outcome() {
  LaunchOutcome o;
  o.status = LaunchOutcome::Status::canary_damaged;
  o.error_name = "";
  o.message = "case c: kernel k wrote outside its buffers (1 damaged guard)";
  o.buffers.push_back({"A", {0, 1, 2, 255}});
  o.buffers.push_back({"empty", {}});
  o.canary_reports.push_back("A: 16 bytes after the end overwritten (first at +0, last at +15)");
  o.registers = 14;
  o.static_shared_bytes = 2048;
  o.load_ms = 77.5;
  o.launch_ms = 0.125;
  o.copy_ms = 0.25;
  return o;
}

void check_same(const LaunchOutcome& a, const LaunchOutcome& b) {
  CHECK(a.status == b.status);
  CHECK(a.error_name == b.error_name);
  CHECK(a.message == b.message);
  REQUIRE(a.buffers.size() == b.buffers.size());
  for (std::size_t i = 0; i < a.buffers.size(); ++i) {
    CHECK(a.buffers[i].name == b.buffers[i].name);
    CHECK(a.buffers[i].bytes == b.buffers[i].bytes);
  }
  CHECK(a.canary_reports == b.canary_reports);
  CHECK(a.registers == b.registers);
  CHECK(a.static_shared_bytes == b.static_shared_bytes);
  CHECK(a.load_ms == b.load_ms);
  CHECK(a.launch_ms == b.launch_ms);
  CHECK(a.copy_ms == b.copy_ms);
}

} // namespace

TEST_CASE("an outcome survives encoding, for every status") {
  for (auto status : {LaunchOutcome::Status::ok, LaunchOutcome::Status::fault,
                      LaunchOutcome::Status::unavailable}) {
    LaunchOutcome o = sample_outcome();
    o.status = status;
    o.error_name = status == LaunchOutcome::Status::fault ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "";
    const auto decoded = decode_outcome(encode_outcome(o));
    REQUIRE(decoded.has_value());
    check_same(*decoded, o);
  }
}

TEST_CASE("a truncated or padded outcome is rejected") {
  const std::string bytes = encode_outcome(sample_outcome());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    CHECK_FALSE(decode_outcome(std::string_view(bytes).substr(0, n)).has_value());
  }
  CHECK_FALSE(decode_outcome(bytes + "x").has_value());
  std::string bad_status = bytes;
  bad_status[0] = 99;
  CHECK_FALSE(decode_outcome(bad_status).has_value());
}

TEST_CASE("probe answers survive encoding") {
  ProbeAnswer found;
  DeviceInfo d;
  d.ordinal = 1;
  d.name = "NVIDIA H200";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.driver_version = 13000;
  d.total_memory = std::size_t{150} << 30;
  found.device = d;
  const auto a = decode_probe(encode_probe(found));
  REQUIRE(a.has_value());
  REQUIRE(a->device.has_value());
  CHECK(a->device->ordinal == 1);
  CHECK(a->device->name == "NVIDIA H200");
  CHECK(a->device->arch() == "sm_90");
  CHECK(a->device->driver_version == 13000);
  CHECK(a->device->total_memory == (std::size_t{150} << 30));

  ProbeAnswer none;
  none.why = "no CUDA device";
  const auto b = decode_probe(encode_probe(none));
  REQUIRE(b.has_value());
  CHECK_FALSE(b->device.has_value());
  CHECK(b->why == "no CUDA device");
  CHECK_FALSE(decode_probe("").has_value());
}

TEST_CASE("an isolated runner without a driver reports the child's reason") {
  IsolatedRunner runner(0, "libptxgen-no-such-cuda-driver.so.1");
  CHECK_FALSE(runner.available());
  if (driver_loaded_in_this_process()) {
    // Another test loaded a real driver here first: the runner must refuse to fork.
    CHECK(runner.unavailable_reason().find("already loaded") != std::string::npos);
  } else if (built_with_cuda()) {
    // The probe ran in a child and its answer came back through the pipe.
    CHECK(runner.unavailable_reason() ==
          "no CUDA driver: libptxgen-no-such-cuda-driver.so.1 could not be loaded "
          "(libptxgen-no-such-cuda-driver.so.1: cannot open shared object file: No such file or "
          "directory)");
  } else {
    CHECK(runner.unavailable_reason().find("built without CUDA support") != std::string::npos);
  }
  LaunchRequest request;
  request.case_name = "c";
  const LaunchOutcome out = runner.launch(request);
  CHECK(out.status == LaunchOutcome::Status::unavailable);
  CHECK(out.message == "case c not run: " + runner.unavailable_reason());
}

} // namespace unit_cuda_wire
