// assemble() against fake ptxas programs: shell scripts written at test time
// into a private directory and spawned with an argument vector like the real
// one. Each failure mode must give its status and a clear description, never
// hang, and leave no temporary directory behind.

#include "driver/ptxas/assemble_all.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/support/temp_dir.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_driver_ptxas_fake {

namespace fs = std::filesystem;
using ptxgen::driver::assemble;
using ptxgen::driver::assemble_all;
using ptxgen::driver::AssembleJob;
using ptxgen::driver::AssembleOptions;
using ptxgen::driver::AssembleResult;
using ptxgen::driver::TempDir;
using Status = AssembleResult::Status;
using namespace std::chrono_literals;

namespace {

const std::string kPtx = ".version 8.0\n.target sm_90a\n.address_size 64\n"
                         ".visible .entry k()\n{\n\tret;\n}\n";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The most runs in flight at once in a log of "s NANOS" / "e NANOS" lines (starts and ends).
int max_overlap(const fs::path& log) {
  std::vector<std::pair<long long, int>> events; // (time, +1 start / -1 end)
  std::ifstream in(log);
  std::string kind;
  long long ns = 0;
  while (in >> kind >> ns)
    events.emplace_back(ns, kind == "s" ? 1 : -1);
  std::sort(events.begin(), events.end()); // at a tie the end (-1) comes first
  int open = 0, most = 0;
  for (const auto& e : events)
    most = std::max(most, open += e.second);
  return most;
}

/// A scratch area for one test: `bin` holds fake programs; assemble()'s own
/// temporaries go to `tmp` (through $TMPDIR), so a test can see them removed.
struct Sandbox {
  TempDir root;
  fs::path bin;
  fs::path tmp;
  std::optional<std::string> old_tmpdir;

  static TempDir make_root() {
    auto d = TempDir::create("ptxgen-test-fake-ptxas-");
    REQUIRE_MESSAGE(d, d.error());
    return std::move(*d);
  }

  Sandbox() : root(make_root()), bin(root.path() / "bin"), tmp(root.path() / "tmp") {
    fs::create_directories(bin);
    fs::create_directories(tmp);
    if (const char* t = std::getenv("TMPDIR"))
      old_tmpdir = t;
    ::setenv("TMPDIR", tmp.c_str(), 1);
  }
  ~Sandbox() {
    if (old_tmpdir)
      ::setenv("TMPDIR", old_tmpdir->c_str(), 1);
    else
      ::unsetenv("TMPDIR");
  }

  /// Writes an executable `#!/bin/sh` script named `name` with `body`.
  fs::path script(const std::string& name, const std::string& body) {
    fs::path p = bin / name;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    fs::permissions(p, fs::perms::owner_all);
    return p;
  }

  bool no_temporaries_left() const { return fs::is_empty(tmp); }
};

AssembleOptions options_for(const char* target, std::chrono::milliseconds timeout = 20s) {
  AssembleOptions o;
  o.target = *ptxgen::ptx::Target::parse(target);
  o.timeout = timeout;
  return o;
}

} // namespace

TEST_CASE("a well-behaved fake ptxas sees the documented argv and its cubin is read back") {
  Sandbox box;
  const fs::path log = box.root.path() / "log";
  fs::create_directories(log);
  // Records its arguments (one per line) and the PTX it was given, writes a cubin.
  fs::path ptxas = box.script(
      "ptxas", "printf '%s\\n' \"$@\" > '" + (log / "args").string() + "'\n" + "cp \"$5\" '" +
                   (log / "seen.ptx").string() + "'\n" +
                   "printf 'CUBIN-BYTES' > \"$4\"\n"
                   "echo \"ptxas info    : Compiling entry function 'k' for 'sm_90a'\"\n"
                   "echo 'ptxas info    : Function properties for k'\n"
                   "echo '    24 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads'\n"
                   "echo 'ptxas info    : Used 37 registers, used 1 barriers, 1024 bytes smem'\n");
  AssembleOptions o = options_for("sm_90a");
  o.extra_args = {"--extra one", "$(touch pwned)"};
  AssembleResult r = assemble(ptxas, kPtx, o);
  INFO(r.describe());
  REQUIRE(r.status == Status::ok);
  CHECK(r.ok());
  CHECK(r.exit_code == 0);
  CHECK(std::string(r.cubin.begin(), r.cubin.end()) == "CUBIN-BYTES");
  CHECK(read_text(log / "seen.ptx") == kPtx);

  std::vector<std::string> args;
  std::istringstream lines(read_text(log / "args"));
  for (std::string line; std::getline(lines, line);)
    args.push_back(line);
  REQUIRE(args.size() == 7);
  CHECK(args[0] == "-arch=sm_90a");
  CHECK(args[1] == "-v");
  CHECK(args[2] == "-o");
  const fs::path work = fs::path(args[4]).parent_path();
  CHECK(work.parent_path() == box.tmp);
  CHECK(args[3] == (work / "out.cubin").string());
  CHECK(args[4] == (work / "kernel.ptx").string());
  CHECK(args[5] == "--extra one");
  CHECK(args[6] == "$(touch pwned)");
  CHECK_FALSE(fs::exists(work));
  CHECK(box.no_temporaries_left());

  REQUIRE(r.usage.size() == 1);
  CHECK(r.usage[0].entry == "k");
  CHECK(r.usage[0].registers == 37);
  CHECK(r.usage[0].shared_bytes == 1024);
  CHECK(r.usage[0].stack_bytes == 24);
  CHECK(r.usage[0].spill_stores == 4);
  CHECK(r.usage[0].spill_loads == 8);
  CHECK(r.describe() == "ptxas accepted the PTX");
}

