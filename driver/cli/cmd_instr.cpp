// `ptxgen instr OPCODE ...`: builds one cp.async instruction, or one of the sm_90
// bulk-copy family (instr_bulk.cpp), validates it for a target and PTX version, prints
// it in canonical form, or says why not; with --ptxas also asks ptxas whether it agrees.

#include "driver/cli/arguments.hpp"
#include "driver/cli/cmd_instr_bulk.hpp"
#include "driver/cli/command.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/run/instr.hpp"
#include "driver/run/instr_bulk.hpp"
#include "driver/run/spec_files.hpp"
#include "emitter/ptx/printer.hpp"

#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;
using namespace ptxgen::ptx;

constexpr const char* kUsage =
    "usage: ptxgen instr OPCODE --chunk-bytes N [options]   (cp.async)\n"
    "       ptxgen instr OPCODE [--groups N] [options]       (its groups)\n"
    "       ptxgen instr OPCODE [--size N] [options]         (bulk)";

constexpr const char* kHelpText = R"(
Builds one cp.async instruction, or one of the sm_90 bulk-copy family, checks
it against the PTX rules ptxgen enforces (docs/ptx-rules.md) for a target and PTX
ISA version, and prints it in canonical form with placeholder registers,
preceded by the `.version` and `.target` lines it needs. An invalid
combination prints a diagnostic with a caret under the opcode (or names the
operand) and exits 1.

cp.async operands: the destination is a shared address in %r1, the source a
global address in %rd1; a src-size register is %r2, a guard or ignore-src
predicate %p1/%p2, the cache policy %rd2. Its group instructions,
cp.async.commit_group, cp.async.wait_group (N from --groups, required) and
cp.async.wait_all, move no bytes and take none of a copy's options.

The bulk-copy family: cp.async.bulk (global to shared with
.mbarrier::complete_tx::bytes, shared to global with .bulk_group),
cp.async.bulk.commit_group, cp.async.bulk.wait_group{.read},
cp.async.bulk.prefetch.L2.global, cp.async.bulk.tensor.{1..5}d (.tile loads
and stores), cp.async.bulk.prefetch.tensor.{1..5}d, mbarrier.expect_tx,
mbarrier.arrive.expect_tx, fence.proxy.async{.space},
fence.mbarrier_init.release.cluster. Shared operands name the arrays `smem`
and `mbar`, the tensor map is the generic address in the `tmap` parameter.

examples:
  ptxgen instr cp.async.cg.shared.global --chunk-bytes 16
  ptxgen instr cp.async.cg.shared.global.L2::128B --chunk-bytes 16 --src-size reg --target sm_80
  ptxgen instr cp.async.ca.shared.global --chunk-bytes 4 --src-size 2 --pred
  ptxgen instr cp.async.cg.shared.global.L2::cache_hint --chunk-bytes 16 --cache-policy
  ptxgen instr cp.async.shared.global.ca --chunk-bytes 8 --ptxas      # any qualifier order
  ptxgen instr cp.async.cg.shared.global --chunk-bytes 8              # error: .cg copies 16
  ptxgen instr cp.async.wait_group --groups 1
  ptxgen instr cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes --size 4096 --target sm_90
  ptxgen instr cp.async.bulk.global.shared::cta.bulk_group --size 24 --target sm_90   # error: not a multiple of 16
  ptxgen instr cp.async.bulk.wait_group.read --groups 1 --target sm_90
  ptxgen instr cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group --target sm_90 --ptxas
  ptxgen instr mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 --tx-count reg --sink --target sm_90

exit status: 0 valid (and ptxas agrees, with --ptxas), 1 invalid instruction
or ptxas disagrees, 2 bad usage, 3 no usable ptxas (missing, or it cannot
assemble an empty kernel for the target).
)";

struct Options {
  std::string opcode;
  std::optional<std::uint32_t> chunk_bytes;
  std::optional<std::string> src_size;
  bool ignore_src = false;
  bool pred = false;
  bool cache_policy = false;
  std::string target = driver::emitted_target.str();
  std::optional<std::string> ptx_version;
  std::optional<std::string> ptxas;
  bool bulk = false;         ///< the opcode is of the bulk-copy family
  bool group = false;        ///< cp.async.commit_group, .wait_group or .wait_all
  bool target_given = false; ///< --target was on the command line
  // the bulk family's options (instr_bulk.hpp)
  std::optional<std::string> size;
  std::optional<std::string> tx_count;
  std::int64_t groups = 0;
  std::optional<std::size_t> coords;
  bool sink = false;
};

} // namespace

