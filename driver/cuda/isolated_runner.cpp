#include "driver/cuda/isolated_runner.hpp"

#include "driver/cuda/batch_process.hpp"
#include "driver/cuda/fd_io.hpp"
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
        if (auto device = probe_device(ordinal, lib))
          answer.device = *device;
        else
          answer.why = device.error();
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
                              : "the device probe process " +
                                    describe_wait_status(child.wait_status) + " before answering";
    return;
  }
  if (!answer->device) {
    reason_ = answer->why;
    return;
  }
  info_ = *answer->device;
}

LaunchOutcome IsolatedRunner::launch(LaunchRequest request) {
  std::vector<LaunchRequest> one;
  one.push_back(std::move(request));
  return std::move(launch_batch(std::move(one)).front());
}

std::vector<LaunchOutcome> IsolatedRunner::launch_batch(
    std::vector<LaunchRequest> requests,
    const std::function<void(std::size_t index, const LaunchOutcome&)>& on_done) {
  std::vector<LaunchOutcome> outcomes(requests.size());
  launch_queue(requests, in_order(requests.size()), [&](std::size_t i, const LaunchOutcome& out) {
    outcomes[i] = out;
    if (on_done) {
      on_done(i, outcomes[i]);
    }
  });
  return outcomes;
}

void IsolatedRunner::launch_queue(
    std::vector<LaunchRequest>& requests, const std::function<std::optional<std::size_t>()>& source,
    const std::function<void(std::size_t index, const LaunchOutcome&)>& on_done) {
  if (!available()) {
    for (auto i = source(); i; i = source()) {
      LaunchOutcome out;
      out.status = LaunchOutcome::Status::unavailable;
      out.message = "case " + requests[*i].case_name + " not run: " + reason_;
      on_done(*i, out);
    }
    return;
  }
  std::vector<BatchCase> cases;
  cases.reserve(requests.size());
  for (const LaunchRequest& r : requests) {
    // The child enforces r.timeout on the kernel itself; this outer limit
    // covers context creation, the JIT and the copies as well.
    cases.push_back({r.case_name, r.timeout.count() > 0
                                      ? r.timeout + std::chrono::milliseconds(60000)
                                      : std::chrono::milliseconds(0)});
  }
  // Created lazily in each child; the parent's stays empty, so every new child
  // starts without CUDA and makes its own context.
  std::optional<Runner> runner;
  const BatchWork work = [&](std::size_t i) {
    if (!runner) {
      runner.emplace(ordinal_, library_);
    }
    BatchStep step;
    step.outcome = runner->launch(std::move(requests[i])); // the child's own copy
    // After a fault the context may look rebuilt, but a fresh process is the
    // only state known to be clean; after a timeout the kernel still runs.
    step.stop = !runner->available() || step.outcome.status == LaunchOutcome::Status::fault ||
                step.outcome.status == LaunchOutcome::Status::timed_out;
    return step;
  };
  run_queue_in_children(cases, source, work,
                        [&](std::size_t i, LaunchOutcome& out) { on_done(i, out); });
}

} // namespace ptxgen::driver::cuda
