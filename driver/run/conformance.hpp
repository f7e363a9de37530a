#pragma once
// The conformance run: for every spec, emit (or take given PTX), assemble,
// run on a backend (the GPU through the CUDA driver, or the CPU simulator),
// and compare every global tensor byte for byte with the independent CPU
// reference. Specs under a `faults/` folder are run unchecked and must fault.

#include "emitter/ptx/target.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ptxgen::driver {

enum class Backend : std::uint8_t {
  cuda, ///< the GPU through the CUDA Driver API, one isolated process per case
  sim,  ///< the CPU simulator of the emitted PTX
};
std::string_view name(Backend b);

struct ConformanceOptions {
  Backend backend = Backend::sim;
  int device = 0;
  std::optional<ptx::Target> arch; ///< cubin target; default: the device's (cuda) or sm_80
  std::string ptxas;               ///< --ptxas; empty: the usual search
  unsigned jobs = 0;               ///< parallel emit/assemble/simulate; 0: core count
  std::string ptx_override;        ///< --ptx FILE contents: run this PTX instead of ptxgen's
  std::string ptx_override_name;
  bool jit = false;       ///< load PTX through the driver instead of a ptxas cubin
  bool unchecked = false; ///< skip the contract for every spec (faults/ specs always are)
  /// When set, the final bytes of every global tensor of every completed case
  /// are written to DIR/<spec path with '/' as '__'>.<tensor>.bin (to compare
  /// two backends byte for byte).
  std::string dump_dir;
};

/// One spec's outcome.
struct CaseResult {
  enum class Status : std::uint8_t {
    pass,     ///< every global tensor equals the reference (or, under faults/, it faulted)
    mismatch, ///< some byte differs from the reference
    fault,    ///< the kernel faulted (or, under faults/, it did not fault)
    invalid,  ///< the spec did not load or failed its contract (a valid spec must not)
    error,    ///< ptxas, the loader, the device or the reference failed
  };
  std::string spec;
  Status status = Status::error;
  bool expect_fault = false; ///< the spec lives under faults/
  std::string detail;        ///< why it did not pass; for faults/, the fault seen
  std::string backend;       ///< "cuda (NVIDIA H200, sm_90)" or "sim"
  double emit_ms = 0, ptxas_ms = 0, reference_ms = 0, load_ms = 0, launch_ms = 0, compare_ms = 0;
  std::uint64_t bytes_compared = 0;
};
std::string_view name(CaseResult::Status s);

struct ConformanceReport {
  std::vector<CaseResult> cases;
  std::string backend_description; ///< what ran the cases, or why it could not
  double wall_seconds = 0;
  std::size_t count(CaseResult::Status s) const;
  bool all_passed() const;
};

/// Called after each case finishes (for a progress bar): done, total, the case.
using ProgressFn = std::function<void(std::size_t, std::size_t, const CaseResult&)>;

/// Runs every spec. Never throws for a spec's failure: each becomes a CaseResult.
ConformanceReport run_conformance(const std::vector<std::filesystem::path>& specs,
                                  const ConformanceOptions& options, const ProgressFn& progress);

/// True when `spec` lives under a folder named `faults`.
bool is_fault_spec(const std::filesystem::path& spec);

/// The report as JSON / as JUnit XML.
std::string to_json(const ConformanceReport& r);
std::string to_junit(const ConformanceReport& r);

} // namespace ptxgen::driver
