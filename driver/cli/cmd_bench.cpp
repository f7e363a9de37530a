// `ptxgen bench SPEC...`: each spec's kernel on the GPU, timed with CUDA events
// (driver/cuda/bench.hpp), against cuMemcpyDtoD of the same bytes in the same run; a
// table, and with --json FILE the same as JSON (written atomically). docs/benchmarks.md.

#include "driver/cli/arguments.hpp"
#include "driver/cli/bench_spec.hpp"
#include "driver/cli/command.hpp"
#include "driver/cuda/bench.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/run/binding.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/escape.hpp"
#include "emitter/ptx/target.hpp"

#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;
namespace cuda = driver::cuda;

constexpr std::string_view synopsis =
    "ptxgen bench SPEC... [--reps N] [--warmup N] [--device N] [--target sm_XX]\n"
    "                     [--ptxas PATH] [--json FILE] [--diagnostics-format text|json|sarif]";

struct BenchArgs {
  std::vector<std::string> specs;
  cuda::BenchOptions bench;
  /// as given (signed: a negative count is a usage error); cuda::BenchOptions' defaults
  long long reps = bench.reps, warmup = bench.warmup;
  std::string target, ptxas, json, diag_format;
};

std::string times_json(const cuda::BenchTimes& t) {
  std::ostringstream j;
  j << "{\"median_ms\": " << t.median_ms << ", \"min_ms\": " << t.min_ms << ", \"ms\": [";
  for (std::size_t i = 0; i < t.ms.size(); ++i)
    j << (i ? ", " : "") << t.ms[i];
  j << "]}";
  return j.str();
}

std::string to_json(const std::vector<SpecBench>& results, const BenchArgs& a) {
  std::ostringstream j;
  j << "{\n  \"reps\": " << a.bench.reps << ",\n  \"warmup\": " << a.bench.warmup
    << ",\n  \"specs\": [";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const auto& o = r.outcome;
    j << (i ? "," : "") << "\n    {\"spec\": \"" << driver::json_escape(r.spec)
      << "\", \"ok\": " << (r.problem.empty() ? "true" : "false") << ", \"problem\": \""
      << driver::json_escape(r.problem) << "\", \"device\": \""
      << driver::json_escape(o.device.name) << "\", \"bytes\": " << o.bytes
      << ", \"kernel\": " << times_json(o.kernel) << ", \"gb_per_s\": " << o.kernel_gb_per_s()
      << ", \"memcpy_bytes\": " << o.memcpy_bytes << ", \"memcpy\": " << times_json(o.memcpy)
      << ", \"memcpy_gb_per_s\": " << o.memcpy_gb_per_s()
      << ", \"percent_of_memcpy\": " << o.percent_of_memcpy() << ", \"registers\": " << o.registers
      << ", \"residency\": " << o.residency << "}";
  }
  j << (results.empty() ? "" : "\n  ") << "]\n}\n";
  return j.str();
}

void print_row(const SpecBench& r) {
  const auto& o = r.outcome;
  if (!r.problem.empty()) {
    std::cout << r.spec << ": not timed: " << r.problem << '\n';
    return;
  }
  char line[256];
  std::snprintf(line, sizeof line, "%-48s %14llu %10.4f %10.4f %9.1f %9.1f %7.1f%% %9d\n",
                r.spec.c_str(), static_cast<unsigned long long>(o.bytes), o.kernel.median_ms,
                o.kernel.min_ms, o.kernel_gb_per_s(), o.memcpy_gb_per_s(), o.percent_of_memcpy(),
                o.residency);
  std::cout << line;
}

