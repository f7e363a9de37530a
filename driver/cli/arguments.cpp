#include "driver/cli/arguments.hpp"

#include "driver/cli/command.hpp"

#include <iostream>

namespace ptxgen::cli {

namespace po = boost::program_options;

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
  return std::nullopt;
}

} // namespace ptxgen::cli
