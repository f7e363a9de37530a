// The cubin cache (driver/ptxas/cubin_cache.*): SHA-256 against FIPS 180-4's
// test vectors, hits and misses through assemble() with a fake ptxas that counts
// its runs, damaged entries read as misses, and two processes writing one entry.

#include "driver/ptxas/cubin_cache.hpp"
#include "driver/ptxas/ptxas.hpp"
#include "driver/support/sha256.hpp"
#include "driver/support/temp_dir.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_cache_cubin {

namespace fs = std::filesystem;
using namespace ptxgen::driver;
using namespace std::chrono_literals;

namespace {

std::string hex_of(std::string_view s) {
  return Sha256::hex(Sha256::of(s));
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t count_lines(const fs::path& p) {
  std::istringstream in(read_text(p));
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);)
    ++n;
  return n;
}

const std::string kPtx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                         ".visible .entry k()\n{\n\tret;\n}\n";

/// A private cache directory and a fake ptxas that logs each run; the process
/// cache is pointed at the directory for the test's lifetime.
struct CacheBox {
  TempDir root;
  fs::path cache;
  fs::path ptxas;
  fs::path runs;     ///< one line per assembly
  fs::path versions; ///< one line per `--version`

  static TempDir make_root() {
    auto d = TempDir::create("ptxgen-test-cache-");
    REQUIRE_MESSAGE(d, d.error());
    return std::move(*d);
  }

  explicit CacheBox(const std::string& version = "fake ptxas, release 1.0")
      : root(make_root()), cache(root.path() / "cache"), ptxas(root.path() / "ptxas"),
        runs(root.path() / "runs"), versions(root.path() / "versions") {
    // argv: -arch=X [-v] -o OUT PTX; prints a warning naming line 2 and writes a cubin
    // made of the target and the PTX, so different inputs give different cubins.
    std::ofstream(ptxas) << "#!/bin/sh\n"
                            "if [ \"$1\" = --version ]; then echo v >> '"
                         << versions.string() << "'; echo '" << version
                         << "'; exit 0; fi\n"
                            "echo r >> '"
                         << runs.string()
                         << "'\n"
                            "arch=$1; shift; [ \"$1\" = -v ] && shift; shift; out=$1; ptx=$2\n"
                            "{ printf 'CUBIN:%s:' \"$arch\"; cat \"$ptx\"; } > \"$out\"\n"
                            "echo \"ptxas $ptx, line 2; warning : fake warning\"\n";
    fs::permissions(ptxas, fs::perms::owner_all);
    set_process_cache_dir(cache);
  }
  ~CacheBox() { set_process_cache_dir(std::nullopt); }

  AssembleResult run(const std::string& ptx = kPtx, const char* target = "sm_80") {
    AssembleOptions o;
    o.target = *ptxgen::ptx::Target::parse(target);
    o.timeout = 20s;
    return assemble(ptxas, ptx, o);
  }

  std::vector<fs::path> entries() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::recursive_directory_iterator(cache / "v1"))
      if (e.is_regular_file() && e.path().parent_path().filename() != "ptxas")
        out.push_back(e.path());
    return out;
  }
};

} // namespace

