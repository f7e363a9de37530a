// `ptxgen show SPEC --svg FILE`: a picture of which thread copies which element of
// each view of each op over every iteration pattern, and the banks of the emitted
// shared accesses as the simulator's profile counts them (what `run --profile` prints).

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/show/picture.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/toml/reader_spec.hpp"
#include "emitter/tile/contract.hpp"

#include <boost/program_options.hpp>
#include <iostream>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;

/// The spec run on the simulator with --profile, as `ptxgen run --backend sim --profile`
/// runs it: the picture's bank figures are that profile's.
void add_profile(const std::string& spec, driver::show::Picture& p) {
  driver::ConformanceOptions o;
  o.backend = driver::Backend::sim;
  o.profile = true;
  o.jobs = 1;
  const driver::ConformanceReport r = driver::run_conformance(
      std::vector<std::filesystem::path>{spec}, o, [](std::size_t, std::size_t, const auto&) {});
  if (r.cases.size() == 1 && r.cases.front().profile) {
    p.profile = r.cases.front().profile;
    const std::string target = driver::emitted_target.str();
    p.profile_note = "the lines of ptxgen's PTX for " + target + " as run; `ptxgen emit SPEC " +
                     "--target " + target + "` prints it after one comment line";
    return;
  }
  p.profile_note = "the simulator's profile did not run: " +
                   (r.cases.empty() ? r.backend_description : r.cases.front().detail);
}

void print_help(const po::options_description& opts) {
  std::cout << "usage: ptxgen show SPEC --svg FILE [--diagnostics-format text|json|sarif]\n\n"
               "Draws, for CTA 0, each op's views over their tensors' elements, every chunk\n"
               "coloured by the thread that copies it and labelled T<thread> (hover a cell\n"
               "for its element, warp and lane). Every iteration of every loop is walked;\n"
               "iterations alike up to a shift of what they touch (tile k and k + 1, stage 0\n"
               "and 1 of a ring) share a panel, so a pipeline shows its prologue, steady state\n"
               "and tail, each cell naming its iterations. A tensor's leading axes are blocks\n"
               "side by side (a ring's stages), each block its last two axes (at most 64 x 64\n"
               "cells; at most 8 touched blocks per view). The banks are the simulator's\n"
               "profile of the emitted PTX, as `ptxgen run --backend sim --profile` counts\n"
               "them (ptxas must be installed): per shared access instruction its wavefronts\n"
               "and its costliest request bank by bank, bank conflicts in red. The spec must\n"
               "pass its contract. The file is written atomically. See docs/profile.md.\n\n"
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
  driver::show::Picture p = driver::show::build_picture(**kernel);
  add_profile(specs.front(), p);
  const std::string picture = driver::show::render_svg(p);
  if (auto written = driver::write_file_atomically(svg, picture); !written)
    return command_error("show", exit_environment, written.error());
  return exit_ok;
}

} // namespace

PTXGEN_REGISTER_COMMAND(show, "show", "draw a spec's thread-to-element map and banks as SVG",
                        run_show);

} // namespace ptxgen::cli
