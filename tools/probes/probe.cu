// The probe suite: measures on the GPU what the PTX ISA leaves implicit about
// TMA and bulk copies (docs/ptx-bulk.md, "Measured by the probe suite").
//
//   probe [--out DIR] [--case-timeout S] [--jobs N] [--deadline S]
//                           run every case (N children at a time, default 4; no
//                           child started after S seconds, default 180), print
//                           the table, write DIR/probes.json and DIR/probes.md
//   probe --list            list the cases (no GPU needed)
//   probe --self-test       check the host-side layout analysis (no GPU needed)
//   probe --child FIRST LAST  (internal) run cases [FIRST, LAST) in order
//
// A fault (ILLEGAL_INSTRUCTION, ILLEGAL_ADDRESS) poisons the CUDA context, so
// the parent never touches CUDA: it runs the cases in a child process (this
// binary, exec'd with an argument vector), which reports one line per finished
// case and exits after a fault; the parent starts a new child at the next case.
// A child that stops reporting for --case-timeout seconds is killed and its
// current case recorded as a hang.
#include "cases_swizzle.cuh"
#include "self_test.cuh"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace probes {
namespace {

std::string one_line(std::string s) {
  for (char& ch : s)
    if (ch == '\n' || ch == '\t' || ch == '\r')
      ch = ' ';
  return s;
}

/// The child: run cases from `first` on, one "CASE\t<i>\t<summary>\t<detail>"
/// line each; stop at the first fault, since the context is poisoned.
int child_main(std::size_t first, std::size_t last) {
  const std::vector<Case> cases = all_cases();
  for (std::size_t i = first; i < cases.size() && i < last; ++i) {
    Observed o;
    bool fault = false;
    try {
      o = cases[i].run();
    } catch (const Fault& f) {
      o = {"FAULT " + f.name, ""};
      fault = true;
    }
    std::printf("CASE\t%zu\t%s\t%s\n", i, one_line(o.summary).c_str(), one_line(o.detail).c_str());
    std::fflush(stdout);
    if (fault)
      _exit(3); // no runtime teardown on a poisoned context: it could stall the next case's clock
  }
  std::fflush(stdout);
  _exit(0);
}

struct Row {
  std::string observed = "not run", detail;
};

/// Start a child at `first` with stdout on a pipe; returns its pid and the fd.
/// The pipe is close-on-exec, so a child started by another shard's thread
/// does not hold this pipe's write end open (which would delay its EOF); the
/// argument vector is built before fork, since the child of a threaded
/// process may only call async-signal-safe functions.
pid_t spawn(const std::string& self, std::size_t first, std::size_t last, int* fd) {
  const std::string f = std::to_string(first), l = std::to_string(last);
  char* const argv[] = {const_cast<char*>(self.c_str()), const_cast<char*>("--child"),
                        const_cast<char*>(f.c_str()), const_cast<char*>(l.c_str()), nullptr};
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0)
    return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(p[1], 1); // the copy on fd 1 is not close-on-exec
    execv(self.c_str(), argv);
    _exit(127);
  }
  close(p[1]);
  if (pid < 0) {
    close(p[0]);
    return -1;
  }
  *fd = p[0];
  return pid;
}

/// Feed complete lines of the child's output into `rows`; returns the index
/// after the last case reported.
std::size_t take_lines(std::string& buf, std::vector<Row>& rows, std::size_t next) {
  std::size_t nl;
  while ((nl = buf.find('\n')) != std::string::npos) {
    const std::string line = buf.substr(0, nl);
    buf.erase(0, nl + 1);
    if (line.rfind("CASE\t", 0) != 0)
      continue;
    const std::size_t t1 = line.find('\t', 5), t2 = line.find('\t', t1 + 1);
    if (t1 == std::string::npos || t2 == std::string::npos)
      continue;
    const std::size_t i = std::stoul(line.substr(5, t1 - 5));
    if (i >= rows.size())
      continue;
    rows[i].observed = line.substr(t1 + 1, t2 - t1 - 1);
    rows[i].detail = line.substr(t2 + 1);
    next = i + 1;
  }
  return next;
}

