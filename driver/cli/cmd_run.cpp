// `ptxgen run`: the conformance run — emit, assemble, run on the GPU or the
// CPU simulator, compare with the independent reference.

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/cli/sweep_options.hpp"
#include "driver/run/binding.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/support/atomic_file.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <optional>

#include <unistd.h>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using driver::CaseResult;

std::string ms(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v >= 100 ? "%.0f" : "%.2f", v);
  return buf;
}

/// The table's result word: a passing fault spec says how it showed the violation.
std::string result_word(const CaseResult& c) {
  switch (c.evidence) {
  case CaseResult::Evidence::none:
    return std::string(driver::name(c.status));
  case CaseResult::Evidence::fault:
  case CaseResult::Evidence::wrote_outside:
    return "faulted";
  case CaseResult::Evidence::wrong_result:
    return "wrong";
  }
  return std::string(driver::name(c.status));
}

/// How many of the passing cases are fault specs that showed their violation, by how
/// (" (2 faulted as expected)"); empty when none. The summary's `fault` counts the others:
/// cases that faulted when they should not have, or fault specs that did not.
std::string expected_faults(const driver::ConformanceReport& r) {
  std::size_t faulted = 0, wrong = 0;
  for (const auto& c : r.cases) {
    if (c.status != CaseResult::Status::pass)
      continue;
    faulted += c.evidence == CaseResult::Evidence::fault ||
               c.evidence == CaseResult::Evidence::wrote_outside;
    wrong += c.evidence == CaseResult::Evidence::wrong_result;
  }
  std::string s;
  if (faulted > 0)
    s += std::to_string(faulted) + " faulted as expected";
  if (wrong > 0)
    s += (s.empty() ? "" : ", ") + std::to_string(wrong) + " wrong as expected";
  return s.empty() ? s : " (" + s + ")";
}

/// The simulator's figures per spec (--profile), after the legend of their columns.
void print_profiles(const driver::ConformanceReport& r, const driver::ConformanceOptions& o,
                    std::ostream& out) {
  if (std::none_of(r.cases.begin(), r.cases.end(), [](const CaseResult& c) { return c.profile; }))
    return;
  const std::string target = o.target.value_or(driver::emitted_target).str();
  sim::print_profile_legend(
      o.ptx_override.empty()
          ? "ptxgen's PTX for " + target + " as run (`ptxgen emit SPEC --target " + target +
                "` prints it after one comment line: there, line + 1)"
          : "the --ptx file" +
                (o.ptx_override_name.empty() ? std::string() : " '" + o.ptx_override_name + "'"),
      out);
  for (const auto& c : r.cases)
    if (c.profile)
      sim::print_profile(c.spec, *c.profile, out);
}

void print_table(const driver::ConformanceReport& r, std::ostream& out) {
  std::size_t width = 4;
  for (const auto& c : r.cases)
    width = std::max(width, c.spec.size());
  out << std::left << std::setw(static_cast<int>(width)) << "spec"
      << "  result       emit_ms  ptxas_ms   ref_ms  proof_ms  load_ms  launch_ms  cmp_ms\n";
  for (const auto& c : r.cases) {
    out << std::left << std::setw(static_cast<int>(width)) << c.spec << "  " << std::setw(11)
        << result_word(c) << std::right << std::setw(9) << ms(c.emit_ms) << std::setw(10)
        << ms(c.ptxas_ms) << std::setw(9) << ms(c.reference_ms) << std::setw(10) << ms(c.proof_ms)
        << std::setw(9) << ms(c.load_ms) << std::setw(11) << ms(c.launch_ms) << std::setw(8)
        << ms(c.compare_ms) << '\n';
  }
}

