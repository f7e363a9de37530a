#include "driver/run/conformance.hpp"

#include "driver/cuda/isolated_runner.hpp"
#include "driver/cuda/sanitizer_runner.hpp"
#include "driver/ptxas/declared_target.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/ptxas/ptxas_output.hpp"
#include "driver/reference/expect.hpp"
#include "driver/reference/reference.hpp"
#include "driver/run/binding.hpp"
#include "driver/run/conformance_setup.hpp"
#include "driver/run/range_proof.hpp"
#include "driver/run/result_cache.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/run/tensor_data.hpp"
#include "driver/sass/disassemble.hpp"
#include "driver/sim/simulator.hpp"
#include "driver/support/atomic_file.hpp"
#include "driver/support/diagnostic_format.hpp"
#include "driver/support/escape.hpp"
#include "emitter/lower/abi.hpp"
#include "emitter/support/enum_names.hpp"
#include "emitter/tile/well_formed.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <sstream>
#include <thread>

namespace ptxgen::driver {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string_view name(Backend b) {
  return b == Backend::cuda ? "cuda" : "sim";
}

std::string_view name(CaseResult::Status s) {
  static constexpr auto names = enum_names<CaseResult::Status::unsupported>(
      "pass", "mismatch", "fault", "invalid", "error", "unsupported");
  return name_of(names, s);
}

std::string_view name(CaseResult::Stage s) {
  using S = CaseResult::Stage;
  static constexpr auto names = enum_names<S::internal>(
      "none", "emit", "reference", "ptxas", "bind", "simulate", "load", "launch", "kernel",
      "compare", "output", "sanitizer", "device", "setup", "internal");
  return name_of(names, s);
}

bool has_copy_arrive_inc(const tile::Kernel& k) {
  return std::any_of(k.ops.begin(), k.ops.end(), [](const tile::Op& op) {
    const auto* arrive = std::get_if<tile::CopyArriveOp>(&op.body);
    return arrive && !arrive->noinc;
  });
}

std::size_t ConformanceReport::count(CaseResult::Status s) const {
  return static_cast<std::size_t>(std::count_if(
      cases.begin(), cases.end(), [&](const CaseResult& c) { return c.status == s; }));
}

bool ConformanceReport::all_passed() const {
  return setup == Setup::ready && !cases.empty() && count(CaseResult::Status::pass) == cases.size();
}

bool ConformanceReport::environment_failed() const {
  return setup != Setup::ready || std::any_of(cases.begin(), cases.end(), [](const CaseResult& c) {
           return c.blame == CaseResult::Blame::environment;
         });
}

std::string_view name(ConformanceReport::Setup s) {
  static constexpr auto names = enum_names<ConformanceReport::Setup::no_sanitizer>(
      "ready", "no_gpu", "no_ptxas", "broken_ptxas", "bad_devices", "no_sanitizer");
  return name_of(names, s);
}

namespace {

/// A backend's final global tensors by name, as views (the GPU's come back in the
/// launch outcome, the simulator's in its own map): compared and dumped, never copied.
using Outputs = std::map<std::string, std::span<const std::uint8_t>>;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// Everything a case needs between its stages.
struct Prepared {
  CaseResult result;
  std::unique_ptr<tile::Kernel> loaded; ///< the kernel of a spec file
  const tile::Kernel* kernel = nullptr; ///< `loaded`, or the caller's (ConformanceCase)
  std::string ptx;
  std::vector<std::uint8_t> cubin;
  Binding binding; ///< the entry, its parameters and dynamic shared bytes
  /// The --ptx PTX parsed by the simulator's parser (to bind it, on every backend).
  std::optional<sim::Program> program;
  /// Why that parse failed (then `program` is empty).
  Diagnostics parse_problems;
  std::map<std::string, std::vector<std::uint8_t>> inputs;
  ReferenceOutput expected;
  bool ready = false;   ///< emitted, assembled and referenced: ready for the backend
  std::string dump_dir; ///< ConformanceOptions::dump_dir
  /// ConformanceOptions::tamper_sim_outputs, when set.
  const std::function<void(const std::string&, std::map<std::string, std::vector<std::uint8_t>>&)>*
      tamper_sim_outputs = nullptr;
  /// ConformanceOptions::also_simulate: the simulator's outcome.
  std::optional<CaseResult> sim_result;
  bool profile = false; ///< ConformanceOptions::profile
  /// ConformanceCase::outputs and reference_outputs.
  std::map<std::string, std::vector<std::uint8_t>>* outputs = nullptr;
  std::map<std::string, std::vector<std::uint8_t>>* reference_outputs = nullptr;
  /// The target ptxas assembled it for, once it did.
  std::optional<ptx::Target> assembled_for;
};

/// Marks the case as an error: `blame` says whose, `stage` where it stopped.
void fail(Prepared& p, CaseResult::Blame blame, CaseResult::Stage stage, std::string detail) {
  p.result.status = CaseResult::Status::error;
  p.result.blame = blame;
  p.result.stage = stage;
  p.result.detail = std::move(detail);
}

/// Writes the final bytes of every tensor (see ConformanceOptions::dump_dir);
/// false, with the case an environment error, when one cannot be written.
bool dump_outputs(Prepared& p, const Outputs& out) {
  if (p.dump_dir.empty())
    return true;
  std::string stem = p.result.spec;
  for (std::size_t at; (at = stem.find('/')) != std::string::npos;)
    stem.replace(at, 1, "__");
  std::error_code ec;
  fs::create_directories(p.dump_dir, ec);
  if (ec) {
    fail(p, CaseResult::Blame::environment, CaseResult::Stage::output,
         "--dump: cannot create '" + p.dump_dir + "': " + ec.message());
    return false;
  }
  for (const auto& [name, bytes] : out) {
    auto written = write_file_atomically(
        fs::path(p.dump_dir) / (stem + "." + name + ".bin"),
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    if (!written) {
      fail(p, CaseResult::Blame::environment, CaseResult::Stage::output,
           "--dump: " + written.error());
      return false;
    }
  }
  return true;
}

/// Row-major coordinates of element `index` of a shape, as "(3,17)".
std::string coords_of(const std::vector<std::int64_t>& shape, std::int64_t index) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    c[i] = index % shape[i];
    index /= shape[i];
  }
  std::string s = "(";
  for (std::size_t i = 0; i < c.size(); ++i)
    s += (i ? "," : "") + std::to_string(c[i]);
  return s + ")";
}

std::string hex_bytes(const std::uint8_t* p, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i)
      s += ' ';
    s += digits[p[i] >> 4];
    s += digits[p[i] & 15];
  }
  return s;
}

