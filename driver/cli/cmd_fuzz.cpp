// `ptxgen fuzz`: differential testing of random specs on the GPU and the
// simulator, with shrinking; see driver/fuzz/loop.hpp.

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/cli/sweep_options.hpp"
#include "driver/fuzz/loop.hpp"
#include "driver/run/shard.hpp"
#include "driver/support/atomic_file.hpp"

#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string_view>

#include <unistd.h>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace fuzz = driver::fuzz;

constexpr std::string_view synopsis =
    "usage: ptxgen fuzz [--seed S] (--count N | --time SECONDS) [--backend auto|cuda|sim]\n"
    "                   [-j N] [--out DIR] [--report FILE.json|FILE.xml] [--shard I/C]\n"
    "                   [--devices all|LIST] [--sanitize TOOL]\n"
    "                   [--mutants N] [--check-test-values-only] [--no-shrink]";

/// --inject-fault OPCODE (hidden, for the fuzz loop's own test): on the simulator, one
/// byte of the first global tensor is flipped in every case whose PTX contains the text.
void inject_fault(driver::ConformanceOptions& o, const std::string& text) {
  o.tamper_sim_outputs = [text](const std::string& ptx,
                                std::map<std::string, std::vector<std::uint8_t>>& outputs) {
    if (ptx.find(text) == std::string::npos || outputs.empty() || outputs.begin()->second.empty())
      return;
    outputs.begin()->second.front() ^= 0x5a;
  };
}

/// "1234 specs/hour (GPU 0: 600, GPU 1: 634)": overall and per GPU.
std::string rates(const fuzz::FuzzReport& r) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", r.specs_per_hour());
  std::string s = std::string(buf) + " specs/hour";
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%.0f", r.per_hour(r.devices[i].specs));
    s += (i ? ", GPU " : " (GPU ") + std::to_string(r.devices[i].device) + ": " + buf;
  }
  return s + (r.devices.empty() ? "" : ")");
}

void print_summary(const fuzz::FuzzReport& r, std::ostream& out) {
  out << "backend: " << r.backend_description << "\nsummary: seed " << r.seed << ", shard "
      << driver::str(r.shard) << ": " << r.specs << " specs (" << r.passed << " pass everywhere, "
      << r.explained << " explained), " << r.mutants << " mutants (" << r.mutants_refused
      << " refused as expected); " << r.false_accepts << " false accepts; " << r.finding_count()
      << " findings, " << r.findings.size() << " kept; " << rates(r) << "; wall " << r.wall_s
      << " s (shrinking " << r.shrink_s << " s)\n";
  for (const auto& [c, n] : r.by_class)
    out << "  " << c << ": " << n << '\n';
  for (const auto& [c, n] : r.explained_by_class) // docs/fuzzing.md
    out << "  " << c << ": " << n << " (explained: a known false positive of the tool)\n";
  if (!r.by_rule.empty())
    out << "mutants by rule (refused with its DiagId / made):\n";
  for (const auto& rule : r.by_rule)
    out << "  " << rule.rule << " (" << name(rule.refused_with) << "): " << rule.refused << " / "
        << rule.mutants << '\n';
  for (const auto& f : r.findings) {
    out << "finding " << f.signature.class_name() << " seed " << f.seed;
    if (f.shrink)
      out << ": shrunk complexity " << f.shrink->complexity_before << " -> "
          << f.shrink->complexity_after << " in " << f.shrink->candidates << " candidates";
    out << (f.saved_to.empty() ? std::string() : "; saved to " + f.saved_to) << '\n';
  }
}