// with --sanitize, one line: how many cases the tool checked, how many it found
// something in (each listed), its errors and (racecheck) warnings over all of them,
// and how many it did not check.
void print_sanitizer_summary(const driver::ConformanceReport& r,
                             const driver::ConformanceOptions& o, std::ostream& out) {
  if (!o.sanitize)
    return;
  std::size_t checked = 0, with_findings = 0, unchecked = 0, errors = 0, warnings = 0;
  for (const auto& c : r.cases) {
    if (!c.sanitizer)
      continue;
    (c.sanitizer->checked ? checked : unchecked) += 1;
    if (c.sanitizer->checked && !c.sanitizer->clean()) {
      ++with_findings;
      errors += c.sanitizer->errors;
      warnings += c.sanitizer->warnings;
      out << "sanitizer: " << c.spec << ": " << c.sanitizer->summary()
          << (c.expect_fault ? " (expected: the spec must fault)" : "") << '\n';
    }
  }
  out << "compute-sanitizer " << driver::cuda::name(*o.sanitize) << ": " << checked
      << " cases checked, " << with_findings << " with findings (" << errors
      << (errors == 1 ? " error" : " errors");
  if (*o.sanitize == driver::cuda::SanitizerTool::racecheck)
    out << ", " << warnings << (warnings == 1 ? " warning" : " warnings");
  out << "), " << unchecked << " not checked\n";
}

/// Where the report goes and what the run is a part of.
struct Output {
  std::string report; ///< --report FILE, or XML_OUTPUT_FILE; "" for none
  bool junit = false; ///< JUnit XML whatever the name (XML_OUTPUT_FILE)
  driver::Shard shard;
  std::size_t all_specs = 0; ///< the specs of every shard together
};

/// Writes the report (.xml or Output::junit: JUnit, else JSON); false when it cannot.
bool write_report(const Output& output, const driver::ConformanceReport& r) {
  if (output.report.empty())
    return true;
  bool xml = output.junit || fs::path(output.report).extension() == ".xml";
  auto written =
      driver::write_file_atomically(output.report, xml ? driver::to_junit(r) : driver::to_json(r));
  if (written)
    return true;
  command_error("run", exit_environment, written.error());
  return false;
}

/// "25 specs" or, for a shard, "25 specs (shard 1/4 of 99)".
std::string spec_count(std::size_t n, const Output& output) {
  std::string s = std::to_string(n) + " specs";
  if (driver::sharded(output.shard))
    s += " (shard " + driver::str(output.shard) + " of " + std::to_string(output.all_specs) + ")";
  return s;
}

/// --diagnostics-format json or sarif: the diagnostics of every case, in case order
/// (CaseResult::diagnostics: the loader's, the contract's, the reference's, ptxas's, the
/// --ptx binding's), and nothing else on standard error but errors that end the command.
void print_case_diagnostics(const driver::ConformanceReport& r,
                            driver::DiagnosticsPrinter& printer) {
  for (const auto& c : r.cases)
    printer.print(c.diagnostics);
  printer.finish();
}

/// The run, and with `auto` the simulator when there is no GPU. A run that
/// could not start (no GPU for cuda, no ptxas or a broken one) is exit 3.
/// With the text format, each case that does not pass is a line on standard
/// error as it ends (its detail holds its diagnostics); with json or sarif,
/// the cases' diagnostics are printed as data once the run is over.
/// The specs the simulator runs: those without a `# sim-skip:` line (driver::sim_skip_reason);
/// each one left out is listed on standard error with its reason.
std::vector<fs::path> sim_runs(const std::vector<fs::path>& specs, std::size_t& skipped) {
  std::vector<fs::path> out;
  for (const fs::path& spec : specs) {
    if (auto reason = driver::sim_skip_reason(spec)) {
      std::cerr << spec.string() << ": skipped on the simulator: " << *reason << "\n";
      ++skipped;
    } else {
      out.push_back(spec);
    }
  }
  return out;
}