/// Assembles the kernel around the instruction with ptxas and says whether it agrees with
/// ptxgen's verdict `valid`; the exit status of `ptxgen instr --ptxas`.
int compare_with_ptxas(const std::string& ptxas, const Module& module, Target target,
                       PtxVersion version, bool valid) {
  auto where = driver::locate_ptxas(ptxas);
  if (!where) {
    std::cerr << "ptxgen instr: cannot check with ptxas: " << where.error() << "\n";
    return exit_environment;
  }
  // A ptxas that cannot assemble an empty kernel is broken, not a judge: its
  // verdict on the instruction would mean nothing (exit 3, as `run` does).
  driver::AssembleResult probe = driver::self_test(where->path, target, target);
  if (!probe.ok()) {
    std::cerr << "ptxgen instr: ptxas (" << where->path.string()
              << ") cannot assemble an empty kernel for " << target.str() << ": "
              << probe.describe() << "\n";
    return exit_environment;
  }
  driver::AssembleOptions options;
  options.target = target;
  options.verbose = false;
  options.keep_cubin = false;
  const std::string ptx = print(module);
  driver::AssembleResult r = driver::assemble(where->path, ptx, options);
  using Status = driver::AssembleResult::Status;
  if (r.status != Status::ok && r.status != Status::rejected) {
    std::cerr << "ptxgen instr: " << r.describe() << "\n";
    return exit_environment;
  }
  const std::string who = "ptxas (" + where->path.string() + ")";
  if (r.ok() == valid) {
    std::cout << who << (valid ? " accepts it too" : " rejects it too") << " for " << target.str()
              << " at .version " << version.str() << "\n";
    if (!valid)
      for (const auto& m : r.messages)
        std::cout << "  ptxas: " << m.text << "\n";
    return valid ? exit_ok : exit_input;
  }
  if (r.ok()) {
    std::cout << who << " accepts it; ptxgen is stricter here (see the message above)\n";
    return exit_input;
  }
  std::cout << who << " DISAGREES: it rejects what ptxgen accepts:\n";
  for (const auto& m : r.messages)
    std::cout << "  ptxas: " << m.text << (m.ptx_line.empty() ? "" : "  [" + m.ptx_line + "]")
              << "\n";
  // Output not in ptxas's message format (a broken ptxas) is still the only clue: show it.
  if (r.messages.empty())
    std::cout << "  ptxas exited with a failure and said:\n"
              << r.raw_output << (r.raw_output.empty() || r.raw_output.back() != '\n' ? "\n" : "");
  std::cout << "the kernel given to ptxas:\n" << ptx;
  return exit_input;
}