int finish(const fuzz::FuzzReport& r, const std::string& report, bool junit) {
  if (!report.empty()) {
    const bool xml = junit || fs::path(report).extension() == ".xml";
    auto written =
        driver::write_file_atomically(report, xml ? fuzz::to_junit(r) : fuzz::to_json(r));
    if (!written)
      return command_error("fuzz", exit_environment, written.error());
  }
  if (r.setup_failure || (r.specs == 0 && !r.setup_problem.empty()))
    return command_error("fuzz", exit_environment, r.setup_problem);
  print_summary(r, std::cout);
  for (const auto& e : r.save_errors)
    command_error("fuzz", exit_environment, e);
  if (!r.save_errors.empty())
    return exit_environment;
  return r.findings.empty() ? exit_ok : exit_input;
}

void print_help(const po::options_description& opts) {
  std::cout
      << synopsis
      << "\n\nDifferential testing: random valid specs (spec i has seed S+i), each emitted,\n"
         "assembled once by ptxas, run on the GPU and on the CPU simulator and compared\n"
         "with the reference. A spec that does not pass on every backend, a generated spec\n"
         "that the loader, contract or reference refuses, and (--mutants) an invalid mutant\n"
         "that `check` accepts are findings. Each is classified by its outcome signature\n"
         "(status per backend, simulator fault kind, DiagIds), shrunk to a small spec with\n"
         "the same signature (ddmin over its parts, then simplifications), and saved as\n"
         "DIR/<class>-<seed>/{spec.toml,original.toml,outcome.json}.\n\n"
      << opts
      << "\nexamples:\n  ptxgen fuzz --seed 1 --count 300 --backend sim --out findings/\n"
         "  ptxgen fuzz --time 1800 --mutants 2 --out findings/ --report fuzz.json\n\n"
         "With --sanitize TOOL every GPU case also runs under compute-sanitizer: a valid\n"
         "spec it flags is a finding (class sanitizer-...); with racecheck, a race that only\n"
         "racecheck or only the simulator sees is one too (race_racecheck_only-...,\n"
         "race_sim_only-...).\n\n"
         "exit status: 0 no finding, 1 some finding, 2 usage, 3 environment (no ptxas, no\n"
         "GPU with --backend cuda or --sanitize, no compute-sanitizer with --sanitize, a\n"
         "finding or report not written).\n";
}

/// The command line of `ptxgen fuzz`, as given.
struct FuzzArgs {
  std::string backend = "auto", out, report, shard, shard_count, devices, inject, specs_dir, target,
              sanitize;
  std::vector<std::string> families;
  unsigned sanitize_timeout = 120;
  std::uint64_t seed = 0;
  std::size_t count = 0, batch = 0, per_class = 2, budget = 2000;
  double seconds = 0;
  unsigned jobs = 0, mutants = 0;
  int device = 0;
  std::string ptxas;
};

