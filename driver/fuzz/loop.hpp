#pragma once
// `ptxgen fuzz`: differential testing of random specs. Seeds run in batches:
// each batch's specs are generated (driver/fuzz/generator.hpp), written into a private
// temporary directory and run through run_conformance on every backend (the GPU, then
// the simulator without assembling again). A spec that does not pass on every backend
// (which includes a generated spec that the loader, the contract or the reference
// refuses: a generator bug or a false reject) is a finding; so is a mutant of a spec
// that `check` accepts (a false accept). A finding is classified by its outcome
// signature, shrunk keeping that signature (driver/fuzz/shrink.hpp, each round one
// conformance batch) and saved as OUT/<class>-<seed>/{spec.toml,original.toml,
// outcome.json}.

#include "driver/fuzz/generator.hpp"
#include "driver/fuzz/shrink.hpp"
#include "driver/run/conformance.hpp"
#include "driver/run/shard.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::fuzz {

struct FuzzOptions {
  std::uint64_t seed = 0; ///< spec i of the run has seed `seed + i`
  std::size_t count = 0;  ///< specs to run (0: until `seconds`)
  double seconds = 0;     ///< stop starting batches after this long (0: until `count`)
  std::size_t batch = 0;  ///< specs per conformance batch; 0: 32 per job, at least 64
  /// The backends every spec runs on: {sim}, {cuda}, or {cuda, sim} (one conformance
  /// run, ConformanceOptions::also_simulate: emit, reference and ptxas once for both).
  /// `auto_backend`: with no GPU, {sim} alone.
  std::vector<Backend> backends{Backend::sim};
  bool auto_backend = false;
  /// The options of every conformance run (jobs, device, ptxas, arch, test hooks);
  /// backend and assemble are set per run.
  ConformanceOptions conformance;
  GenOptions generator;
  bool shrink = true;
  /// max_batch 0: 4 candidates per job, at least 8 (a round's batch keeps the cores busy;
  /// a larger one evaluates more candidates after the first that still fails).
  ShrinkOptions shrink_options{2000, 0};
  std::size_t shrink_per_class = 2; ///< findings of one class shrunk (the rest only counted)
  std::size_t mutants = 0;          ///< mutants checked per spec
  /// The seed indices i this run takes: contains(shard, i) (driver/run/shard.hpp).
  Shard shard;
  std::string out_dir; ///< findings; empty: not saved
  /// Every generated spec's TOML is also written to DIR/<seed>.toml (for other tools
  /// over the fuzzer's specs, e.g. the SASS trap scan); empty: not kept.
  std::string specs_dir;
  /// A test hook (`--inject-false-accept`): every mutant's TOML is replaced by its valid
  /// parent's, which `check` accepts (to prove that a false accept is found).
  bool inject_false_accept = false;
  /// A test switch (`--check-test-values-only`): mutants are judged with the whole-launch
  /// checks at the test values only (RangeProofOptions::test_values_only), so that the
  /// mutants racy only away from their test value show up as false accepts.
  bool check_test_values_only = false;
  std::string reproduce_tool; ///< argv[0] for the reproduce command in outcome.json
  std::string tool_version;   ///< ptxgen's version, recorded with each finding
};

/// What a spec did on one backend (the parts its signature compares).
struct BackendOutcome {
  Backend backend = Backend::sim;
  CaseResult result;
};

/// What one backend's outcome contributes to a signature: its status and the stage that
/// decided it (a ptxas rejection and a reference refusal are both
/// Status::error, but different outcomes).
struct BackendStatus {
  Backend backend = Backend::sim;
  CaseResult::Status status = CaseResult::Status::error;
  CaseResult::Stage stage = CaseResult::Stage::none;
  bool operator==(const BackendStatus&) const = default;
};