namespace {

/// Parses the command line into `vm` against `visible` (the options --help lists) and
/// the OPCODE operand. Nullopt to go on, else the exit status to end with.
std::optional<int> parse_instr_command_line(const std::vector<std::string>& args,
                                            const po::options_description& visible,
                                            po::variables_map& vm) {
  po::options_description all;
  all.add(visible).add_options()("opcode", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("opcode", -1);
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return usage_error("instr", e.what(), kUsage);
  }
  apply_cache_option(vm);
  return std::nullopt;
}

/// Option `name`'s value, as a T, into `out` when the command line gives it.
template <class T, class Out>
void take_option(const po::variables_map& vm, const char* name, Out& out) {
  if (vm.count(name))
    out = vm[name].as<T>();
}

/// The bulk family's options into `o`; cp.async's are refused. Nullopt to go on, else the
/// exit status to end with.
std::optional<int> read_bulk_options(const po::variables_map& vm, Options& o) {
  for (const char* cp_async_only : {"chunk-bytes", "src-size"})
    if (vm.count(cp_async_only))
      return usage_error(
          "instr", "--" + std::string(cp_async_only) + " is for cp.async; a bulk copy takes --size",
          kUsage);
  if (o.ignore_src)
    return usage_error("instr", "--ignore-src is for cp.async", kUsage);
  take_option<std::string>(vm, "size", o.size);
  take_option<std::string>(vm, "tx-count", o.tx_count);
  take_option<std::int64_t>(vm, "groups", o.groups);
  take_option<std::size_t>(vm, "coords", o.coords);
  return std::nullopt;
}

/// cp.async's group instructions take --groups (wait_group's N) and no copy option.
std::optional<int> read_group_options(const po::variables_map& vm, Options& o) {
  for (const char* copy_only : {"chunk-bytes", "src-size", "ignore-src", "pred", "cache-policy",
                                "size", "tx-count", "coords", "sink"}) {
    // A switch left off is there too, defaulted.
    if (vm.count(copy_only) && !vm[copy_only].defaulted())
      return usage_error("instr",
                         "--" + std::string(copy_only) + " is not for " + o.opcode +
                             ", which moves no bytes",
                         kUsage);
  }
  take_option<std::int64_t>(vm, "groups", o.groups);
  return std::nullopt;
}

/// --help, OPCODE and the options held as text into `o`. Nullopt to go on, else the
/// exit status to end with.
std::optional<int> read_instr_options(const po::variables_map& vm,
                                      const po::options_description& visible, Options& o) {
  if (vm.count("help")) {
    std::cout << kUsage << "\n" << kHelpText << "\n" << visible;
    return exit_ok;
  }
  if (!vm.count("opcode"))
    return usage_error("instr", "missing OPCODE, e.g. cp.async.cg.shared.global", kUsage);
  const auto& ops = vm["opcode"].as<std::vector<std::string>>();
  if (ops.size() != 1)
    return usage_error("instr", "expected one OPCODE; got " + std::to_string(ops.size()), kUsage);
  o.opcode = ops.front();
  take_option<std::string>(vm, "src-size", o.src_size);
  take_option<std::string>(vm, "ptx-version", o.ptx_version);
  take_option<std::string>(vm, "ptxas", o.ptxas);
  o.target_given = !vm["target"].defaulted();
  o.bulk = driver::is_bulk_opcode(o.opcode);
  if (o.bulk)
    return read_bulk_options(vm, o);
  o.group = driver::is_cp_async_group_opcode(o.opcode);
  if (o.group)
    return read_group_options(vm, o);
  for (const char* bulk_only : {"size", "tx-count", "groups", "coords"})
    if (vm.count(bulk_only))
      return usage_error("instr",
                         "--" + std::string(bulk_only) +
                             " is for the bulk-copy family; "
                             "cp.async takes --chunk-bytes",
                         kUsage);
  if (o.sink)
    return usage_error("instr", "--sink is for mbarrier.arrive.expect_tx", kUsage);
  if (!vm.count("chunk-bytes"))
    return usage_error("instr",
                       "--chunk-bytes is required: the copy width is never inferred; give 4, 8 "
                       "or 16 (`.cg` copies exactly 16)",
                       kUsage);
  o.chunk_bytes = vm["chunk-bytes"].as<std::uint32_t>();
  return std::nullopt;
}

/// The option values parsed: the target, the .version when given, an immediate src-size.
struct InstrValues {
  Target target;
  std::optional<PtxVersion> version;
  std::optional<std::uint32_t> src_size_imm;
};

/// Parses --target, --ptx-version and --src-size; nullopt to go on, else the exit status.
std::optional<int> parse_instr_values(const Options& o, InstrValues& v) {
  auto target = Target::parse(o.target);
  if (!target)
    return usage_error(
        "instr", "--target expects sm_XX or sm_XXa (e.g. sm_80, sm_90a); got '" + o.target + "'",
        kUsage);
  v.target = *target;
  if (o.ptx_version) {
    v.version = PtxVersion::parse(*o.ptx_version);
    if (!v.version)
      return usage_error(
          "instr", "--ptx-version expects X.Y (e.g. 7.8); got '" + *o.ptx_version + "'", kUsage);
  }
  if (o.src_size && *o.src_size != "reg") {
    const std::string& s = *o.src_size;
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      return usage_error(
          "instr", "--src-size expects a non-negative integer or `reg`; got '" + s + "'", kUsage);
    v.src_size_imm = static_cast<std::uint32_t>(std::stoul(s));
  }
  return std::nullopt;
}

/// The bulk family's request: its own default target unless --target named another.
BulkCommandLine bulk_request(const Options& o, const InstrValues& v) {
  return {.opcode = o.opcode,
          .target = o.target_given ? v.target : driver::bulk_default_target,
          .version = v.version,
          .size = o.size,
          .tx_count = o.tx_count,
          .groups = o.groups,
          .coords = o.coords,
          .sink = o.sink,
          .pred = o.pred,
          .cache_policy = o.cache_policy,
          .ptxas = o.ptxas};
}

/// cp.async.commit_group, .wait_group N or .wait_all, printed or refused as a copy is.
int run_group_instr(const Options& o, bool groups_given, const InstrValues& v,
                    driver::DiagnosticsPrinter& printer) {
  driver::CpAsyncGroupRequest r;
  r.opcode = o.opcode;
  if (groups_given)
    r.groups = o.groups;
  r.target = v.target;
  r.version = v.version;
  auto built = driver::build_cp_async_group_instr(r);
  if (const auto* problem = std::get_if<std::string>(&built))
    return usage_error("instr", *problem, kUsage);
  return report_instr(std::get<driver::CpAsyncInstr>(built), v.target, o.ptxas, printer);
}

int run_instr(const std::vector<std::string>& args) {
  Options o;
  po::options_description visible("options");
  // clang-format off
  visible.add_options()
    ("chunk-bytes", po::value<std::uint32_t>(), "the copy width (cp-size) in bytes: 4, 8 or 16 for .ca, 16 for .cg; required, never inferred")
    ("src-size", po::value<std::string>(), "copy only N bytes and zero the rest (N an immediate in 0..chunk-bytes), or `reg` for a u32 register")
    ("ignore-src", po::bool_switch(&o.ignore_src), "add an ignore-src predicate operand (PTX 7.5): zero all bytes when true")
    ("pred", po::bool_switch(&o.pred), "guard the instruction with @%p")
    ("cache-policy", po::bool_switch(&o.cache_policy), "add the 64-bit cache-policy operand that .L2::cache_hint requires")
    ("target", po::value<std::string>(&o.target)->default_value(driver::emitted_target.str()), "the target, e.g. sm_80, sm_90a, sm_120 (the bulk family: sm_90 unless given)")
    ("ptx-version", po::value<std::string>(), "the .version X.Y (default: the lowest the target and the instruction allow)")
    ("ptxas", po::value<std::string>()->implicit_value(""), "also assemble it with ptxas (at PATH, or found as usual) and report whether ptxas agrees")
    ("size", po::value<std::string>(), "bulk: the byte count of a bulk copy or prefetch (a multiple of 16 up to 1048560), or `reg` for a u32 register; required, never inferred")
    ("tx-count", po::value<std::string>(), "bulk: the transaction bytes of mbarrier.expect_tx / arrive.expect_tx, or `reg`")
    ("groups", po::value<std::int64_t>(), "N of cp.async.wait_group (required) or of cp.async.bulk.wait_group (default 0)")
    ("coords", po::value<std::size_t>(), "bulk: how many tensor coordinates to write (default: the opcode's rank)")
    ("sink", po::bool_switch(&o.sink), "bulk: mbarrier.arrive.expect_tx discards its state (`_`)")
    ("help,h", "show this help");
  // clang-format on
  add_cache_option(visible);
  std::string diag_format;
  add_diagnostics_format_option(visible, diag_format);
  po::variables_map vm;
  if (auto status = parse_instr_command_line(args, visible, vm))
    return *status;
  auto printer = diagnostics_printer("instr", diag_format);
  if (!printer)
    return exit_usage;
  if (auto status = read_instr_options(vm, visible, o))
    return *status;
  InstrValues v;
  if (auto status = parse_instr_values(o, v))
    return *status;

  if (o.bulk)
    return run_bulk_instr(bulk_request(o, v), *printer);
  if (o.group)
    return run_group_instr(o, vm.count("groups") != 0, v, *printer);

  const driver::CpAsyncInstrRequest request{.opcode = o.opcode,
                                            .chunk_bytes = *o.chunk_bytes,
                                            .src_size = o.src_size.has_value(),
                                            .src_size_imm = v.src_size_imm,
                                            .ignore_src = o.ignore_src,
                                            .pred = o.pred,
                                            .cache_policy = o.cache_policy,
                                            .target = v.target,
                                            .version = v.version};
  Diagnostics parse_errors;
  std::optional<driver::CpAsyncInstr> b = driver::build_cp_async_instr(request, parse_errors);
  if (!b) {
    for (const auto& d : parse_errors.items())
      printer->print(d);
    return exit_input;
  }
  if (o.src_size && o.ignore_src) {
    std::cerr << "error: src-size and ignore-src exclude each other: a cp.async takes one "
                 "zero-fill operand at most\n";
    return exit_input;
  }

  return report_instr(*b, v.target, o.ptxas, *printer);
}

} // namespace

PTXGEN_REGISTER_COMMAND(instr, "instr", "build and check one cp.async instruction", run_instr);

} // namespace ptxgen::cli
