// driver/support/huge_pages: the whole 2 MiB pages of a range (arithmetic written out by
// hand), and, where the kernel offers transparent huge pages (`always` or `madvise`), an
// advised and touched buffer is backed by huge pages (/proc/self/smaps says so).

#include "driver/support/huge_pages.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

// One namespace per file: the sanitizer build compiles several test files as one
// translation unit (cmake/unity.cmake), where file-local names must not meet.
namespace unit_huge_pages {

namespace {

using ptxgen::driver::huge_page_span;

constexpr std::size_t MiB = std::size_t{1} << 20;

/// The kB of AnonHugePages of the mapping that holds `address`, from /proc/self/smaps.
long anon_huge_kb(std::uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-' && line.find(':') > line.find(' ')) {
      inside = lo <= address && address < hi;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0)
      return std::stol(line.substr(14));
  }
  return -1;
}

bool thp_offered() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return s.find("[always]") != std::string::npos || s.find("[madvise]") != std::string::npos;
}

} // namespace

TEST_CASE("huge_page_span: the whole 2 MiB pages inside a range") {
  // Aligned start, 5 MiB: pages at 0 and 2 MiB.
  CHECK(huge_page_span(4 * MiB, 5 * MiB) == std::pair{4 * MiB, 4 * MiB});
  // Start 16 bytes past a page (malloc's header): the first whole page is the next one.
  CHECK(huge_page_span(2 * MiB + 16, 6 * MiB) == std::pair{4 * MiB, 4 * MiB});
  // 3 MiB from 1 MiB: [2 MiB, 4 MiB) is whole.
  CHECK(huge_page_span(1 * MiB, 3 * MiB) == std::pair{2 * MiB, 2 * MiB});
  // Too short to hold a whole page, though longer than one.
  CHECK(huge_page_span(1 * MiB, 2 * MiB + 4096).second == 0);
  CHECK(huge_page_span(0, MiB).second == 0);
}

TEST_CASE("an advised buffer is backed by huge pages once touched") {
  if (!thp_offered()) {
    MESSAGE("transparent huge pages are off here: nothing to observe");
    return;
  }
  const std::size_t n = 16 * MiB;
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(2 * MiB, n));
  REQUIRE(p != nullptr);
  const bool advised = ptxgen::driver::advise_huge_pages(p, n);
  std::memset(p, 1, n);
  const long kb = anon_huge_kb(reinterpret_cast<std::uintptr_t>(p));
  INFO("AnonHugePages of the buffer's mapping: " << kb << " kB");
  CHECK(advised);
  CHECK(kb >= 2048);
  std::free(p);
}

} // namespace unit_huge_pages
