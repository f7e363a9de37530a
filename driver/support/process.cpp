#include "driver/support/process.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ptxgen::driver {

namespace {

using Clock = std::chrono::steady_clock;

/// Closes a file descriptor once, on scope exit or on request.
class Fd {
public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { close(); }
  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void close() {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

private:
  int fd_;
};

/// posix_spawn attributes and file actions, destroyed on scope exit.
struct SpawnSetup {
  posix_spawnattr_t attr{};
  posix_spawn_file_actions_t actions{};
  bool attr_ok = false;
  bool actions_ok = false;
  ~SpawnSetup() {
    if (attr_ok)
      posix_spawnattr_destroy(&attr);
    if (actions_ok)
      posix_spawn_file_actions_destroy(&actions);
  }
};

/// Sets up a child with stdin from /dev/null, stdout and stderr into `output_fd`, in a process
/// group of its own (so a time-out kills grandchildren too), with an empty signal mask and
/// default dispositions for the signals a parent commonly changes. Returns 0 or an errno value.
int init_spawn_setup(SpawnSetup& setup, int output_fd) {
  if (int e = posix_spawn_file_actions_init(&setup.actions))
    return e;
  setup.actions_ok = true;
  if (int e = posix_spawnattr_init(&setup.attr))
    return e;
  setup.attr_ok = true;

  int e = posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0);
  if (!e)
    e = posix_spawn_file_actions_adddup2(&setup.actions, output_fd, 1);
  if (!e)
    e = posix_spawn_file_actions_adddup2(&setup.actions, output_fd, 2);
  if (e)
    return e;

  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2})
    sigaddset(&defaults, s);
  e = posix_spawnattr_setflags(
      &setup.attr,
      static_cast<short>(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
  if (!e)
    e = posix_spawnattr_setpgroup(&setup.attr, 0);
  if (!e)
    e = posix_spawnattr_setsigmask(&setup.attr, &empty_mask);
  if (!e)
    e = posix_spawnattr_setsigdefault(&setup.attr, &defaults);
  return e;
}

void append_capped(ProcessResult& r, const char* data, std::size_t n, std::size_t cap) {
  std::size_t room = r.output.size() < cap ? cap - r.output.size() : 0;
  if (n > room)
    r.output_truncated = true;
  r.output.append(data, std::min(n, room));
}

/// Reads what is available without blocking; returns false at end of file or on error.
bool drain(int fd, ProcessResult& r, std::size_t cap) {
  std::array<char, 65536> buffer;
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      append_capped(r, buffer.data(), static_cast<std::size_t>(n), cap);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    return false; // 0: end of file; otherwise a read error, treated the same
  }
}

/// True once the child has exited; the child is left unreaped (a zombie) so
/// its pid keeps naming the process group until we have killed it.
bool child_exited(pid_t pid) {
  siginfo_t info{};
  int rc;
  do {
    rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0)
    return true; // cannot ask: fall through to the blocking wait
  return info.si_pid == pid;
}

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1'000'000L};
  while (::nanosleep(&ts, &ts) < 0 && errno == EINTR) {
  }
}

} // namespace

std::string signal_name(int signal) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  if (const char* abbrev = ::sigabbrev_np(signal))
    return std::string("SIG") + abbrev;
#endif
  return "signal " + std::to_string(signal);
}

std::string ProcessResult::describe() const {
  switch (status) {
  case Status::exited:
    return "exited with status " + std::to_string(exit_code);
  case Status::signaled:
    return "was killed by signal " + std::to_string(signal) + " (" + signal_name(signal) + ")";
  case Status::timed_out:
    return "did not finish in time and was killed";
  case Status::failed_to_start:
    return std::string("could not be started: ") + std::strerror(error_number);
  }
  return "ended in an unknown way";
}

ProcessResult run_process(const std::filesystem::path& program,
                          const std::vector<std::string>& args, const ProcessOptions& options) {
  ProcessResult result;
  auto fail = [&](int err) {
    result.status = ProcessResult::Status::failed_to_start;
    result.error_number = err;
    return result;
  };

  // Both ends close on exec, so a pipe created for one child never leaks into
  // another child spawned concurrently from another thread (which would hold
  // our write end open and delay end of file).
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0)
    return fail(errno);
  Fd read_end(pipe_fds[0]);
  Fd write_end(pipe_fds[1]);

  SpawnSetup setup;
  if (int e = init_spawn_setup(setup, write_end.get()))
    return fail(e);

  std::string program_str = program.string();
  std::vector<char*> argv;
  argv.reserve(args.size() + 2);
  argv.push_back(program_str.data());
  std::vector<std::string> args_copy = args; // posix_spawn takes char* const*
  for (auto& a : args_copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  auto start = Clock::now();
  pid_t pid = -1;
  // glibc's posix_spawn reports an exec failure (ENOENT, EACCES, ENOEXEC) here.
  if (int spawn_error = ::posix_spawn(&pid, program_str.c_str(), &setup.actions, &setup.attr,
                                      argv.data(), environ))
    return fail(spawn_error);
  write_end.close();
  ::fcntl(read_end.get(), F_SETFL, ::fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);

  const bool limited = options.timeout.count() > 0;
  const auto deadline = start + options.timeout;
  bool timed_out = false;
  for (;;) {
    if (child_exited(pid)) {
      if (read_end.open())
        drain(read_end.get(), result, options.max_output_bytes);
      break;
    }
    auto now = Clock::now();
    if (limited && now >= deadline) {
      timed_out = true;
      break;
    }
    // Wake up at least every 20 ms: a grandchild may hold the pipe open after
    // the child itself has exited.
    long slice = 20;
    if (limited)
      slice = std::min<long>(
          slice, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1);
    if (read_end.open()) {
      pollfd p{read_end.get(), POLLIN, 0};
      int rc = ::poll(&p, 1, static_cast<int>(slice));
      if (rc > 0 && !drain(read_end.get(), result, options.max_output_bytes))
        read_end.close();
    } else {
      sleep_ms(1); // output closed; only the exit is awaited
    }
  }

  // Kill whatever is left of the group (everything, on a time-out; stray
  // grandchildren otherwise). The unreaped child keeps the group id alive, so
  // this cannot hit an unrelated process.
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();

  if (timed_out) {
    result.status = ProcessResult::Status::timed_out;
  } else if (WIFEXITED(status)) {
    result.status = ProcessResult::Status::exited;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.status = ProcessResult::Status::signaled;
    result.signal = WTERMSIG(status);
  }
  return result;
}

} // namespace ptxgen::driver
