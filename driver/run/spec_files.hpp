#pragma once
// The front half of every command: spec file -> kernel IR -> checked,
// lowered, validated PTX module -> text. Also the expansion of SPEC|DIR arguments.

#include "emitter/lower/lower.hpp"
#include "emitter/ptx/module.hpp"
#include "emitter/support/diagnostic.hpp"
#include "emitter/support/result.hpp"
#include "emitter/tile/kernel.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver {

/// The target ptxgen emits PTX for unless told otherwise (`emit`, `golden`, `instr`,
/// `run`): sm_80, the oldest with cp.async. `run` has ptxas compile it for the run's
/// target (--arch, the device's, or this one).
inline constexpr ptx::Target emitted_target{80, false};

/// What a spec file declares about itself, read from its text (never from its folder).
enum class SpecRole {
  valid,      ///< a kernel every command takes
  refused,    ///< it has `# expect-error:` lines: checking must refuse it with those errors
  must_fault, ///< [kernel] expect = "fault": `run` launches it unchecked and it must fault
};

/// The role of the spec at `spec`: a cheap look at its text and [kernel] table, for
/// directory walks. A file that cannot be read or parsed is `valid`, so that loading it
/// reports why.
SpecRole spec_role(const std::filesystem::path& spec);

/// The reason a valid spec gives for not running on the simulator: the text after
/// `# sim-skip:` on a comment line of its own (a kernel whose PTX the simulator does not run
/// yet, a cluster of several CTAs), or nullopt. `run --backend sim` lists such a spec as
/// skipped with its reason and runs the rest; no other command or backend reads the line.
std::optional<std::string> sim_skip_reason(const std::filesystem::path& spec);

/// Which specs a directory argument stands for (expand_spec_arguments).
enum class SpecWalk {
  valid,            ///< valid specs only (emit, golden, check)
  valid_and_faults, ///< valid specs and those that must fault (run)
  every,            ///< every spec, whatever it declares (tests that walk refused specs)
};

/// How emit_spec treats a spec that declares `expect = "fault"`.
enum class FaultSpecs {
  refuse,        ///< the contract checks it like any other (and refuses it)
  run_unchecked, ///< lowered without the contract, after the contract has refused it
};

struct EmittedSpec {
  std::filesystem::path spec;
  std::unique_ptr<tile::Kernel> kernel; ///< null when the spec did not load
  std::optional<ptx::Module> module;    ///< absent when the contract or validation failed
  std::string ptx;                      ///< the printed module when there is one
  Diagnostics diagnostics;
  double seconds = 0; ///< ptxgen's own time: load, check, lower, validate, print

  bool ok() const { return module.has_value(); }
};

/// Checks, lowers and prints `kernel` into `out` (its module, PTX and diagnostics; not its
/// kernel): emit_spec's second half, for a kernel built without a file.
void lower_into(EmittedSpec& out, const tile::Kernel& kernel, const lower::LowerOptions& options,
                FaultSpecs faults = FaultSpecs::refuse);

/// Loads, checks, lowers and prints one spec. With FaultSpecs::run_unchecked a spec that
/// declares `expect = "fault"` is lowered without the contract, once the contract has been
/// shown to refuse it (a fault spec the contract accepts is run_fault_spec_valid).
EmittedSpec emit_spec(const std::filesystem::path& spec, const lower::LowerOptions& options,
                      FaultSpecs faults = FaultSpecs::refuse);

/// Which of the whole-launch checks' findings check_into keeps.
enum class Findings : bool {
  errors, ///< emit: the errors, which refuse the kernel; notes are left to check
  all,    ///< check: every finding, with one coverage note per parameter the checks ran over
};

/// The whole of `ptxgen check` for one kernel, the one implementation behind every door (the
/// CLI's check, emit, golden and bench; the C++ driver API's check and emit_checked; Python's
/// Kernel.check and Kernel.emit): the contract, the lowering and the validator (lower_into),
/// then, when they pass, the whole-launch checks over every value of the declared ranges
/// (whole_launch_findings, range_proof.hpp: the reference's hazards, the mbarrier walk, the
/// expectations). A kernel they refuse keeps its diagnostics and loses its module and PTX, so
/// that nothing emits what `ptxgen check` refuses. Both halves come from the result cache
/// (result_cache.hpp) when the same kernel was checked before.
void check_into(EmittedSpec& out, const tile::Kernel& kernel, const lower::LowerOptions& options,
                Findings findings);

/// Loads one spec and checks it (check_into); `seconds` covers both.
EmittedSpec check_spec(const std::filesystem::path& spec, const lower::LowerOptions& options,
                       Findings findings);

/// check_spec(spec, options, Findings::errors): what emit, golden and bench take.
EmittedSpec emit_checked_spec(const std::filesystem::path& spec,
                              const lower::LowerOptions& options);

/// The spec files named by command-line arguments: a file as given; a
/// directory as every *.toml below it, sorted, whose role (spec_role) the walk takes:
/// specs that must be refused never, specs that must fault with SpecWalk::valid_and_faults.
/// A file named twice (directly or through directories) is taken once, where it first
/// appears. Fails for a path that does not exist or a directory that holds no spec the
/// walk takes.
Fallible<std::vector<std::filesystem::path>>
expand_spec_arguments(const std::vector<std::string>& args, SpecWalk walk = SpecWalk::valid);

/// The header comments of a golden file: the spec and the command that regenerates it.
std::vector<std::string> golden_header(const std::string& spec_display);

} // namespace ptxgen::driver