/// Compares every global tensor with the reference; fills result on mismatch.
void compare(Prepared& p, const Outputs& actual) {
  auto start = Clock::now();
  std::size_t mismatched_tensors = 0;
  std::string first;
  for (const auto& t : p.kernel->tensors) {
    if (t->tensor.space != tile::Space::global)
      continue;
    const auto& name = t->tensor.name;
    const auto& want = p.expected.global.at(name);
    auto it = actual.find(name);
    if (it == actual.end() || it->second.size() != want.size()) {
      ++mismatched_tensors;
      if (first.empty())
        first = "tensor " + name + " did not come back whole";
      continue;
    }
    const auto& got = it->second;
    const auto& defined = p.expected.defined.at(name);
    const std::size_t elem = tile::size_bytes(t->tensor.dtype);
    std::size_t bad_elements = 0;
    // Whole blocks whose bytes are equal hold no differing element whatever is defined:
    // memcmp skips them (a 2 GiB copy compares at memory speed), the rest go per element.
    const std::size_t block = elem * std::max<std::size_t>(1, 65536 / elem);
    for (std::size_t e = 0; e * elem < want.size(); ++e) {
      if (e * elem % block == 0) {
        const std::size_t n = std::min(block, want.size() - e * elem);
        if (std::memcmp(&want[e * elem], &got[e * elem], n) == 0) {
          e += n / elem - 1;
          continue;
        }
      }
      bool differs = false;
      for (std::size_t b = e * elem; b < (e + 1) * elem; ++b)
        if ((defined.empty() || defined[b]) && want[b] != got[b]) // empty: all defined
          differs = true;
      if (!differs)
        continue;
      if (bad_elements++ == 0 && first.empty())
        first = "tensor " + name + " element " + std::to_string(e) + " " +
                coords_of(t->tensor.shape, static_cast<std::int64_t>(e)) + ": expected [" +
                hex_bytes(&want[e * elem], elem) + "], got [" + hex_bytes(&got[e * elem], elem) +
                "]";
    }
    p.result.bytes_compared += want.size();
    if (bad_elements) {
      ++mismatched_tensors;
      first += " (" + std::to_string(bad_elements) + " element" + (bad_elements == 1 ? "" : "s") +
               " of " + name + " differ)";
    }
  }
  p.result.compare_ms = ms_since(start);
  if (mismatched_tensors) {
    p.result.status = CaseResult::Status::mismatch;
    p.result.stage = CaseResult::Stage::compare;
    p.result.detail = first;
  } else {
    p.result.status = CaseResult::Status::pass;
  }
}

