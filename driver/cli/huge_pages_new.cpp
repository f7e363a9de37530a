// The ptxgen command's operator new: big allocations (tensors, the reference's state,
// the GPU worker's outcomes) are advised to be backed by transparent huge pages before
// anything touches them (driver/support/huge_pages.hpp). Only the executable replaces
// operator new; the libraries leave a caller's allocator alone. Not under the
// sanitizers, whose runtimes define their own operator new.

#include "driver/support/huge_pages.hpp"

#include <cstdlib>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PTXGEN_SANITIZER_RUNTIME 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PTXGEN_SANITIZER_RUNTIME 1
#endif

#ifndef PTXGEN_SANITIZER_RUNTIME
// The default operator delete frees with std::free, so memory from std::malloc is
// returned the usual way; the nothrow and array forms call this one.
void* operator new(std::size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (!p)
    throw std::bad_alloc();
  if (n >= ptxgen::driver::huge_page_bytes)
    ptxgen::driver::advise_huge_pages(p, n);
  return p;
}
#endif
