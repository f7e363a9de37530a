#pragma once
// The conformance run: for every spec, emit (or take given PTX), assemble it
// with ptxas (on every backend: PTX that ptxas rejects never passes), run it
// on a backend (the GPU through the CUDA driver, or the CPU simulator), and
// compare every global tensor byte for byte with the independent CPU
// reference. Before the backend runs, the reference's result must meet the
// spec's expectations (`[[expect]]`). Specs that declare expect = "fault"
// ([kernel]) are run unchecked and must fault.

#include "driver/cuda/sanitizer.hpp"
#include "driver/run/shard.hpp"
#include "driver/run/spec_files.hpp"
#include "driver/sass/traps.hpp"
#include "driver/sim/profile.hpp"
#include "driver/sim/simulator.hpp"
#include "emitter/ptx/target.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver {

enum class Backend : std::uint8_t {
  cuda, ///< the GPU through the CUDA Driver API, one isolated process per case
  sim,  ///< the CPU simulator of the emitted PTX
};
std::string_view name(Backend b);

/// One parameter value a run uses instead of the spec's test value.
struct ParamSetting {
  std::string name;
  std::uint64_t value = 0;
};

/// "k_tiles=3, n=5": the settings as a case's name shows them.
std::string settings_text(const std::vector<ParamSetting>& settings);

struct ConformanceOptions {
  Backend backend = Backend::sim;
  int device = 0;
  /// --devices: the GPU cases run on each of these ordinals, one isolated runner
  /// per device, each case handed to the device that is free first (shard.hpp's
  /// hand_out); empty: `device` alone, in one batch.
  std::vector<int> devices;
  /// --devices all: every device the driver lists (then `devices` is ignored).
  bool all_devices = false;
  /// ptxas's target on every backend; default: the device's (cuda), else the --ptx file's
  /// `.target` (never older than emitted_target), else emitted_target.
  std::optional<ptx::Target> arch;
  /// The target of the PTX ptxgen emits (`.target`, and what the lowering may use:
  /// try_wait from sm_90); default emitted_target. Not newer than `arch`.
  std::optional<ptx::Target> target;
  std::string ptxas;             ///< --ptxas; empty: the usual search
  unsigned jobs = 0;             ///< parallel emit/assemble/simulate; 0: core count
  std::string ptx_override;      ///< --ptx FILE contents: run this PTX instead of ptxgen's
  std::string ptx_override_name; ///< the --ptx FILE, named in the backend description
  /// --entry NAME: the entry of the --ptx PTX to run; empty: its only entry
  /// (several: every case is an error naming them, run_entry).
  std::string entry;
  /// Load the PTX through the driver's JIT instead of ptxas's cubin (ptxas still
  /// assembles it first: PTX that ptxas rejects is not run).
  bool jit = false;
  bool unchecked = false; ///< skip the contract for every spec (fault specs always are)
  /// --param NAME=VALUE: every spec file runs with these parameter values instead of its
  /// test values (each must be a parameter of the spec, inside its declared range).
  std::vector<ParamSetting> params;
  /// --param-sweep: each spec file runs once per combination of its parameters' values that
  /// the whole-launch checks run (range_proof.hpp's plan), or at most `sweep_limit` of them
  /// (the first, the last and evenly spaced ones between).
  bool param_sweep = false;
  std::size_t sweep_limit = 64;
  /// When set, the final bytes of every global tensor of every completed case
  /// are written to DIR/<spec path with '/' as '__'>.<tensor>.bin (to compare
  /// two backends byte for byte).
  std::string dump_dir;
  // --sanitize TOOL runs each GPU case in its own exec'd
  // worker under compute-sanitizer (driver/cuda/sanitizer_runner.hpp), `jobs` at once.
  std::optional<cuda::SanitizerTool> sanitize;
  /// --sanitize-timeout: one case's whole sanitizer process; past it the case is timed_out.
  std::chrono::seconds sanitize_timeout{120};
  // `ptxgen fuzz` runs each spec on the GPU and the simulator.
  /// With Backend::cuda: also run every case on the simulator, from the same emitted
  /// PTX, reference and ptxas verdict, in the worker threads before the GPU launches
  /// (ConformanceReport::sim_cases): emit, reference and ptxas once for both backends.
  bool also_simulate = false;
  /// A test hook (`ptxgen fuzz --inject-fault`): called on the simulator's final global
  /// tensors before they are compared, with the case's PTX; it may change them.
  std::function<void(const std::string& ptx,
                     std::map<std::string, std::vector<std::uint8_t>>& outputs)>
      tamper_sim_outputs;
  /// `run --profile`: the simulator collects memory-efficiency figures per case
  /// (CaseResult::profile; driver/sim/profile.hpp).
  bool profile = false;
};