/// Assembles the case's PTX for `arch`; the cubin is kept when the GPU loads it.
void assemble_case(Prepared& p, const ConformanceOptions& o, const PtxasLocation& ptxas,
                   ptx::Target arch) {
  AssembleOptions ao;
  ao.target = arch;
  p.assembled_for = arch;
  ao.verbose = false;
  ao.keep_cubin = o.backend == Backend::cuda && !o.jit;
  auto r = assemble(ptxas.path, p.ptx, ao);
  p.result.ptxas_ms = r.seconds * 1000.0;
  switch (r.status) {
  case AssembleResult::Status::ok:
    p.cubin = std::move(r.cubin);
    p.ready = true;
    return;
  case AssembleResult::Status::rejected:
    fail(p, CaseResult::Blame::input, CaseResult::Stage::ptxas, r.describe());
    // ptxas's errors, at the lines of a --ptx file, or
    // naming the spec whose emitted PTX it rejected.
    p.result.diagnostics = o.ptx_override.empty()
                               ? ptxas_diagnostics(r, {p.result.spec, true}, arch)
                               : ptxas_diagnostics(r, {o.ptx_override_name, false}, arch);
    return;
  case AssembleResult::Status::failed_to_start:
  case AssembleResult::Status::crashed:
  case AssembleResult::Status::timed_out:
  case AssembleResult::Status::io_error:
    fail(p, CaseResult::Blame::environment, CaseResult::Stage::ptxas, r.describe());
    return;
  }
}

/// Verifies the spec's expectations on the reference's result, before any backend
/// runs: a reference that misses one means the spec describes the wrong kernel, and
/// the case is invalid (what `ptxgen check` says of it). False then.
bool expectations_hold(Prepared& p) {
  const auto results = check_expectations(*p.kernel, p.inputs, p.expected.global);
  const Diagnostics failed = expectation_diagnostics(*p.kernel, results);
  p.result.expectations = results.size();
  p.result.expectations_failed = failed.items().size();
  if (failed.empty())
    return true;
  p.result.status = CaseResult::Status::invalid;
  p.result.stage = CaseResult::Stage::reference;
  p.result.detail = failed.format_all();
  p.result.diagnostics = failed; // the fuzz signature's DiagIds
  return false;
}

/// Marks the case as one the simulator cannot run, listing every line it will not run.
void mark_unsupported(Prepared& p, std::vector<sim::UnsupportedLine> lines,
                      const std::string& entry) {
  p.result.status = CaseResult::Status::unsupported;
  p.result.blame = CaseResult::Blame::none;
  p.result.stage = CaseResult::Stage::simulate;
  p.result.sim_fault = sim::FaultKind::unsupported;
  p.result.detail = "the simulator cannot run " + std::to_string(lines.size()) + " line" +
                    (lines.size() == 1 ? "" : "s") + " of entry `" + entry + "`:";
  for (const auto& l : lines)
    p.result.detail += "\n  line " + std::to_string(l.line) + ": `" + l.text + "`: " + l.reason;
  p.result.unsupported = std::move(lines);
}

/// The lines of a parse that failed only on constructs the simulator does not
/// model (sim_unsupported_construct); empty when some error is another kind.
std::vector<sim::UnsupportedLine> unsupported_constructs(const Diagnostics& ds) {
  std::vector<sim::UnsupportedLine> out;
  for (const Diagnostic& d : ds.items()) {
    if (d.severity != Severity::error)
      continue;
    if (d.id != DiagId::sim_unsupported_construct)
      return {};
    std::string text = d.source_line;
    text.erase(0, text.find_first_not_of(" \t"));
    out.push_back({d.line, text, d.message});
  }
  return out;
}

/// Parses the --ptx PTX with the simulator's parser (on every backend: its
/// parameter list is what binds) and binds the chosen entry to the spec; false,
/// with the case failed, when the PTX cannot be read or does not fit.
bool bind_case(Prepared& p, const ConformanceOptions& o) {
  auto start = Clock::now();
  auto program = sim::Program::parse(p.ptx);
  p.result.load_ms = ms_since(start);
  if (!program) {
    p.parse_problems = program.diagnostics;
    if (!o.entry.empty())
      p.binding.entry = o.entry;
    if (o.backend == Backend::sim)
      return true; // run_on_sim says what the simulator cannot read
    fail(p, CaseResult::Blame::input, CaseResult::Stage::bind,
         "cannot check the PTX's parameters against the spec: the simulator's parser does "
         "not read it:\n" +
             program.diagnostics.format_all());
    for (Diagnostic d : program.diagnostics.items()) { // in the --ptx file
      if (d.file.empty())
        d.file = o.ptx_override_name;
      p.result.diagnostics.add(std::move(d));
    }
    return false;
  }
  p.program = std::move(*program);
  auto b = bind_foreign(*p.kernel, *p.program, o.entry, o.ptx_override_name);
  if (!b) {
    p.result.diagnostics = b.diagnostics;
    fail(p, CaseResult::Blame::input, CaseResult::Stage::bind, b.diagnostics.format_all());
    return false;
  }
  p.binding = std::move(*b);
  return true;
}

