#include "driver/cuda/batch_process.hpp"

#include "driver/cuda/frame.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>
#include <utility>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ptxgen::driver::cuda {
namespace {

using Clock = std::chrono::steady_clock;
using Status = LaunchOutcome::Status;

/// How long a child that has sent its last outcome may take to close the pipe
/// and exit before it is killed (driver teardown can hang).
constexpr std::chrono::seconds exit_grace{30};

/// Held from a batch's pipe() until the parent closed the pipe's write end
/// (see run_batch_in_children).
std::mutex fork_mutex;

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// The child: runs cases [first, count) in order, one frame each, then exits.
/// Never returns; _exit skips the parent's destructors and atexit handlers.
[[noreturn]] void child_main(int fd, std::size_t first, std::size_t count, const BatchWork& work) {
  for (std::size_t i = first; i < count; ++i) {
    BatchFrame frame;
    frame.index = i;
    try {
      BatchStep step = work(i);
      frame.last = step.stop;
      frame.outcome = std::move(step.outcome);
    } catch (...) {
      ::_exit(3); // the parent blames case i: the worker died without an answer
    }
    if (!write_all(fd, encode_frame(frame))) {
      ::_exit(4);
    }
    if (frame.last) {
      break;
    }
  }
  ::close(fd); // EOF for the parent now, even if process teardown is slow
  ::_exit(0);
}

/// Waits for `pid`; kills it if it has not ended within exit_grace.
int reap(pid_t pid) {
  int status = 0;
  const auto deadline = Clock::now() + exit_grace;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) {
      return status;
    }
    if (Clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

/// One child and its pipe; kills and reaps the child if left alive (say, when
/// on_done throws).
class Child {
public:
  Child(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      finish();
    }
  }
  int fd() const { return fd_; }
  void kill() const { ::kill(pid_, SIGKILL); }
  /// Closes the pipe and reaps the child; returns its wait status.
  int finish() {
    ::close(fd_);
    const int status = reap(pid_);
    pid_ = -1;
    return status;
  }

private:
  pid_t pid_;
  int fd_;
};

/// Why reading from a child stopped.
enum class End : std::uint8_t {
  eof,       ///< the pipe closed (the child exited or died)
  stopped,   ///< the child sent a frame with `last` set
  deadline,  ///< a case (or the exit after the last one) ran out of time
  malformed, ///< the child sent bytes that are not a frame of the expected case
};

LaunchOutcome failed(Status status, const std::string& text) {
  LaunchOutcome out;
  out.status = status;
  out.message = text;
  return out;
}

} // namespace

std::string describe_wait_status(int status) {
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

std::vector<LaunchOutcome> run_batch_in_children(const std::vector<BatchCase>& cases,
                                                 const BatchWork& work, const BatchDone& on_done) {
  const std::size_t count = cases.size();
  std::vector<LaunchOutcome> results(count);
  std::size_t current = 0; // the first case without an outcome
  auto record = [&](LaunchOutcome outcome) {
    results[current] = std::move(outcome);
    if (on_done) {
      on_done(current, results[current]);
    }
    ++current;
  };
  auto label = [&] { return "case " + cases[current].name; };

  while (current < count) {
    // Several threads may run batches at once (one per device, `--devices`). A
    // child forked by one of them inherits every pipe open in the parent at
    // that moment; holding another batch's write end, it would keep that
    // batch's parent from seeing EOF until it exits. So the pipe, the fork and
    // the parent's close of the write end happen under one lock.
    std::unique_lock<std::mutex> forking(fork_mutex);
    int fds[2];
    if (::pipe(fds) != 0) {
      const int err = errno;
      forking.unlock();
      record(failed(Status::launch_error,
                    label() + ": could not start a worker process: pipe: " + std::strerror(err)));
      continue;
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int err = errno;
      ::close(fds[0]);
      ::close(fds[1]);
      forking.unlock();
      record(failed(Status::launch_error,
                    label() + ": could not start a worker process: fork: " + std::strerror(err)));
      continue;
    }
    if (pid == 0) {
      ::close(fds[0]);
      child_main(fds[1], current, count, work);
    }
    ::close(fds[1]);
    forking.unlock();
    Child child(pid, fds[0]);

    // The deadline of the case the child is on, or of its exit after the last.
    // (A flag and a time point, not std::optional: g++ 12 warns falsely on it.)
    bool has_deadline = false;
    Clock::time_point deadline{};
    auto start_clock = [&] {
      has_deadline = current == count || cases[current].limit.count() > 0;
      if (current == count) {
        deadline = Clock::now() + exit_grace;
      } else if (has_deadline) {
        deadline = Clock::now() + cases[current].limit;
      }
    };
    start_clock();

    FrameReader reader;
    End end = End::eof;
    char chunk[65536];
    while (end == End::eof) {
      int wait_ms = -1;
      if (has_deadline) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
          end = End::deadline;
          break;
        }
        wait_ms = static_cast<int>(std::min<long long>(left + 1, 1000));
      }
      pollfd p{child.fd(), POLLIN, 0};
      const int ready = ::poll(&p, 1, wait_ms);
      if (ready < 0 && errno != EINTR) {
        break; // cannot watch the pipe: treat it as closed
      }
      if (ready <= 0) {
        continue; // EINTR or no data yet: check the deadline again
      }
      const ssize_t n = ::read(child.fd(), chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        break; // EOF: the child finished or died
      }
      reader.feed(std::string_view(chunk, static_cast<std::size_t>(n)));
      BatchFrame frame;
      for (;;) {
        const FrameReader::Next next = reader.next(frame);
        if (next == FrameReader::Next::incomplete) {
          break;
        }
        if (next == FrameReader::Next::malformed || frame.index != current) {
          end = End::malformed;
          break;
        }
        if (frame.outcome.status == Status::timed_out) {
          frame.outcome.message += " (the worker process was ended, so later cases still run)";
        }
        record(std::move(frame.outcome));
        if (frame.last) {
          end = End::stopped;
          break;
        }
        start_clock();
      }
    }

    if (end != End::eof) {
      // Stopped: no need to wait for its teardown. Deadline or garbage: end it.
      child.kill();
    }
    const bool died_mid_frame = reader.partial_bytes() != 0;
    const int status = child.finish();
    if (current == count) {
      break; // every case has its outcome; how the child ended does not matter
    }
    switch (end) {
    case End::stopped:
      break; // the next child takes the rest
    case End::deadline:
      record(failed(Status::timed_out, label() + ": the worker process did not finish within " +
                                           std::to_string(cases[current].limit.count()) +
                                           " ms and was killed"));
      break;
    case End::malformed:
      record(failed(Status::fault,
                    label() + ": the worker process sent an unreadable outcome and was killed"));
      break;
    case End::eof:
      record(failed(
          Status::fault,
          label() + ": the worker process " + describe_wait_status(status) +
              (died_mid_frame ? " while reporting its outcome" : " before reporting an outcome")));
      break;
    }
  }
  return results;
}

} // namespace ptxgen::driver::cuda
