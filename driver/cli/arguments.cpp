#include "driver/cli/arguments.hpp"

#include "driver/cli/command.hpp"
#include "driver/ptxas/cubin_cache.hpp"

#include <cstdlib>
#include <iostream>

namespace ptxgen::cli {

namespace po = boost::program_options;

namespace {

/// --diagnostics-format's `value` into `format`; false after printing a usage error.
bool parse_format_option(std::string_view command, const std::string& value,
                         driver::DiagnosticsFormat& format) {
  if (driver::parse_diagnostics_format(value, format))
    return true;
  usage_error(command, "--diagnostics-format expects text, json or sarif; got '" + value + "'");
  return false;
}

} // namespace

int command_error(std::string_view command, ExitStatus status, const std::string& message) {
  std::cerr << "ptxgen " << command << ": " << message;
  if (message.empty() || message.back() != '\n')
    std::cerr << '\n';
  return status;
}

int usage_error(std::string_view command, const std::string& message, std::string_view synopsis) {
  command_error(command, exit_usage, message);
  if (!synopsis.empty())
    std::cerr << synopsis << '\n';
  std::cerr << "Try `ptxgen " << command << " --help` for the options.\n";
  return exit_usage;
}

std::optional<int> parse_arguments(std::string_view command, const std::vector<std::string>& args,
                                   const po::options_description& options,
                                   std::vector<std::string>& positional, po::variables_map& vm) {
  po::options_description hidden;
  hidden.add_options()("positional", po::value(&positional));
  po::positional_options_description pos;
  pos.add("positional", -1);
  po::options_description all;
  all.add(options).add(hidden);
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error(command, e.what());
  }
  apply_cache_option(vm);
  return std::nullopt;
}

std::optional<int> parse_command_line(std::string_view command,
                                      const std::vector<std::string>& args,
                                      const po::options_description& options,
                                      std::vector<std::string>& positional, po::variables_map& vm,
                                      const std::function<void()>& print_help) {
  if (auto status = parse_arguments(command, args, options, positional, vm))
    return status;
  if (vm.count("help")) {
    print_help();
    return exit_ok;
  }
  return std::nullopt;
}

std::optional<int> parse_command_line(std::string_view command,
                                      const std::vector<std::string>& args,
                                      const po::options_description& options,
                                      std::vector<std::string>& positional, po::variables_map& vm,
                                      const std::function<void()>& print_help,
                                      const std::string& diag_format,
                                      std::optional<driver::DiagnosticsPrinter>& printer) {
  if (auto status = parse_command_line(command, args, options, positional, vm, print_help))
    return status;
  driver::DiagnosticsFormat format{};
  if (!parse_format_option(command, diag_format, format))
    return exit_usage;
  printer.emplace(format, std::cerr, PTXGEN_VERSION);
  return std::nullopt;
}

std::optional<int> parse_spec_command_line(std::string_view command,
                                           const std::vector<std::string>& args,
                                           po::options_description& options,
                                           const std::function<void()>& print_help,
                                           SpecCommandLine& line) {
  add_diagnostics_format_option(options, line.diag_format);
  return parse_command_line(command, args, options, line.specs_in, line.vm, print_help,
                            line.diag_format, line.printer);
}

std::optional<int> expand_specs(std::string_view command, const std::vector<std::string>& args,
                                std::vector<std::filesystem::path>& specs, driver::SpecWalk walk) {
  auto expanded = driver::expand_spec_arguments(args, walk);
  if (!expanded)
    return command_error(command, exit_input, expanded.error());
  specs.insert(specs.end(), expanded->begin(), expanded->end());
  return std::nullopt;
}

int create_directories(std::string_view command, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec)
    return exit_ok;
  return command_error(command, exit_environment,
                       "cannot create '" + dir.string() + "': " + ec.message());
}

void add_diagnostics_format_option(po::options_description& options, std::string& value) {
  options.add_options()("diagnostics-format", po::value(&value)->default_value("text"),
                        "text, json (one object per line) or sarif (one SARIF 2.1.0 document); "
                        "on standard error");
}

std::optional<driver::DiagnosticsPrinter> diagnostics_printer(std::string_view command,
                                                              const std::string& value) {
  driver::DiagnosticsFormat format{};
  if (!parse_format_option(command, value, format))
    return std::nullopt;
  return std::optional<driver::DiagnosticsPrinter>(std::in_place, format, std::cerr,
                                                   PTXGEN_VERSION);
}

void add_cache_option(po::options_description& options) {
  options.add_options()("no-cache", "neither read nor write the cubin cache (also: "
                                    "PTXGEN_NO_CACHE=1; see `ptxgen cache --help`)");
}

void apply_cache_option(const po::variables_map& vm) {
  if (!vm.count("no-cache"))
    return;
  driver::set_process_cache_dir(std::nullopt);
  // ptxgen processes this one starts (shards, device workers) inherit the choice.
  ::setenv("PTXGEN_NO_CACHE", "1", 1);
}

} // namespace ptxgen::cli
