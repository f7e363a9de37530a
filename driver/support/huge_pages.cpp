#include "driver/support/huge_pages.hpp"

#include <cstdint>

#include <sys/mman.h>

namespace ptxgen::driver {

std::pair<std::size_t, std::size_t> huge_page_span(std::size_t p, std::size_t n) {
  const std::size_t first = (p + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  if (n < huge_page_bytes || first < p || first - p > n)
    return {first, 0};
  const std::size_t bytes = (n - (first - p)) / huge_page_bytes * huge_page_bytes;
  return {first, bytes};
}

bool advise_huge_pages(void* p, std::size_t n) {
  const auto [first, bytes] = huge_page_span(reinterpret_cast<std::uintptr_t>(p), n);
  if (bytes == 0)
    return false;
  return ::madvise(reinterpret_cast<void*>(first), bytes, MADV_HUGEPAGE) == 0;
}

} // namespace ptxgen::driver
