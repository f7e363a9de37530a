// `ptxgen lint FILE.ptx...`: async-copy hazards in any PTX kernel, on the simulator, with no
// spec (driver/lint/lint.hpp, docs/lint.md).

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/lint/lint.hpp"
#include "driver/support/atomic_file.hpp"
#include "emitter/tile/dtype.hpp"

#include <boost/program_options.hpp>
#include <iostream>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;

constexpr std::string_view lint_synopsis =
    "ptxgen lint FILE.ptx... [--entry NAME] [--grid X[,Y[,Z]]] [--ctas N] [--block X[,Y[,Z]]]\n"
    "            [--cluster X[,Y[,Z]]] [--dynamic-smem BYTES] [--arg NAME=VALUE]... [--arch sm_XX] "
    "[--seeds N]\n"
    "            [--fill bytes|f16|bf16|f32|f64] [--save-run DIR]\n"
    "            [--json FILE | --diagnostics-format text|json|sarif]";

void print_lint_help(const po::options_description& opts) {
  std::cout
      << "usage: " << lint_synopsis
      << "\n\n"
         "Runs each entry of each PTX file (nvcc's, Triton's, TVM's, hand-written) on the CPU\n"
         "simulator with no spec, and reports every asynchronous-copy hazard it meets once, by\n"
         "kind and PTX lines, with the threads, the iteration and the shared bytes: read before\n"
         "wait, read in flight, write after read (a refill with no barrier after the last read),\n"
         "write after write, pending copies, write in flight, mbarrier deadlock (wrong parity,\n"
         "count or tx bytes), missing proxy fence, refill before bulk read, read before bulk\n"
         "write, the wgmma rules (write before wgmma read, wgmma register in flight, missing\n"
         "wgmma fence); also out-of-bounds and misaligned accesses, barrier divergence, undefined\n"
         "behaviour, shared bytes read before any write when the output depends on them, and\n"
         "the lines the simulator does not run (`unsupported`, never a hazard).\n\n"
         "Launch: --grid / --block, else the entry's .reqntid or .maxntid (block 128 without),\n"
         "grid 2; --cluster, else the entry's .reqnctapercluster, runs each cluster's CTAs\n"
         "together (one cluster is the default grid then); --ctas N runs only the first N CTAs\n"
         "of that grid (a kernel whose sizes are compiled in strides over them all: one CTA\n"
         "is its whole work for lint). Parameters: --arg NAME=VALUE sets a "
         "scalar (NAME: the PTX parameter's name or\n"
         "its index); --arg NAME=TYPE[D0,D1,...] (f32[128,32]) gives a pointer exactly that\n"
         "memory; every other 8-byte parameter is a pointer to a region of random bytes that\n"
         "grows, up to 64 MiB, when the kernel reaches past it. A narrower parameter the entry\n"
         "loads with no --arg is an error that names it (it may bound a loop: lint does not\n"
         "guess). A 64-bit scalar (size_t n) needs its --arg. A CUtensorMap parameter needs\n"
         "--arg NAME=TYPE[D0,...]:box[B0,...][:swizzle=32B|64B|128B][:fill=nan] (the map of a\n"
         "dense row-major tensor of random bytes). A file with no .entry: each .func\n"
         "it defines runs as an entry, given --block. Every kernel also gets a coverage line\n"
         "(threads, instructions, async copies, commits, waits, barriers, lines run).\n\n"
         "For a GPU run of the same launch (tools/wild_device.sh): --fill TYPE puts random\n"
         "values in [-1, 1) instead of random bytes: of its own type in memory an --arg types\n"
         "f16/bf16/f32/f64 (other types keep random bytes), of TYPE in the regions lint sizes;\n"
         "--save-run DIR writes the first run's launch (DIR/plan.txt), its input memory and\n"
         "the simulator's memory after it (one kernel: give --entry in a file of several).\n\n"
      << opts
      << "\nexample:\n"
         "  ptxgen lint ring3.ptx --arg 2=7 --seeds 4     # parameter 2 (k_tiles) = 7\n"
         "  ptxgen lint k.ptx --arg k_param_3=1024 --diagnostics-format sarif > lint.sarif\n\n"
         "exit status: 0 clean, 1 findings (or a file lint cannot read), 2 usage (an unset\n"
         "parameter, an --arg or --entry that names nothing), 4 some line unsupported and no\n"
         "finding. See docs/lint.md.\n";
}

/// "X[,Y[,Z]]" into `d`; false when it is not that.
bool parse_dim(const std::string& text, sim::Dim3& d) {
  d = {1, 1, 1};
  std::size_t at = 0;
  for (std::size_t k = 0; k < 3; ++k) {
    std::size_t used = 0;
    try {
      const unsigned long v = std::stoul(text.substr(at), &used);
      if (v == 0 || v > 0x7fffffffUL || text[at] == '-' || text[at] == '+')
        return false;
      d[k] = static_cast<std::uint32_t>(v);
    } catch (const std::exception&) {
      return false;
    }
    at += used;
    if (at == text.size())
      return true;
    if (text[at] != ',')
      return false;
    ++at;
  }
  return false;
}

