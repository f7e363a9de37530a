// `ptxgen tune SPEC --choose KEY=V1,V2,...`: every combination of the choices written out as a
// spec of its own (driver/toml/choices.hpp), each checked and run as `ptxgen run` does (the
// contract refuses what it refuses; the output is compared with the reference), the passing
// ones timed on the GPU as `ptxgen bench` does, and the fastest written out.

#include "driver/cli/arguments.hpp"
#include "driver/cli/bench_spec.hpp"
#include "driver/cli/command.hpp"
#include "driver/ptxas/cubin_cache.hpp"
#include "driver/run/conformance.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/escape.hpp"
#include "driver/support/sha256.hpp"
#include "driver/support/temp_dir.hpp"
#include "driver/toml/choices.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;

constexpr std::string_view kTuneSynopsis =
    "ptxgen tune SPEC --choose KEY=V1,V2,... [--choose ...] [--backend auto|cuda|sim]\n"
    "                 [--reps N] [--warmup N] [--device N] [--target sm_XX] [--out BEST.toml]\n"
    "                 [--json FILE] [--no-cache]";

struct TuneArgs {
  std::vector<std::string> positional, choose;
  std::string backend = "auto", target, out, json;
  cuda::BenchOptions bench;
  bool no_cache = false;
};

/// One candidate's fate.
struct Tried {
  toml_choices::Candidate candidate;
  fs::path file;
  driver::CaseResult run;         ///< checked and compared with the reference
  std::optional<SpecBench> timed; ///< on the GPU, when it passed there
  bool cached = false;            ///< the time came from the tune cache
};

