// `ptxgen asm`: PTX files to cubins with ptxas, for one or more targets, with
// ptxas's diagnostics mapped back to the PTX lines and a resource-usage table.

#include "driver/cli/arguments.hpp"
#include "driver/cli/command.hpp"
#include "driver/ptxas/assemble_all.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/support/atomic_file.hpp"
#include "emitter/ptx/target.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

namespace ptxgen::cli {

namespace {

namespace po = boost::program_options;
namespace fs = std::filesystem;
using driver::AssembleResult;

int usage(const std::string& message) {
  std::cerr << "ptxgen asm: " << message << "\nTry `ptxgen asm --help` for the options.\n";
  return exit_usage;
}

/// Why an input could not be turned into PTX.
enum class InputError {
  none,        ///< the PTX was read
  unsupported, ///< not an input kind asm takes (a usage error)
  io,          ///< the file could not be read
};

/// The PTX text for one command-line input. Only .ptx files for now; spec
/// files (.toml) will be emitted here once the spec pipeline lands.
std::optional<std::string> ptx_for_input(const fs::path& input, InputError& kind,
                                         std::string& error) {
  if (input.extension() != ".ptx") {
    kind = InputError::unsupported;
    error = "'" + input.string() + "' is not a .ptx file; asm takes PTX files for now" +
            (input.extension() == ".toml" ? " (spec input is not supported yet)" : "");
    return std::nullopt;
  }
  std::string text;
  if (!driver::read_file(input, text, error)) {
    kind = InputError::io;
    return std::nullopt;
  }
  kind = InputError::none;
  return text;
}

/// The target a PTX file names in its `.target` directive (first one), if any.
std::optional<ptx::Target> declared_target(const std::string& ptx) {
  std::istringstream lines(ptx);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string directive, value;
    words >> directive >> value;
    if (directive != ".target")
      continue;
    value = value.substr(0, value.find_first_of(",;"));
    return ptx::Target::parse(value);
  }
  return std::nullopt;
}

/// Splits "sm_80,sm_90" (each occurrence of --arch may hold a list) into targets.
bool parse_arches(const std::vector<std::string>& values, std::vector<ptx::Target>& out,
                  std::string& error) {
  for (const auto& value : values) {
    std::string_view rest = value;
    while (true) {
      auto comma = rest.find(',');
      std::string item(rest.substr(0, comma));
      if (!item.empty()) {
        auto t = ptx::Target::parse(item);
        if (!t) {
          error = "unknown architecture '" + item + "'; expected sm_XX or sm_XXa, e.g. sm_90a";
          return false;
        }
        if (std::find(out.begin(), out.end(), *t) == out.end())
          out.push_back(*t);
      }
      if (comma == std::string_view::npos)
        break;
      rest.remove_prefix(comma + 1);
    }
  }
  return true;
}

struct Target {
  std::size_t input; ///< index into the inputs
  ptx::Target arch;
};

void print_message(const std::string& file, const ptx::Target& arch,
                   const driver::PtxasMessage& m) {
  std::cerr << file;
  if (m.line)
    std::cerr << ':' << m.line;
  std::cerr << ": " << (m.is_error ? "error" : "warning") << ": " << m.text
            << " (ptxas -arch=" << arch.str() << ")\n";
  if (!m.ptx_line.empty())
    std::cerr << "    "
              << m.ptx_line.substr(std::min(m.ptx_line.find_first_not_of(" \t"), m.ptx_line.size()))
              << '\n';
}

/// The rejection's messages, without ptxas's closing "aborted" line when
/// there is anything else to show.
void print_rejection(const std::string& file, const ptx::Target& arch, const AssembleResult& r) {
  bool other = false;
  for (const auto& m : r.messages)
    other = other || m.line != 0 || m.text != "Ptx assembly aborted due to errors";
  if (r.messages.empty()) {
    std::cerr << file << ": error: " << r.describe() << '\n';
    return;
  }
  for (const auto& m : r.messages)
    if (!other || m.line != 0 || m.text != "Ptx assembly aborted due to errors")
      print_message(file, arch, m);
}

void print_usage_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      // Names left-aligned, numbers right-aligned.
      bool left = c < 3;
      std::string pad(width[c] - row[c].size(), ' ');
      line += left ? row[c] + pad : pad + row[c];
      if (c + 1 < row.size())
        line += "  ";
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    std::cout << line << '\n';
  }
}