/// Sets the case's parameter values in its own kernel; false (with run_param_value in the
/// result's diagnostics) for a name the spec lacks, a value outside its declared range, or a
/// caller's kernel (which carries its own values).
bool apply_settings(Prepared& p, const ConformanceCase& c) {
  auto refuse = [&](std::string message) {
    Diagnostic d(DiagId::run_param_value, std::move(message));
    d.file = c.file.generic_string();
    p.result.diagnostics.add(std::move(d));
    return false;
  };
  if (!p.loaded)
    return refuse("parameter values apply to spec files; a kernel given by the caller runs "
                  "with its own");
  for (const ParamSetting& s : c.params)
    if (auto d = tile::set_param_value(*p.loaded, s.name, s.value))
      return refuse("--param " + s.name + "=" + std::to_string(s.value) + ": " + d->message);
  return true;
}

/// True (and the case invalid) when the whole-launch checks fail at parameter values other
/// than the test values: `run` refuses what `check` refuses. Called once the test values
/// passed, so the errors are the other values'; the proof is check's, from the same cache.
bool refused_elsewhere(Prepared& p) {
  const auto start = Clock::now();
  const Diagnostics found = cached_whole_launch_findings(*p.kernel);
  p.result.proof_ms = ms_since(start);
  if (!found.has_errors())
    return false;
  Diagnostics errors;
  for (const auto& d : found.items())
    if (d.severity == Severity::error)
      errors.add(d);
  fail(p, CaseResult::Blame::input, CaseResult::Stage::reference,
       "the whole-launch checks refuse the spec at other parameter values:\n" +
           errors.format_all());
  p.result.diagnostics.append(errors);
  return true;
}

/// Emit, evaluate the reference and assemble for one case.
void prepare(Prepared& p, const ConformanceCase& c, const ConformanceOptions& o,
             const PtxasLocation& ptxas, ptx::Target arch) {
  p.result.spec = c.name;
  p.dump_dir = o.dump_dir;
  p.profile = o.profile;
  if (o.tamper_sim_outputs)
    p.tamper_sim_outputs = &o.tamper_sim_outputs;
  lower::LowerOptions lo;
  lo.target = o.target.value_or(emitted_target);
  lo.raise_target = !o.target;
  lo.run_target = arch; // ptxas assembles for it: its shared memory is the limit
  lo.unchecked = o.unchecked;
  auto start = Clock::now();
  EmittedSpec e;
  if (c.kernel)
    cached_lower_into(e, *c.kernel, lo, FaultSpecs::run_unchecked);
  else
    e = emit_spec(c.file, lo, FaultSpecs::run_unchecked);
  p.result.emit_ms = ms_since(start);
  p.loaded = std::move(e.kernel);
  p.kernel = c.kernel ? c.kernel : p.loaded.get();
  if (!c.params.empty() && e.ok() && !apply_settings(p, c)) {
    p.result.status = CaseResult::Status::invalid;
    p.result.stage = CaseResult::Stage::emit;
    p.result.detail = p.result.diagnostics.format_all();
    return;
  }
  p.result.expect_fault = p.kernel && p.kernel->must_fault;
  if (!p.kernel || !e.ok()) {
    p.result.status = CaseResult::Status::invalid;
    p.result.stage = CaseResult::Stage::emit;
    p.result.detail = e.diagnostics.format_all();
    p.result.diagnostics = e.diagnostics; // the fuzz signature's DiagIds
    return;
  }
  p.ptx = o.ptx_override.empty() ? e.ptx : o.ptx_override;
  p.binding = own_binding(*p.kernel, arch);
  p.result.copy_arrive_inc = o.ptx_override.empty() && has_copy_arrive_inc(*p.kernel);

  for (const auto& t : p.kernel->tensors) {
    if (t->tensor.space != tile::Space::global)
      continue;
    if (c.inputs && c.inputs->contains(t->tensor.name))
      p.inputs[t->tensor.name] = c.inputs->at(t->tensor.name);
    else
      p.inputs[t->tensor.name] = initial_bytes(*t);
  }
  p.outputs = c.outputs;
  p.reference_outputs = c.reference_outputs;

  // For a fault spec the reference still says what was asked for (it does not
  // check the contract), so a kernel that completes can be shown to be wrong.
  {
    start = Clock::now();
    ReferenceInput in{p.kernel, p.inputs};
    p.expected = evaluate_reference(std::move(in)); // a copy of the inputs: its bytes are taken
    p.result.reference_ms = ms_since(start);
    if (p.reference_outputs)
      *p.reference_outputs = p.expected.global;
    if (!p.expected.problems.empty() && !p.result.expect_fault) {
      Diagnostics found = findings_as_diagnostics(*p.kernel, p.expected);
      // Test only (PTXGEN_TEST_DISABLE_RULE): a spec whose problems are all of disabled rules
      // runs, so that the hardware judges what those rules refuse
      // (tools/fuzz_rules_device.sh).
      if (!drop_disabled_rules(found) || found.has_errors()) {
        fail(p, CaseResult::Blame::input, CaseResult::Stage::reference,
             "the reference found a problem in the spec: " + p.expected.problems.front());
        // its problems' DiagIds (check_*), for the fuzz signature.
        for (const auto& d : found.items())
          if (d.severity == Severity::error)
            p.result.diagnostics.add(d);
        return;
      }
    }
    // The expectations at the case's values (apply_settings made them the kernel's).
    if (!expectations_hold(p))
      return;
    // The test values passed: the other values of the declared ranges, as check runs them.
    if (!p.result.expect_fault && !o.unchecked && refused_elsewhere(p))
      return;
  }
  if (e.module)
    arch = assembly_target(o.backend, arch, e.module->target);
  assemble_case(p, o, ptxas, arch);
  // ptxas has the first word on the PTX; then the entry must fit the spec.
  if (p.ready && !o.ptx_override.empty() && !bind_case(p, o))
    p.ready = false;
}

