// driver/support/huge_pages: the whole 2 MiB pages of a range (arithmetic written out by
// hand), and, where the kernel offers transparent huge pages (`always` or `madvise`), an
// advised buffer's mapping carries MADV_HUGEPAGE (/proc/self/smaps' VmFlags say so).

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

/// The value of the field `key` ("AnonHugePages:", "VmFlags:") of the mapping that holds
/// `address`, from /proc/self/smaps; empty when there is none.
std::string smaps_field(std::uintptr_t address, const std::string& key) {
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
    if (inside && line.rfind(key, 0) == 0)
      return line.substr(key.size());
  }
  return {};
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

// Whether a fault is then served by a huge page depends on the machine's free, unfragmented
// memory at that moment (a busy machine gave 0 kB once), so the test requires what the call
// decides, the mapping's `hg` flag (MADV_HUGEPAGE), and reports the pages it got.
TEST_CASE("an advised buffer's mapping carries the huge-page advice") {
  if (!thp_offered()) {
    MESSAGE("transparent huge pages are off here: nothing to observe");
    return;
  }
  const std::size_t n = 16 * MiB;
  auto* p = static_cast<unsigned char*>(std::aligned_alloc(2 * MiB, n));
  REQUIRE(p != nullptr);
  const bool advised = ptxgen::driver::advise_huge_pages(p, n);
  std::memset(p, 1, n);
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  std::istringstream flags(smaps_field(at, "VmFlags:"));
  bool hg = false;
  for (std::string f; flags >> f;)
    hg = hg || f == "hg";
  INFO("VmFlags:" << smaps_field(at, "VmFlags:")
                  << "; AnonHugePages:" << smaps_field(at, "AnonHugePages:"));
  CHECK(advised);
  CHECK(hg);
  std::free(p);
}

} // namespace unit_huge_pages
