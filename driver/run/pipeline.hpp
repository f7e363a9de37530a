#pragma once
// The front half of every command: spec file -> kernel IR -> checked,
// lowered, validated PTX module -> text. Also the expansion of SPEC|DIR arguments.

#include "emitter/lower/lower.hpp"
#include "emitter/ptx/module.hpp"
#include "emitter/support/diagnostic.hpp"
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

/// Spec folders whose specs must fail: a directory argument skips them; name them
/// explicitly. faults/ specs run unchecked and pass when they show the violation.
inline constexpr std::string_view invalid_dir = "invalid";
inline constexpr std::string_view races_dir = "races";
/// Specs whose kernel does not do what their `[[expect]]` says (check refuses them).
inline constexpr std::string_view wrong_kernel_dir = "wrong_kernel";
inline constexpr std::string_view faults_dir = "faults";

struct EmittedSpec {
  std::filesystem::path spec;
  std::unique_ptr<tile::Kernel> kernel; ///< null when the spec did not load
  std::optional<ptx::Module> module;    ///< absent when the contract or validation failed
  std::string ptx;                      ///< the printed module when there is one
  Diagnostics diagnostics;
  double seconds = 0; ///< ptxgen's own time: load, check, lower, validate, print

  bool ok() const { return module.has_value(); }
};

/// Loads, checks, lowers and prints one spec.
EmittedSpec emit_spec(const std::filesystem::path& spec, const lower::LowerOptions& options);

/// Runs the independent reference over the kernel (with its test inputs) and
/// reports what it finds as errors at the op they concern: a thread reading
/// shared bytes that a pending copy will write (a missing wait), or that
/// another thread wrote with no cta_sync in between (a missing barrier),
/// copies never waited for, undefined shared bytes reaching a global tensor.
/// These are properties of the whole launch, beyond the per-op contract.
/// Then it verifies the spec's expectations (`[[expect]]`) on the reference's final
/// global tensors: each one that fails is an error at its `that` string.
Diagnostics reference_findings(const tile::Kernel& k);

/// The spec files named by command-line arguments: a file as given; a
/// directory as every *.toml below it, sorted, except in subdirectories named
/// `invalid`, `races`, `wrong_kernel` or `faults` (specs that must fail; name them explicitly
/// to use them). Returns false with `error` set for a path that does not exist or a
/// directory that holds no spec.
bool expand_spec_arguments(const std::vector<std::string>& args,
                           std::vector<std::filesystem::path>& specs, std::string& error);

/// The header comments of a golden file: the spec and the command that regenerates it.
std::vector<std::string> golden_header(const std::string& spec_display);

} // namespace ptxgen::driver
