#include "driver/cli/sweep_options.hpp"

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"

namespace ptxgen::cli {

std::optional<int> resolve_sweep(std::string_view command, std::string_view synopsis,
                                 const driver::DistributionFlags& flags, bool device_given,
                                 driver::ConformanceOptions& o, driver::Shard& shard,
                                 std::string& report, bool& junit) {
  driver::DistributionError error;
  auto d = driver::resolve_distribution(flags, driver::process_environment(), error);
  if (!d) {
    switch (error.kind) {
    case driver::DistributionError::Kind::usage:
      return usage_error(command, error.message, synopsis);
    case driver::DistributionError::Kind::environment:
      return command_error(command, exit_environment, error.message);
    }
  }
  if (d->devices && device_given)
    return usage_error(command, "--device and --devices: give one of them", synopsis);
  // The sanitizer's workers run on one device.
  if (d->devices && o.sanitize && (d->devices->all || d->devices->ordinals.size() > 1))
    return usage_error(command, "--sanitize runs its workers on one device: give --devices N",
                       synopsis);
  driver::apply_devices(*d, o);
  shard = d->shard;
  if (report.empty() && !d->junit_output.empty()) {
    report = d->junit_output;
    junit = true;
  }
  return std::nullopt;
}

std::optional<int> parse_sanitize_options(std::string_view command, std::string_view synopsis,
                                          const std::string& tool, unsigned timeout,
                                          const std::string& backend,
                                          driver::ConformanceOptions& o) {
  if (tool.empty())
    return std::nullopt;
  o.sanitize = driver::cuda::parse_sanitizer_tool(tool);
  if (!o.sanitize)
    return usage_error(command,
                       "--sanitize expects memcheck, racecheck, synccheck or initcheck; got '" +
                           tool + "'",
                       synopsis);
  if (backend == "sim")
    return usage_error(command, "--sanitize runs on the GPU; it cannot go with --backend sim",
                       synopsis);
  if (timeout == 0)
    return usage_error(command, "--sanitize-timeout must be at least 1 second", synopsis);
  o.sanitize_timeout = std::chrono::seconds(timeout);
  return std::nullopt;
}

} // namespace ptxgen::cli
