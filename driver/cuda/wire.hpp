#pragma once
// A byte encoding of LaunchOutcome and of a probe's answer, for passing them
// from an IsolatedRunner's child process back to the parent through a pipe,
// and of LaunchRequest, for handing cases to an exec'd `ptxgen device-worker`
// (the compute-sanitizer runner, sanitizer_runner.hpp). Same program on both
// ends (the worker is /proc/self/exe), so the encoding is native-endian and
// unversioned.

#include "driver/cuda/device.hpp"
#include "driver/cuda/runner.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::cuda {

std::string encode_outcome(const LaunchOutcome& outcome);
/// nullopt when `bytes` is truncated or malformed (a child that died mid-write).
std::optional<LaunchOutcome> decode_outcome(std::string_view bytes);

std::string encode_request(const LaunchRequest& request);
/// nullopt when `bytes` is truncated or malformed.
std::optional<LaunchRequest> decode_request(std::string_view bytes);

/// Several requests, each length-prefixed ([u64 size][encode_request]): what a
/// device worker reads.
std::string encode_requests(const std::vector<LaunchRequest>& requests);
std::optional<std::vector<LaunchRequest>> decode_requests(std::string_view bytes);

/// A probe's answer: the device, or why there is none.
struct ProbeAnswer {
  std::optional<DeviceInfo> device;
  std::string why; ///< set when device is empty
};
std::string encode_probe(const ProbeAnswer& answer);
std::optional<ProbeAnswer> decode_probe(std::string_view bytes);

} // namespace ptxgen::driver::cuda
