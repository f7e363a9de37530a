#pragma once
// Subcommands of the ptxgen executable. Each lives in its own file and
// registers itself with PTXGEN_REGISTER_COMMAND; main() dispatches by name.

#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::cli {

/// Exit statuses shared by every subcommand.
enum ExitStatus : int {
  exit_ok = 0,          ///< success
  exit_input = 1,       ///< an error in the input, or a conformance mismatch
  exit_usage = 2,       ///< bad command line
  exit_environment = 3, ///< no ptxas, no device when one was required, I/O failure
  exit_unsupported = 4, ///< `run`: the simulator cannot run some kernel; every other case passed
};

struct Command {
  std::string_view name;
  std::string_view summary; ///< one line for `ptxgen --help`
  /// args excludes the program and the subcommand name.
  int (*run)(const std::vector<std::string>& args);
};

/// Adds a command at static-initialisation time; returns true.
bool register_command(const Command& c);
const std::vector<Command>& commands();

} // namespace ptxgen::cli

#define PTXGEN_REGISTER_COMMAND(ident, name, summary, fn)                                          \
  static const bool ptxgen_registered_##ident =                                                    \
      ::ptxgen::cli::register_command(::ptxgen::cli::Command{name, summary, fn})