/// Run one child over cases [first, last) until it exits or stalls; returns
/// where the next child starts.
std::size_t run_child(const std::string& self, std::size_t first, std::size_t last,
                      std::vector<Row>& rows, int case_timeout_s) {
  int fd = -1;
  const pid_t pid = spawn(self, first, last, &fd);
  if (pid < 0 || fd < 0) {
    rows[first].observed = "could not start a child";
    return first + 1;
  }
  std::string buf;
  std::size_t next = first;
  bool stalled = false;
  for (;;) {
    pollfd pf{fd, POLLIN, 0};
    const int r = poll(&pf, 1, case_timeout_s * 1000);
    if (r < 0 && errno == EINTR)
      continue;
    if (r == 0) {
      stalled = true;
      kill(pid, SIGKILL);
      break;
    }
    char tmp[4096];
    const ssize_t n = read(fd, tmp, sizeof tmp);
    if (n <= 0)
      break;
    buf.append(tmp, static_cast<std::size_t>(n));
    next = take_lines(buf, rows, next);
  }
  close(fd);
  int status = 0;
  waitpid(pid, &status, 0);
  if (next < last && (stalled || !(WIFEXITED(status) && WEXITSTATUS(status) == 0))) {
    if (stalled)
      rows[next].observed = "HANG (no result in " + std::to_string(case_timeout_s) + " s)";
    else if (WIFSIGNALED(status))
      rows[next].observed = "child killed by signal " + std::to_string(WTERMSIG(status));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 3 && next > first)
      return next; // the fault was reported on the faulting case's own line
    else
      rows[next].observed = "child exited " + std::to_string(WEXITSTATUS(status));
    return next + 1;
  }
  return next < first + 1 ? first + 1 : next;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (const char ch : s) {
    if (ch == '"' || ch == '\\')
      o += '\\';
    o += ch;
  }
  return o + "\"";
}

std::string md_cell(std::string s) {
  std::string o;
  for (const char ch : s)
    o += ch == '|' ? std::string("\\|") : std::string(1, ch);
  return o;
}

void write_outputs(const std::string& dir, const std::vector<Case>& cases,
                   const std::vector<Row>& rows) {
  std::ofstream js(dir + "/probes.json"), md(dir + "/probes.md");
  js << "[\n";
  md << "| probe | parameters | observed | expected by rule |\n|---|---|---|---|\n";
  for (std::size_t i = 0; i < cases.size(); ++i) {
    js << "  {\"probe\": " << json_str(cases[i].probe)
       << ", \"params\": " << json_str(cases[i].params)
       << ", \"observed\": " << json_str(rows[i].observed)
       << ", \"expected\": " << json_str(cases[i].expected)
       << ", \"detail\": " << json_str(rows[i].detail) << "}" << (i + 1 < cases.size() ? "," : "")
       << "\n";
    md << "| " << md_cell(cases[i].probe) << " | " << md_cell(cases[i].params) << " | "
       << md_cell(rows[i].observed) << " | " << md_cell(cases[i].expected) << " |\n";
  }
  js << "]\n";
  md << "\nDetails (where chunks and words landed):\n\n";
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (!rows[i].detail.empty())
      md << "- " << md_cell(cases[i].probe) << ", " << md_cell(cases[i].params) << ": `"
         << rows[i].detail << "`\n";
}

void print_table(const std::vector<Case>& cases, const std::vector<Row>& rows) {
  std::printf("\n%-30s | %-62s | %s\n%-30s | %-62s | %s\n", "probe", "parameters", "observed", "",
              "", "  expected by rule");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    std::printf("%-30s | %-62s | %s\n", cases[i].probe.c_str(), cases[i].params.c_str(),
                rows[i].observed.c_str());
    std::printf("%-30s | %-62s |   rule: %s\n", "", "", cases[i].expected.c_str());
    if (!rows[i].detail.empty())
      std::printf("%-30s | %-62s |   at: %s\n", "", "", rows[i].detail.c_str());
  }
}