/// One spec's outcome.
struct CaseResult {
  enum class Status : std::uint8_t {
    pass,        ///< every global tensor equals the reference (or, for a fault spec, it faulted)
    mismatch,    ///< some byte differs from the reference
    fault,       ///< the kernel faulted (or, for a fault spec, it did not fault)
    invalid,     ///< the spec did not load, failed its contract, or its reference missed one
                 ///< of its expectations (`[[expect]]`: it describes the wrong kernel)
    error,       ///< ptxas rejected the PTX, the --ptx entry does not fit the spec's ABI, or
                 ///< the loader, the device or the reference failed
    unsupported, ///< the simulator cannot run this kernel (no verdict: not a fault, not a
                 ///< mismatch); CaseResult::unsupported lists every line it cannot run
  };
  /// How a fault spec that passed showed what its contract prevents.
  enum class Evidence : std::uint8_t {
    none,          ///< not a passing fault spec
    fault,         ///< the kernel faulted
    wrong_result,  ///< the kernel completed with a result other than the one asked for
    wrote_outside, ///< the kernel wrote into the guard bytes around a tensor (GPU)
  };
  /// Whose failure a Status::error is.
  enum class Blame : std::uint8_t {
    none,        ///< not an error
    input,       ///< the spec or its PTX (ptxas rejected it, the reference refused it)
    environment, ///< ptxas could not run, the device broke, an output could not be written
  };
  /// The stage whose verdict a status other than pass is: two errors
  /// of one Status from different stages (ptxas refusing the PTX, the reference refusing the
  /// spec) are different outcomes, and the fuzz loop's classes and shrinker tell them apart.
  enum class Stage : std::uint8_t {
    none,      ///< the case passed (or has not been judged)
    emit,      ///< loading the spec, its contract or the lowering refused it (DiagIds)
    reference, ///< the reference refused the spec or missed an expectation (DiagIds)
    ptxas,     ///< ptxas rejected the PTX, or could not run
    bind,      ///< the --ptx entry does not fit the spec's ABI (run_* DiagIds)
    simulate,  ///< the simulator cannot parse or run the kernel with the spec's launch
    load,      ///< the driver refused to load the module ptxas made
    launch,    ///< the launch failed, or the kernel did not finish in time
    kernel,    ///< the kernel faulted, or wrote outside its tensors
    compare,   ///< the kernel completed with bytes other than the reference's
    output,    ///< --dump could not write the final tensors
    sanitizer, ///< compute-sanitizer flagged the case, or did not check it
    device,    ///< the GPU worker or device became unavailable
    setup,     ///< the run could not start (no ptxas, no GPU, ...)
    internal,  ///< an exception inside ptxgen
  };
  std::string spec;
  Status status = Status::error;
  Evidence evidence = Evidence::none;
  Blame blame = Blame::none;
  Stage stage = Stage::none;
  bool expect_fault = false; ///< the spec declares expect = "fault" ([kernel])
  /// The ordinal of the GPU that ran the case; nullopt when none did.
  std::optional<int> device;
  /// On the simulator, the kind of fault the run ended with (what tests switch on).
  std::optional<sim::FaultKind> sim_fault;
  /// On the simulator, for a `race` fault: which accesses conflicted (kind, thread, line,
  /// iteration).
  std::optional<sim::Race> sim_race;
  std::string detail; ///< why it did not pass; for a fault spec, the fault seen
  /// Status::unsupported: every line of the entry the simulator will not run.
  std::vector<sim::UnsupportedLine> unsupported;
  /// The diagnostics of the stage that refused the case, where it gives DiagIds: the
  /// loader, contract and lowering (emit), the reference's problems and missed
  /// expectations (reference), ptxas's errors (ptxas: run_ptxas_rejected, at the lines
  /// of a --ptx file, or naming the spec whose emitted PTX ptxas rejected), a --ptx
  /// entry that does not fit the spec or that the simulator's parser does not read
  /// (bind: run_entry, run_param_count, run_param_type, sim_*). What tests, the fuzz
  /// signature and `run --diagnostics-format` use.
  Diagnostics diagnostics;
  /// A structural fact of the kernel ptxgen emitted (not of its outcome), for a known false
  /// positive of compute-sanitizer: the spec has a copy_arrive op
  /// without noinc (`cp.async.mbarrier.arrive.shared.b64`, which synccheck 2025.3.1 reports
  /// as "Missing wait"). False for --ptx runs (the PTX is not the spec's lowering).
  bool copy_arrive_inc = false;
  double emit_ms = 0, ptxas_ms = 0, reference_ms = 0, load_ms = 0, launch_ms = 0, compare_ms = 0;
  /// The whole-launch checks at the other values of the declared ranges (the range proof),
  /// which run after the reference's own run at the test values; near 0 when cached.
  double proof_ms = 0;
  std::uint64_t bytes_compared = 0;
  /// The spec's expectations, verified on the reference before the backend runs,
  /// and how many of them failed (then the status is invalid and nothing runs).
  std::size_t expectations = 0;
  std::size_t expectations_failed = 0;
  /// on the GPU, a faulting case's known ptxas miscompiles,
  /// found in its cubin's SASS (driver/sass; empty when none or no disassembler).
  std::vector<sass::TrapMatch> traps;
  // what compute-sanitizer said (with --sanitize only). A
  // valid spec that passed the comparison but has sanitizer errors is a `fault`
  // (detail "compute-sanitizer TOOL: ..."); a case the tool did not check is an
  // environment `error`; a fault spec's findings are its expected evidence.
  std::optional<cuda::SanitizerReport> sanitizer;
  /// with ConformanceOptions::profile, the simulator's figures for the case.
  std::optional<sim::ProfileReport> profile;
};
std::string_view name(CaseResult::Status s);
/// "none", "emit", "reference", "ptxas", ... (the enumerator's name; the JSON's `stage`).
std::string_view name(CaseResult::Stage s);
/// Every stage, in declaration order.
inline constexpr CaseResult::Stage all_stages[] = {
    CaseResult::Stage::none,    CaseResult::Stage::emit,   CaseResult::Stage::reference,
    CaseResult::Stage::ptxas,   CaseResult::Stage::bind,   CaseResult::Stage::simulate,
    CaseResult::Stage::load,    CaseResult::Stage::launch, CaseResult::Stage::kernel,
    CaseResult::Stage::compare, CaseResult::Stage::output, CaseResult::Stage::sanitizer,
    CaseResult::Stage::device,  CaseResult::Stage::setup,  CaseResult::Stage::internal};