/// Judges a finished launch: faults, then the comparison.
void judge_fault(Prepared& p, const std::string& fault) {
  if (p.result.expect_fault) {
    p.result.status = CaseResult::Status::pass;
    p.result.evidence = CaseResult::Evidence::fault;
    p.result.detail = "faulted as expected: " + fault;
  } else {
    p.result.status = CaseResult::Status::fault;
    p.result.stage = CaseResult::Stage::kernel;
    p.result.detail = fault;
  }
}

/// A kernel that completed. A fault spec passes only when what it did differs
/// from what it asked for: then the contract prevented a silent wrong result.
void judge_no_fault(Prepared& p, const Outputs& out) {
  if (!dump_outputs(p, out))
    return;
  if (p.outputs)
    for (const auto& [name, bytes] : out)
      (*p.outputs)[name].assign(bytes.begin(), bytes.end());
  compare(p, out);
  if (!p.result.expect_fault)
    return;
  if (p.result.status == CaseResult::Status::mismatch) {
    p.result.status = CaseResult::Status::pass;
    p.result.stage = CaseResult::Stage::none;
    p.result.evidence = CaseResult::Evidence::wrong_result;
    p.result.detail = "no fault, but a silently wrong result: " + p.result.detail;
  } else {
    p.result.status = CaseResult::Status::fault;
    p.result.stage = CaseResult::Stage::compare;
    p.result.detail = "expected a fault or a wrong result, but the kernel did what was asked";
  }
}

/// The simulator's form of a launch extent (the loader keeps each within the hardware's limits).
sim::Dim3 sim_dims(const tile::Dim3& d) {
  return {static_cast<std::uint32_t>(d.x), static_cast<std::uint32_t>(d.y),
          static_cast<std::uint32_t>(d.z)};
}

