// `ptxgen report merge`: one report from the JSON reports of a sharded campaign's jobs.

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/fuzz/report_merge.hpp"
#include "driver/support/atomic_file.hpp"

#include <iostream>

namespace ptxgen::cli {

namespace po = boost::program_options;

namespace {

constexpr std::string_view kReportSynopsis =
    "usage: ptxgen report merge [--allow-missing] [-o OUT.json] SHARD.json...";

void print_report_help(const po::options_description& opts) {
  std::cout
      << kReportSynopsis
      << "\n\n"
         "Joins the JSON reports of a campaign's shards (`ptxgen fuzz --report` or `ptxgen run\n"
         "--report` of each job of `--shard I/C`, a Slurm job array or a Kubernetes Indexed\n"
         "Job) into the report one process would have written: counts and per-class tallies\n"
         "summed, findings de-duplicated and kept as the fuzzer keeps them (the lowest seeds\n"
         "of each class), conformance cases in spec order, the wall time the longest shard's.\n"
         "The reports must be of one kind and one campaign (seed, generator, shard count),\n"
         "each shard once; a missing shard is an error unless --allow-missing (the result\n"
         "lists it under missing_shards). Without -o the report goes to standard output.\n\n"
      << opts
      << "\nexamples:\n"
         "  ptxgen report merge -o fuzz.json shards/fuzz-*.json\n"
         "  ptxgen report merge --allow-missing run-*.json > partial.json\n";
}

int run_report(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::string out;
  fuzz::MergeOptions options;
  opts.add_options()("help,h", "show this help")("output,o", po::value(&out),
                                                 "write the merged report here (atomically)")(
      "allow-missing", po::bool_switch(&options.allow_missing),
      "merge even when shards of the count are missing");
  std::vector<std::string> positional;
  po::variables_map vm;
  if (auto status = parse_command_line("report", args, opts, positional, vm,
                                       [&opts] { print_report_help(opts); }))
    return *status;
  if (positional.empty() || positional.front() != "merge")
    return usage_error("report", "expected the action 'merge'", kReportSynopsis);
  if (positional.size() < 2)
    return usage_error("report", "merge: expected at least one report", kReportSynopsis);
  std::vector<fuzz::ReportText> reports;
  for (std::size_t i = 1; i < positional.size(); ++i) {
    auto text = driver::read_file(positional[i]);
    if (!text)
      return command_error("report", exit_environment, text.error());
    reports.push_back({positional[i], std::move(*text)});
  }
  auto merged = fuzz::merge_reports(reports, options);
  if (!merged)
    return command_error("report", exit_input, merged.error());
  if (out.empty()) {
    std::cout << *merged;
  } else if (auto written = driver::write_file_atomically(out, *merged); !written) {
    return command_error("report", exit_environment, written.error());
  }
  return exit_ok;
}

} // namespace

PTXGEN_REGISTER_COMMAND(report, "report", "merge the JSON reports of a sharded campaign",
                        run_report);

} // namespace ptxgen::cli