/// True when the kernel has a copy_arrive op without noinc (CaseResult::copy_arrive_inc).
bool has_copy_arrive_inc(const tile::Kernel& k);

struct ConformanceReport {
  /// Whether the run could start: when not, every case is an error saying why.
  enum class Setup : std::uint8_t {
    ready,        ///< the backend and ptxas were there; the cases ran
    no_gpu,       ///< Backend::cuda without a usable GPU (`auto` falls back to sim)
    no_ptxas,     ///< no ptxas was found where the search looked
    broken_ptxas, ///< the ptxas found cannot assemble an empty kernel for the target
    bad_devices,  ///< of several GPUs (--devices), one is unusable or they differ in target
    no_sanitizer, ///< --sanitize, but no compute-sanitizer beside ptxas, on PATH or in CUDA's bin
  };
  Setup setup = Setup::ready;
  std::vector<CaseResult> cases;
  /// ConformanceOptions::also_simulate: each case's simulator outcome, in the order of
  /// `cases`; empty otherwise or when the setup failed.
  std::vector<CaseResult> sim_cases;
  /// What ran the cases and whose PTX (ptxgen's, or the --ptx file), or why it could not.
  std::string backend_description;
  double wall_seconds = 0;
  /// Of wall_seconds, the GPU phase: from the first batch on a device to the last
  /// outcome (after emit, reference and ptxas); 0 on the simulator.
  double device_seconds = 0;
  /// The part of the whole sweep these cases are (set by the caller that chose them).
  Shard shard;
  std::size_t count(CaseResult::Status s) const;
  bool all_passed() const;
  /// True when the setup failed or some case's error is the environment's.
  bool environment_failed() const;
};
/// "ready", "no_gpu", "no_ptxas", "broken_ptxas", "bad_devices", "no_sanitizer" (also the
/// report's `setup` field).
std::string_view name(ConformanceReport::Setup s);