void run_on_sim(Prepared& p) {
  if (!p.program && p.parse_problems.empty()) {
    auto start = Clock::now();
    auto parsed = sim::Program::parse(p.ptx);
    p.result.load_ms = ms_since(start);
    if (parsed)
      p.program = std::move(*parsed);
    else
      p.parse_problems = std::move(parsed.diagnostics);
  }
  if (!p.program) {
    // ptxas took this PTX, so it is the simulator's subset that falls short.
    if (auto lines = unsupported_constructs(p.parse_problems); !lines.empty()) {
      mark_unsupported(p, std::move(lines), p.binding.entry);
      return;
    }
    fail(p, CaseResult::Blame::input, CaseResult::Stage::simulate,
         "the simulator cannot parse the PTX:\n" + p.parse_problems.format_all());
    return;
  }
  if (auto lines = p.program->unsupported(p.binding.entry); !lines.empty()) {
    mark_unsupported(p, std::move(lines), p.binding.entry);
    return;
  }
  // Each buffer at its own 1 MiB-aligned simulated device address, far apart.
  std::map<std::string, std::vector<std::uint8_t>> bytes = p.inputs;
  std::vector<sim::GlobalBuffer> memory;
  std::map<std::string, std::uint64_t> address;
  std::uint64_t next = 0x10'0000'0000ull;
  for (auto& [name, b] : bytes) {
    address[name] = next;
    memory.push_back({next, &b, name});
    next += (static_cast<std::uint64_t>(b.size()) + (1u << 20) + ((1u << 20) - 1)) &
            ~((1ull << 20) - 1);
  }
  sim::Launch launch;
  launch.grid_dim = sim_dims(p.kernel->grid_dim);
  launch.block_dim = sim_dims(p.kernel->block_dim);
  launch.dynamic_shared_bytes = p.binding.dynamic_shared_bytes;
  SimParams params = sim_launch_params(*p.kernel, p.binding, address);
  launch.params = std::move(params.params);
  launch.tensor_maps = std::move(params.tensor_maps);
  sim::Profile profile;
  launch.profile = p.profile ? &profile : nullptr;
  const auto start = Clock::now();
  auto r = sim::run(*p.program, p.binding.entry, launch, memory);
  p.result.launch_ms = ms_since(start);
  if (p.profile)
    p.result.profile = profile.report();
  if (r.fault) {
    p.result.sim_fault = r.fault->kind;
    p.result.sim_race = r.fault->race;
    const std::string fault = std::string(sim::name(r.fault->kind)) + ": " + r.fault->message;
    if (r.fault->kind == sim::FaultKind::unsupported) { // (Program::unsupported missed it)
      mark_unsupported(p, {{r.fault->ptx_line, "", r.fault->message}}, p.binding.entry);
      return;
    }
    switch (sim::origin(r.fault->kind)) {
    case sim::FaultOrigin::kernel:
      judge_fault(p, fault);
      return;
    case sim::FaultOrigin::simulator: // it cannot run this kernel: no verdict, never a pass
    case sim::FaultOrigin::caller:    // the PTX does not fit the spec's launch
      fail(p, CaseResult::Blame::input, CaseResult::Stage::simulate, fault);
      return;
    }
  }
  if (p.tamper_sim_outputs) // --inject-fault (a test hook)
    (*p.tamper_sim_outputs)(p.ptx, bytes);
  judge_no_fault(p, Outputs(bytes.begin(), bytes.end()));
}

/// ConformanceOptions::also_simulate: the simulator's verdict on
/// the case as prepared for the GPU; p.result is left as it was, for the GPU's.
void simulate_too(Prepared& p) {
  const CaseResult base = p.result;
  if (p.ready)
    run_on_sim(p);
  p.sim_result = std::move(p.result);
  p.result = base;
}

/// The case's launch request. Its input tensors move into the request: once the
/// reference, the expectations and any simulator run are done (they are, for a ready
/// case), nothing reads them again, and a 2 GiB tensor is not copied.
cuda::LaunchRequest cuda_request(Prepared& p) {
  std::vector<cuda::HostBuffer> buffers;
  for (auto& [name, b] : p.inputs)
    buffers.push_back({name, std::move(b)});
  p.inputs.clear();
  cuda::LaunchRequest req = launch_request(*p.kernel, p.binding, std::move(buffers));
  req.case_name = p.result.spec;
  req.cubin = p.cubin;
  if (p.cubin.empty())
    req.ptx = p.ptx;
  req.timeout = std::chrono::milliseconds(10'000);
  return req;
}

// a GPU fault whose cubin carries a known ptxas miscompile
// is the toolchain's: say so in the detail and list the matches (CaseResult::traps).
void note_traps(Prepared& p) {
  auto scan = sass::scan_cubin(p.cubin);
  if (scan.traps.empty())
    return;
  p.result.traps = std::move(scan.traps);
  p.result.detail +=
      "; the device rejected PTX that ptxas accepted: " + sass::describe(p.result.traps.front());
  if (p.result.traps.size() > 1)
    p.result.detail += " (and " + std::to_string(p.result.traps.size() - 1) + " more)";
}

void judge_cuda(Prepared& p, const cuda::LaunchOutcome& out) {
  p.result.load_ms = out.load_ms;
  p.result.launch_ms = out.launch_ms;
  using S = cuda::LaunchOutcome::Status;
  switch (out.status) {
  case S::ok:
  case S::canary_damaged: {
    Outputs got; // views of the outcome's buffers: a 2 GiB tensor is not copied again
    for (const auto& b : out.buffers)
      got.emplace(b.name, b.bytes);
    judge_no_fault(p, got);
    if (out.status == S::canary_damaged && p.result.status != CaseResult::Status::error) {
      std::string reports;
      for (const auto& r : out.canary_reports)
        reports += (reports.empty() ? "" : "; ") + r;
      p.result.status =
          p.result.expect_fault ? CaseResult::Status::pass : CaseResult::Status::fault;
      p.result.stage = p.result.expect_fault ? CaseResult::Stage::none : CaseResult::Stage::kernel;
      p.result.evidence =
          p.result.expect_fault ? CaseResult::Evidence::wrote_outside : CaseResult::Evidence::none;
      p.result.detail = "wrote outside its tensor (guard bytes damaged): " + reports;
    }
    break;
  }
  case S::fault:
    judge_fault(p, out.error_name + ": " + out.message);
    note_traps(p);
    break;
  case S::load_error:
    // ptxas accepted the PTX; the driver refusing it is still the input's problem.
    fail(p, CaseResult::Blame::input, CaseResult::Stage::load,
         std::string(cuda::status_name(out.status)) + ": " + out.message);
    break;
  case S::launch_error:
  case S::timed_out: // a kernel that does not finish: its PTX's problem
    fail(p, CaseResult::Blame::input, CaseResult::Stage::launch,
         std::string(cuda::status_name(out.status)) + ": " + out.message);
    break;
  case S::unavailable:
    fail(p, CaseResult::Blame::environment, CaseResult::Stage::device,
         std::string(cuda::status_name(out.status)) + ": " + out.message);
    break;
  }
}

} // namespace

