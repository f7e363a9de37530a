// `ptxgen cache`: where the cubin cache is, how big it is, and emptying it.

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/ptxas/cubin_cache.hpp"

#include <iostream>

namespace ptxgen::cli {

namespace po = boost::program_options;

namespace {

constexpr std::string_view kSynopsis = "usage: ptxgen cache dir|stats|clear";

void print_help(const po::options_description& opts) {
  std::cout
      << kSynopsis
      << "\n\n"
         "ptxas's results (cubin and messages) are cached per PTX text, ptxas version\n"
         "(`ptxas --version`), target and flags, so an unchanged kernel is assembled once.\n"
         "The cache is $PTXGEN_CACHE_DIR, else $XDG_CACHE_HOME/ptxgen, else\n"
         "~/.cache/ptxgen; PTXGEN_NO_CACHE=1 or a command's --no-cache bypasses it.\n"
         "Several ptxgen processes may share it. It has no size bound: `clear` empties it.\n\n"
         "  dir     print the cache directory\n"
         "  stats   print the number of entries and their bytes\n"
         "  clear   remove every entry\n\n"
      << opts;
}

int run_cache(const std::vector<std::string>& args) {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help");
  std::vector<std::string> positional;
  po::variables_map vm;
  if (auto status =
          parse_command_line("cache", args, opts, positional, vm, [&opts] { print_help(opts); }))
    return *status;
  if (positional.size() != 1)
    return usage_error("cache", "expected one action: dir, stats or clear", kSynopsis);
  const std::string& action = positional.front();
  if (action != "dir" && action != "stats" && action != "clear")
    return usage_error("cache", "unknown action '" + action + "'", kSynopsis);
  const auto dir = driver::cache_dir_from_environment();
  if (!dir)
    return command_error("cache", exit_environment,
                         "no cache: PTXGEN_NO_CACHE is set, or neither PTXGEN_CACHE_DIR, "
                         "XDG_CACHE_HOME nor HOME is");
  if (action == "dir") {
    std::cout << dir->string() << '\n';
  } else if (action == "stats") {
    const driver::CacheStats s = driver::cache_stats(*dir);
    std::cout << dir->string() << ": " << s.entries << " entries, " << s.bytes << " bytes\n";
  } else {
    if (auto cleared = driver::cache_clear(*dir); !cleared)
      return command_error("cache", exit_environment, cleared.error());
    std::cout << "cleared " << dir->string() << '\n';
  }
  return exit_ok;
}

} // namespace

PTXGEN_REGISTER_COMMAND(cache, "cache", "show or clear the cubin cache", run_cache);

} // namespace ptxgen::cli