/// Called after each case finishes (for a progress bar): done, total, the case.
using ProgressFn = std::function<void(std::size_t, std::size_t, const CaseResult&)>;

/// Sets options.devices / all_devices from a distribution's --devices, when it has one.
void apply_devices(const Distribution& d, ConformanceOptions& options);

/// One case of a run: a spec file, or a kernel the caller built (the library's run_kernel:
/// no file is written or read), and the name its CaseResult carries.
struct ConformanceCase {
  std::string name;                     ///< CaseResult::spec
  std::filesystem::path file;           ///< the spec to load, when `kernel` is null
  const tile::Kernel* kernel = nullptr; ///< not owned: outlives the run
  /// Parameter values instead of the file's test values (spec files only: a caller's kernel
  /// carries its own).
  std::vector<ParamSetting> params;
  /// A caller's initial bytes of global tensors, by name, instead of their `init` (each
  /// exactly its tensor's size); not owned.
  const std::map<std::string, std::vector<std::uint8_t>>* inputs = nullptr;
  /// When set, receive the final bytes of every global tensor: the backend's (a launch that
  /// completed) and the reference's (once it ran). Not owned; one per case.
  std::map<std::string, std::vector<std::uint8_t>>* outputs = nullptr;
  std::map<std::string, std::vector<std::uint8_t>>* reference_outputs = nullptr;
};

/// The cases of spec files, named by their paths: each with `o.params`, or with
/// o.param_sweep one case per swept combination, named "SPEC [k_tiles=3]".
std::vector<ConformanceCase> file_cases(const std::vector<std::filesystem::path>& specs,
                                        const ConformanceOptions& o = {});

/// Runs every case. Never throws for a case's failure: each becomes a CaseResult.
ConformanceReport run_conformance(const std::vector<ConformanceCase>& cases,
                                  const ConformanceOptions& options, const ProgressFn& progress);
/// The same for spec files.
ConformanceReport run_conformance(const std::vector<std::filesystem::path>& specs,
                                  const ConformanceOptions& options, const ProgressFn& progress);

// attaches compute-sanitizer's report to a judged case and
// gives the verdict. A fault spec keeps its verdict (its findings are the expected
// evidence), as does an error; a case the tool did not check becomes an environment
// error (never clean); errors or racecheck's warnings (its hazards of warning severity, the
// memcpy_async ones among them) in a case that passed make it a fault.
void judge_sanitizer(CaseResult& c, const cuda::SanitizerReport& report);

/// The report as JSON (report_json.cpp) / as JUnit XML (report_junit.cpp).
std::string to_json(const ConformanceReport& r);
std::string to_junit(const ConformanceReport& r);

} // namespace ptxgen::driver