void judge_sanitizer(CaseResult& c, const cuda::SanitizerReport& report) {
  c.sanitizer = report;
  if (c.expect_fault || c.status == CaseResult::Status::error)
    return;
  if (!report.checked) {
    c.status = CaseResult::Status::error;
    c.blame = CaseResult::Blame::environment;
    c.stage = CaseResult::Stage::sanitizer;
    c.detail = "compute-sanitizer did not check the case: " + report.summary();
    return;
  }
  if (report.clean())
    return;
  const std::string said = "compute-sanitizer " + report.summary();
  if (c.status == CaseResult::Status::pass) {
    c.status = CaseResult::Status::fault;
    c.stage = CaseResult::Stage::sanitizer; // the bytes were right: only the tool objects
    c.detail = said;
  } else {
    c.detail += "; " + said;
  }
}

namespace {

/// The simulator's description once its cases ran: a case lowered for a newer target than the
/// run's (sm_90 for bulk copies) was emitted and assembled for that target (prepare), so the
/// description names the targets the cases used, not only the run's.
std::string sim_description(const ConformanceOptions& o, const RunSetup& s,
                            const std::vector<Prepared>& cases) {
  std::set<ptx::Target> used;
  for (const Prepared& p : cases)
    if (p.assembled_for)
      used.insert(*p.assembled_for);
  if (used.empty() || (used.size() == 1 && *used.begin() == s.arch))
    return s.description;
  std::string list;
  for (const ptx::Target& t : used)
    list += (list.empty() ? "" : ", ") + t.str();
  const std::string whose = !o.ptx_override.empty() ? whose_ptx(o)
                            : used.size() == 1      ? "ptxgen's PTX for " + used.begin()->str()
                                                    : "ptxgen's PTX for " + s.arch.str() +
                                                     ", or the newer target a spec's ops need";
  return s.runs_on + "; " + whose + ", assembled by " + s.ptxas_text + " for " +
         (used.size() == 1 ? list : "each spec's target (" + list + ")") + s.extras;
}

/// The sanitizer runner's options for this run.
cuda::SanitizeOptions sanitize_options(const ConformanceOptions& o, const RunSetup& s,
                                       unsigned jobs) {
  cuda::SanitizeOptions so;
  so.tool = *o.sanitize;
  so.sanitizer = *s.sanitizer;
  so.worker = s.self;
  so.device = s.gpus.front().device().ordinal; // the first of --devices
  so.jobs = jobs;
  so.limit = o.sanitize_timeout;
  return so;
}

/// Every case an error that says why the run could not start.
ConformanceReport refuse(const std::vector<ConformanceCase>& cases, const RunSetup& s) {
  ConformanceReport report;
  report.setup = s.state;
  report.backend_description = s.problem;
  for (const auto& in : cases) {
    CaseResult c;
    c.spec = in.name;
    c.expect_fault =
        in.kernel ? in.kernel->must_fault.has_value() : spec_role(in.file) == SpecRole::must_fault;
    c.status = CaseResult::Status::error;
    c.blame = CaseResult::Blame::environment;
    c.stage = CaseResult::Stage::setup;
    c.detail = s.problem;
    report.cases.push_back(std::move(c));
  }
  return report;
}

/// The cases that are ready to launch, and their launch requests, in case order.
void collect_ready(std::vector<Prepared>& cases, std::vector<Prepared*>& ready,
                   std::vector<cuda::LaunchRequest>& requests) {
  for (auto& p : cases) {
    if (!p.ready)
      continue;
    ready.push_back(&p);
    requests.push_back(cuda_request(p));
  }
}

/// Launches the ready cases on the GPUs and judges each outcome, finishing its
/// case, as soon as it arrives. One device: every case in order in a worker
/// process (one context) until a fault or hang ends it, then in a new one.
/// Several: one thread per device takes the cases one at a time from a shared
/// queue (hand_out), each device keeping its worker, so a faster device takes more.
void launch_on_gpus(std::vector<Prepared>& cases, std::vector<cuda::IsolatedRunner>& gpus,
                    const std::function<void(Prepared&)>& finish) {
  std::vector<Prepared*> ready;
  std::vector<cuda::LaunchRequest> requests;
  collect_ready(cases, ready, requests);
  hand_out(ready.size(), gpus.size(), [&](std::size_t gpu, const NextItem& next) {
    const int ordinal = gpus[gpu].device().ordinal;
    gpus[gpu].launch_queue(requests, next, [&](std::size_t i, const cuda::LaunchOutcome& out) {
      ready[i]->result.device = ordinal;
      judge_cuda(*ready[i], out);
      finish(*ready[i]);
    });
  });
}

// the ready cases, each in its own exec'd worker under
// compute-sanitizer (`jobs` at once, on the first device); each outcome is judged
// as soon as it arrives.
void launch_sanitized(std::vector<Prepared>& cases, const ConformanceOptions& o,
                      const RunSetup& setup, unsigned jobs,
                      const std::function<void(Prepared&)>& finish) {
  std::vector<Prepared*> ready;
  std::vector<cuda::LaunchRequest> requests;
  collect_ready(cases, ready, requests);
  const int ordinal = setup.gpus.front().device().ordinal;
  cuda::run_sanitized(std::move(requests), sanitize_options(o, setup, jobs),
                      [&](std::size_t i, const cuda::SanitizedOutcome& out) {
                        ready[i]->result.device = ordinal;
                        judge_cuda(*ready[i], out.outcome);
                        judge_sanitizer(ready[i]->result, out.report);
                        finish(*ready[i]);
                      });
}

} // namespace

