// ptxgen_bench: how long ptxgen itself takes per spec (load, check, lower,
// validate, print: driver::emit_spec) against how long ptxas takes to
// assemble the result for sm_90. The goal is ptxgen under 5% of ptxas.
//
// usage: ptxgen_bench [SPEC|DIR...] [--runs N] [--ptxas-runs N] [--ptxas PATH]
//                     [--arch sm_XX]
// With no SPEC|DIR, the repository's specs/ (valid specs only; a directory
// skips invalid/ and faults/ as `ptxgen run` does). Prints one row per spec:
// the median emit time (µs) over --runs runs, the median ptxas process wall
// time (ms) over --ptxas-runs runs, and their ratio; then the totals, the
// machine, the date and the command. Exit status: 0, 1 when some spec does
// not emit or ptxas rejects it, 2 on a usage error.

#include "driver/ptxas/ptxas.hpp"
#include "driver/run/spec_files.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace ptxgen;

double median(std::vector<double> v) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto s = line.substr(colon + 1);
        return s.substr(std::min(s.find_first_not_of(' '), s.size()));
      }
    }
  }
  return "unknown";
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

/// The spec's path relative to the current directory when it lies below it.
std::string display(const fs::path& p) {
  std::error_code ec;
  auto rel = fs::relative(p, fs::current_path(ec), ec);
  if (!ec && !rel.empty() && rel.begin()->string() != "..")
    return rel.generic_string();
  return p.generic_string();
}

int usage(const std::string& message) {
  std::cerr << "ptxgen_bench: " << message << "\n"
            << "usage: ptxgen_bench [SPEC|DIR...] [--runs N] [--ptxas-runs N] [--ptxas PATH] "
               "[--arch sm_XX]\n";
  return 2;
}

struct Row {
  std::string spec;
  double emit_us = 0;
  double ptxas_ms = 0;
  bool ok = false;
  std::string problem;
};

} // namespace

int main(int argc, char** argv) {
  int runs = 20;
  int ptxas_runs = 5;
  std::string ptxas_arg;
  ptx::Target arch{90, false};
  std::vector<std::string> inputs;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--runs" || a == "--ptxas-runs") {
      const char* v = value();
      int n = v ? std::atoi(v) : 0;
      if (n <= 0)
        return usage(a + " needs a positive count");
      (a == "--runs" ? runs : ptxas_runs) = n;
    } else if (a == "--ptxas") {
      const char* v = value();
      if (!v)
        return usage("--ptxas needs a path");
      ptxas_arg = v;
    } else if (a == "--arch") {
      const char* v = value();
      auto t = v ? ptx::Target::parse(v) : std::nullopt;
      if (!t)
        return usage("--arch needs a target such as sm_90");
      arch = *t;
    } else if (a == "-h" || a == "--help") {
      std::cout << "usage: ptxgen_bench [SPEC|DIR...] [--runs N] [--ptxas-runs N] [--ptxas PATH] "
                   "[--arch sm_XX]\n"
                   "Median ptxgen emit time (load+check+lower+validate+print) against the median "
                   "ptxas wall time per spec.\n";
      return 0;
    } else if (a.rfind("--", 0) == 0) {
      return usage("unknown option " + a);
    } else {
      inputs.push_back(a);
    }
  }
  if (inputs.empty())
    inputs.push_back(std::string(PTXGEN_SOURCE_DIR) + "/specs");

  auto found = driver::expand_spec_arguments(inputs);
  if (!found)
    return usage(found.error());
  const std::vector<fs::path>& specs = *found;
  if (specs.empty())
    return usage("no spec files found");

  auto ptxas = driver::locate_ptxas(ptxas_arg);
  if (!ptxas) {
    std::cerr << "ptxgen_bench: " << ptxas.error() << "\n";
    return 1;
  }

  // The PTX targets sm_80 (as in `ptxgen run`); ptxas compiles it for `arch`.
  lower::LowerOptions lo;
  driver::AssembleOptions ao;
  ao.target = arch;
  ao.verbose = false;

  std::vector<Row> rows;
  for (const auto& spec : specs) {
    Row row;
    row.spec = display(spec);
    std::vector<double> emit_s;
    std::string ptx;
    for (int r = 0; r < runs; ++r) {
      auto e = driver::emit_spec(spec, lo);
      if (!e.ok()) {
        row.problem = "does not emit: " + e.diagnostics.format_all();
        break;
      }
      emit_s.push_back(e.seconds);
      ptx = std::move(e.ptx);
    }
    if (row.problem.empty()) {
      std::vector<double> ptxas_s;
      for (int r = 0; r < ptxas_runs; ++r) {
        auto a = driver::assemble(ptxas->path, ptx, ao);
        if (!a.ok()) {
          row.problem = a.describe();
          break;
        }
        ptxas_s.push_back(a.seconds);
      }
      if (row.problem.empty()) {
        row.ok = true;
        row.emit_us = median(emit_s) * 1e6;
        row.ptxas_ms = median(ptxas_s) * 1e3;
      }
    }
    rows.push_back(std::move(row));
  }

  std::size_t width = 4;
  for (const auto& r : rows)
    width = std::max(width, r.spec.size());
  std::printf("%-*s %10s %10s %8s\n", static_cast<int>(width), "spec", "emit_us", "ptxas_ms",
              "ratio_%");
  double total_emit_us = 0, total_ptxas_ms = 0, worst = 0;
  std::string worst_spec;
  int failed = 0;
  for (const auto& r : rows) {
    if (!r.ok) {
      ++failed;
      std::printf("%-*s  FAILED: %s\n", static_cast<int>(width), r.spec.c_str(), r.problem.c_str());
      continue;
    }
    double ratio = r.ptxas_ms > 0 ? 100.0 * (r.emit_us / 1000.0) / r.ptxas_ms : 0;
    if (ratio > worst) {
      worst = ratio;
      worst_spec = r.spec;
    }
    total_emit_us += r.emit_us;
    total_ptxas_ms += r.ptxas_ms;
    std::printf("%-*s %10.1f %10.2f %8.3f\n", static_cast<int>(width), r.spec.c_str(), r.emit_us,
                r.ptxas_ms, ratio);
  }
  double total_ratio = total_ptxas_ms > 0 ? 100.0 * (total_emit_us / 1000.0) / total_ptxas_ms : 0;
  std::printf("%-*s %10.1f %10.2f %8.3f\n", static_cast<int>(width), "TOTAL", total_emit_us,
              total_ptxas_ms, total_ratio);
  std::printf("\nspecs: %zu measured, %d failed; emit: median of %d runs (driver::emit_spec); "
              "ptxas: median of %d runs for %s (process wall time, %s)\n",
              rows.size() - static_cast<std::size_t>(failed), failed, runs, ptxas_runs,
              arch.str().c_str(), ptxas->path.c_str());
  std::printf("worst ratio: %.3f%% (%s); goal: every spec under 5%%: %s\n", worst,
              worst_spec.c_str(), worst < 5.0 ? "met" : "NOT met");
  std::printf("machine: %ld cores (nproc), %s\n", sysconf(_SC_NPROCESSORS_ONLN),
              cpu_model().c_str());
  std::printf("date: %s\n", now_utc().c_str());
  std::string command;
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);
  std::printf("command: %s\n", command.c_str());
  return failed ? 1 : 0;
}
