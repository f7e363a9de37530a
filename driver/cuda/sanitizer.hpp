#pragma once
// compute-sanitizer as a second oracle for GPU cases: which tool, where the
// program is, and what its log says (SanitizerReport).
//
// The log is compute-sanitizer's own text output (--log-file), captured on an
// H200 with compute-sanitizer 2025.3.1 (tests/data/sanitizer/ holds real logs
// and the commands that made them). Every line starts with "========= ". A
// finding is a line that is not indented after that prefix ("Invalid
// __global__ read of size 16 bytes", "Error: Race reported between ...",
// "Barrier error detected. ...", "Program hit CUDA_ERROR_..."), followed by
// indented lines ("    at fault_out_of_bounds+0x90", "    by thread (1,0,0) in
// block (0,0,0)", ...). The run ends with a summary line: "ERROR SUMMARY: N
// errors" (every tool) and, for racecheck, "RACECHECK SUMMARY: N hazards
// displayed (E errors, W warnings)". A log without a summary means the tool
// did not finish checking the program (it crashed or was killed): the report
// says so (checked false), and such a case never counts as clean.
//
// Parsing a foreign tool's text necessarily keys on its wording; ptxgen's own
// messages are never parsed (tests key on the counts and kinds here).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver::cuda {

/// compute-sanitizer's --tool.
enum class SanitizerTool : std::uint8_t {
  memcheck,  ///< out-of-bounds and misaligned accesses, API errors
  racecheck, ///< shared-memory data races between threads
  synccheck, ///< invalid uses of barriers (divergent bar.sync, bad masks)
  initcheck, ///< reads of global memory never written
};
/// "memcheck", "racecheck", "synccheck", "initcheck" (the --tool argument).
std::string_view name(SanitizerTool tool);
/// The tool named `text` (as name() spells it); nullopt otherwise.
std::optional<SanitizerTool> parse_sanitizer_tool(std::string_view text);
/// Every tool, in declaration order.
inline constexpr SanitizerTool all_sanitizer_tools[] = {
    SanitizerTool::memcheck, SanitizerTool::racecheck, SanitizerTool::synccheck,
    SanitizerTool::initcheck};

/// One finding of the log.
struct SanitizerFinding {
  enum class Kind : std::uint8_t {
    memory_access, ///< memcheck: an invalid, misaligned or out-of-range access
    race,          ///< racecheck: a hazard between two accesses (error severity)
    race_warning,  ///< racecheck: a hazard of warning severity
    barrier,       ///< synccheck: a barrier error or invalid barrier arguments
    /// synccheck: "Barrier error detected. Missing wait." (an mbarrier phase no thread
    /// waited on; 2025.3.1 also says it of every cp.async.mbarrier.arrive without .noinc,
    /// a false positive: docs/fuzzing.md)
    barrier_missing_wait,
    uninitialized, ///< initcheck: a read of uninitialised global memory
    api_error,     ///< "Program hit CUDA_ERROR_...": a driver call failed (often after a fault)
    other,         ///< a finding of a kind not listed here (leaks, newer tools' messages)
  };
  Kind kind = Kind::other;
  std::string message;  ///< the headline, without the "========= " prefix
  std::string location; ///< from its "at ..." line ("kernel+0x90"); "" when none
  std::string thread;   ///< from its "by thread ..." line; "" when none
};
/// "memory_access", "race", "race_warning", "barrier", "barrier_missing_wait", "uninitialized",
/// "api_error", "other".
std::string_view name(SanitizerFinding::Kind kind);

/// What compute-sanitizer said of one case.
struct SanitizerReport {
  SanitizerTool tool = SanitizerTool::memcheck;
  /// The summary line was seen: the tool checked the program to its end.
  bool checked = false;
  /// From the summary: errors (racecheck: hazards of error severity).
  std::size_t errors = 0;
  /// racecheck's hazards of warning severity (0 for the other tools).
  std::size_t warnings = 0;
  /// The findings printed (at most --print-limit of them; the counts above may be larger).
  std::vector<SanitizerFinding> findings;
  /// Why the tool did not check the case (checked false): the process's end, a
  /// timeout, a missing log. "" otherwise.
  std::string problem;

  /// Checked, without errors and without warnings: racecheck reports a read of a cp.async
  /// destination before its wait ("Potential RAW hazard detected (invalid memcpy_async
  /// synchronization)") only as a warning, and a hazard is a finding at either severity.
  bool clean() const { return checked && errors == 0 && warnings == 0; }
  /// "racecheck: 1 error, 0 warnings: Error: Race reported between ... at k+0x1a0",
  /// "memcheck: clean", "synccheck: not checked (...)".
  std::string summary() const;
};

/// Reads a log written by `compute-sanitizer --tool TOOL --log-file FILE`.
SanitizerReport parse_sanitizer_log(SanitizerTool tool, std::string_view log);

/// Where compute-sanitizer is looked for, in order: beside `ptxas` (the ptxas
/// the run uses, as given: its directory), on `path_env` (PATH's value), then
/// each of `fallback_dirs`. nullopt when none has an executable one.
std::optional<std::filesystem::path>
locate_compute_sanitizer(const std::filesystem::path& ptxas, std::string_view path_env,
                         const std::vector<std::filesystem::path>& fallback_dirs);
/// /usr/local/cuda/bin: the fallback directory of a CUDA toolkit installation.
std::vector<std::filesystem::path> default_sanitizer_dirs();

} // namespace ptxgen::driver::cuda
