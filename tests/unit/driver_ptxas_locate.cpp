// Finding ptxas: --ptxas, then PTXGEN_PTXAS, then the configured toolkit,
// then PATH. A bad explicit path or variable is an error, not a fall-through.

#include "driver/ptxas/locate.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/support/temp_dir.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_driver_ptxas_locate {

namespace fs = std::filesystem;
using ptxgen::driver::locate_ptxas;
using ptxgen::driver::locate_ptxas_in;
using ptxgen::driver::PtxasSearch;
using ptxgen::driver::TempDir;

namespace {

struct Dirs {
  TempDir root;
  fs::path a, b, c;
  static TempDir make() {
    auto d = TempDir::create("ptxgen-test-locate-");
    REQUIRE(d);
    return std::move(*d);
  }
  Dirs() : root(make()), a(root.path() / "a"), b(root.path() / "b"), c(root.path() / "c") {
    for (const auto& d : {a, b, c})
      fs::create_directories(d);
  }
  static fs::path put(const fs::path& dir, bool executable) {
    fs::path p = dir / "ptxas";
    std::ofstream(p) << "#!/bin/sh\n";
    fs::permissions(p, executable ? fs::perms::owner_all
                                  : fs::perms::owner_read | fs::perms::owner_write);
    return p;
  }
};

} // namespace

TEST_CASE("--ptxas wins, and a bad one is an error naming it") {
  Dirs d;
  fs::path good = Dirs::put(d.a, true);
  fs::path env = Dirs::put(d.b, true);

  auto found = locate_ptxas_in({good.string(), env.string(), "", d.b.string()});
  REQUIRE(found);
  CHECK(found->path == good);
  CHECK(found->found_by == "--ptxas");

  auto missing = locate_ptxas_in({"/x/ptxas", env.string(), "", d.b.string()});
  CHECK_FALSE(missing);
  CHECK(missing.error() == "--ptxas '/x/ptxas' is not an executable file: it does not exist");

  auto dir = locate_ptxas_in({d.c.string(), "", "", ""});
  CHECK_FALSE(dir);
  CHECK(dir.error() ==
        "--ptxas '" + d.c.string() + "' is not an executable file: it is a directory");

  fs::path plain = Dirs::put(d.c, false);
  auto not_exec = locate_ptxas_in({plain.string(), "", "", d.b.string()});
  CHECK_FALSE(not_exec);
  CHECK(not_exec.error() ==
        "--ptxas '" + plain.string() +
            "' is not an executable file: it is not executable (Permission denied)");
}

TEST_CASE("PTXGEN_PTXAS comes next, and a bad value does not fall through to PATH") {
  Dirs d;
  fs::path env = Dirs::put(d.a, true);
  Dirs::put(d.b, true);
  auto found = locate_ptxas_in({"", env.string(), "", d.b.string()});
  REQUIRE(found);
  CHECK(found->path == env);
  CHECK(found->found_by == "PTXGEN_PTXAS");

  auto bad = locate_ptxas_in({"", "/nope/ptxas", "", d.b.string()});
  CHECK_FALSE(bad);
  CHECK(bad.error() == "PTXGEN_PTXAS='/nope/ptxas' is not an executable file: it does not exist");
}

TEST_CASE("the configured toolkit, then PATH in order") {
  Dirs d;
  fs::path configured = Dirs::put(d.a, true);
  Dirs::put(d.b, false); // on PATH first, but not executable: skipped
  fs::path on_path = Dirs::put(d.c, true);

  auto conf = locate_ptxas_in({"", "", configured.string(), d.c.string()});
  REQUIRE(conf);
  CHECK(conf->path == configured);
  CHECK(conf->found_by == "the CUDA toolkit found at configure time");

  const std::string path_var = "/nonexistent-dir:" + d.b.string() + ":" + d.c.string();
  auto via_path = locate_ptxas_in({"", "", "/missing/configured/ptxas", path_var});
  REQUIRE(via_path);
  CHECK(via_path->path == on_path);
  CHECK(via_path->found_by == "PATH");
}

TEST_CASE("nothing found is an error that says what to do") {
  Dirs d;
  auto none = locate_ptxas_in({"", "", "/missing/ptxas", d.a.string() + ":" + d.b.string()});
  CHECK_FALSE(none);
  CHECK(none.error() ==
        "ptxas not found: pass --ptxas PATH, set PTXGEN_PTXAS, or put the CUDA toolkit's "
        "bin directory on PATH (looked in '/missing/ptxas' and PATH)");
  auto empty = locate_ptxas_in({});
  CHECK_FALSE(empty);
  CHECK(empty.error() ==
        "ptxas not found: pass --ptxas PATH, set PTXGEN_PTXAS, or put the CUDA toolkit's "
        "bin directory on PATH (looked in PATH)");
}

TEST_CASE("locate_ptxas reads --ptxas before the environment") {
  auto r = locate_ptxas("/definitely/not/here/ptxas");
  CHECK_FALSE(r);
  CHECK(r.error() ==
        "--ptxas '/definitely/not/here/ptxas' is not an executable file: it does not exist");
}

} // namespace unit_driver_ptxas_locate
