#pragma once
// Command-line parsing shared by the subcommands (Boost.Program_options), and
// the one way a subcommand reports an error: `ptxgen COMMAND: message` on
// standard error, then the exit status (command.hpp's ExitStatus) to end with.

#include "driver/cli/command.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/support/diagnostic_format.hpp"

#include <boost/program_options.hpp>
#include <filesystem>
#include <functional>
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

/// The opening every subcommand shares: parse_arguments(), then with --help
/// print_help() and exit_ok. Returns nullopt to go on, else the exit status to end with.
std::optional<int> parse_command_line(std::string_view command,
                                      const std::vector<std::string>& args,
                                      const boost::program_options::options_description& options,
                                      std::vector<std::string>& positional,
                                      boost::program_options::variables_map& vm,
                                      const std::function<void()>& print_help);

/// parse_command_line() for a command with --diagnostics-format (added to `options` by
/// add_diagnostics_format_option(), into `diag_format`): also sets `printer`, or ends
/// with a usage error for an unknown format. --help comes before the format's check.
std::optional<int>
parse_command_line(std::string_view command, const std::vector<std::string>& args,
                   const boost::program_options::options_description& options,
                   std::vector<std::string>& positional, boost::program_options::variables_map& vm,
                   const std::function<void()>& print_help, const std::string& diag_format,
                   std::optional<driver::DiagnosticsPrinter>& printer);

/// What a command over spec files (emit, check, golden) reads besides its own options: the
/// SPEC|DIR... positionals, the parsed options and the diagnostics printer.
struct SpecCommandLine {
  std::string diag_format;
  std::vector<std::string> specs_in;
  boost::program_options::variables_map vm;
  std::optional<driver::DiagnosticsPrinter> printer;
};

/// Adds --diagnostics-format to `options` (last, as help lists it), then the
/// parse_command_line() above into `line`. Returns nullopt to go on, else the exit status.
std::optional<int> parse_spec_command_line(std::string_view command,
                                           const std::vector<std::string>& args,
                                           boost::program_options::options_description& options,
                                           const std::function<void()>& print_help,
                                           SpecCommandLine& line);

/// driver::expand_spec_arguments(), its error reported as `ptxgen COMMAND: ...`.
/// Returns nullopt to go on, else the exit status to end with (exit_input).
std::optional<int> expand_specs(std::string_view command, const std::vector<std::string>& args,
                                std::vector<std::filesystem::path>& specs,
                                driver::SpecWalk walk = driver::SpecWalk::valid);

/// Creates `dir` and its parents; on failure reports `cannot create 'DIR': why` and
/// returns exit_environment, else exit_ok.
int create_directories(std::string_view command, const std::filesystem::path& dir);

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
