// ptxgen_ref_sim_bench: the speed of ptxgen's CPU side (issue 13): the reference and the
// simulator that `ptxgen check` and `ptxgen run --backend sim` use.
//
// usage: ptxgen_ref_sim_bench [--quick]
// Prints, with the machine (hardware threads, CPU model), the date and the command:
//  1. the reference (driver::evaluate_reference) on plain copy specs: the 1024 x 1024 float32
//     copy (specs/large/copy_1024x1024_f32.toml) and the persistent streaming copy
//     (tools/bench/stream_copy_persistent.toml) with 2 GiB / 8 tensors (n_tiles and the
//     tensors' first axis divided by 8: the 2 GiB one does not fit in this machine's memory
//     three times over), each as GB/s of output bytes (the reference runs on one host thread;
//     per cpu second = per core), copying the input ("copy": evaluate_reference(const&)) and
//     taking it ("take": evaluate_reference(&&), as ptxgen check and run do; the input copied
//     before each run, untimed), with the CTAs replayed
//     (ReferenceInput::replay); on the 1024 x 1024 copy for comparison the fast path with
//     every CTA checked (replay = false, "check") and the naive path (fast = false);
//  2. the simulator on the 1024 x 1024 copy: PTX instructions per second on one host
//     thread (Launch::workers = 1) and on all of them (workers = 0);
//  3. the wall time of `ptxgen check` and `ptxgen run --backend sim` of the 1024 x 1024
//     copy (the ptxgen built beside this program, as a child process).
// It allocates as ptxgen does (its operator new: huge pages for big allocations).
// --quick (the smoke test, tests/bench.cmake): one repetition of each, without the check and
// naive reference and the streaming copy; otherwise the best of 20 for the 1024 x 1024 copy's
// reference (milliseconds each), of 3 for the simulator and the child processes, and of 2
// for the streaming copy.
// Exit status: 0, 1 when a step fails (a spec that does not load, a fault, a child that
// does not succeed).

#include "driver/reference/reference.hpp"
#include "driver/run/binding.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/sim/simulator.hpp"
#include "driver/support/process.hpp"
#include "driver/toml/reader_spec.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace ptxgen;
using Clock = std::chrono::steady_clock;

const fs::path source_dir = PTXGEN_SOURCE_DIR;
const fs::path copy_spec = source_dir / "specs/large/copy_1024x1024_f32.toml";
const fs::path stream_spec = source_dir / "tools/bench/stream_copy_persistent.toml";

/// A timing: wall seconds, and the CPU seconds of this process (all its threads) in them.
struct Time {
  double wall = 1e300;
  double cpu = 0;
};

/// The run of f with the best wall time out of `runs`, `prepare` (untimed) before each. The
/// machine may be shared: where the wall time is far above the CPU time, other processes had
/// the cores.
Time best_of(int runs, const std::function<void()>& f,
             const std::function<void()>& prepare = nullptr) {
  Time best;
  for (int i = 0; i < runs; ++i) {
    if (prepare)
      prepare();
    const std::clock_t cpu = std::clock();
    const auto start = Clock::now();
    f();
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    if (wall < best.wall)
      best = {wall, static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC};
  }
  return best;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0)
      return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

/// The reference's input for k: each global tensor's initial bytes.
driver::ReferenceInput reference_input(const tile::Kernel& k) {
  driver::ReferenceInput in;
  in.kernel = &k;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      in.global[t->tensor.name] = driver::initial_bytes(*t);
  return in;
}

std::size_t output_bytes(const tile::Kernel& k) {
  std::size_t n = 0;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global && t->output)
      n += driver::initial_bytes(*t).size();
  return n;
}

/// How the reference runs: the fast path with CTAs replayed (ReferenceInput::replay) on a
/// copy of the input, the same taking the input's bytes (evaluate_reference(&&), as `ptxgen
/// check` and `run` call it; the input is copied before each run, untimed), the fast path with
/// every CTA checked, or the naive path (the oracle).
enum class Mode { copied, taken, checked, naive };

