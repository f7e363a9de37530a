// Finding and running a disassembler (driver/sass/disassemble.hpp) with fake
// cuobjdump/nvdisasm scripts in private directories, and the traps in the JSON
// report of a run.

#include "driver/run/conformance.hpp"
#include "driver/sass/disassemble.hpp"
#include "driver/support/temp_dir.hpp"
#include "sim_test_data.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_sass_locate {

namespace fs = std::filesystem;
using namespace ptxgen::driver::sass;
using ptxgen::driver::TempDir;

namespace {

struct Dirs {
  TempDir root;
  fs::path ptxas_dir, path1, path2, cuda;
  static TempDir make() {
    std::string error;
    auto d = TempDir::create("ptxgen-test-sass-");
    REQUIRE(d);
    return std::move(*d);
  }
  Dirs()
      : root(make()), ptxas_dir(root.path() / "bin"), path1(root.path() / "p1"),
        path2(root.path() / "p2"), cuda(root.path() / "cuda") {
    for (const auto& d : {ptxas_dir, path1, path2, cuda})
      fs::create_directories(d);
  }
  /// An executable script `dir/file` with `body` after the #! line.
  static fs::path put(const fs::path& dir, const std::string& file, const std::string& body = "") {
    fs::path p = dir / file;
    std::ofstream(p) << "#!/bin/sh\n" << body;
    fs::permissions(p, fs::perms::owner_all);
    return p;
  }
  DisassemblerSearch search() const {
    DisassemblerSearch s;
    s.ptxas_path = (ptxas_dir / "ptxas").string();
    s.path_variable = path1.string() + ":" + path2.string();
    s.cuda_bin = cuda.string();
    return s;
  }
};

} // namespace

TEST_CASE("disassembler: the search order") {
  Dirs d;
  std::string error; // the last search's failure
  auto locate_disassembler_in = [&error](const DisassemblerSearch& s) {
    auto found = ptxgen::driver::sass::locate_disassembler_in(s);
    error = found.error();
    return found;
  };
  auto s = d.search();
  CHECK_FALSE(static_cast<bool>(locate_disassembler_in(s)));
  CHECK(error.find("no disassembler") == 0);
  CHECK(error.find(d.cuda.string()) != std::string::npos);

  // Only nvdisasm, in the toolkit's bin directory.
  Dirs::put(d.cuda, "nvdisasm");
  auto found = locate_disassembler_in(s);
  REQUIRE(found);
  CHECK(found->kind == DisassemblerKind::nvdisasm);
  CHECK(found->found_by == d.cuda.string());

  // cuobjdump anywhere beats nvdisasm; among places: next to ptxas, PATH in order, the toolkit.
  Dirs::put(d.cuda, "cuobjdump");
  CHECK(locate_disassembler_in(s)->path == d.cuda / "cuobjdump");
  Dirs::put(d.path2, "cuobjdump");
  CHECK(locate_disassembler_in(s)->path == d.path2 / "cuobjdump");
  Dirs::put(d.path1, "cuobjdump");
  CHECK(locate_disassembler_in(s)->found_by == "PATH");
  CHECK(locate_disassembler_in(s)->path == d.path1 / "cuobjdump");
  Dirs::put(d.ptxas_dir, "cuobjdump");
  found = locate_disassembler_in(s);
  CHECK(found->path == d.ptxas_dir / "cuobjdump");
  CHECK(found->found_by == "next to ptxas");
  CHECK(found->kind == DisassemblerKind::cuobjdump);

  // The variable, then the explicit path, win; a bad one is an error, not a fall-through.
  fs::path env = Dirs::put(d.root.path(), "my-nvdisasm-13");
  s.env_value = env.string();
  found = locate_disassembler_in(s);
  CHECK(found->path == env);
  CHECK(found->kind == DisassemblerKind::nvdisasm);
  CHECK(found->found_by == "PTXGEN_DISASSEMBLER");
  s.explicit_path = (d.root.path() / "missing").string();
  CHECK_FALSE(static_cast<bool>(locate_disassembler_in(s)));
  CHECK(error.find("--disassembler '") == 0);
  s.explicit_path = (d.path1 / "cuobjdump").string();
  CHECK(locate_disassembler_in(s)->found_by == "--disassembler");
  s.explicit_path.clear();
  s.env_value = d.path2.string(); // a directory
  CHECK_FALSE(static_cast<bool>(locate_disassembler_in(s)));
  CHECK(error.find("PTXGEN_DISASSEMBLER='") == 0);
}

TEST_CASE("disassembler: runs with the cubin in a private file and scans the output") {
  Dirs d;
  const std::string sass_file =
      std::string(PTXGEN_SOURCE_DIR) + "/tests/data/sass/ldgsts_unwritten_uniform.sm_90.sass";
  // The fake checks its arguments and that the file holds the cubin's bytes.
  fs::path fake = Dirs::put(d.path1, "cuobjdump",
                            "[ \"$1\" = -sass ] || exit 7\n"
                            "[ \"$(cat \"$2\")\" = CUBIN ] || exit 8\n"
                            "cat '" +
                                sass_file + "'\n");
  Disassembler dis{fake, DisassemblerKind::cuobjdump, "test"};
  const std::vector<std::uint8_t> cubin = {'C', 'U', 'B', 'I', 'N'};
  auto r = disassemble(dis, cubin);
  REQUIRE_MESSAGE(r, r.error());
  CHECK(*r == ptxgen::test::read_test_data("sass", "ldgsts_unwritten_uniform.sm_90.sass"));
  auto traps = find_traps(parse_sass(*r));
  CHECK(traps.size() == 1);

  // nvdisasm gets -c.
  fs::path nv = Dirs::put(d.path1, "nvdisasm", "[ \"$1\" = -c ] && [ -f \"$2\" ] || exit 7\n");
  CHECK(disassemble({nv, DisassemblerKind::nvdisasm, "test"}, cubin));
  // A failing one says so.
  fs::path bad = Dirs::put(d.path2, "cuobjdump", "echo broken; exit 3\n");
  auto f = disassemble({bad, DisassemblerKind::cuobjdump, "test"}, cubin);
  CHECK_FALSE(f);
  CHECK(f.error().find("broken") != std::string::npos);
  // A run without a cubin (--jit) cannot be scanned.
  CHECK_FALSE(scan_cubin({}).scanned);
}

TEST_CASE("traps in the JSON report of a run") {
  ptxgen::driver::ConformanceReport r;
  ptxgen::driver::CaseResult c;
  c.spec = "tests/traps/ldgsts_unwritten_uniform.toml";
  c.status = ptxgen::driver::CaseResult::Status::fault;
  c.traps = find_traps(
      parse_sass(ptxgen::test::read_test_data("sass", "ldgsts_unwritten_uniform.sm_90.sass")));
  r.cases.push_back(c);
  auto json = ptxgen::driver::to_json(r);
  CHECK(json.find("\"traps\": [{\"id\": \"ldgsts_unwritten_uniform\", \"function\": "
                  "\"ldgsts_hint_trap\", \"sass_line\": 55, \"instruction\": "
                  "\"LDGSTS.E.BYPASS.128 [R9+UR0], desc[UR1][R2.64]\"") != std::string::npos);
  r.cases[0].traps.clear();
  CHECK(ptxgen::driver::to_json(r).find("\"traps\": []") != std::string::npos);
}

} // namespace unit_sass_locate