TEST_CASE("SHA-256 gives FIPS 180-4's digests") {
  CHECK(hex_of("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(hex_of("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(hex_of("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  Sha256 million;
  const std::string chunk(1000, 'a'); // fed in pieces that straddle the 64-byte blocks
  for (int i = 0; i < 1000; ++i)
    million.update(chunk);
  CHECK(Sha256::hex(million.finish()) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("the key changes with the PTX, the ptxas version and each flag") {
  const auto base = make_cache_key("ptx", "v1", {"-arch=sm_80", "-v"}).hex;
  CHECK(base.size() == 64);
  CHECK(make_cache_key("ptx", "v1", {"-arch=sm_80", "-v"}).hex == base);
  CHECK(make_cache_key("ptx ", "v1", {"-arch=sm_80", "-v"}).hex != base);
  CHECK(make_cache_key("ptx", "v2", {"-arch=sm_80", "-v"}).hex != base);
  CHECK(make_cache_key("ptx", "v1", {"-arch=sm_90", "-v"}).hex != base);
  CHECK(make_cache_key("ptx", "v1", {"-arch=sm_80"}).hex != base);
  CHECK(make_cache_key("ptx", "v1", {"-arch=sm_80-v"}).hex != base);
}

TEST_CASE("a second assembly of the same PTX is a hit that gives back what ptxas returned") {
  CacheBox box;
  const CacheCounters before = process_cache_counters();
  AssembleResult first = box.run();
  REQUIRE(first.ok());
  CHECK(count_lines(box.runs) == 1);
  AssembleResult second = box.run();
  REQUIRE(second.ok());
  CHECK(count_lines(box.runs) == 1); // ptxas did not run again
  CHECK(count_lines(box.versions) == 1);
  CHECK(second.cubin == first.cubin);
  CHECK(second.raw_output == first.raw_output);
  REQUIRE(second.messages.size() == 1);
  CHECK(second.messages[0].line == 2);
  CHECK_FALSE(second.messages[0].is_error);
  CHECK(second.describe() == first.describe());
  const CacheCounters after = process_cache_counters();
  CHECK(after.hits - before.hits == 1);
  CHECK(after.misses - before.misses == 1);

  // Another target and another PTX text are misses.
  REQUIRE(box.run(kPtx, "sm_90").ok());
  CHECK(count_lines(box.runs) == 2);
  REQUIRE(box.run(kPtx + "\n").ok());
  CHECK(count_lines(box.runs) == 3);
  CHECK(box.entries().size() == 3);
  const CacheStats stats = cache_stats(box.cache);
  CHECK(stats.entries == 3);
  auto cleared = cache_clear(box.cache);
  CHECK_MESSAGE(cleared, cleared.error());
  CHECK(cache_stats(box.cache).entries == 0);
}

TEST_CASE("a ptxas of another version misses; one without --version is never cached") {
  {
    CacheBox box("fake ptxas, release 1.0");
    REQUIRE(box.run().ok());
    REQUIRE(box.run().ok());
    CHECK(count_lines(box.runs) == 1);
    // The same file rewritten with another version string (size and mtime change).
    const fs::path cache = box.cache;
    CacheBox other("fake ptxas, release 2.0 and more");
    set_process_cache_dir(cache);
    REQUIRE(other.run().ok());
    CHECK(count_lines(other.runs) == 1);
  }
  CacheBox silent("");
  REQUIRE(silent.run().ok());
  REQUIRE(silent.run().ok());
  CHECK(count_lines(silent.runs) == 2);
  CHECK_FALSE(fs::exists(silent.cache)); // neither an entry nor a version record
}

TEST_CASE("a torn or damaged entry is a miss, and the next store repairs it") {
  CacheBox box;
  REQUIRE(box.run().ok());
  auto entries = box.entries();
  REQUIRE(entries.size() == 1);
  const std::string whole = read_text(entries[0]);

  SUBCASE("truncated") {
    std::ofstream(entries[0], std::ios::binary) << whole.substr(0, whole.size() - 3);
  }
  SUBCASE("one byte of the payload flipped") {
    std::string bad = whole;
    bad[bad.size() - 5] ^= 0x20;
    std::ofstream(entries[0], std::ios::binary) << bad;
  }
  SUBCASE("empty") {
    std::ofstream(entries[0], std::ios::binary) << "";
  }
  const CacheCounters before = process_cache_counters();
  AssembleResult again = box.run();
  REQUIRE(again.ok());
  CHECK(count_lines(box.runs) == 2);
  CHECK(process_cache_counters().corrupt - before.corrupt == 1);
  // Rewritten whole (its output names this run's temporary PTX path, so not byte-equal).
  CHECK(decode_cache_file(read_text(entries[0])).has_value());
  REQUIRE(box.run().ok());
  CHECK(count_lines(box.runs) == 2);
  CHECK(std::string(again.cubin.begin(), again.cubin.end()) == "CUBIN:-arch=sm_80:" + kPtx);
}

TEST_CASE("decode_cache_file accepts exactly what encode_cache_file wrote") {
  const std::string payload("payload\0with\0nuls", 17);
  const std::string file = encode_cache_file(payload);
  CHECK(decode_cache_file(file) == payload);
  CHECK_FALSE(decode_cache_file(file + "x"));
  CHECK_FALSE(decode_cache_file(file.substr(1)));
  CHECK_FALSE(decode_cache_file(""));
}

TEST_CASE("two processes writing one entry while a third reads leave a whole entry") {
  auto root = TempDir::create("ptxgen-test-cache-race-");
  REQUIRE_MESSAGE(root, root.error());
  const fs::path dir = root->path();
  const CacheKey key = make_cache_key("ptx", "v", {"-arch=sm_80"});
  // Large, different entries: a reader of a half-written file would see a mix.
  auto entry = [](char fill) {
    CachedAssembly a;
    a.raw_output = std::string(1000, fill);
    a.cubin.assign(std::size_t{1} << 18, static_cast<std::uint8_t>(fill));
    return a;
  };
  constexpr int kWrites = 100;
  std::vector<pid_t> writers;
  for (char fill : {'a', 'b'}) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      for (int i = 0; i < kWrites; ++i)
        if (!cache_store(dir, key, entry(fill)))
          ::_exit(1);
      ::_exit(0);
    }
    writers.push_back(pid);
  }
  const std::uint64_t corrupt_before = process_cache_counters().corrupt;
  int torn = 0, seen = 0;
  for (int i = 0; i < 400; ++i) {
    auto got = cache_lookup(dir, key);
    if (!got)
      continue;
    ++seen;
    const char fill = got->raw_output.front();
    torn += (got->raw_output != entry(fill).raw_output || got->cubin != entry(fill).cubin);
  }
  for (pid_t pid : writers) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  CHECK(torn == 0);
  // Written by rename, a file is never seen half-written (the header check would
  // turn such a file into a miss, and count it here).
  CHECK(process_cache_counters().corrupt - corrupt_before == 0);
  auto last = cache_lookup(dir, key);
  REQUIRE(last.has_value());
  CHECK((last->cubin == entry('a').cubin || last->cubin == entry('b').cubin));
  INFO("entries read during the writes: " << seen);
  // No temporary stays behind.
  std::size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    files += e.is_regular_file() ? 1 : 0;
  CHECK(files == 1);
}

} // namespace unit_cache_cubin