/// A case that faulted, hung or lost its child while other contexts shared the
/// GPU runs again alone; where the second result differs, the row says both.
template <class RunOne>
void confirm_alone(std::vector<Row>& rows, RunOne run_one) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row before = rows[i];
    const std::string& o = before.observed;
    if (o.rfind("FAULT", 0) != 0 && o.rfind("HANG", 0) != 0 && o.rfind("child", 0) != 0)
      continue;
    run_one(i);
    if (rows[i].observed.rfind("not run", 0) == 0)
      rows[i] = before;
    else if (rows[i].observed != o)
      rows[i].observed += " (alone; with other contexts running: " + o + ")";
  }
}

/// `jobs` contiguous shards of the cases, each run by its own sequence of
/// children, in parallel (each child has its own context; a fault in one does
/// not touch the others). Shards write disjoint rows. The solo cases (at the
/// end) run after them, alone on the GPU, since a time slice given to another
/// context would stretch their timing.
int parent_main(const std::string& self, const std::string& out_dir, int case_timeout_s,
                unsigned jobs, int deadline_s) {
  const std::vector<Case> cases = all_cases();
  std::vector<Row> rows(cases.size());
  const auto t0 = std::chrono::steady_clock::now();
  std::atomic<int> children{0};
  auto shard = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t next = lo; next < hi; ++children) {
      if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(deadline_s)) {
        for (; next < hi; ++next)
          rows[next].observed = "not run (suite deadline)";
        break;
      }
      next = run_child(self, next, hi, rows, case_timeout_s);
    }
  };
  std::size_t solo = cases.size();
  while (solo > 0 && cases[solo - 1].solo)
    --solo;
  std::vector<std::thread> shards;
  const std::size_t per = (solo + jobs - 1) / jobs;
  for (std::size_t lo = 0; lo < solo; lo += per)
    shards.emplace_back(shard, lo, std::min(solo, lo + per));
  for (std::thread& t : shards)
    t.join();
  shard(solo, cases.size());
  if (jobs > 1)
    confirm_alone(rows, [&](std::size_t i) { shard(i, i + 1); });
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  print_table(cases, rows);
  std::printf("\n%zu cases, %d child processes, %.1f s\n", cases.size(), children.load(), secs);
  if (!out_dir.empty()) {
    write_outputs(out_dir, cases, rows);
    std::printf("wrote %s/probes.json and %s/probes.md\n", out_dir.c_str(), out_dir.c_str());
  }
  return 0;
}

} // namespace
} // namespace probes

int main(int argc, char** argv) {
  std::string out_dir;
  int case_timeout_s = 20;
  unsigned jobs = 4;
  int deadline_s = 180;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--child" && i + 2 < argc)
      return probes::child_main(std::stoul(argv[i + 1]), std::stoul(argv[i + 2]));
    if (a == "--self-test")
      return probes::self_test();
    if (a == "--list") {
      for (const auto& c : probes::all_cases())
        std::printf("%s | %s | rule: %s\n", c.probe.c_str(), c.params.c_str(), c.expected.c_str());
      return 0;
    }
    if (a == "--out" && i + 1 < argc) {
      out_dir = argv[++i];
    } else if (a == "--case-timeout" && i + 1 < argc) {
      case_timeout_s = std::atoi(argv[++i]);
    } else if (a == "--deadline" && i + 1 < argc) {
      deadline_s = std::atoi(argv[++i]);
    } else if (a == "--jobs" && i + 1 < argc) {
      jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    } else {
      std::fprintf(stderr,
                   "usage: %s [--out DIR] [--case-timeout S] [--jobs N] [--deadline S] | --list | "
                   "--self-test\n",
                   argv[0]);
      return 2;
    }
  }
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    std::fprintf(stderr, "cannot resolve /proc/self/exe\n");
    return 2;
  }
  self[n] = '\0';
  return probes::parent_main(self, out_dir, case_timeout_s, jobs, deadline_s);
}