/// Declares the options of `ptxgen fuzz` into `a`: `opts` those --help lists,
/// `hidden` the test hooks.
void add_fuzz_options(po::options_description& opts, po::options_description& hidden, FuzzArgs& a) {
  opts.add_options()("help,h", "show this help")(
      "seed", po::value(&a.seed), "the first spec's seed (default: from the clock, printed)")(
      "count", po::value(&a.count), "specs to run")("time", po::value(&a.seconds),
                                                    "run batches until SECONDS have passed")(
      "backend", po::value(&a.backend)->default_value("auto"),
      "auto (the GPU and the simulator where there is a GPU, else the simulator), cuda, sim")(
      "device", po::value(&a.device)->default_value(0), "CUDA device ordinal")(
      "jobs,j", po::value(&a.jobs)->default_value(0), "parallel emit/assemble/simulate (0: cores)")(
      "batch", po::value(&a.batch)->default_value(0),
      "specs per conformance batch (0: 32 per job, at least 64)")(
      "save-specs", po::value(&a.specs_dir),
      "also write every generated spec to DIR/SEED.toml (e.g. for `asm --sass` over them)")(
      "out", po::value(&a.out), "save findings under DIR")(
      "report", po::value(&a.report), "write a report: FILE.json or FILE.xml (JUnit)")(
      "shard", po::value(&a.shard),
      "I/C: run only the seed indices i with i % C == I (default: TEST_SHARD_INDEX / "
      "TEST_TOTAL_SHARDS, or a Slurm array task)")(
      "shard-count", po::value(&a.shard_count),
      "C: shard C ways, the index from the scheduler (JOB_COMPLETION_INDEX of a Kubernetes "
      "Indexed Job, or SLURM_ARRAY_TASK_ID); `ptxgen report merge` joins the shards' reports")(
      "devices", po::value(&a.devices), "all, or GPU ordinals as 0,2: one worker per device")(
      "mutants", po::value(&a.mutants)->default_value(0),
      "invalid mutants of each spec that `check` must refuse")(
      "check-test-values-only",
      "for testing the fuzzer: judge mutants with the whole-launch checks at the test values "
      "only (RangeProofOptions::test_values_only), so that mutants racy only away from their "
      "test value are false accepts")("no-shrink", "save findings as generated")(
      "per-class", po::value(&a.per_class)->default_value(2),
      "findings of one outcome class shrunk and saved (the rest are counted)")(
      "shrink-budget", po::value(&a.budget)->default_value(2000),
      "candidate specs tried per shrink at most")("ptxas", po::value(&a.ptxas), "the ptxas to use")(
      "target", po::value(&a.target),
      "the target of the PTX ptxgen emits (default sm_80): sm_90 makes mbarrier waits "
      "try_wait loops")(
      "family", po::value(&a.families)->composing(),
      "generate only this family (repeatable): tile, loop, pipeline, mbarrier, bulk (sm_90 "
      "bulk and tensor copies), cluster (sm_90 clusters: DSMEM, multicast, peer copies); "
      "bulk and cluster are not in the default mix");
  opts.add_options()(
      "sanitize", po::value(&a.sanitize),
      "run each GPU case under compute-sanitizer TOOL (memcheck, racecheck, synccheck, "
      "initcheck): its findings are findings; with racecheck, a race only it or only the "
      "simulator sees is a disagreement; known false positives are counted as explained "
      "(docs/fuzzing.md)")("sanitize-timeout", po::value(&a.sanitize_timeout)->default_value(120),
                           "seconds one case's sanitizer process may take");
  add_cache_option(opts);
  hidden.add_options()("inject-fault", po::value(&a.inject), "test hook, see inject_fault()")(
      "inject-false-accept", "test hook: mutants replaced by their valid parents");
}