int conform(const std::vector<fs::path>& all_specs, driver::ConformanceOptions o, bool auto_backend,
            const Output& output, driver::DiagnosticsPrinter& printer) {
  std::size_t skipped = 0;
  const std::vector<fs::path> specs =
      o.backend == driver::Backend::sim ? sim_runs(all_specs, skipped) : all_specs;
  if (specs.empty()) {
    std::cout << "summary: every spec given is skipped on the simulator (" << skipped << ")\n";
    return exit_ok;
  }
  const bool text = printer.format() == driver::DiagnosticsFormat::text;
  const bool tty = text && ::isatty(STDERR_FILENO) != 0;
  auto progress = [&](std::size_t done, std::size_t total, const CaseResult& c) {
    if (tty) {
      std::cerr << "\r\033[K[" << done << "/" << total << "] " << c.spec << std::flush;
      if (done == total)
        std::cerr << "\r\033[K";
    }
    if (text && c.status != CaseResult::Status::pass)
      std::cerr << (tty ? "\r\033[K" : "") << c.spec << ": " << driver::name(c.status) << ": "
                << c.detail << (c.detail.empty() || c.detail.back() != '\n' ? "\n" : "");
  };
  auto r = driver::run_conformance(specs, o, progress);
  r.shard = output.shard;
  using Setup = driver::ConformanceReport::Setup;
  switch (r.setup) {
  case Setup::ready:
    break;
  case Setup::no_gpu:
    if (auto_backend) {
      if (text)
        std::cerr << "ptxgen run: " << r.backend_description
                  << "\nptxgen run: running on the CPU simulator instead\n";
      o.backend = driver::Backend::sim;
      return conform(all_specs, o, false, output, printer);
    }
    [[fallthrough]];
  case Setup::no_ptxas:
  case Setup::broken_ptxas:
  case Setup::bad_devices:
  case Setup::no_sanitizer:
    write_report(output, r);
    return command_error("run", exit_environment, r.backend_description);
  }
  if (!text)
    print_case_diagnostics(r, printer);
  print_table(r, std::cout);
  print_profiles(r, o, std::cout);
  std::cout << "backend: " << r.backend_description << '\n'
            << "summary: " << spec_count(r.cases.size(), output) << ": "
            << r.count(CaseResult::Status::pass) << " pass" << expected_faults(r) << ", "
            << r.count(CaseResult::Status::mismatch) << " mismatch, "
            << r.count(CaseResult::Status::fault) << " fault, "
            << r.count(CaseResult::Status::invalid) << " invalid, "
            << r.count(CaseResult::Status::error) << " error, "
            << r.count(CaseResult::Status::unsupported) << " unsupported"
            << (skipped ? ", " + std::to_string(skipped) + " skipped on the simulator" : "")
            << "; wall " << ms(r.wall_seconds * 1000) << " ms\n";
  print_sanitizer_summary(r, o, std::cout);
  if (!write_report(output, r) || r.environment_failed())
    return exit_environment;
  if (r.all_passed())
    return exit_ok;
  // Unsupported cases have no verdict: exit 4 only when every other case passed.
  const std::size_t unsupported = r.count(CaseResult::Status::unsupported);
  return unsupported > 0 && r.count(CaseResult::Status::pass) + unsupported == r.cases.size()
             ? exit_unsupported
             : exit_input;
}

/// --entry: the entry of the --ptx PTX to run, checked here so that a wrong
/// name, or none for PTX with several entries, is a usage error listing them.
/// PTX the simulator's parser does not read leaves the choice to the run.
std::optional<int> pick_entry(const std::string& ptx, const std::string& requested,
                              driver::ConformanceOptions& o) {
  auto program = sim::Program::parse(ptx);
  if (!program) {
    o.entry = requested;
    return std::nullopt;
  }
  auto entry = driver::choose_entry(program->entries(), requested);
  if (!entry)
    return usage_error("run", entry.diagnostics.items().front().message);
  o.entry = *entry;
  return std::nullopt;
}