TEST_CASE("without -v no flag is passed and no usage parsed") {
  Sandbox box;
  fs::path ptxas = box.script("ptxas", "[ \"$1\" = -arch=sm_80 ] || exit 9\n"
                                       "[ \"$2\" = -o ] || exit 8\n"
                                       "printf X > \"$3\"\n"
                                       "echo \"ptxas info    : Compiling entry function 'k' for "
                                       "'sm_80'\"\n");
  AssembleOptions o = options_for("sm_80");
  o.verbose = false;
  o.keep_cubin = false;
  auto r = assemble(ptxas, kPtx, o);
  INFO(r.describe());
  CHECK(r.status == Status::ok);
  CHECK(r.usage.empty());
  CHECK(r.cubin.empty());
  CHECK(box.no_temporaries_left());
}

TEST_CASE("a rejecting ptxas: messages mapped to PTX lines") {
  Sandbox box;
  fs::path ptxas = box.script("ptxas", "echo \"ptxas $5, line 6; error   : Illegal return\"\n"
                                       "echo 'ptxas fatal   : Ptx assembly aborted due to errors'\n"
                                       "exit 255\n");
  auto r = assemble(ptxas, kPtx, options_for("sm_90a"));
  CHECK(r.status == Status::rejected);
  CHECK(r.exit_code == 255);
  REQUIRE(r.messages.size() == 2);
  CHECK(r.messages[0].line == 6);
  CHECK(r.messages[0].text == "Illegal return");
  CHECK(r.messages[0].ptx_line == "\tret;");
  // The summary line ptxas always adds is left out of the description.
  CHECK(r.describe() ==
        "ptxas rejected the PTX (exit status 255):\n  line 6: Illegal return\n      ret;");
  CHECK(box.no_temporaries_left());
}

TEST_CASE("a ptxas that exits 1 with garbage: rejected, and the garbage is shown") {
  Sandbox box;
  fs::path ptxas = box.script("ptxas", "echo 'zzz @@ not a ptxas message'\nexit 1\n");
  auto r = assemble(ptxas, kPtx, options_for("sm_80"));
  CHECK(r.status == Status::rejected);
  CHECK(r.exit_code == 1);
  CHECK(r.messages.empty());
  CHECK(r.describe() == "ptxas rejected the PTX (exit status 1) without a message ptxgen "
                        "recognises; its output was:\nzzz @@ not a ptxas message");
  CHECK(box.no_temporaries_left());
}

TEST_CASE("a missing ptxas fails to start and says so") {
  Sandbox box;
  const fs::path missing = box.bin / "no-ptxas";
  auto r = assemble(missing, kPtx, options_for("sm_80"));
  CHECK(r.status == Status::failed_to_start);
  CHECK_FALSE(r.ok());
  CHECK(r.describe() ==
        "could not start ptxas '" + missing.string() + "': No such file or directory");
  CHECK(box.no_temporaries_left());
}

TEST_CASE("a ptxas that is not executable fails to start") {
  Sandbox box;
  fs::path ptxas = box.script("ptxas", "exit 0\n");
  fs::permissions(ptxas, fs::perms::owner_read | fs::perms::owner_write);
  auto r = assemble(ptxas, kPtx, options_for("sm_80"));
  CHECK(r.status == Status::failed_to_start);
  CHECK(r.describe() == "could not start ptxas '" + ptxas.string() + "': Permission denied");
  CHECK(box.no_temporaries_left());
}

