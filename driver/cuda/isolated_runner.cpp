#include "driver/cuda/isolated_runner.hpp"

#include "driver/cuda/wire.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <optional>
#include <thread>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ptxgen::driver::cuda {
namespace {

using Clock = std::chrono::steady_clock;

bool write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

/// What came back from one child.
struct ChildResult {
  std::string bytes;       ///< everything the child wrote
  bool timed_out = false;  ///< the deadline passed and the child was killed
  int wait_status = 0;     ///< from waitpid
  std::string spawn_error; ///< pipe/fork failure; nothing ran
};

/// Forks a child that runs `work` and writes its return value to a pipe, then
/// collects it. `limit` zero means no deadline.
ChildResult run_in_child(const std::function<std::string()>& work,
                         std::chrono::milliseconds limit) {
  ChildResult result;
  int fds[2];
  if (::pipe(fds) != 0) {
    result.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.spawn_error = std::string("fork: ") + std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    return result;
  }
  if (pid == 0) {
    ::close(fds[0]);
    std::string bytes;
    try {
      bytes = work();
    } catch (...) {
      ::_exit(3); // the parent reports a worker that died without an answer
    }
    ::_exit(write_all(fds[1], bytes) ? 0 : 4);
  }
  ::close(fds[1]);
  const auto deadline = Clock::now() + limit;
  char chunk[65536];
  for (;;) {
    int wait_ms = -1;
    if (limit.count() > 0) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        result.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left, 1000));
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready == 0) {
      continue;
    }
    const ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break; // EOF: the child finished (or died)
    }
    result.bytes.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (result.timed_out) {
    ::kill(pid, SIGKILL);
  }
  // A child whose process exit hangs in driver teardown is killed after 30 s.
  const auto reap_deadline = Clock::now() + std::chrono::seconds(30);
  for (;;) {
    const pid_t r = ::waitpid(pid, &result.wait_status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      break;
    }
    if (Clock::now() > reap_deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &result.wait_status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return result;
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "was killed by signal " + std::to_string(sig) +
           (name != nullptr ? std::string(" (") + name + ")" : std::string());
  }
  if (WIFEXITED(status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  return "ended with wait status " + std::to_string(status);
}

} // namespace

IsolatedRunner::IsolatedRunner(int ordinal, std::string library)
    : ordinal_(ordinal), library_(std::move(library)) {
  info_.ordinal = ordinal;
  if (driver_loaded_in_this_process()) {
    reason_ = "the CUDA driver was already loaded in this process (probe_device or Runner), so "
              "forked workers could not use it; create the IsolatedRunner first";
    return;
  }
  const std::string lib = library_;
  ChildResult child = run_in_child(
      [ordinal, lib] {
        ProbeAnswer answer;
        answer.device = probe_device(ordinal, answer.why, lib);
        return encode_probe(answer);
      },
      std::chrono::milliseconds(60000));
  if (!child.spawn_error.empty()) {
    reason_ = "could not start the probe process: " + child.spawn_error;
    return;
  }
  std::optional<ProbeAnswer> answer = decode_probe(child.bytes);
  if (child.timed_out || !answer) {
    reason_ = child.timed_out ? "the device probe did not answer within 60 s"
                              : "the device probe process " + describe_exit(child.wait_status) +
                                    " before answering";
    return;
  }
  if (!answer->device) {
    reason_ = answer->why;
    return;
  }
  info_ = *answer->device;
}

LaunchOutcome IsolatedRunner::launch(LaunchRequest request) {
  using Status = LaunchOutcome::Status;
  LaunchOutcome out;
  const std::string label = "case " + request.case_name;
  if (!available()) {
    out.status = Status::unavailable;
    out.message = label + " not run: " + reason_;
    return out;
  }
  // The child enforces request.timeout on the kernel itself; this outer limit
  // covers context creation, the JIT and the copies as well.
  const std::chrono::milliseconds limit = request.timeout.count() > 0
                                              ? request.timeout + std::chrono::milliseconds(60000)
                                              : std::chrono::milliseconds(0);
  const int ordinal = ordinal_;
  const std::string lib = library_;
  ChildResult child = run_in_child(
      [&request, ordinal, lib] {
        Runner runner(ordinal, lib);
        return encode_outcome(runner.launch(std::move(request)));
      },
      limit);
  if (!child.spawn_error.empty()) {
    out.status = Status::launch_error;
    out.message = label + ": could not start a worker process: " + child.spawn_error;
    return out;
  }
  if (child.timed_out) {
    out.status = Status::timed_out;
    out.message = label + ": the worker process did not finish within " +
                  std::to_string(limit.count()) + " ms and was killed";
    return out;
  }
  std::optional<LaunchOutcome> decoded = decode_outcome(child.bytes);
  if (!decoded) {
    out.status = Status::fault;
    out.message = label + ": the worker process " + describe_exit(child.wait_status) +
                  " before reporting an outcome";
    return out;
  }
  if (decoded->status == Status::timed_out) {
    decoded->message += " (the worker process was ended, so later cases still run)";
  }
  return std::move(*decoded);
}

} // namespace ptxgen::driver::cuda
