#pragma once
// The options `run` and `fuzz` share for a sweep of conformance cases: --shard,
// --devices and the test runner's environment, and --sanitize. One reading of them,
// so that both commands take and refuse the same things with the same messages.

#include "driver/run/conformance.hpp"
#include "driver/run/shard.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace ptxgen::cli {

/// --shard, --shard-count, --devices and the environment's shard (the test runners', a Slurm
/// array task's, a Kubernetes Indexed Job's: driver/run/shard.hpp) for
/// `command`: refuses --device with --devices and --sanitize over several devices,
/// applies the devices to `o`, sets `shard`, and sends the report to XML_OUTPUT_FILE
/// (as JUnit: `junit`) when `report` is empty. Usage errors print `synopsis` when given.
/// Returns nullopt to go on, else the exit status to end with.
std::optional<int> resolve_sweep(std::string_view command, std::string_view synopsis,
                                 const driver::DistributionFlags& flags, bool device_given,
                                 driver::ConformanceOptions& o, driver::Shard& shard,
                                 std::string& report, bool& junit);

/// --sanitize TOOL and --sanitize-timeout S into `o`; nothing without TOOL. The tool
/// runs on the GPU, so --backend sim is a usage error. Returns nullopt to go on, else
/// the exit status to end with.
std::optional<int> parse_sanitize_options(std::string_view command, std::string_view synopsis,
                                          const std::string& tool, unsigned timeout,
                                          const std::string& backend,
                                          driver::ConformanceOptions& o);

} // namespace ptxgen::cli
