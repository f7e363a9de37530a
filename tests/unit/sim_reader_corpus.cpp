// The simulator's reader over every PTX file of the repository: each one ptxas accepted
// parses, and a few hundred seeded mutants of them (lines dropped, duplicated, swapped, moved)
// never crash it and, when refused, say where (line and column of each error).

#include "driver/sim/simulator.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace unit_sim_reader_corpus {

using namespace ptxgen::sim;
namespace fs = std::filesystem;

namespace {

struct File {
  std::string path; ///< relative to the source tree
  std::string text;
};

/// Every `.ptx` under the folders of the source tree that hold only PTX ptxas accepts (the
/// simulator's inputs are assembled by tests/sim.cmake, the goldens by tests/golden.cmake, the
/// foreign corpus is nvcc's output).
std::vector<File> corpus() {
  std::vector<File> out;
  const fs::path root(PTXGEN_SOURCE_DIR);
  for (const char* dir :
       {"tests/foreign/ptx", "tests/lint", "tests/data/sim", "tests/data/sim_front",
        "tests/data/sim_mbarrier", "tests/data/sim_sync", "tests/data/sim_reader", "golden"}) {
    for (const auto& f : fs::recursive_directory_iterator(root / dir)) {
      if (!f.is_regular_file() || f.path().extension() != ".ptx")
        continue;
      std::ifstream in(f.path());
      std::ostringstream s;
      s << in.rdbuf();
      out.push_back({fs::relative(f.path(), root).string(), s.str()});
    }
  }
  std::sort(out.begin(), out.end(), [](const File& a, const File& b) { return a.path < b.path; });
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

/// splitmix64: the same seed, the same mutants on every machine.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
};

/// One to three edits of whole lines.
std::string mutate(const std::string& text, Rng& rng) {
  std::vector<std::string> lines = lines_of(text);
  const std::size_t edits = 1 + rng.below(3);
  for (std::size_t k = 0; k < edits && lines.size() > 1; ++k) {
    const std::size_t a = rng.below(lines.size()), b = rng.below(lines.size());
    switch (rng.below(4)) {
    case 0:
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(a));
      break;
    case 1:
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(b), lines[a]);
      break;
    case 2:
      std::swap(lines[a], lines[b]);
      break;
    default: {
      std::string moved = lines[a];
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(a));
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(std::min(b, lines.size())), moved);
    }
    }
  }
  std::string out;
  for (const auto& l : lines)
    out += l + "\n";
  return out;
}

/// Every diagnostic names a line and column of `text`.
void check_positions(const ptxgen::Diagnostics& d, const std::string& text,
                     const std::string& what) {
  const auto n = static_cast<std::uint32_t>(std::count(text.begin(), text.end(), '\n') + 1);
  for (const auto& x : d.items())
    CHECK_MESSAGE((x.line >= 1 && x.line <= n && x.column >= 1), what << ": " << x.message);
}

} // namespace

TEST_CASE("reader corpus: every PTX file of the repository parses") {
  const std::vector<File> files = corpus();
  REQUIRE(files.size() > 100);
  for (const File& f : files) {
    auto p = Program::parse(f.text);
    CHECK_MESSAGE(p, f.path << ":\n" << p.diagnostics.format_all());
    check_positions(p.diagnostics, f.text, f.path);
  }
}

TEST_CASE("reader corpus: mutants with lines dropped, duplicated or moved parse or say where") {
  const std::vector<File> files = corpus();
  REQUIRE_FALSE(files.empty());
  Rng rng{20261204};
  std::size_t refused = 0;
  constexpr std::size_t mutants = 300;
  for (std::size_t k = 0; k < mutants; ++k) {
    const File& f = files[rng.below(files.size())];
    const std::string text = mutate(f.text, rng);
    const std::string what = f.path + " mutant " + std::to_string(k);
    auto p = Program::parse(text);
    if (!p) {
      ++refused;
      CHECK_MESSAGE(p.diagnostics.has_errors(), what << ": refused with no error");
    }
    check_positions(p.diagnostics, text, what);
  }
  // The mutants are not all harmless: a part of them must be refused (else the edits
  // reach nothing the reader checks).
  CHECK(refused > 0);
  CHECK(refused < mutants);
}

} // namespace unit_sim_reader_corpus