/// Times the reference on k; false when it reports a problem. Returns the timing through `t`.
bool reference_row(const std::string& what, const tile::Kernel& k, Mode mode, int runs, Time& t) {
  driver::ReferenceInput in = reference_input(k);
  in.fast = mode != Mode::naive;
  in.replay = mode == Mode::copied || mode == Mode::taken;
  std::size_t problems = 0;
  std::int64_t replayed = 0;
  driver::ReferenceInput mine; // Mode::taken: a copy of `in` for each run
  t = best_of(
      runs,
      [&] {
        const driver::ReferenceOutput out = mode == Mode::taken
                                                ? driver::evaluate_reference(std::move(mine))
                                                : driver::evaluate_reference(in);
        problems = out.problems.size();
        replayed = out.replayed;
      },
      [&] {
        if (mode == Mode::taken)
          mine = in;
      });
  const double gb = static_cast<double>(output_bytes(k)) / 1e9;
  static const char* const names[] = {"copy", "take", "check", "naive"};
  std::printf("  %-38s %-5s wall %7.3f s cpu %7.3f s  %7.3f GB/s (per cpu second %7.3f), %lld "
              "CTAs replayed\n",
              what.c_str(), names[static_cast<int>(mode)], t.wall, t.cpu, gb / t.wall, gb / t.cpu,
              static_cast<long long>(replayed));
  return problems == 0;
}

/// The fast reference on k, copying and taking the input.
bool reference_pair(const std::string& what, const tile::Kernel& k, int runs) {
  Time t;
  bool ok = reference_row(what, k, Mode::copied, runs, t);
  ok = reference_row(what, k, Mode::taken, runs, t) && ok;
  return ok;
}

bool reference_section(int runs) {
  std::printf("reference, output bytes per second (per cpu second: per core):\n");
  auto copy = driver::load_spec_file(copy_spec);
  std::ifstream stream_in(stream_spec);
  std::stringstream text;
  text << stream_in.rdbuf();
  // 2 GiB / 8: 32768 tiles of 8 KiB (n_tiles's value and range, the tensors' first axis).
  auto stream = driver::load_spec_text(replace_all(text.str(), "262144", "32768"),
                                       "stream_copy_persistent_256MiB.toml");
  if (!copy || !stream) {
    std::cerr << copy.diagnostics.format_all() << stream.diagnostics.format_all();
    return false;
  }
  const int copy_runs = runs > 1 ? 20 : 1; // milliseconds each
  bool ok = reference_pair("copy_1024x1024_f32 (4 MiB)", **copy.value, copy_runs);
  if (runs > 1) { // not in --quick: seconds each
    Time other;
    ok = reference_row("copy_1024x1024_f32 (4 MiB)", **copy.value, Mode::checked, copy_runs,
                       other) &&
         ok;
    ok = reference_row("copy_1024x1024_f32 (4 MiB)", **copy.value, Mode::naive, 1, other) && ok;
    ok = reference_pair("stream_copy_persistent / 8 (256 MiB)", **stream.value, 2) && ok;
  }
  return ok;
}

