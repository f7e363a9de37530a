#pragma once
// Command-line parsing shared by the subcommands (Boost.Program_options), and
// the one way a subcommand reports an error: `ptxgen COMMAND: message` on
// standard error, then the exit status (command.hpp's ExitStatus) to end with.

#include "driver/cli/command.hpp"
#include "driver/support/diagnostic_format.hpp"

#include <boost/program_options.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::cli {

/// Prints `ptxgen COMMAND: message` and returns `status`.
int command_error(std::string_view command, ExitStatus status, const std::string& message);

/// A bad command line: prints `ptxgen COMMAND: message`, the command's
/// one-line synopsis when given, and a pointer to `--help`; returns exit_usage.
int usage_error(std::string_view command, const std::string& message,
                std::string_view synopsis = {});

/// Parses `args` against `options`, collecting the positional arguments into
/// `positional`. Returns nullopt on success; otherwise it has printed the
/// usage error and returns the exit status to end with.
std::optional<int> parse_arguments(std::string_view command, const std::vector<std::string>& args,
                                   const boost::program_options::options_description& options,
                                   std::vector<std::string>& positional,
                                   boost::program_options::variables_map& vm);

/// Adds --diagnostics-format=text|json|sarif, stored in `value`.
void add_diagnostics_format_option(boost::program_options::options_description& options,
                                   std::string& value);
/// The printer for --diagnostics-format's `value` (on standard error); nullopt
/// after printing a usage error for an unknown format.
std::optional<driver::DiagnosticsPrinter> diagnostics_printer(std::string_view command,
                                                              const std::string& value);

/// Adds --no-cache to a command that assembles. parse_arguments() applies it
/// (commands parsing by other means call apply_cache_option()).
void add_cache_option(boost::program_options::options_description& options);
/// With --no-cache in `vm`: turns the process's cubin cache off, for it and its children.
void apply_cache_option(const boost::program_options::variables_map& vm);

} // namespace ptxgen::cli