/// Parses the command line; nullopt when it is fine, else the exit status to end with.
std::optional<int> parse(const std::vector<std::string>& args, BenchArgs& a) {
  po::options_description opts("options");
  opts.add_options()("help,h", "show this help")("reps", po::value(&a.reps)->default_value(a.reps),
                                                 "timed repetitions (at least 1)")(
      "warmup", po::value(&a.warmup)->default_value(a.warmup), "untimed launches first")(
      "device", po::value(&a.bench.device)->default_value(0), "the CUDA device ordinal")(
      "target", po::value(&a.target),
      "the target of the PTX ptxgen emits (default sm_80, or what the ops need: sm_90 for bulk "
      "copies)")("ptxas", po::value(&a.ptxas), "the ptxas to use")(
      "json", po::value(&a.json), "also write the results as JSON to FILE (atomically)");
  add_diagnostics_format_option(opts, a.diag_format);
  po::variables_map vm;
  auto help = [&opts] {
    std::cout << "usage: " << synopsis << "\n\n"
              << "Times each spec's kernel on the GPU with CUDA events (median and minimum of\n"
                 "--reps launches after --warmup), the global bytes it moves, GB/s, and the\n"
                 "percentage of cuMemcpyDtoD's bandwidth over the same bytes in the same run\n"
                 "(docs/benchmarks.md), and the residency the launch got (CTAs per SM, from\n"
                 "cuOccupancyMaxActiveBlocksPerMultiprocessor; [kernel] ctas_per_sm asks for one). "
                 "Exit status: 0 all timed, 1 a spec not timed, 2 usage,\n"
                 "3 no GPU or no ptxas. With --diagnostics-format json or sarif, the diagnostics\n"
                 "of a spec that does not load or breaks its contract also go to standard error\n"
                 "as data (the table and --json say \"not timed\" either way).\n\n"
              << opts;
  };
  if (auto status = parse_command_line("bench", args, opts, a.specs, vm, help))
    return status;
  if (a.specs.empty())
    return usage_error("bench", "give at least one spec", synopsis);
  constexpr long long most = 1'000'000;
  if (a.reps < 1 || a.reps > most)
    return usage_error("bench", "--reps must be from 1 to " + std::to_string(most), synopsis);
  if (a.warmup < 0 || a.warmup > most)
    return usage_error("bench", "--warmup must be from 0 to " + std::to_string(most), synopsis);
  a.bench.reps = static_cast<unsigned>(a.reps);
  a.bench.warmup = static_cast<unsigned>(a.warmup);
  if (!a.target.empty() && !ptx::Target::parse(a.target))
    return usage_error("bench", "--target expects sm_XX or sm_XXa; got '" + a.target + "'",
                       synopsis);
  return std::nullopt;
}

int run_bench_command(const std::vector<std::string>& args) {
  BenchArgs a;
  if (auto status = parse(args, a))
    return *status;
  auto printer = diagnostics_printer("bench", a.diag_format);
  if (!printer)
    return exit_usage;
  const auto device = cuda::probe_device(a.bench.device, a.bench.library);
  if (!device)
    return command_error("bench", exit_environment, "no usable GPU: " + device.error());
  auto ptxas = driver::locate_ptxas(a.ptxas);
  if (!ptxas)
    return command_error("bench", exit_environment, ptxas.error());
  std::printf("device %d: %s (%s); %u warm-up, %u timed repetitions; medians\n", device->ordinal,
              device->name.c_str(), device->arch().c_str(), a.bench.warmup, a.bench.reps);
  std::printf("%-48s %14s %10s %10s %9s %9s %8s %9s\n", "spec", "bytes", "median_ms", "min_ms",
              "GB/s", "DtoD GB/s", "of DtoD", "CTAs/SM");
  std::vector<SpecBench> results;
  bool all = true;
  for (const auto& spec : a.specs) {
    results.push_back(bench_spec(spec, a.bench, a.target, *device, *ptxas, &*printer));
    print_row(results.back());
    all = all && results.back().problem.empty();
  }
  printer->finish();
  if (!a.json.empty()) {
    if (auto written = driver::write_file_atomically(a.json, to_json(results, a)); !written)
      return command_error("bench", exit_environment, written.error());
  }
  return all ? exit_ok : exit_input;
}

} // namespace

PTXGEN_REGISTER_COMMAND(bench, "bench", "time specs' kernels on the GPU against cuMemcpyDtoD",
                        run_bench_command);

} // namespace ptxgen::cli
