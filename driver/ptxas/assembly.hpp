#pragma once
// What one ptxas run is given and gives back, apart from the functions that run it
// (ptxas.hpp), so that the helpers those functions use (locate, cubin_cache,
// ptxas_output) need not include the header of their caller.

#include "emitter/ptx/target.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ptxgen::driver {

/// Where ptxas is, and which rule found it (for messages).
struct PtxasLocation {
  std::filesystem::path path;
  std::string
      found_by; ///< "--ptxas", "PTXGEN_PTXAS", "the CUDA toolkit found at configure time", "PATH"
};

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

} // namespace ptxgen::driver