int run_asm(const std::vector<std::string>& args) {
  po::options_description opts("options");
  std::vector<std::string> arch_values;
  std::string output, out_dir, ptxas_path;
  unsigned jobs = 0;
  double timeout_s = 60;
  opts.add_options()("help,h", "show this help")(
      "arch", po::value(&arch_values)->composing(),
      "targets to assemble for, comma-separated or repeated: sm_80,sm_90a (default: each "
      "file's .target)")("output,o", po::value(&output),
                         "write the cubin to FILE (exactly one input and one target)")(
      "out-dir", po::value(&out_dir), "write each cubin to DIR/<stem>.<arch>.cubin")(
      "ptxas", po::value(&ptxas_path),
      "the ptxas to run (default: $PTXGEN_PTXAS, the configured CUDA toolkit, then PATH)")(
      "jobs,j", po::value(&jobs), "ptxas processes at a time (default: one per CPU)")(
      "timeout", po::value(&timeout_s)->default_value(60),
      "seconds one ptxas run may take before it is killed");
  std::vector<std::string> inputs_in;
  po::variables_map vm;
  if (auto status = parse_arguments("asm", args, opts, inputs_in, vm))
    return *status;
  if (vm.count("help")) {
    std::cout
        << "usage: ptxgen asm FILE.ptx... [--arch LIST] [-o FILE | --out-dir DIR] [--ptxas PATH]\n"
           "                  [-j N] [--timeout SECONDS]\n\n"
           "Assembles each PTX file with ptxas for every target, maps ptxas's errors back to\n"
           "the PTX lines and prints each kernel's registers, shared memory, stack and\n"
           "spills (ptxas -v). ptxas runs with an argument vector in a private temporary\n"
           "directory and is killed past the time limit. Without -o or --out-dir the cubins\n"
           "are checked and discarded. Cubins are written atomically, and only when every\n"
           "target assembled: a failure writes nothing and clobbers nothing.\n\n"
        << opts
        << "\nexamples:\n"
           "  ptxgen asm kernel.ptx                          # check, for the file's .target\n"
           "  ptxgen asm kernel.ptx --arch sm_90a -o kernel.cubin\n"
           "  ptxgen asm a.ptx b.ptx --arch sm_80,sm_90,sm_120 --out-dir build/ -j 4\n"
           "  ptxgen asm kernel.ptx --ptxas /usr/local/cuda-13.0/bin/ptxas\n\n"
           "exit status: 0 success, 1 ptxas rejected an input, 2 usage, 3 environment\n"
           "(no ptxas, ptxas crashed, hung or failed to start, an I/O error).\n";
    return exit_ok;
  }
  if (inputs_in.empty())
    return usage("no input given");
  if (!output.empty() && !out_dir.empty())
    return usage("-o and --out-dir exclude each other");
  if (!(timeout_s > 0) || timeout_s > 86400)
    return usage("--timeout must be between 0 and 86400 seconds");
  std::vector<ptx::Target> arches;
  std::string error;
  if (!parse_arches(arch_values, arches, error))
    return usage(error);
  if (vm.count("arch") && arches.empty())
    return usage("--arch names no target");

  // Inputs first: an unsupported kind is a usage error, before looking for ptxas.
  std::vector<std::string> ptx(inputs_in.size());
  bool io_failed = false;
  for (std::size_t i = 0; i < inputs_in.size(); ++i) {
    InputError kind = InputError::none;
    auto text = ptx_for_input(inputs_in[i], kind, error);
    if (kind == InputError::unsupported)
      return usage(error);
    if (!text) {
      std::cerr << "ptxgen asm: " << error << '\n';
      io_failed = true;
      continue;
    }
    ptx[i] = std::move(*text);
  }
  if (io_failed)
    return exit_environment;

  std::vector<Target> targets;
  for (std::size_t i = 0; i < inputs_in.size(); ++i) {
    if (!arches.empty()) {
      for (const auto& a : arches)
        targets.push_back({i, a});
      continue;
    }
    auto declared = declared_target(ptx[i]);
    if (!declared)
      return usage("'" + inputs_in[i] +
                   "' has no .target directive ptxgen understands; pass --arch");
    targets.push_back({i, *declared});
  }
  if (!output.empty() && targets.size() != 1)
    return usage("-o takes exactly one input and one target; use --out-dir for " +
                 std::to_string(targets.size()) + " cubins");

  if (!out_dir.empty()) {
    // Two inputs with one stem would write the same cubin name.
    for (std::size_t a = 0; a < inputs_in.size(); ++a)
      for (std::size_t b = a + 1; b < inputs_in.size(); ++b)
        if (fs::path(inputs_in[a]).stem() == fs::path(inputs_in[b]).stem())
          return usage("'" + inputs_in[a] + "' and '" + inputs_in[b] + "' would both write " +
                       fs::path(inputs_in[a]).stem().string() + ".<arch>.cubin in --out-dir");
  }

  auto ptxas = driver::locate_ptxas(ptxas_path, error);
  if (!ptxas) {
    std::cerr << "ptxgen asm: " << error << '\n';
    return exit_environment;
  }

  const bool keep = !output.empty() || !out_dir.empty();
  std::vector<driver::AssembleJob> jobs_list;
  for (const auto& t : targets) {
    driver::AssembleJob job;
    job.ptx = ptx[t.input];
    job.options.target = t.arch;
    job.options.keep_cubin = keep;
    job.options.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
    jobs_list.push_back(std::move(job));
  }
  auto results = driver::assemble_all(ptxas->path, jobs_list, jobs);

  int status = exit_ok;
  std::vector<std::vector<std::string>> rows = {
      {"file", "entry", "arch", "registers", "smem", "stack", "spill stores", "spill loads"}};
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const auto& t = targets[k];
    const auto& r = results[k];
    const std::string& file = inputs_in[t.input];
    switch (r.status) {
    case AssembleResult::Status::ok:
      for (const auto& m : r.messages)
        print_message(file, t.arch, m); // warnings
      for (const auto& u : r.usage)
        rows.push_back({file, u.entry, t.arch.str(), std::to_string(u.registers),
                        std::to_string(u.shared_bytes), std::to_string(u.stack_bytes),
                        std::to_string(u.spill_stores), std::to_string(u.spill_loads)});
      break;
    case AssembleResult::Status::rejected:
      print_rejection(file, t.arch, r);
      status = std::max<int>(status, exit_input);
      break;
    default:
      std::cerr << "ptxgen asm: " << file << " (" << t.arch.str() << "): " << r.describe() << '\n';
      status = exit_environment;
      break;
    }
  }
  if (rows.size() > 1)
    print_usage_table(rows);
  if (status != exit_ok) {
    if (keep)
      std::cerr << "ptxgen asm: no cubin written\n";
    return status;
  }
  if (!keep)
    return exit_ok;

  if (!out_dir.empty()) {
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) {
      std::cerr << "ptxgen asm: cannot create '" << out_dir << "': " << ec.message() << '\n';
      return exit_environment;
    }
  }
  for (std::size_t k = 0; k < targets.size(); ++k) {
    const auto& t = targets[k];
    fs::path dest = !output.empty()
                        ? fs::path(output)
                        : fs::path(out_dir) / (fs::path(inputs_in[t.input]).stem().string() + "." +
                                               t.arch.str() + ".cubin");
    const auto& bytes = results[k].cubin;
    std::string_view contents(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (!driver::write_file_atomically(dest, contents, error)) {
      std::cerr << "ptxgen asm: " << error << '\n';
      return exit_environment;
    }
  }
  return exit_ok;
}

} // namespace

PTXGEN_REGISTER_COMMAND(asm_command, "asm",
                        "assemble PTX with ptxas for several targets; resource usage", run_asm);

} // namespace ptxgen::cli