TEST_CASE("a crashing ptxas is reported with its signal") {
  Sandbox box;
  fs::path ptxas = box.script("ptxas", "echo 'partial output'\nkill -SEGV $$\n");
  auto r = assemble(ptxas, kPtx, options_for("sm_80"));
  CHECK(r.status == Status::crashed);
  CHECK(r.exit_code != 0);
  CHECK(r.describe() == "ptxas '" + ptxas.string() +
                            "' crashed: killed by signal 11 (SIGSEGV); its output was:\n"
                            "partial output");
  CHECK(box.no_temporaries_left());
}

TEST_CASE("a hanging ptxas is killed at the time limit") {
  Sandbox box;
  fs::path ptxas = box.script("ptxas", "sleep 1000\n");
  auto start = std::chrono::steady_clock::now();
  auto r = assemble(ptxas, kPtx, options_for("sm_80", 300ms));
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.status == Status::timed_out);
  CHECK(elapsed < 60.0); // a hang guard: the script sleeps 1000 s
  CHECK(r.describe() ==
        "ptxas '" + ptxas.string() + "' did not finish within 300 ms and was killed");
  CHECK(box.no_temporaries_left());
}

TEST_CASE("a ptxas that exits 0 without a cubin is an I/O error") {
  Sandbox box;
  fs::path ptxas = box.script("ptxas", "echo 'looks fine to me'\nexit 0\n");
  auto r = assemble(ptxas, kPtx, options_for("sm_80"));
  CHECK(r.status == Status::io_error);
  CHECK(r.describe() == "ptxas '" + ptxas.string() +
                            "' exited with status 0 but wrote no cubin; its output was:\n"
                            "looks fine to me");
  CHECK(box.no_temporaries_left());

  fs::path empty = box.script("ptxas-empty", ": > \"$4\"\n");
  auto e = assemble(empty, kPtx, options_for("sm_80"));
  CHECK(e.status == Status::io_error);
  CHECK(e.describe() ==
        "ptxas '" + empty.string() + "' exited with status 0 but wrote an empty cubin");
}

TEST_CASE("an unusable temporary directory is an I/O error") {
  Sandbox box;
  fs::path ptxas = box.script("ptxas", "exit 0\n");
  ::setenv("TMPDIR", (box.root.path() / "missing").c_str(), 1);
  auto r = assemble(ptxas, kPtx, options_for("sm_80"));
  CHECK(r.status == Status::io_error);
  CHECK(r.describe() == "cannot create a temporary directory in '" +
                            (box.root.path() / "missing").string() +
                            "': No such file or directory");
}

TEST_CASE("assemble_all keeps job order and runs jobs side by side") {
  Sandbox box;
  // The cubin is the target name; each run logs its start and end (nanoseconds).
  const fs::path log = box.root.path() / "runs.log";
  fs::path ptxas = box.script("ptxas", "echo \"s $(date +%s%N)\" >> '" + log.string() +
                                           "'\nsleep 0.4\nprintf '%s' \"$1\" > \"$4\"\n"
                                           "echo \"e $(date +%s%N)\" >> '" +
                                           log.string() + "'\n");
  const std::vector<std::string> targets = {"sm_80",  "sm_86",  "sm_89",  "sm_90",
                                            "sm_90a", "sm_100", "sm_120", "sm_80"};
  std::vector<AssembleJob> jobs;
  for (const auto& t : targets)
    jobs.push_back({kPtx, options_for(t.c_str())});
  auto results = assemble_all(ptxas, jobs, 8);
  REQUIRE(results.size() == targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    INFO("job " << i << ": " << results[i].describe());
    CHECK(results[i].ok());
    CHECK(std::string(results[i].cubin.begin(), results[i].cubin.end()) == "-arch=" + targets[i]);
  }
  // Side by side: some run started before another had ended (an order, not a time bound).
  CHECK(max_overlap(log) >= 2);
  CHECK(box.no_temporaries_left());

  // One worker still does every job, in order.
  auto serial = assemble_all(ptxas, {jobs[0], jobs[5]}, 1);
  REQUIRE(serial.size() == 2);
  CHECK(std::string(serial[1].cubin.begin(), serial[1].cubin.end()) == "-arch=sm_100");
  CHECK(assemble_all(ptxas, {}, 0).empty());
}

} // namespace unit_driver_ptxas_fake
