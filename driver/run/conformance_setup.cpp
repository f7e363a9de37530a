#include "driver/run/conformance_setup.hpp"

#include "driver/cuda/sanitizer_runner.hpp"
#include "driver/ptxas/declared_target.hpp"
#include "driver/run/spec_files.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace ptxgen::driver {

namespace fs = std::filesystem;

std::string whose_ptx(const ConformanceOptions& o) {
  if (o.ptx_override.empty())
    return "ptxgen's PTX for " + o.target.value_or(emitted_target).str();
  return o.ptx_override_name.empty() ? std::string("the PTX given with --ptx")
                                     : "the PTX of '" + o.ptx_override_name + "' (--ptx)";
}

namespace {

/// The ordinals a run asks for: --devices, or --device alone. For `all`, device 0:
/// its probe says how many more there are.
std::vector<int> requested_devices(const ConformanceOptions& o) {
  if (o.all_devices)
    return {0};
  return o.devices.empty() ? std::vector<int>{o.device} : o.devices;
}

/// "0,2"
std::string ordinal_list(const std::vector<cuda::IsolatedRunner>& gpus) {
  std::string s;
  for (const auto& g : gpus)
    s += (s.empty() ? "" : ",") + std::to_string(g.device().ordinal);
  return s;
}

/// Probes every device the run asks for, one isolated runner each, and sets
/// s.arch and what runs the cases ("cuda: NVIDIA H200 (sm_90), device 0"). False,
/// with s.state and s.problem set, when the first device is unusable (no_gpu), or
/// a later one is or differs from the first in compute capability (bad_devices:
/// ptxas assembles each case for one target).
bool open_gpus(const ConformanceOptions& o, RunSetup& s, std::string& runs_on) {
  using State = ConformanceReport::Setup;
  std::vector<int> ordinals = requested_devices(o);
  int cc_major = 0, cc_minor = 0;
  std::string names;
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    const auto& gpu = s.gpus.emplace_back(ordinals[i]);
    const auto& d = gpu.device();
    if (!gpu.available()) {
      s.state = i == 0 ? State::no_gpu : State::bad_devices;
      s.problem = i == 0 ? "no usable GPU: " + gpu.unavailable_reason()
                         : "--devices: device " + std::to_string(ordinals[i]) +
                               " is not usable: " + gpu.unavailable_reason();
      return false;
    }
    if (i == 0) {
      cc_major = d.cc_major;
      cc_minor = d.cc_minor;
      for (int more = 1; o.all_devices && more < d.device_count; ++more)
        ordinals.push_back(more);
    } else if (d.cc_major != cc_major || d.cc_minor != cc_minor) {
      s.state = State::bad_devices;
      s.problem = "--devices: device " + std::to_string(d.ordinal) + " (" + d.arch() +
                  ") differs from device " + std::to_string(ordinals[0]) + " (" +
                  s.gpus.front().device().arch() +
                  "): ptxas assembles for one target; list devices of one kind";
      return false;
    }
    if (names.find(d.name) == std::string::npos)
      names += (names.empty() ? "" : ", ") + d.name;
  }
  s.arch = o.arch.value_or(ptx::Target{cc_major * 10 + cc_minor, false});
  runs_on = "cuda: " + names + " (" + s.arch.str() + "), " +
            (s.gpus.size() == 1 ? "device " : "devices ") + ordinal_list(s.gpus);
  return true;
}

// compute-sanitizer beside the run's ptxas, on PATH, or in
// /usr/local/cuda/bin; false (the setup refused) when there is none.
bool find_sanitizer(const ConformanceOptions& o, RunSetup& s) {
  const auto ptxas = locate_ptxas(o.ptxas); // a missing one is reported by set_up itself
  const char* path = std::getenv("PATH");
  s.sanitizer = cuda::locate_compute_sanitizer(ptxas ? ptxas->path : fs::path(o.ptxas),
                                               path ? path : "", cuda::default_sanitizer_dirs());
  std::error_code ec;
  s.self = fs::read_symlink("/proc/self/exe", ec);
  if (s.sanitizer && !ec)
    return true;
  s.state = ConformanceReport::Setup::no_sanitizer;
  if (s.sanitizer) {
    s.problem = "--sanitize: cannot find this program's own path for its device worker "
                "(/proc/self/exe): " +
                ec.message();
    return false;
  }
  s.problem = "--sanitize: no compute-sanitizer beside ptxas, on PATH or in /usr/local/cuda/bin "
              "(it comes with the CUDA toolkit)";
  return false;
}

/// The simulator's target without --arch: a --ptx file is assembled for the `.target` it
/// declares, as `ptxgen asm` does (ptxas refuses a file whose `.target` is newer than its
/// -arch), but never below emitted_target, the oldest with cp.async; ptxgen's own PTX for
/// emitted_target.
ptx::Target simulated_target(const std::string& ptx_override) {
  if (ptx_override.empty())
    return emitted_target;
  return std::max(emitted_target, declared_target(ptx_override).value_or(emitted_target));
}

} // namespace

ptx::Target assembly_target(Backend backend, ptx::Target run, ptx::Target kernel) {
  if (backend == Backend::sim)
    return std::max(run, kernel);
  if (kernel.arch_specific && kernel.sm == run.sm)
    return kernel;
  return run;
}

RunSetup set_up(const ConformanceOptions& o) {
  RunSetup s;
  using State = ConformanceReport::Setup;
  std::string runs_on = "sim: the CPU simulator";
  if (o.sanitize && !find_sanitizer(o, s))
    return s;
  if (o.backend == Backend::cuda) {
    if (!open_gpus(o, s, runs_on))
      return s;
  } else {
    s.arch = o.arch.value_or(o.target.value_or(simulated_target(o.ptx_override)));
  }
  auto ptxas = locate_ptxas(o.ptxas);
  if (!ptxas) {
    s.state = State::no_ptxas;
    s.problem = ptxas.error();
    return s;
  }
  s.ptxas = std::move(*ptxas);
  const std::string ptxas_text =
      "ptxas '" + s.ptxas->path.string() + "' (" + s.ptxas->found_by + ")";
  auto probe = self_test(s.ptxas->path, emitted_target, s.arch);
  if (!probe.ok()) {
    s.state = State::broken_ptxas;
    s.problem = ptxas_text + " cannot assemble an empty kernel for " + s.arch.str() + ": " +
                probe.describe();
    return s;
  }
  if (o.backend == Backend::cuda && o.jit)
    s.extras += ", loaded as PTX through the driver's JIT";
  if (o.sanitize)
    s.extras += "; each case under compute-sanitizer --tool " +
                std::string(cuda::name(*o.sanitize)) + " ('" + s.sanitizer->string() +
                "'), one worker process per case";
  s.runs_on = runs_on;
  s.ptxas_text = ptxas_text;
  s.description = runs_on + "; " + whose_ptx(o) + ", assembled by " + ptxas_text + " for " +
                  s.arch.str() + s.extras;
  return s;
}

} // namespace ptxgen::driver