/// --shard, --devices and the test runner's environment (shard.hpp): keeps the
/// shard's specs, sets the devices and where JUnit goes. An exit status on failure.
std::optional<int> distribute(const driver::DistributionFlags& flags, bool device_given,
                              std::vector<fs::path>& specs, driver::ConformanceOptions& o,
                              Output& output) {
  if (auto status = resolve_sweep("run", {}, flags, device_given, o, output.shard, output.report,
                                  output.junit))
    return status;
  output.all_specs = specs.size();
  std::vector<fs::path> mine;
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (driver::contains(output.shard, i))
      mine.push_back(specs[i]);
  specs = std::move(mine);
  return std::nullopt;
}

/// A shard that holds none of the specs (more shards than specs): nothing to
/// run, which is not a failure.
int empty_shard(const Output& output) {
  driver::ConformanceReport r;
  r.shard = output.shard;
  r.backend_description = "none: shard " + driver::str(output.shard) + " holds none of the " +
                          std::to_string(output.all_specs) + " specs";
  std::cout << "summary: " << spec_count(0, output) << ": nothing to run\n";
  return write_report(output, r) ? exit_ok : exit_environment;
}

/// --sanitize TOOL and --sanitize-timeout S into `o`. The GPU only: no fallback to
/// the simulator (a missing GPU is an environment error).
std::optional<int> set_sanitize(const std::string& tool, unsigned timeout, std::string& backend,
                                driver::ConformanceOptions& o) {
  if (auto status = parse_sanitize_options("run", {}, tool, timeout, backend, o))
    return status;
  if (o.sanitize)
    backend = "cuda";
  return std::nullopt;
}

/// `ptxgen run --help`.
void print_help(const po::options_description& opts) {
  std::cout
      << "usage: ptxgen run SPEC|DIR... [--backend auto|cuda|sim] [--device N] [--arch sm_XX]\n"
         "                  [--target sm_XX] [-j N] [--report FILE.json|FILE.xml]\n"
         "                  [--ptx FILE [--entry NAME]] [--shard INDEX/COUNT]\n"
         "                  [--devices all|0,2,...] [--sanitize TOOL]\n\n"
         "The conformance run. For every spec: emit its PTX (or take --ptx FILE),\n"
         "assemble it with ptxas, run it on the GPU (or the CPU simulator), and compare\n"
         "every global tensor byte for byte with the independent CPU reference, whose\n"
         "result must first meet the spec's [[expect]] tables (else the case is invalid\n"
         "and does not run). ptxas assembles on every backend; PTX it rejects fails its\n"
         "case. A spec whose [kernel] says expect = \"fault\" breaks the contract on\n"
         "purpose: it is run without the contract and passes only if it faults. A\n"
         "directory argument takes every spec below it except those with `# expect-error:`\n"
         "lines (specs that checking must refuse; name them to run them). A spec named\n"
         "twice runs once. Each GPU case runs in its own process, so a faulting kernel\n"
         "costs only its case.\n\n"
         "With --ptx, the entry's parameters are checked by type and size against the\n"
         "spec's ABI (global tensors as .u64 pointers, then parameters, or [kernel] abi's\n"
         "order) before anything runs, on every backend; an entry with `.extern .shared`\n"
         "gets the spec's shared tensors' total (or [kernel] dynamic_shared) as its\n"
         "dynamic shared memory. A kernel the simulator cannot run is `unsupported`\n"
         "(every such line listed): no verdict, neither a fault nor a mismatch.\n\n"
         "--shard INDEX/COUNT runs the specs i (of the list the arguments expand to,\n"
         "directories sorted) with i % COUNT == INDEX, so COUNT jobs cover the list\n"
         "once; TEST_SHARD_INDEX/TEST_TOTAL_SHARDS ask the same (the test runners'\n"
         "protocol; TEST_SHARD_STATUS_FILE is touched), and without --report the JUnit\n"
         "report goes to XML_OUTPUT_FILE when set. In a Slurm job array the task is the\n"
         "shard (SLURM_ARRAY_TASK_ID, _MIN, _STEP, _COUNT); in a Kubernetes Indexed Job,\n"
         "JOB_COMPLETION_INDEX with --shard-count COUNT (the Job's completions). `ptxgen\n"
         "report merge` joins the shards' JSON reports. --devices spreads the GPU cases over\n"
         "several GPUs of one kind (see docs/conformance.md).\n\n"
      << opts
      << "\nexamples:\n  ptxgen run specs/\n"
         "  ptxgen run --backend sim specs/seed/copy_async.toml\n"
         "  ptxgen run specs/seed/copy_async.toml --ptx my_kernel.ptx\n"
         "  ptxgen run spec.toml --ptx nvcc_out.ptx --entry _Z4copyPKfPf\n\n"
         "With --sanitize TOOL every GPU case runs in its own process under\n"
         "compute-sanitizer (found beside ptxas, on PATH or in /usr/local/cuda/bin);\n"
         "a case that passed but has sanitizer errors is a fault, one the tool did not\n"
         "check is an error (exit 3); a fault spec's findings are its evidence.\n\n"
         "--diagnostics-format: with text (the default) each case that does not pass is\n"
         "a line on standard error as it ends, its diagnostics in its detail. With json or\n"
         "sarif, standard error holds only the diagnostics of the cases that have them (a\n"
         "spec that does not load or breaks its contract, the reference's refusal, ptxas's\n"
         "errors, a --ptx entry that does not fit), in case order once the run is over,\n"
         "and the errors that end the command; every case's verdict stays in the table\n"
         "on standard output and in --report, whose JSON holds the same diagnostics.\n\n"
         "exit status: 0 all pass, 1 a mismatch, fault, invalid spec, PTX ptxas\n"
         "rejects or parameters that do not fit the spec, 2 usage, 3 environment (no\n"
         "GPU with --backend cuda or --sanitize, no ptxas or one that cannot assemble an\n"
         "empty kernel, no compute-sanitizer with --sanitize,\n"
         "ptxas crashed, an output not written, a --devices GPU unusable or of another\n"
         "kind than the first), 4 some kernel is unsupported by the simulator and every\n"
         "other case passed.\n";
}

