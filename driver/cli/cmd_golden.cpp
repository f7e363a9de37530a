// `ptxgen golden --check|--update`: every valid spec's PTX against golden/<same path>.ptx.

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/cli/target_options.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/unified_diff.hpp"

#include <boost/program_options.hpp>
#include <iostream>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

/// spec_root/a/b.toml -> golden_dir/a/b.ptx; nullopt when spec is not under spec_root.
std::optional<fs::path> golden_path(const fs::path& spec, const fs::path& spec_root,
                                    const fs::path& golden_dir) {
  fs::path rel = fs::relative(fs::absolute(spec).lexically_normal(),
                              fs::absolute(spec_root).lexically_normal());
  if (rel.empty() || *rel.begin() == "..")
    return std::nullopt;
  rel.replace_extension(".ptx");
  return golden_dir / rel;
}

/// What golden found over the specs, for its summary line.
struct GoldenTally {
  std::size_t same = 0, differ = 0, missing = 0, invalid = 0, written = 0;
};

/// Compares `ptx`, emitted now from `spec`, with its golden `gpath`; with `update`
/// rewrites a golden that differs or is missing. Counts the outcome in `tally` and
/// raises `status` for a difference or a golden not written.
void settle_golden(const fs::path& spec, const fs::path& gpath, const std::string& ptx, bool update,
                   GoldenTally& tally, int& status) {
  auto read = driver::read_file(gpath);
  const bool exists = static_cast<bool>(read);
  const std::string old = exists ? std::move(*read) : std::string();
  if (exists && old == ptx) {
    ++tally.same;
    return;
  }
  if (update) {
    if (int made = create_directories("golden", gpath.parent_path()); made != exit_ok) {
      status = made;
      return;
    }
    if (auto written = driver::write_file_atomically(gpath, ptx); !written) {
      status = command_error("golden", exit_environment, written.error());
      return;
    }
    ++tally.written;
    std::cout << (exists ? "updated " : "created ") << gpath.generic_string() << '\n';
    return;
  }
  if (!exists) {
    ++tally.missing;
    std::cerr << "golden missing: " << gpath.generic_string() << " (for " << spec.generic_string()
              << "; run `ptxgen golden --update " << spec.generic_string() << "`)\n";
  } else {
    ++tally.differ;
    std::cerr << driver::unified_diff(old, ptx, gpath.generic_string(),
                                      spec.generic_string() + " (emitted now)");
  }
  status = std::max<int>(status, exit_input);
}

int run_golden(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::string golden_dir = "golden", spec_root = "specs", target = driver::emitted_target.str();
  opts.add_options()("help,h", "show this help")("check", "compare (the default)")(
      "update", "rewrite the goldens that differ or are missing")(
      "golden-dir", po::value(&golden_dir)->default_value("golden"),
      "where the goldens live")("spec-root", po::value(&spec_root)->default_value("specs"),
                                "the folder the golden tree mirrors")(
      "target", po::value(&target)->default_value(driver::emitted_target.str()),
      "PTX target of the goldens");
  SpecCommandLine cl;
  auto help = [&opts] {
    std::cout
        << "usage: ptxgen golden [--check|--update] [--golden-dir DIR] [--spec-root DIR] "
           "SPEC|DIR...\n\n"
           "Each valid spec SPEC-ROOT/x/y.toml has its expected PTX in GOLDEN-DIR/x/y.ptx.\n"
           "--check (the default) prints a unified diff for every golden that differs and\n"
           "exits 1; --update rewrites them (atomically). Goldens are only ever written by\n"
           "this command, never by hand. Directories skip specs that must fail (`# expect-error:`\n"
           "lines, or expect = \"fault\" in [kernel]).\n\n"
        << opts
        << "\nexamples:\n  ptxgen golden --check specs/\n  ptxgen golden --update "
           "specs/seed/copy_async.toml\n";
  };
  if (auto status = parse_spec_command_line("golden", args, opts, help, cl))
    return *status;
  if (cl.vm.count("check") && cl.vm.count("update"))
    return usage_error("golden", "--check and --update exclude each other");
  const bool update = cl.vm.count("update") > 0;
  if (cl.specs_in.empty())
    cl.specs_in.push_back(spec_root);
  lower::LowerOptions lo;
  if (auto parsed = parse_target_options(target, "", cl.vm["target"].defaulted(), lo); !parsed)
    return usage_error("golden", parsed.error());
  std::vector<fs::path> specs;
  if (auto status = expand_specs("golden", cl.specs_in, specs))
    return *status;
  GoldenTally tally;
  int status = exit_ok;
  for (const auto& spec : specs) {
    auto gpath = golden_path(spec, spec_root, golden_dir);
    if (!gpath)
      return usage_error("golden",
                         "'" + spec.string() + "' is not under --spec-root '" + spec_root + "'");
    fs::path display =
        fs::path(spec_root).filename() / fs::relative(fs::absolute(spec).lexically_normal(),
                                                      fs::absolute(spec_root).lexically_normal());
    lo.header_comments = driver::golden_header(display.generic_string());
    auto e = driver::emit_checked_spec(spec, lo);
    if (!e.ok()) {
      cl.printer->print(e.diagnostics);
      ++tally.invalid;
      status = std::max<int>(status, exit_input);
      continue;
    }
    settle_golden(spec, *gpath, e.ptx, update, tally, status);
  }
  std::cerr << "golden: " << specs.size() << " specs, " << tally.same << " match, " << tally.differ
            << " differ, " << tally.missing << " missing, " << tally.invalid << " invalid";
  if (update)
    std::cerr << ", " << tally.written << " written";
  std::cerr << '\n';
  return status;
}

} // namespace

PTXGEN_REGISTER_COMMAND(golden, "golden", "check or update the golden PTX of specs", run_golden);

} // namespace ptxgen::cli