/// Runs the emitted 1024 x 1024 copy on the simulator with `workers` host threads.
bool simulator_row(const driver::EmittedSpec& e, const sim::Program& program, unsigned workers,
                   int runs) {
  const tile::Kernel& k = *e.kernel;
  const driver::Binding binding = driver::own_binding(k);
  std::map<std::string, std::vector<std::uint8_t>> bytes;
  for (const auto& t : k.tensors)
    if (t->tensor.space == tile::Space::global)
      bytes[t->tensor.name] = driver::initial_bytes(*t);
  std::vector<sim::GlobalBuffer> memory;
  std::map<std::string, std::uint64_t> address;
  std::uint64_t next = 0x10'0000'0000ull;
  for (auto& [name, b] : bytes) {
    address[name] = next;
    memory.push_back({next, &b, name});
    next += (b.size() + (2u << 20)) & ~((std::uint64_t{1} << 20) - 1);
  }
  sim::Launch launch;
  launch.grid_dim = {static_cast<std::uint32_t>(k.grid_dim.x),
                     static_cast<std::uint32_t>(k.grid_dim.y),
                     static_cast<std::uint32_t>(k.grid_dim.z)};
  launch.block_dim = {static_cast<std::uint32_t>(k.block_dim.x),
                      static_cast<std::uint32_t>(k.block_dim.y),
                      static_cast<std::uint32_t>(k.block_dim.z)};
  launch.dynamic_shared_bytes = binding.dynamic_shared_bytes;
  launch.workers = workers;
  for (const auto& b : binding.params)
    launch.params.push_back(b.kind == lower::ParamBinding::Kind::tensor
                                ? address.at(b.name)
                                : k.find_param(b.name)->value);
  std::uint64_t instructions = 0;
  bool ok = true;
  // The launch only (a copy: running it again over its own output changes nothing).
  const Time timing = best_of(runs, [&] {
    const sim::SimResult r = sim::run(program, binding.entry, launch, memory);
    instructions = r.instructions_executed;
    if (r.fault) {
      std::cerr << sim::name(r.fault->kind) << ": " << r.fault->message << "\n";
      ok = false;
    }
  });
  const double m = static_cast<double>(instructions) / 1e6;
  std::printf("  workers %-3s %10llu instructions, wall %7.3f s cpu %7.3f s  %7.1f M "
              "instructions/s (per cpu second %7.1f M)\n",
              workers == 0 ? "all" : std::to_string(workers).c_str(),
              static_cast<unsigned long long>(instructions), timing.wall, timing.cpu,
              m / timing.wall, m / timing.cpu);
  return ok;
}

bool simulator_section(int runs) {
  std::printf("simulator, copy_1024x1024_f32 (the launch; memory set up before):\n");
  const driver::EmittedSpec e = driver::emit_spec(copy_spec, lower::LowerOptions{});
  if (!e.ok()) {
    std::cerr << e.diagnostics.format_all();
    return false;
  }
  auto program = sim::Program::parse(e.ptx);
  if (!program) {
    std::cerr << program.diagnostics.format_all();
    return false;
  }
  bool ok = simulator_row(e, *program.value, 1, runs);
  return simulator_row(e, *program.value, 0, runs) && ok;
}

bool command_row(const std::vector<std::string>& args, int runs) {
  driver::ProcessResult r;
  const Time t = best_of(runs, [&] { r = driver::run_process(PTXGEN_EXE, args); });
  std::string line = "ptxgen";
  for (const auto& a : args)
    line += " " + (a.find('/') != std::string::npos ? fs::path(a).filename().string() : a);
  std::printf("  %-50s wall %7.3f s  (%s)\n", line.c_str(), t.wall, r.describe().c_str());
  if (!r.succeeded())
    std::cerr << r.output;
  return r.succeeded();
}

} // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string(argv[1]) == "--quick";
  if (argc > 2 || (argc == 2 && !quick)) {
    std::cerr << "usage: ptxgen_ref_sim_bench [--quick]\n";
    return 2;
  }
  const int runs = quick ? 1 : 3;
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  std::printf("ptxgen_ref_sim_bench%s: %s, %u hardware threads, %s\n", quick ? " --quick" : "",
              date, std::thread::hardware_concurrency(), cpu_model().c_str());
  bool ok = reference_section(runs);
  ok = simulator_section(runs) && ok;
  std::printf("ptxgen, copy_1024x1024_f32 (wall time of the child process):\n");
  ok = command_row({"check", copy_spec.string()}, runs) && ok;
  ok = command_row({"run", "--backend", "sim", copy_spec.string()}, runs) && ok;
  return ok ? 0 : 1;
}
