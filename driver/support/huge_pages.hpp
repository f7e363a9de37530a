#pragma once
// Transparent huge pages for big buffers (the 2 GiB streaming copy through
// `run --backend cuda`): a fresh 2 GiB tensor touched page by page costs 524288 page
// faults of 4 KiB, most of a run's system time on the GPU machine (a VM, where THP is
// in `madvise` mode). Advised with MADV_HUGEPAGE before it is touched, the same memory
// faults in 2 MiB pages: the run went from 40.8 s to 21.2 s there (docs/benchmarks.md).

#include <cstddef>
#include <utility>

namespace ptxgen::driver {

/// Allocations of at least this many bytes are worth advising (one huge page).
inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;

/// The part of [p, p + n) made of whole huge pages: {first, bytes}, bytes 0 when none.
std::pair<std::size_t, std::size_t> huge_page_span(std::size_t p, std::size_t n);

/// Asks the kernel to back the whole huge pages of [p, p + n) with huge pages
/// (madvise MADV_HUGEPAGE); best effort: false where it declined or cannot.
bool advise_huge_pages(void* p, std::size_t n);

} // namespace ptxgen::driver
