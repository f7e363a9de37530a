#pragma once
// Locating and running ptxas: argument vector, never a shell; temporary files
// in a private directory; a time limit.

#include "emitter/ptx/target.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ptxgen::driver {

/// Where ptxas is, and which rule found it (for messages).
struct PtxasLocation {
  std::filesystem::path path;
  std::string
      found_by; ///< "--ptxas", "PTXGEN_PTXAS", "the CUDA toolkit found at configure time", "PATH"
};

/// Looks in order: `explicit_path` (from --ptxas; empty when not given), the
/// PTXGEN_PTXAS environment variable, the toolkit found at configure time,
/// then PATH. An explicit path or variable that does not name an executable
/// file is an error, not a fall-through. nullopt with `error` set when none is found.
std::optional<PtxasLocation> locate_ptxas(const std::string& explicit_path, std::string& error);

/// What `ptxas -v` reports for one kernel.
struct ResourceUsage {
  std::string entry;
  int registers = 0;
  std::int64_t shared_bytes = 0;
  std::int64_t stack_bytes = 0;
  std::int64_t spill_stores = 0;
  std::int64_t spill_loads = 0;
  std::int64_t constant_bytes = 0;
};

/// One ptxas message mapped back to the PTX line it names.
struct PtxasMessage {
  bool is_error = true;
  std::uint32_t line = 0; ///< 1-based PTX line; 0 when ptxas named none
  std::string text;       ///< ptxas's message without its "ptxas file, line N;" prefix
  std::string ptx_line;   ///< the offending PTX source line, when line != 0
};

struct AssembleOptions {
  ptx::Target target;
  bool verbose = true;                       ///< pass -v and parse resource usage
  bool keep_cubin = true;                    ///< read the cubin back
  std::chrono::milliseconds timeout{60'000}; ///< ptxas is killed past this
  std::vector<std::string> extra_args;       ///< appended to ptxas's argv
};

struct AssembleResult {
  enum class Status : std::uint8_t {
    ok,              ///< ptxas exited 0
    rejected,        ///< ptxas exited non-zero: the PTX is invalid (messages say why)
    failed_to_start, ///< not executable, exec failed
    crashed,         ///< killed by a signal
    timed_out,       ///< ran past the time limit and was killed
    io_error,        ///< could not write the PTX or read the cubin
  };
  Status status = Status::ok;
  int exit_code = 0;
  std::string raw_output; ///< ptxas's stdout and stderr
  std::vector<PtxasMessage> messages;
  std::vector<ResourceUsage> usage; ///< one per entry, from -v
  std::vector<std::uint8_t> cubin;
  double seconds = 0; ///< wall time of the ptxas process

  bool ok() const { return status == Status::ok; }
  /// A one-paragraph description for the user ("ptxas rejected the PTX: ...").
  std::string describe() const;
};

/// Assembles `ptx` text for options.target with the ptxas at `ptxas`.
AssembleResult assemble(const std::filesystem::path& ptxas, std::string_view ptx,
                        const AssembleOptions& options);

/// Assembles an empty kernel whose PTX declares `.target ptx_target` for
/// `arch` (as the real PTX will be). A ptxas that cannot is broken, or does not
/// know `arch`: whatever it says about the real PTX then means nothing, so a
/// caller that cannot tell a rejection from a broken tool checks this first.
AssembleResult self_test(const std::filesystem::path& ptxas, ptx::Target ptx_target,
                         ptx::Target arch);

} // namespace ptxgen::driver