/// The command line of `ptxgen run`, as given.
struct RunArgs {
  std::vector<std::string> specs;
  std::string backend = "auto", arch, target, report, ptx_file, ptxas, dump_dir, entry, shard,
              shard_count, devices, sanitize;
  unsigned sanitize_timeout = 120;
  std::vector<std::string> params; ///< --param NAME=VALUE, as given
  std::size_t sweep_limit = 64;
  int device = 0;
  unsigned jobs = 0;
};

/// Declares the options of `ptxgen run` into `a`.
void add_run_options(po::options_description& opts, RunArgs& a) {
  opts.add_options()("help,h", "show this help")(
      "backend", po::value(&a.backend)->default_value("auto"),
      "auto (the GPU when there is one, else the simulator), cuda, or sim")(
      "device", po::value(&a.device)->default_value(0), "CUDA device ordinal")(
      "devices", po::value(&a.devices),
      "all, or GPU ordinals as 0,2: one worker per device, the cases handed out as they free "
      "up")("shard", po::value(&a.shard),
            "INDEX/COUNT: run only the specs i with i % COUNT == INDEX (default: the test "
            "runner's TEST_SHARD_INDEX/TEST_TOTAL_SHARDS, or a Slurm array task)")(
      "shard-count", po::value(&a.shard_count),
      "COUNT: shard COUNT ways, the index from the scheduler (JOB_COMPLETION_INDEX of a "
      "Kubernetes Indexed Job, or SLURM_ARRAY_TASK_ID)")(
      "arch", po::value(&a.arch),
      "ptxas's target, on every backend (default: the device's, e.g. sm_90; sim: the "
      "--ptx file's .target, else sm_80)")(
      "target", po::value(&a.target),
      "the target of the PTX ptxgen emits (default sm_80; at most --arch): sm_90 makes "
      "mbarrier waits try_wait loops")("jobs,j", po::value(&a.jobs)->default_value(0),
                                       "parallel emit/assemble/simulate (0: cores)")(
      "report", po::value(&a.report), "also write a report: FILE.json or FILE.xml (JUnit)")(
      "ptx", po::value(&a.ptx_file),
      "run this PTX file (hand-written, or another compiler's) instead of ptxgen's, "
      "against the spec's reference; needs exactly one spec")(
      "entry", po::value(&a.entry),
      "with --ptx: the .entry to run (a C++ mangled name as written in the PTX); default: "
      "the PTX's only entry")("ptxas", po::value(&a.ptxas), "the ptxas to use")(
      "jit", "load the PTX through the driver's JIT instead of ptxas's cubin (ptxas still "
             "checks it)")("unchecked", "skip the contract: show on the device what it prevents")(
      "dump", po::value(&a.dump_dir),
      "write every completed case's global tensors to DIR (compare backends with diff -r)")(
      "sanitize", po::value(&a.sanitize),
      "run each GPU case under compute-sanitizer --tool TOOL (memcheck, racecheck, synccheck, "
      "initcheck), one worker process per case, -j at once")(
      "sanitize-timeout", po::value(&a.sanitize_timeout)->default_value(120),
      "with --sanitize: seconds one case's sanitizer process may take")(
      "profile", "on the simulator: wavefronts per shared request (bank conflicts) and "
                 "sectors per global request (coalescing), per instruction (docs/profile.md)")(
      "param", po::value(&a.params)->composing(),
      "NAME=VALUE (repeatable): run with this parameter value instead of the spec's test "
      "value; it must lie in the parameter's declared range. The [[expect]] statements are "
      "checked on the reference at these values (their regions may name parameters)")(
      "param-sweep",
      "run each spec once per combination of parameter values the whole-launch checks run "
      "(every value of each range the checks depend on; docs/spec-format.md, \"Every "
      "value\"), at most --sweep-limit of them: the device confirms what the proof claims")(
      "sweep-limit", po::value(&a.sweep_limit)->default_value(64),
      "with --param-sweep: the most runs per spec; above it the first, the last and evenly "
      "spaced combinations between (a stated sample)");
}