void apply_devices(const Distribution& d, ConformanceOptions& o) {
  if (!d.devices)
    return;
  o.all_devices = d.devices->all;
  o.devices = d.devices->ordinals;
}

ConformanceReport run_conformance(const std::vector<fs::path>& specs, const ConformanceOptions& o,
                                  const ProgressFn& progress) {
  return run_conformance(file_cases(specs, o), o, progress);
}

ConformanceReport run_conformance(const std::vector<ConformanceCase>& specs,
                                  const ConformanceOptions& o, const ProgressFn& progress) {
  auto wall = Clock::now();
  RunSetup setup = set_up(o);
  if (setup.state != ConformanceReport::Setup::ready) {
    ConformanceReport report = refuse(specs, setup);
    report.wall_seconds = std::chrono::duration<double>(Clock::now() - wall).count();
    return report;
  }
  ConformanceReport report;
  report.backend_description = setup.description;
  std::vector<Prepared> cases(specs.size());

  // Emit, reference, assemble (and simulate) in parallel; launch on the GPU in order.
  unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> done{0};
  std::mutex progress_mutex;
  auto finish = [&](Prepared& p) {
    std::size_t n = ++done;
    if (progress) {
      std::lock_guard<std::mutex> lock(progress_mutex);
      progress(n, specs.size(), p.result);
    }
  };
  auto worker = [&] {
    for (std::size_t i; (i = next++) < specs.size();) {
      Prepared& p = cases[i];
      try {
        prepare(p, specs[i], o, *setup.ptxas, setup.arch);
        if (p.ready && o.backend == Backend::sim)
          run_on_sim(p);
        else if (o.also_simulate)
          simulate_too(p);
      } catch (const std::exception& e) {
        fail(p, CaseResult::Blame::environment, CaseResult::Stage::internal,
             std::string("internal error: ") + e.what());
        p.ready = false;
      }
      if (o.backend == Backend::sim || !p.ready)
        finish(p);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < std::min<std::size_t>(jobs, specs.size()); ++t)
    pool.emplace_back(worker);
  for (auto& t : pool)
    t.join();

  if (!setup.gpus.empty()) {
    const auto gpu_start = Clock::now();
    if (o.sanitize) // exec'd workers under compute-sanitizer
      launch_sanitized(cases, o, setup, jobs, finish);
    else
      launch_on_gpus(cases, setup.gpus, finish);
    report.device_seconds = std::chrono::duration<double>(Clock::now() - gpu_start).count();
  }
  if (o.backend == Backend::sim)
    report.backend_description = sim_description(o, setup, cases);
  for (auto& p : cases) {
    if (o.also_simulate) // an internal error may have cut it short
      report.sim_cases.push_back(p.sim_result ? std::move(*p.sim_result) : p.result);
    report.cases.push_back(std::move(p.result));
  }
  report.wall_seconds = std::chrono::duration<double>(Clock::now() - wall).count();
  return report;
}

} // namespace ptxgen::driver