std::string chosen_text(const toml_choices::Candidate& c) {
  std::string s;
  for (const auto& [k, v] : c.chosen)
    s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

/// The tune cache's file for a candidate on a device: the candidate's text, the device, the
/// target and the method (reps, warm-up) hashed; nullopt without a cache.
std::optional<fs::path> cache_file(const TuneArgs& a, const Tried& t,
                                   const cuda::DeviceInfo& device) {
  if (a.no_cache)
    return std::nullopt;
  const auto dir = driver::cache_dir_from_environment();
  if (!dir)
    return std::nullopt;
  driver::Sha256 h;
  for (const auto& field : {t.candidate.toml, device.name, device.arch(), a.target,
                            std::to_string(a.bench.reps), std::to_string(a.bench.warmup)})
    h.update_field(field);
  return *dir / "tune" / (driver::Sha256::hex(h.finish()) + ".txt");
}

/// A cached median (ms) and residency, when the cache holds the candidate.
bool read_cached(const fs::path& file, SpecBench& out) {
  std::ifstream f(file);
  double median = 0;
  int residency = 0;
  if (!(f >> median >> residency))
    return false;
  out.outcome.status = cuda::BenchOutcome::Status::ok;
  out.outcome.kernel.median_ms = median;
  out.outcome.residency = residency;
  return true;
}

/// Times every candidate that passed on the GPU, from the cache where it has them.
void time_candidates(std::vector<Tried>& tried, const TuneArgs& a, const cuda::DeviceInfo& device,
                     const driver::PtxasLocation& ptxas) {
  for (std::size_t i = 0; i < tried.size(); ++i) {
    Tried& t = tried[i];
    if (t.run.status != driver::CaseResult::Status::pass)
      continue;
    const auto cached = cache_file(a, t, device);
    SpecBench b{t.file.string(), {}, {}};
    if (cached && read_cached(*cached, b)) {
      t.cached = true;
    } else {
      b = bench_spec(t.file.string(), a.bench, a.target, device, ptxas, nullptr);
      if (cached && b.problem.empty()) {
        std::error_code ec;
        fs::create_directories(cached->parent_path(), ec);
        (void)driver::write_file_atomically(*cached, std::to_string(b.outcome.kernel.median_ms) +
                                                         " " + std::to_string(b.outcome.residency) +
                                                         "\n");
      }
    }
    t.timed = std::move(b);
    std::fprintf(stderr, "[tune %zu/%zu] %s: %s\n", i + 1, tried.size(),
                 chosen_text(t.candidate).c_str(),
                 t.timed->problem.empty() ? (std::to_string(t.timed->outcome.kernel.median_ms) +
                                             " ms" + (t.cached ? " (cached)" : ""))
                                                .c_str()
                                          : "not timed");
  }
}

/// The fastest timed candidate; nullptr when none was timed.
const Tried* fastest(const std::vector<Tried>& tried) {
  const Tried* best = nullptr;
  for (const auto& t : tried)
    if (t.timed && t.timed->problem.empty() &&
        (!best || t.timed->outcome.kernel.median_ms < best->timed->outcome.kernel.median_ms))
      best = &t;
  return best;
}

std::string verdict(const Tried& t) {
  using Status = driver::CaseResult::Status;
  if (t.run.status != Status::pass) {
    const auto& items = t.run.diagnostics.items();
    if (!items.empty())
      return std::string(driver::name(t.run.status)) + " [" +
             std::string(ptxgen::name(items.front().id)) + "]";
    const auto& d = t.run.detail;
    return std::string(driver::name(t.run.status)) +
           (d.empty() ? "" : ": " + d.substr(0, d.find('\n')));
  }
  if (!t.timed)
    return "pass (not timed)";
  if (!t.timed->problem.empty())
    return "pass, not timed: " + t.timed->problem.substr(0, t.timed->problem.find('\n'));
  char line[96];
  std::snprintf(line, sizeof line, "%.4f ms, %d CTAs/SM%s", t.timed->outcome.kernel.median_ms,
                t.timed->outcome.residency, t.cached ? " (cached)" : "");
  return line;
}

std::string to_json(const std::vector<Tried>& tried, const Tried* best, const std::string& spec) {
  std::ostringstream j;
  j << "{\n  \"spec\": \"" << driver::json_escape(spec) << "\",\n  \"candidates\": [";
  for (std::size_t i = 0; i < tried.size(); ++i) {
    const Tried& t = tried[i];
    j << (i ? "," : "") << "\n    {\"chosen\": {";
    for (std::size_t k = 0; k < t.candidate.chosen.size(); ++k)
      j << (k ? ", " : "") << '"' << driver::json_escape(t.candidate.chosen[k].first) << "\": \""
        << driver::json_escape(t.candidate.chosen[k].second) << '"';
    j << "}, \"status\": \"" << driver::name(t.run.status) << "\", \"verdict\": \""
      << driver::json_escape(verdict(t)) << "\", \"median_ms\": "
      << (t.timed && t.timed->problem.empty() ? std::to_string(t.timed->outcome.kernel.median_ms)
                                              : std::string("null"))
      << ", \"fastest\": " << (&t == best ? "true" : "false") << "}";
  }
  j << "\n  ]\n}\n";
  return j.str();
}

std::optional<int> parse_tune(const std::vector<std::string>& args, TuneArgs& a) {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")(
      "choose", po::value(&a.choose)->composing(),
      "KEY=V1,V2,...: a key path of the spec (kernel.ctas_per_sm, param.n.value, "
      "tensor.tile.shape, op.2.stages: an [[op]] by index) and the TOML values to try")(
      "backend", po::value(&a.backend)->default_value("auto"),
      "auto (the GPU when there is one, else the simulator: checked and compared, not timed), "
      "cuda, or sim")("reps", po::value(&a.bench.reps)->default_value(a.bench.reps),
                      "timed repetitions per candidate")(
      "warmup", po::value(&a.bench.warmup)->default_value(a.bench.warmup),
      "untimed launches first")("device", po::value(&a.bench.device)->default_value(0),
                                "the CUDA device ordinal")(
      "target", po::value(&a.target), "the target of the PTX ptxgen emits (as bench)")(
      "out", po::value(&a.out), "write the fastest candidate's spec here (atomically)")(
      "json", po::value(&a.json), "write every candidate's verdict and time as JSON")(
      "no-cache", po::bool_switch(&a.no_cache), "time every candidate again");
  po::variables_map vm;
  auto help = [&opts] {
    std::cout << "usage: " << kTuneSynopsis << "\n\n"
              << "Tries every combination of the --choose values in SPEC (at most "
              << toml_choices::max_candidates
              << "), like Triton's autotuner for\n"
                 "people who generate kernels: each candidate is checked as `ptxgen check` does\n"
                 "(refused candidates are listed with their DiagId), run and compared with the\n"
                 "reference as `ptxgen run` does, and, on the GPU, timed as `ptxgen bench` does\n"
                 "(median of --reps). The fastest is reported and written with --out. Times are\n"
                 "cached per candidate text, device, target and method under the cubin cache's\n"
                 "directory (tune/); --no-cache times again. Progress goes to standard error.\n"
                 "Exit status: 0 a fastest found (or, on the simulator, some candidate passed),\n"
                 "1 none passed, 2 usage, 3 no GPU for --backend cuda or no ptxas.\n\n"
              << opts
              << "\nexample:\n  ptxgen tune copy.toml --choose kernel.ctas_per_sm=1,2,3,4 "
                 "--choose kernel.block=64,128 --out best.toml\n";
  };
  if (auto status = parse_command_line("tune", args, opts, a.positional, vm, help))
    return status;
  if (a.positional.size() != 1)
    return usage_error("tune", "give one spec", kTuneSynopsis);
  if (a.choose.empty())
    return usage_error("tune", "give at least one --choose KEY=V1,V2,...", kTuneSynopsis);
  if (a.backend != "auto" && a.backend != "cuda" && a.backend != "sim")
    return usage_error("tune", "--backend is auto, cuda or sim; got '" + a.backend + "'",
                       kTuneSynopsis);
  return std::nullopt;
}