/// --arch or --target (`flag`) VALUE: a target no older than the oldest with cp.async.
/// Nullopt to go on, else the exit status.
std::optional<int> parse_run_target(std::string_view flag, const std::string& value,
                                    std::optional<ptx::Target>& out) {
  out = ptx::Target::parse(value);
  if (!out)
    return usage_error("run", std::string(flag) + " expects sm_XX or sm_XXa; got '" + value + "'");
  if (*out < driver::emitted_target)
    return usage_error("run", std::string(flag) + " " + value + " is older than " +
                                  driver::emitted_target.str() +
                                  ", the oldest target with cp.async");
  return std::nullopt;
}

/// --arch and --target into `o`; nullopt to go on, else the exit status.
std::optional<int> set_targets(const RunArgs& a, driver::ConformanceOptions& o) {
  if (!a.arch.empty())
    if (auto status = parse_run_target("--arch", a.arch, o.arch))
      return status;
  if (a.target.empty())
    return std::nullopt;
  if (auto status = parse_run_target("--target", a.target, o.target))
    return status;
  if (o.arch && *o.arch < *o.target)
    return usage_error("run", "--target " + a.target + " is newer than --arch " + a.arch +
                                  ": ptxas cannot assemble it for that target");
  if (!a.ptx_file.empty())
    return usage_error("run", "--target sets ptxgen's PTX; with --ptx the file has its own");
  return std::nullopt;
}

/// --ptx and --entry into `o`; nullopt to go on, else the exit status.
std::optional<int> set_ptx_override(const RunArgs& a, const std::vector<fs::path>& specs,
                                    driver::ConformanceOptions& o) {
  if (a.ptx_file.empty()) {
    if (!a.entry.empty())
      return usage_error("run", "--entry needs --ptx (ptxgen's own PTX has one entry)");
    return std::nullopt;
  }
  if (specs.size() != 1)
    return usage_error("run", "--ptx needs exactly one spec");
  auto ptx = driver::read_file(a.ptx_file);
  if (!ptx)
    return command_error("run", exit_environment, ptx.error());
  o.ptx_override = std::move(*ptx);
  if (o.ptx_override.empty())
    return command_error("run", exit_input, "--ptx file '" + a.ptx_file + "' is empty");
  o.ptx_override_name = a.ptx_file;
  return pick_entry(o.ptx_override, a.entry, o);
}

