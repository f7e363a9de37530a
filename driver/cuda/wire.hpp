#pragma once
// A byte encoding of LaunchOutcome and of a probe's answer, for passing them
// from an IsolatedRunner's child process back to the parent through a pipe.
// Same program on both ends, so the encoding is native-endian and unversioned.

#include "driver/cuda/device.hpp"
#include "driver/cuda/runner.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ptxgen::driver::cuda {

std::string encode_outcome(const LaunchOutcome& outcome);
/// nullopt when `bytes` is truncated or malformed (a child that died mid-write).
std::optional<LaunchOutcome> decode_outcome(std::string_view bytes);

/// A probe's answer: the device, or why there is none.
struct ProbeAnswer {
  std::optional<DeviceInfo> device;
  std::string why; ///< set when device is empty
};
std::string encode_probe(const ProbeAnswer& answer);
std::optional<ProbeAnswer> decode_probe(std::string_view bytes);

} // namespace ptxgen::driver::cuda