/// A known false positive of a checking tool that explains an outcome
/// (docs/fuzzing.md): the outcome is counted as explained, not as a finding.
enum class Explanation : std::uint8_t {
  none,
  /// compute-sanitizer synccheck 2025.3.1 reports "Missing wait" on every kernel with a
  /// cp.async.mbarrier.arrive without .noinc (copy_arrive without noinc), although the
  /// GPU's bytes, the simulator and the reference agree.
  synccheck_missing_wait_inc,
};
/// "none", "synccheck_missing_wait_inc".
std::string_view name(Explanation e);

/// The outcome signature that classifies a finding and that shrinking keeps.
struct Signature {
  enum class Kind : std::uint8_t {
    backends,      ///< some backend did not pass, or the backends disagree
    false_accept,  ///< a mutant that `check` accepts
    wrong_refusal, ///< a mutant that `check` refuses, but without the DiagId it must have
    // compute-sanitizer as a second oracle (--sanitize).
    sanitizer,     ///< the sanitizer flagged a valid spec (racecheck: a race the simulator saw too)
    race_sim_only, ///< racecheck checked the case and saw no race; the simulator did
    race_racecheck_only, ///< racecheck reported hazards; the simulator ran it and passed
    /// the sanitizer's findings are a known false positive of the
    /// tool on this kernel's structure (`explanation`); no finding.
    sanitizer_explained,
  };
  Kind kind = Kind::backends;
  std::vector<BackendStatus> statuses;
  std::optional<sim::FaultKind> sim_fault;
  std::vector<DiagId> diagnostics; ///< sorted, unique: the error DiagIds of any backend
  /// --sanitize: the tool, and the kinds of its findings (sorted, unique; never the
  /// messages). Set only when the tool checked the case.
  std::optional<cuda::SanitizerTool> sanitizer_tool;
  std::vector<cuda::SanitizerFinding::Kind> sanitizer_findings;
  /// Known ptxas miscompiles in a faulting GPU case's SASS (CaseResult::traps; sorted,
  /// unique): "cuda_fault-sim_pass-trap_ldgsts_unwritten_uniform".
  std::vector<sass::TrapId> traps;
  /// Kind::sanitizer_explained: which known false positive.
  Explanation explanation = Explanation::none;
  bool operator==(const Signature&) const = default;
  /// The finding's class, the folder name's prefix: "sim_mismatch",
  /// "cuda_fault-sim_pass", "sim_invalid-spec_unknown_key", "false_accept",
  /// "cuda_error_ptxas-sim_error_ptxas-run_ptxas_rejected" (an error's stage follows its
  /// status, its first error DiagId ends the name),
  /// "sanitizer_explained-synccheck_missing_wait_inc",
  /// "sanitizer-memcheck_memory_access-cuda_fault-sim_pass",
  /// "race_sim_only-racecheck-cuda_pass-sim_fault-race" ...
  std::string class_name() const;
};
std::string_view name(Signature::Kind k);

/// The signature of one spec's outcomes on every backend.
Signature signature_of(const std::vector<BackendOutcome>& outcomes);
/// True when the signature is a finding (not a pass on every backend, not explained).
bool is_finding(const Signature& s);
/// True when the signature is an explained outcome (Kind::sanitizer_explained).
bool is_explained(const Signature& s);

struct Finding {
  Signature signature;
  std::uint64_t seed = 0;
  std::string original_toml;            ///< as generated (for a mutant: the mutant)
  std::string spec_toml;                ///< shrunk (or the original when not shrunk)
  std::string mutant_what;              ///< for a mutant: what was changed
  std::vector<BackendOutcome> outcomes; ///< of spec_toml
  std::optional<ShrinkStats> shrink;
  std::string saved_to; ///< the finding's folder, when saved
};

/// Time spent per backend (sums over cases, and the conformance runs' wall time).
struct BackendTimes {
  Backend backend = Backend::sim;
  std::size_t cases = 0;
  double wall_s = 0, emit_ms = 0, ptxas_ms = 0, reference_ms = 0, load_ms = 0, launch_ms = 0,
         compare_ms = 0;
};