/// The options into `o`; nullopt to go on, else the exit status.
std::optional<int> lint_options(const po::variables_map& vm, const std::vector<std::string>& args,
                                lint::Options& o) {
  for (const char* name : {"grid", "block", "cluster"}) {
    if (!vm.count(name))
      continue;
    sim::Dim3 d;
    if (!parse_dim(vm[name].as<std::string>(), d))
      return usage_error("lint",
                         std::string("--") + name + " expects X[,Y[,Z]] (positive numbers)");
    (std::string_view(name) == "grid"    ? o.grid
     : std::string_view(name) == "block" ? o.block
                                         : o.cluster) = d;
  }
  for (const std::string& a : args) {
    auto parsed = lint::parse_arg(a);
    if (!parsed)
      return usage_error("lint", parsed.error());
    o.args.push_back(std::move(*parsed));
  }
  if (!o.arch.empty() && o.arch.rfind("sm_", 0) != 0)
    return usage_error("lint", "--arch expects sm_XX; got '" + o.arch + "'");
  if (o.ctas != 0 && !o.save_run.empty())
    return usage_error("lint", "--save-run records the whole grid for the GPU: no --ctas with it");
  if (o.seeds == 0 || o.seeds > 1000)
    return usage_error("lint", "--seeds expects 1..1000");
  if (vm.count("fill")) {
    const std::string fill = vm["fill"].as<std::string>();
    const auto type = tile::parse_dtype(fill);
    const bool floating =
        type && (*type == tile::DType::float16 || *type == tile::DType::bfloat16 ||
                 *type == tile::DType::float32 || *type == tile::DType::float64);
    if (fill != "bytes" && !floating)
      return usage_error("lint", "--fill expects bytes, f16, bf16, f32 or f64; got '" + fill + "'");
    if (floating)
      o.value_fill = type;
  }
  return std::nullopt;
}

int run_lint(const std::vector<std::string>& args) {
  po::options_description opts("options");
  lint::Options o;
  std::vector<std::string> arg_texts;
  std::string entry, json, format = "text";
  opts.add_options()("help,h", "show this help")("entry", po::value(&entry),
                                                 "lint only this entry (or .func)")(
      "grid", po::value<std::string>(), "CTAs X[,Y[,Z]] (default 2)")(
      "ctas", po::value(&o.ctas),
      "run only the first N CTAs of the grid (whole clusters); their %nctaid is the grid's")(
      "block", po::value<std::string>(),
      "threads per CTA X[,Y[,Z]] (default .reqntid, .maxntid, else 128)")(
      "cluster", po::value<std::string>(),
      "CTAs per cluster X[,Y[,Z]] (default .reqnctapercluster, else 1)")(
      "dynamic-smem", po::value(&o.dynamic_smem),
      "bytes of the .extern .shared array (default 49152 when the entry has one)")(
      "arg", po::value(&arg_texts),
      "NAME=VALUE (a scalar), NAME=TYPE[D0,...] (a pointer's memory) or "
      "NAME=TYPE[D0,...]:box[B0,...] (a tensor map); NAME a parameter's name or index; "
      "repeatable")("arch", po::value(&o.arch), "sm_XX: refuse a file whose .target is newer")(
      "seeds", po::value(&o.seeds),
      "runs, each with other input bytes and thread order (default 1)")(
      "fill", po::value<std::string>(),
      "bytes (default), or f16, bf16, f32, f64: random values in [-1, 1), of that type where no "
      "--arg gives one")("save-run", po::value(&o.save_run),
                         "write the first run's launch, inputs and outputs into DIR")(
      "json", po::value(&json), "also write the JSON report to FILE (atomically)")(
      "diagnostics-format", po::value(&format),
      "text (default), json or sarif: the report on standard output");
  std::vector<std::string> files;
  po::variables_map vm;
  if (auto status =
          parse_command_line("lint", args, opts, files, vm, [&opts] { print_lint_help(opts); }))
    return *status;
  if (files.empty())
    return usage_error("lint", "give at least one PTX file", lint_synopsis);
  if (format != "text" && format != "json" && format != "sarif")
    return usage_error("lint",
                       "--diagnostics-format expects text, json or sarif; got '" + format + "'");
  if (!entry.empty())
    o.entry = entry;
  if (auto status = lint_options(vm, arg_texts, o))
    return *status;
  // Every file read first: an --arg that names no parameter is refused before anything runs.
  std::vector<lint::LintFile> read;
  for (const std::string& file : files) {
    auto text = driver::read_file(file);
    if (!text)
      return command_error("lint", exit_environment, text.error());
    read.push_back(lint::read_ptx(*text, file, o));
  }
  if (const auto bad = lint::unmatched_args(read, o))
    return usage_error("lint", *bad);
  if (!o.save_run.empty()) {
    std::size_t count = 0;
    for (const lint::LintFile& f : read)
      count += f.kernels.size();
    if (count != 1)
      return usage_error("lint", "--save-run writes the run of one kernel; these files have " +
                                     std::to_string(count) + ": give --entry");
  }
  std::vector<lint::KernelReport> kernels;
  for (const lint::LintFile& f : read) {
    for (auto& k : lint::lint_file(f, o))
      kernels.push_back(std::move(k));
  }
  if (!json.empty()) {
    if (auto written =
            driver::write_file_atomically(json, lint::json_report(kernels, PTXGEN_VERSION));
        !written)
      return command_error("lint", exit_environment, written.error());
  }
  if (format == "sarif")
    std::cout << lint::sarif_report(kernels, PTXGEN_VERSION);
  else if (format == "json")
    std::cout << lint::json_report(kernels, PTXGEN_VERSION);
  else
    std::cout << lint::text_report(kernels);
  return lint::exit_status(kernels);
}

} // namespace

PTXGEN_REGISTER_COMMAND(lint, "lint",
                        "find async-copy hazards in any PTX kernel on the simulator, no spec",
                        run_lint);

} // namespace ptxgen::cli
