// Device probing and the runner without a usable driver (driver/cuda/device.hpp,
// runner.hpp). These run on any machine: where a GPU exists the default probe
// must describe it sanely, elsewhere it must explain why not.

#include "driver/cuda/device.hpp"
#include "driver/cuda/runner.hpp"

#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_cuda_probe {

using namespace ptxgen::driver::cuda;

namespace {

constexpr const char* missing_library = "libptxgen-no-such-cuda-driver.so.1";

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("arch() names the ptxas target of a compute capability") {
  DeviceInfo info;
  info.cc_major = 9;
  info.cc_minor = 0;
  CHECK(info.arch() == "sm_90");
  info.cc_major = 8;
  info.cc_minor = 6;
  CHECK(info.arch() == "sm_86");
  info.cc_major = 12;
  info.cc_minor = 0;
  CHECK(info.arch() == "sm_120");
}

TEST_CASE("a driver library that does not exist yields no device and says so") {
  const auto info = probe_device(0, missing_library);
  CHECK_FALSE(info);
  const std::string& why = info.error();
  if (built_with_cuda()) {
    CHECK(
        contains(why, std::string("no CUDA driver: ") + missing_library + " could not be loaded"));
  } else {
    CHECK(contains(why, "built without CUDA support"));
  }
}

TEST_CASE("a library without the CUDA entry points is not taken for a driver") {
  const auto info = probe_device(0, "libc.so.6");
  CHECK_FALSE(info);
  const std::string& why = info.error();
  if (built_with_cuda()) {
    CHECK(contains(why, "libc.so.6 is not a usable CUDA driver: it has no cu"));
  } else {
    CHECK(contains(why, "built without CUDA support"));
  }
}

TEST_CASE("the default probe either finds a sane device or explains why not") {
  const auto info = probe_device(0);
  if (info) {
    CHECK(info->ordinal == 0);
    CHECK_FALSE(info->name.empty());
    CHECK(info->cc_major >= 5);
    CHECK(info->arch().rfind("sm_", 0) == 0);
    CHECK(info->total_memory > 0);
    CHECK(info->driver_version >= 11000);
  } else {
    CHECK_FALSE(info.error().empty());
  }
}

TEST_CASE("a runner without a driver refuses every launch with the reason") {
  Runner runner(0, missing_library);
  CHECK_FALSE(runner.available());
  CHECK_FALSE(runner.unavailable_reason().empty());
  CHECK(runner.device().ordinal == 0);

  LaunchRequest request;
  request.case_name = "copy_async";
  request.ptx = ".version 7.0\n.target sm_80\n.address_size 64\n";
  request.entry = "k";
  request.buffers.push_back({"A", std::vector<std::uint8_t>(16, 1)});
  const LaunchOutcome out = runner.launch(request);
  CHECK(out.status == LaunchOutcome::Status::unavailable);
  CHECK(out.message == "case copy_async not run: " + runner.unavailable_reason());
  CHECK(out.buffers.empty());
  CHECK_FALSE(out.succeeded());
}

TEST_CASE("status names") {
  using S = LaunchOutcome::Status;
  CHECK(status_name(S::ok) == "ok");
  CHECK(status_name(S::load_error) == "load_error");
  CHECK(status_name(S::launch_error) == "launch_error");
  CHECK(status_name(S::fault) == "fault");
  CHECK(status_name(S::timed_out) == "timed_out");
  CHECK(status_name(S::canary_damaged) == "canary_damaged");
  CHECK(status_name(S::unavailable) == "unavailable");
}

} // namespace unit_cuda_probe