/// --backend and --profile into `o`; nullopt to go on, else the exit status.
std::optional<int> set_backend(const std::string& backend, bool profile,
                               driver::ConformanceOptions& o) {
  o.profile = profile; // a simulator figure: with auto, the simulator runs
  if (o.profile && backend == "cuda")
    return usage_error("run", "--profile runs on the simulator; it cannot go with --backend cuda");
  if (backend == "sim" || (o.profile && backend == "auto")) {
    o.backend = driver::Backend::sim;
  } else if (backend == "cuda" || backend == "auto") {
    o.backend = driver::Backend::cuda;
  } else {
    return usage_error("run", "--backend expects auto, cuda or sim; got '" + backend + "'");
  }
  return std::nullopt;
}

/// --param NAME=VALUE (decimal or 0x) and --param-sweep into `o`. Nullopt to go on, else the
/// exit status.
std::optional<int> set_params(const RunArgs& a, bool sweep, driver::ConformanceOptions& o) {
  if (sweep && !a.params.empty())
    return usage_error("run", "--param-sweep runs every value; it cannot go with --param");
  o.param_sweep = sweep;
  o.sweep_limit = a.sweep_limit;
  for (const std::string& text : a.params) {
    const auto eq = text.find('=');
    const std::string name = text.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : text.substr(eq + 1);
    std::size_t used = 0;
    std::uint64_t v = 0;
    try {
      v = std::stoull(value, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (name.empty() || value.empty() || used != value.size() || value[0] == '-')
      return usage_error("run", "--param expects NAME=VALUE with a non-negative integer VALUE; "
                                "got '" +
                                    text + "'");
    o.params.push_back({name, v});
  }
  return std::nullopt;
}

int run_run(const std::vector<std::string>& args) {
  po::options_description opts("options");
  RunArgs a;
  add_run_options(opts, a);
  std::string diag_format;
  add_diagnostics_format_option(opts, diag_format);
  add_cache_option(opts);
  po::variables_map vm;
  std::optional<driver::DiagnosticsPrinter> printer;
  if (auto status = parse_command_line(
          "run", args, opts, a.specs, vm, [&opts] { print_help(opts); }, diag_format, printer))
    return *status;
  if (a.specs.empty())
    return usage_error("run", "no spec given");
  driver::ConformanceOptions o;
  o.device = a.device;
  o.jobs = a.jobs;
  o.ptxas = a.ptxas;
  o.jit = vm.count("jit") > 0;
  o.unchecked = vm.count("unchecked") > 0;
  o.dump_dir = a.dump_dir;
  if (auto status = set_targets(a, o))
    return *status;
  if (auto status = set_params(a, vm.count("param-sweep") > 0, o))
    return *status;
  if (auto status = set_sanitize(a.sanitize, a.sanitize_timeout, a.backend, o))
    return *status;
  std::vector<fs::path> specs;
  if (auto status = expand_specs("run", a.specs, specs, driver::SpecWalk::valid_and_faults))
    return *status;
  if (auto status = set_ptx_override(a, specs, o))
    return *status;
  Output output;
  output.report = a.report;
  if (auto status = distribute({a.shard, a.shard_count, a.devices}, !vm["device"].defaulted(),
                               specs, o, output))
    return *status;
  if (specs.empty())
    return empty_shard(output);
  if (auto status = set_backend(a.backend, vm.count("profile") > 0, o))
    return *status;
  return conform(specs, o, a.backend == "auto" && !o.profile, output, *printer);
}

} // namespace

PTXGEN_REGISTER_COMMAND(run, "run", "conformance run: emit, assemble, run, compare", run_run);

} // namespace ptxgen::cli
