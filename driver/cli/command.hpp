#pragma once
// Subcommands of the ptxgen executable. Each lives in its own file and
// registers itself with PTXGEN_REGISTER_COMMAND; main() dispatches by name.

#include <array>
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
  // A new status gets its line in exit_status_table below.
};

/// What each status means, one line per status in order: `ptxgen --help` prints it and
/// docs/conformance.md "Exit statuses" holds the same lines (the cli.exit_status_table test).
struct ExitStatusMeaning {
  ExitStatus status;
  std::string_view meaning;
};
inline constexpr std::array<ExitStatusMeaning, 5> exit_status_table{{
    {exit_ok, "success"},
    {exit_input,
     "an error in the input (an invalid spec, PTX ptxas rejects), a mismatch, a finding"},
    {exit_usage, "usage: a bad command line"},
    {exit_environment,
     "the environment: no ptxas, no GPU where one is required, an I/O error, an internal error"},
    {exit_unsupported, "run: some kernel is unsupported by the simulator, every other case passed"},
}};
static_assert(
    [] {
      for (std::size_t i = 0; i < exit_status_table.size(); ++i)
        if (exit_status_table[i].status != static_cast<int>(i))
          return false;
      return exit_status_table.back().status == exit_unsupported;
    }(),
    "exit_status_table: one line per ExitStatus, in order");

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