/// The fuzz loop's options from the command line; nullopt to go on, else the exit
/// status. Sets where the report goes: `a.report`, as JUnit when `junit`.
std::optional<int> fuzz_options(FuzzArgs& a, const po::variables_map& vm, fuzz::FuzzOptions& o,
                                bool& junit) {
  o.count = a.count;
  o.seconds = a.seconds;
  o.batch = a.batch;
  o.out_dir = a.out;
  o.specs_dir = a.specs_dir;
  o.inject_false_accept = vm.count("inject-false-accept") > 0;
  o.check_test_values_only = vm.count("check-test-values-only") > 0;
  o.mutants = a.mutants;
  o.shrink = !vm.count("no-shrink");
  o.shrink_per_class = a.per_class;
  o.shrink_options.max_candidates = a.budget;
  o.conformance.jobs = a.jobs;
  o.conformance.device = a.device;
  o.conformance.ptxas = a.ptxas;
  if (!a.target.empty()) {
    o.conformance.target = ptx::Target::parse(a.target);
    if (!o.conformance.target || *o.conformance.target < driver::emitted_target)
      return usage_error("fuzz",
                         "--target expects sm_XX or sm_XXa, at least " +
                             driver::emitted_target.str() + "; got '" + a.target + "'",
                         synopsis);
  }
  if (!a.families.empty()) {
    o.generator.families.fill(false);
    for (const std::string& f : a.families) {
      bool known = false;
      for (std::size_t i = 0; i < fuzz::family_count; ++i)
        if (fuzz::name(static_cast<fuzz::Family>(i)) == f)
          known = o.generator.families[i] = true;
      if (!known)
        return usage_error(
            "fuzz",
            "--family expects tile, loop, pipeline, mbarrier, bulk or cluster; got '" + f + "'",
            synopsis);
    }
  }
  o.reproduce_tool = "ptxgen";
  o.tool_version = PTXGEN_VERSION;
  // The GPU is required: no fallback to the simulator alone.
  if (auto status = parse_sanitize_options("fuzz", synopsis, a.sanitize, a.sanitize_timeout,
                                           a.backend, o.conformance))
    return status;
  if (o.conformance.sanitize)
    o.auto_backend = false;
  if (auto status =
          resolve_sweep("fuzz", synopsis, {a.shard, a.shard_count, a.devices},
                        !vm["device"].defaulted(), o.conformance, o.shard, a.report, junit))
    return status;
  if (a.backend == "sim") {
    o.backends = {driver::Backend::sim};
  } else if (a.backend == "cuda") {
    o.backends = {driver::Backend::cuda};
  } else if (a.backend == "auto") {
    o.backends = {driver::Backend::cuda, driver::Backend::sim};
    o.auto_backend = !o.conformance.sanitize;
  } else {
    return usage_error("fuzz", "--backend expects auto, cuda or sim; got '" + a.backend + "'",
                       synopsis);
  }
  if (!a.inject.empty())
    inject_fault(o.conformance, a.inject);
  return std::nullopt;
}

/// Runs the loop with progress on standard error: on a tty one line rewritten after
/// each batch, otherwise (a log) a line a minute.
fuzz::FuzzReport run_with_progress(const fuzz::FuzzOptions& o) {
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  auto last_line = std::chrono::steady_clock::now();
  auto progress = [&](const fuzz::FuzzReport& r) {
    const auto now = std::chrono::steady_clock::now();
    if (!tty && now - last_line < std::chrono::minutes(1))
      return;
    last_line = now;
    std::cerr << (tty ? "\r\033[K" : "") << "[fuzz seed " << r.seed << " shard "
              << driver::str(r.shard) << "] " << r.specs << " specs in "
              << static_cast<long>(r.wall_s) << " s, " << rates(r) << ", " << r.finding_count()
              << " findings in " << r.findings_by_class().size() << " classes" << (tty ? "" : "\n")
              << std::flush;
  };
  auto r = fuzz::run_fuzz(o, progress);
  if (tty)
    std::cerr << "\r\033[K";
  return r;
}

int run_fuzz_command(const std::vector<std::string>& args) {
  po::options_description opts("options"), hidden;
  FuzzArgs a;
  add_fuzz_options(opts, hidden, a);
  po::options_description all;
  all.add(opts).add(hidden);
  std::vector<std::string> positional;
  po::variables_map vm;
  if (auto status =
          parse_command_line("fuzz", args, all, positional, vm, [&opts] { print_help(opts); }))
    return *status;
  if (!positional.empty())
    return usage_error("fuzz", "unexpected argument '" + positional.front() + "'", synopsis);
  if (!vm.count("count") && !vm.count("time"))
    return usage_error("fuzz", "give --count N or --time SECONDS", synopsis);
  fuzz::FuzzOptions o;
  bool junit = false;
  if (auto status = fuzz_options(a, vm, o, junit))
    return *status;
  if (!vm.count("seed")) {
    a.seed =
        static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    std::cerr << "ptxgen fuzz: --seed " << a.seed << '\n';
  }
  o.seed = a.seed;
  return finish(run_with_progress(o), a.report, junit);
}

} // namespace

PTXGEN_REGISTER_COMMAND(fuzz, "fuzz", "differential fuzzing of random specs, with shrinking",
                        run_fuzz_command);

} // namespace ptxgen::cli
