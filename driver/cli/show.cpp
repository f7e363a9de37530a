// `ptxgen show SPEC --svg FILE`: a picture of which thread copies which element of
// each view of each op, and the banks warp 0's shared accesses touch.

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/show/picture.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/toml/toml_spec.hpp"
#include "emitter/tile/contract.hpp"

#include <boost/program_options.hpp>
#include <iostream>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;

void print_help(const po::options_description& opts) {
  std::cout << "usage: ptxgen show SPEC --svg FILE [--diagnostics-format text|json|sarif]\n\n"
               "Draws, for each op of the spec, each view over its tensor's element grid, every\n"
               "chunk coloured by the thread of CTA 0 that copies it and labelled T<thread> and\n"
               "its repeat coordinate (hover a cell for its element, warp and lane); and for\n"
               "each shared-memory view, the 32 banks warp 0's lanes touch in each access, bank\n"
               "conflicts in red. Rank-1 tensors are one row; higher ranks are flattened to\n"
               "(leading axes) x (last axis); at most 64 x 64 cells per view are drawn (the\n"
               "picture says when it shows a corner). Ops inside a `for` are drawn for its\n"
               "first iteration. The spec must pass its contract. The file is written\n"
               "atomically. See docs/profile.md.\n\n"
            << opts
            << "\nexample:\n  ptxgen show specs/seed/copy_async.toml --svg copy_async.svg\n\n"
               "exit status: 0 written, 1 the spec is invalid, 2 usage, 3 the file not written.\n";
}

int run_show(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::string svg, diag_format;
  opts.add_options()("help,h", "show this help")("svg", po::value(&svg),
                                                 "write the picture to FILE (SVG)");
  add_diagnostics_format_option(opts, diag_format);
  std::vector<std::string> specs;
  po::variables_map vm;
  std::optional<driver::DiagnosticsPrinter> printer;
  if (auto status = parse_command_line(
          "show", args, opts, specs, vm, [&opts] { print_help(opts); }, diag_format, printer))
    return *status;
  if (specs.size() != 1)
    return usage_error("show", "give exactly one spec", "ptxgen show SPEC --svg FILE");
  if (svg.empty())
    return usage_error("show", "--svg FILE is required", "ptxgen show SPEC --svg FILE");
  auto kernel = driver::load_spec_file(specs.front());
  Diagnostics diagnostics = kernel.diagnostics;
  if (kernel)
    diagnostics.append(tile::check_contract(**kernel));
  printer->print(diagnostics);
  printer->finish();
  if (!kernel || diagnostics.has_errors())
    return exit_input;
  const std::string picture = driver::show::render_svg(driver::show::build_picture(**kernel));
  if (auto written = driver::write_file_atomically(svg, picture); !written)
    return command_error("show", exit_environment, written.error());
  return exit_ok;
}

} // namespace

PTXGEN_REGISTER_COMMAND(show, "show", "draw a spec's thread-to-element map and banks as SVG",
                        run_show);

} // namespace ptxgen::cli
