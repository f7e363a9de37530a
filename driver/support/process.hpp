#pragma once
// Running a child process: an argument vector (posix_spawn, never a shell),
// stdout and stderr captured together, a time limit enforced by killing the
// child's whole process group.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ptxgen::driver {

struct ProcessOptions {
  /// The child's process group is killed (SIGKILL) past this; zero means no limit.
  std::chrono::milliseconds timeout{0};
  /// Output beyond this many bytes is read and discarded, so a chatty child
  /// cannot exhaust memory or block on a full pipe.
  std::size_t max_output_bytes = std::size_t{16} << 20;
};

struct ProcessResult {
  enum class Status : std::uint8_t {
    exited,          ///< the child ran and exited; exit_code holds its status
    signaled,        ///< the child was killed by a signal it did not ask for; signal holds it
    timed_out,       ///< the child ran past the time limit and its process group was killed
    failed_to_start, ///< spawning failed (missing, not executable, ...); error_number holds errno
  };
  Status status = Status::exited;
  int exit_code = 0;             ///< valid when status == exited
  int signal = 0;                ///< valid when status == signaled
  int error_number = 0;          ///< errno, valid when status == failed_to_start
  std::string output;            ///< stdout and stderr, interleaved as the child wrote them
  bool output_truncated = false; ///< output reached max_output_bytes
  double seconds = 0;            ///< wall time from spawn to reaping

  /// True when the child exited with status 0.
  bool succeeded() const { return status == Status::exited && exit_code == 0; }
  /// "exited with status 1", "was killed by signal 11 (SIGSEGV)", "did not finish
  /// within 100 ms and was killed", "could not be started: Permission denied".
  std::string describe() const;
};

/// Runs `program` (a path; PATH is not searched) with argv[0] = program and
/// then `args`, each passed literally. stdin is /dev/null. The child gets the
/// parent's environment, default signal dispositions and its own process group.
/// Safe to call from several threads at once.
ProcessResult run_process(const std::filesystem::path& program,
                          const std::vector<std::string>& args, const ProcessOptions& options = {});

/// "SIGSEGV" for 11; "signal N" for a number without a known name.
std::string signal_name(int signal);

} // namespace ptxgen::driver
