// ptxgen: raw PTX emitter and assembler driver for the cp.async family.

#include "driver/cli/command.hpp"
#include "driver/ptxas/cubin_cache.hpp"
#include "ptxgen_commit.hpp" // generated: cmake/commit.cmake

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace ptxgen::cli {

static std::vector<Command>& registry() {
  static std::vector<Command> all;
  return all;
}

bool register_command(const Command& c) {
  auto& all = registry();
  all.push_back(c);
  std::sort(all.begin(), all.end(),
            [](const Command& a, const Command& b) { return a.name < b.name; });
  return true;
}

const std::vector<Command>& commands() {
  return registry();
}

static void print_usage(std::ostream& out) {
  out << "usage: ptxgen <command> [options] [arguments]\n\n"
         "ptxgen builds cp.async PTX from tile descriptions, proves the tile contract,\n"
         "assembles it with ptxas and checks it on a GPU or the CPU simulator.\n\n"
         "commands:\n";
  for (const auto& c : commands())
    out << "  " << c.name << std::string(10 - std::min<std::size_t>(c.name.size(), 9), ' ')
        << c.summary << '\n';
  out << "\n`ptxgen <command> --help` describes a command's options; `ptxgen --version` names\n"
         "the version and the commit it was built from.\n\n"
         "exit status (of every command; a command's --help says what each means there):\n";
  for (const auto& e : exit_status_table)
    out << "  " << static_cast<int>(e.status) << "  " << e.meaning << '\n';
}

} // namespace ptxgen::cli

int main(int argc, char** argv) {
  using namespace ptxgen::cli;
  std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
  if (argc < 2) {
    print_usage(std::cerr);
    return exit_usage;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(std::cout);
    return exit_ok;
  }
  if (name == "--version") {
    std::cout << "ptxgen " << PTXGEN_VERSION << " (commit " << PTXGEN_COMMIT << ")\n";
    return exit_ok;
  }
  // Every ptxas run goes through the cubin cache unless a command's --no-cache says otherwise.
  ptxgen::driver::set_process_cache_dir(ptxgen::driver::cache_dir_from_environment());
  for (const auto& c : commands()) {
    if (c.name == name) {
      try {
        const int status = c.run(args);
        // A full disk or a closed pipe on stdout (`emit > /dev/full`) is an I/O error,
        // not a success: the output is incomplete.
        std::cout.flush();
        if (!std::cout || std::fflush(stdout) != 0) {
          std::cerr << "ptxgen " << name << ": cannot write to standard output\n";
          return exit_environment;
        }
        return status;
      } catch (const std::exception& e) {
        std::cerr << "ptxgen " << name << ": internal error: " << e.what() << '\n';
        return exit_environment;
      }
    }
  }
  std::cerr << "ptxgen: unknown command '" << name << "'\n\n";
  print_usage(std::cerr);
  return exit_usage;
}