/// The candidates, each written to `dir`; an exit status on failure.
std::optional<int> write_candidates(const TuneArgs& a, const fs::path& dir,
                                    std::vector<Tried>& tried) {
  const std::string& spec = a.positional.front();
  auto text = driver::read_file(spec);
  if (!text)
    return command_error("tune", exit_input, text.error());
  std::vector<toml_choices::Choice> choices;
  for (const auto& c : a.choose) {
    auto parsed = toml_choices::parse_choice(c);
    if (!parsed)
      return usage_error("tune", "--choose " + parsed.error(), kTuneSynopsis);
    choices.push_back(std::move(*parsed));
  }
  auto candidates = toml_choices::expand_choices(*text, spec, choices);
  if (!candidates)
    return command_error("tune", exit_input, candidates.error());
  for (std::size_t i = 0; i < candidates->size(); ++i) {
    Tried t;
    t.candidate = std::move((*candidates)[i]);
    t.file = dir / ("candidate" + std::to_string(i) + ".toml");
    if (auto w = driver::write_file_atomically(t.file, t.candidate.toml); !w)
      return command_error("tune", exit_environment, w.error());
    tried.push_back(std::move(t));
  }
  return std::nullopt;
}

/// Checks and runs every candidate as `ptxgen run` does: on the GPU unless --backend sim, and
/// under --backend auto on the simulator when no GPU is usable.
struct CandidateRun {
  driver::ConformanceReport report;
  bool on_gpu = false; ///< the candidates ran on the GPU (so they can be timed)
};
CandidateRun run_candidates(std::vector<Tried>& tried, const TuneArgs& a) {
  driver::ConformanceOptions o;
  o.backend = a.backend == "sim" ? driver::Backend::sim : driver::Backend::cuda;
  o.device = a.bench.device;
  if (!a.target.empty())
    o.target = ptx::Target::parse(a.target);
  std::vector<fs::path> files;
  for (const auto& t : tried)
    files.push_back(t.file);
  auto run = [&] {
    std::fprintf(stderr, "[tune] %zu candidates: checking and running on the %s\n", tried.size(),
                 o.backend == driver::Backend::cuda ? "GPU" : "simulator");
    return driver::run_conformance(files, o, {});
  };
  auto report = run();
  if (report.setup == driver::ConformanceReport::Setup::no_gpu && a.backend == "auto") {
    std::fprintf(stderr, "[tune] %s; on the CPU simulator instead (checked, not timed)\n",
                 report.backend_description.c_str());
    o.backend = driver::Backend::sim;
    report = run();
  }
  for (std::size_t i = 0; i < tried.size() && i < report.cases.size(); ++i)
    tried[i].run = report.cases[i];
  return {std::move(report), o.backend == driver::Backend::cuda};
}

int run_tune(const std::vector<std::string>& args) {
  TuneArgs a;
  if (auto status = parse_tune(args, a))
    return *status;
  auto scratch = driver::TempDir::create("ptxgen-tune-");
  if (!scratch)
    return command_error("tune", exit_environment, scratch.error());
  std::vector<Tried> tried;
  if (auto status = write_candidates(a, scratch->path(), tried))
    return *status;
  auto ptxas = driver::locate_ptxas({});
  if (!ptxas)
    return command_error("tune", exit_environment, ptxas.error());
  // The run goes first: its GPU workers are forked processes, which cannot use a CUDA driver
  // this process has loaded already; the timing (in this process) comes after it.
  const auto ran = run_candidates(tried, a);
  if (ran.report.setup != driver::ConformanceReport::Setup::ready)
    return command_error("tune", exit_environment, ran.report.backend_description);
  std::optional<cuda::DeviceInfo> device;
  if (ran.on_gpu) {
    auto d = cuda::probe_device(a.bench.device, a.bench.library);
    if (!d)
      return command_error("tune", exit_environment, "no usable GPU: " + d.error());
    device = *d;
    time_candidates(tried, a, *device, *ptxas);
  }
  const Tried* best = fastest(tried);
  for (const auto& t : tried)
    std::printf("%s%-56s %s\n", &t == best ? "* " : "  ", chosen_text(t.candidate).c_str(),
                verdict(t).c_str());
  if (!a.json.empty())
    if (auto w = driver::write_file_atomically(a.json, to_json(tried, best, a.positional[0])); !w)
      return command_error("tune", exit_environment, w.error());
  if (best && !a.out.empty())
    if (auto w = driver::write_file_atomically(a.out, best->candidate.toml); !w)
      return command_error("tune", exit_environment, w.error());
  if (best)
    std::printf("fastest: %s\n", chosen_text(best->candidate).c_str());
  const bool any_pass = std::any_of(tried.begin(), tried.end(), [](const Tried& t) {
    return t.run.status == driver::CaseResult::Status::pass;
  });
  return (best || (!device && any_pass)) ? exit_ok : exit_input;
}

} // namespace

PTXGEN_REGISTER_COMMAND(tune, "tune", "try a grid of choices of a spec; time them on the GPU",
                        run_tune);

} // namespace ptxgen::cli