/// The specs one GPU ran (CaseResult::device of the first backend's outcome).
struct DeviceCount {
  int device = 0;
  std::size_t specs = 0;
};

struct FuzzReport {
  std::uint64_t seed = 0;
  Shard shard;
  /// FuzzOptions::shrink_per_class: `findings` keeps at most this many of each class (`ptxgen
  /// report merge` keeps the same number, the lowest seeds, of the shards' together).
  std::size_t kept_per_class = 0;
  std::size_t specs = 0;  ///< generated specs run
  std::size_t passed = 0; ///< of those, passed on every backend
  /// Of those, explained by a known false positive of a tool (is_explained): neither passed nor
  /// findings.
  std::size_t explained = 0;
  std::size_t mutants = 0;         ///< mutants checked
  std::size_t mutants_refused = 0; ///< refused with the DiagId of their rule
  /// Specs `check` accepts that a backend refutes, counted whether kept or not: mutants check
  /// accepts (Kind::false_accept), and generated specs (valid by construction, accepted by the
  /// contract and the reference) that fault, hang (a timeout is a fault) or mismatch on the GPU
  /// or the simulator (a simulator race is a fault).
  std::size_t false_accepts = 0;
  /// Mutants of rules in pending_rules (mutate.hpp), made but not checked: neither refused
  /// nor false accepts.
  std::size_t mutants_pending = 0;
  /// Mutants by rule (mutation_rules(), in its order; empty without --mutants): how often
  /// a rule applied and how often check refused the result with the rule's DiagId.
  struct RuleCount {
    std::string_view rule;
    DiagId refused_with{};
    std::size_t mutants = 0;
    std::size_t refused = 0;
  };
  std::vector<RuleCount> by_rule;
  /// Specs (and mutants) by class name; "pass" for a spec that passed everywhere.
  std::vector<std::pair<std::string, std::size_t>> by_class;
  /// The explained specs by class name (they are not in by_class).
  std::vector<std::pair<std::string, std::size_t>> explained_by_class;
  std::vector<BackendTimes> backends;
  std::vector<DeviceCount> devices;            ///< by ordinal; empty when no GPU ran a spec
  std::optional<cuda::SanitizerTool> sanitize; ///< --sanitize
  std::vector<Finding> findings;               ///< the shrunk (or first) ones of each class
  double wall_s = 0, shrink_s = 0;
  std::string backend_description; ///< the first backend's, from its first batch
  /// Set when the run could not start (no ptxas, no GPU with cuda); then nothing ran.
  std::optional<ConformanceReport::Setup> setup_failure;
  std::string setup_problem;
  std::vector<std::string> save_errors; ///< findings that could not be written

  double specs_per_hour() const { return per_hour(specs); }
  /// `n` specs over the run's wall time (e.g. one GPU's DeviceCount::specs).
  double per_hour(std::size_t n) const {
    return wall_s > 0 ? static_cast<double>(n) * 3600.0 / wall_s : 0;
  }
  /// by_class without the entries that are no finding ("pass", "mutant").
  std::vector<std::pair<std::string, std::size_t>> findings_by_class() const;
  /// Specs and mutants that were findings (every one counted, kept or not).
  std::size_t finding_count() const;
};

/// Progress after each batch: specs run so far and findings so far.
using FuzzProgressFn = std::function<void(const FuzzReport&)>;

/// The fuzz run. Never throws for a spec's failure.
FuzzReport run_fuzz(const FuzzOptions& options, const FuzzProgressFn& progress);

/// The report as JSON, and as JUnit XML (one testsuite named with the shard).
std::string to_json(const FuzzReport& r);
std::string to_junit(const FuzzReport& r);

/// compute-sanitizer's verdict on one outcome as the JSON object a saved finding's
/// outcome.json holds: tool, checked, errors, warnings, every finding's kind, and each
/// distinct finding (kind and headline) with its first location and count; "null" without.
std::string sanitizer_json(const std::optional<cuda::SanitizerReport>& r);

} // namespace ptxgen::driver::fuzz
